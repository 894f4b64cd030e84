"""One HTTP exchange from another tool's file, and how it becomes a capture.

A VCR cassette or a HAR file stores a request and its response *body*: the
bytes, but not when each piece arrived nor how the transport cut them. An
:class:`Exchange` is that common shape; :func:`to_recording` turns a
streaming one into a :class:`~inspector.capture.Recording` whose header says
what was lost (``"timed": false`` and ``imported.chunking``), so no view
shows made-up timings.

The body is kept as sent, in its own framing (SSE, NDJSON, a JSON array, an
AWS event stream; :func:`framing_of_body`), and its frames decide which
provider spoke (contract v1.1): the request's URL path and body shape are
only a guess, dropped (and kept as ``imported.request_guess``) when the
frames say otherwise.
"""

from __future__ import annotations

import email.utils
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import unquote, urlsplit

import orjson

from ..core.trace import TransportEnd
from ..inputs import CAPTURE_FORMAT, CAPTURE_VERSION, Recording
from .limits import MAX_NODES, BodyError

__all__ = [
    "Exchange",
    "NotStreaming",
    "is_streaming",
    "provider_of",
    "recorded_exchange",
    "section",
    "structured_body",
    "to_recording",
]

#: The longest request body kept in a capture header, in bytes of JSON/text.
_MAX_REQUEST_BODY: Final = 4 * 1024 * 1024


@dataclass
class Exchange:
    """A request and its response as another tool stored them (bodies decoded)."""

    fmt: str  # "vcr" or "har"
    index: int  # 1-based position in its file
    method: str = "GET"
    url: str = ""
    request_headers: dict[str, str] = field(default_factory=dict)
    request_body: bytes | None = None
    status: int | None = None
    reason: str | None = None
    response_headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    decoded: list[str] = field(default_factory=list)  # what was undone: "base64", "gzip"
    problem: str | None = None  # why the response body could not be read
    started: str | None = None  # ISO 8601, when the tool says
    timings: dict[str, float] = field(default_factory=dict)  # seconds, as in a capture header
    chunks: list[tuple[float, bytes]] | None = None  # when the tool kept per-event timing

    def header(self, name: str, *, response: bool = True) -> str:
        """A header's value (case-insensitive name), or ``""``."""
        headers = self.response_headers if response else self.request_headers
        wanted = name.lower()
        for key, value in headers.items():
            if key.lower() == wanted:
                return value
        return ""


class NotStreaming(ValueError):
    """The exchange is not a streamed model response (a count_tokens call, say)."""


# URL path ending -> provider: the providers' own endpoints.
_PATH_PROVIDERS: Final[tuple[tuple[Callable[[str], bool], str], ...]] = (
    (lambda p: p.endswith("/chat/completions"), "openai-chat"),
    (lambda p: p.endswith("/responses"), "openai-responses"),
    (lambda p: p.endswith("/messages"), "anthropic"),
    (lambda p: ":streamgeneratecontent" in p or ":generatecontent" in p, "gemini"),
)
# Request body key -> provider, when the URL is a proxy's or unknown.
_BODY_PROVIDERS: Final = (
    ("contents", "gemini"),
    ("input", "openai-responses"),
    ("anthropic_version", "anthropic"),
)


def section(header: Mapping[str, Any] | None, name: str) -> Mapping[str, Any]:
    """``header[name]`` when it is a mapping (a capture's ``request``/``response``), else empty."""
    value = header.get(name) if header is not None else None
    return value if isinstance(value, Mapping) else {}


def recorded_exchange(rec: Recording) -> tuple[Mapping[str, Any], Mapping[str, Any], int]:
    """A capture's recorded request and response (empty when absent), and its status.

    What writing a capture as another tool's exchange starts from; the
    status is 200 when none was recorded (a raw SSE body streamed).
    """
    request = section(rec.header, "request")
    response = section(rec.header, "response")
    code = response.get("status")
    return request, response, code if isinstance(code, int) else 200


def structured_body(data: bytes | None) -> Any:
    """The request body as JSON when it is JSON, else as text (None when absent)."""
    if not data:
        return None
    if len(data) > _MAX_REQUEST_BODY:
        return f"[{len(data)} bytes, not kept]"
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return data.decode("utf-8", "replace")


def _bedrock_provider(path: str) -> str | None:
    # ConverseStream has one protocol; invoke carries the model's own, named by its id.
    if path.endswith("/converse-stream"):
        return "bedrock-converse"
    from ..core.adapters.bedrock_invoke import inner_for_model, model_of_path

    return inner_for_model(model_of_path(path))


def provider_of(ex: Exchange) -> str | None:
    """The provider the request went to: URL path first, then the body's shape."""
    raw_path = urlsplit(ex.url).path
    path = raw_path.lower()
    bedrock = _bedrock_provider(raw_path)
    if bedrock is not None:
        return bedrock
    for matches, provider in _PATH_PROVIDERS:
        if matches(path):
            return provider
    body = structured_body(ex.request_body)
    if isinstance(body, dict):
        for key, provider in _BODY_PROVIDERS:
            if key in body:
                return provider
        if "messages" in body and ex.header("anthropic-version", response=False):
            return "anthropic"
        if "messages" in body:
            return "openai-chat"
    return None


#: How much of a body its framing and provider are read from.
_SNIFF: Final = 1 << 20


def framing_of_body(ex: Exchange, body: bytes) -> str:
    """The body's framing: its content type when that names one, else its first bytes."""
    from ..core.framing import detect_framing

    header = {"response": {"headers": dict(ex.response_headers)}}
    return detect_framing(body[:4096], header)


def provider_of_frames(body: bytes, framing: str = "sse") -> str | None:
    """The provider the body's first frames name (None: they name none)."""
    from ..core.adapters import detect_provider
    from ..core.framing import FramingError, decoder_for

    decoder = decoder_for(framing, max_line=_SNIFF, max_frame=_SNIFF)
    try:
        frames = decoder.feed(body[:_SNIFF])
    except FramingError:
        return None  # damaged from its first frame: the capture's check will say where
    return detect_provider(frames)


#: Content types of the streamed framings (besides SSE's).
_STREAM_TYPES: Final = (
    "text/event-stream", "application/vnd.amazon.eventstream", "application/x-ndjson",
    "application/ndjson", "application/jsonl",
)  # fmt: skip
#: URL path endings of streaming endpoints whose body is not SSE.
_STREAM_PATHS: Final = ("/invoke-with-response-stream", "/converse-stream")


def is_streaming(ex: Exchange) -> bool:
    """Whether the exchange is a streamed response (or the error answering a stream request)."""
    from ..core.framing.eventstream import prelude_valid

    content_type = ex.header("content-type").lower()
    if any(kind in content_type for kind in _STREAM_TYPES):
        return True
    path = urlsplit(ex.url).path.lower()
    if ":streamgeneratecontent" in path or path.endswith(_STREAM_PATHS):
        return True
    if prelude_valid((ex.body or b"")[:12]):
        return True
    body = structured_body(ex.request_body)
    if isinstance(body, dict) and body.get("stream") is True:
        return True
    head = (ex.body or b"").lstrip()[:16]
    return head.startswith((b"data:", b"event:", b"id:", b": "))


def _count_nodes(value: Any) -> int:
    # YAML aliases can describe an exponentially large tree in a few lines;
    # walk it with a budget before anything serializes it.
    stack = [value]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_NODES:
            raise BodyError(f"a structured body has more than {MAX_NODES} values; not imported")
        if isinstance(item, Mapping):
            stack.extend(item.values())
        elif isinstance(item, list | tuple):
            stack.extend(item)
    return seen


def json_bytes(value: Any) -> bytes:
    """A structured body (``parsed_body``) as JSON bytes, within the node budget."""
    _count_nodes(value)
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)
    except TypeError as exc:
        raise BodyError(f"a structured body holds a value JSON cannot carry ({exc})") from exc


def _recorded_at(ex: Exchange) -> str | None:
    if ex.started:
        return ex.started
    date = ex.header("date")
    if not date:
        return None
    try:
        when = email.utils.parsedate_to_datetime(date)
    except (TypeError, ValueError, IndexError):
        return None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _model(ex: Exchange, body: Any) -> str | None:
    if isinstance(body, dict) and isinstance(body.get("model"), str):
        return str(body["model"])
    path = urlsplit(ex.url).path
    from ..core.adapters.bedrock_invoke import model_of_path

    invoked = model_of_path(path)
    if invoked is not None:
        return invoked
    if path.endswith("/converse-stream") and "/model/" in path:
        return unquote(path.rsplit("/model/", 1)[1].rsplit("/", 1)[0]) or None
    if "/models/" in path:
        return path.rsplit("/models/", 1)[1].split(":", 1)[0] or None
    return None


def _decided(guessed: str | None, by_frames: str | None, framing: str, body: bytes) -> str | None:
    """v1.1: the frames decide; a URL or request-body guess they contradict is dropped.

    One guess stands without the frames' word: the model id of a Bedrock
    invoke URL, when the frames are invoke ``chunk`` messages whose events no
    shape names (a model's event the table does not know yet) — the frames
    then do not contradict it, and the model id is the only witness.
    """
    if by_frames is not None or framing != "aws-eventstream" or guessed is None:
        return by_frames
    from ..core.adapters.bedrock_invoke import INNER
    from ..core.framing import FramingError, decoder_for

    if guessed not in INNER:
        return None
    try:
        frames = decoder_for(framing).feed(body[:_SNIFF])
    except FramingError:
        return None
    return guessed if frames and all(f.event == "chunk" for f in frames) else None


def to_recording(ex: Exchange, source: str, total: int, path: str) -> Recording:
    """A capture of one streaming exchange (raises :class:`NotStreaming`, :class:`BodyError`).

    ``source`` is the input file's name (for the header), ``total`` how many
    interactions the file holds, ``path`` what the recording is called in
    messages.
    """
    # Imported here so that loading this module costs little.
    from ..redact.imported import redact_recording

    if ex.problem is not None:
        raise BodyError(ex.problem)
    if not is_streaming(ex):
        what = "entry" if ex.fmt == "har" else "interaction"
        raise NotStreaming(
            f"{what} {ex.index} ({ex.method} {ex.status}) is not a streamed response"
        )
    provider = provider_of(ex)
    body = ex.body or b""
    if not body:
        what = "entry" if ex.fmt == "har" else "interaction"
        keeper = "the browser or proxy" if ex.fmt == "har" else "the recorder"
        raise BodyError(
            f"{what} {ex.index} ({ex.method} {ex.status}) streamed, but {keeper} kept no body"
        )
    error_status = ex.status is not None and ex.status >= 400
    request_body = structured_body(ex.request_body)
    guessed = provider
    # Kept as sent, in its own framing: Gemini's streamGenerateContent without
    # alt=sse is a JSON array (framing json-array), Bedrock's an AWS event stream.
    framing = "sse" if error_status else framing_of_body(ex, body)
    if not error_status:
        provider = _decided(guessed, provider_of_frames(body, framing), framing, body)
    imported: dict[str, Any] = {
        "from": ex.fmt,
        "file": source,
        "interaction": ex.index,
        "of": total,
        "timing": "per event" if ex.chunks is not None else "lost",
        "chunking": "one chunk per event" if ex.chunks is not None else "lost",
    }
    if ex.decoded:
        imported["decoded"] = list(ex.decoded)
    if guessed is not None and guessed != provider:
        imported["request_guess"] = guessed  # what the URL / body suggested, overruled
    header: dict[str, Any] = {
        "type": "header",
        "format": CAPTURE_FORMAT,
        "version": CAPTURE_VERSION,
    }
    if provider is not None:
        header["provider"] = provider
    if framing != "sse":
        header["framing"] = framing
    header["endpoint"] = urlsplit(ex.url).path or None
    header["model"] = _model(ex, request_body)
    header["recorded_at"] = _recorded_at(ex)
    header["request"] = {
        "method": ex.method,
        "url": ex.url,
        "headers": dict(ex.request_headers),
        "body": request_body,
    }
    header["response"] = {"status": ex.status, "headers": dict(ex.response_headers)}
    if ex.timings:
        header["timings"] = dict(ex.timings)
    header["timed"] = ex.chunks is not None
    header["imported"] = imported
    if ex.chunks is not None:
        chunks = list(ex.chunks)
        end_time = chunks[-1][0] if chunks else 0.0
    else:
        chunks = [(0.0, body)] if body else []
        end_time = 0.0
    header, chunks = redact_recording(ex, header, chunks)
    return Recording(path, "capture", header, chunks, TransportEnd("eof", end_time))
