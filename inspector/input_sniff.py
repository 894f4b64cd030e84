"""What an input looks like when it is not an SSE stream: the reason detection failed.

When no ``--provider`` is given and neither a capture header nor the first
frames say which provider a stream is from, "cannot tell" is not enough:
the user gave us a gzip file, a HAR, a UTF-16 export, a JSON response body
fetched without ``stream: true``... :func:`describe_input` looks at the
first bytes and names what it sees, from the tables below, so the message
says what to do about it.
"""

from __future__ import annotations

import binascii
import re
from base64 import b64decode
from typing import Final

import orjson

from .core.framing.detect import SNIFF_BYTES
from .core.framing.eventstream import EventStreamDecoder
from .core.sse import DecoderError

__all__ = ["SNIFF_BYTES", "describe_input"]


_DECOMPRESS: Final = "decompress it first, e.g. zcat FILE | inspector events -"

# Magic numbers at offset 0 -> what the file is.
_MAGIC: Final = (
    (b"\x1f\x8b", f"a gzip file (compressed data); {_DECOMPRESS}"),
    (b"\x28\xb5\x2f\xfd", "a zstd file (compressed data); decompress it first"),
    (b"BZh", "a bzip2 file (compressed data); decompress it first"),
    (b"\xfd7zXZ\x00", "an xz file (compressed data); decompress it first"),
    (b"PK\x03\x04", "a zip archive; extract the stream file from it first"),
    (b"\x89PNG", "a PNG image, not a stream"),
    (b"%PDF", "a PDF document, not a stream"),
    (b"SQLite format 3\x00", "an SQLite database, not a stream"),
    (b"\xff\xfe\x00\x00", "UTF-32 text; captures and SSE are UTF-8 (convert it with iconv)"),
    (b"\x00\x00\xfe\xff", "UTF-32 text; captures and SSE are UTF-8 (convert it with iconv)"),
    (
        b"\xff\xfe",
        "UTF-16 text (it starts with a UTF-16 byte order mark); captures and SSE are "
        "UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8 FILE",
    ),
    (
        b"\xfe\xff",
        "UTF-16 text (it starts with a UTF-16 byte order mark); captures and SSE are "
        "UTF-8: convert it first, e.g. iconv -f UTF-16 -t UTF-8 FILE",
    ),
)

# Text documents, recognized by a pattern over the first bytes (after
# whitespace and a UTF-8 BOM), tried in order.
_TEXT_SHAPES: Final = (
    (
        re.compile(rb'^\{\s*"log"\s*:\s*\{.*"entries"', re.S),
        "a HAR file (an HTTP archive), not a capture; save the response body of the "
        "streaming request as a file and open that",
    ),
    (
        re.compile(rb'^[{\[].*"interactions"\s*:', re.S),
        "a VCR cassette (JSON), not a capture; save the recorded response body as a file",
    ),
    (
        re.compile(rb"^(---\s*)?interactions:", re.S),
        "a VCR cassette (YAML), not a capture; save the recorded response body as a file",
    ),
    (
        re.compile(rb'^\{\s*"error"\s*:', re.S),
        "a JSON error body, not a stream",
    ),
    (
        re.compile(rb'^\{.*"(choices|candidates|content|output)"\s*:', re.S),
        "a JSON response body, not a stream; was the request sent with streaming on?",
    ),
    (re.compile(rb"^[{\[]"), "a JSON document, not a capture or an SSE stream"),
    (
        re.compile(rb"^HTTP/[0-9.]+ [0-9]{3}"),
        "an HTTP response with its status line and headers (curl -i); "
        "keep only the body (curl -N without -i)",
    ),
    (re.compile(rb"^<(!doctype html|html|\?xml)", re.I), "an HTML or XML page, not a stream"),
)

_JSON_ARRAY: Final = re.compile(rb"^\[\s*\{")
_FIELD_LINE: Final = re.compile(rb"^(data|event|id|retry)[:\r\n]", re.M)


# NDJSON streams recognized by the keys of their first line: (keys, what it is).
_NDJSON_KINDS: Final = (
    (frozenset({"model", "created_at", "done"}), "Ollama's native API (/api/chat, /api/generate)"),
    (frozenset({"event_type"}), "Cohere v1 chat"),
)


def _ndjson(text: bytes) -> str | None:
    """NDJSON (one JSON object a line, at least two lines), named when recognized."""
    lines = [line for line in text.split(b"\n")[:8] if line.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith(b"{"):
        return None
    try:
        # (the last line may be cut at SNIFF_BYTES: only the complete ones count)
        first = [orjson.loads(line) for line in lines[: max(2, len(lines) - 1)]]
    except orjson.JSONDecodeError:
        return None
    if not all(isinstance(doc, dict) for doc in first):
        return None
    keys = set(first[0])
    named = next((what for need, what in _NDJSON_KINDS if need <= keys), None)
    shown = ", ".join(sorted(str(k)[:30] for k in keys)[:8])
    what = f"{named}, " if named else ""
    return f"it is NDJSON (one JSON document a line: {what}first keys [{shown}]), not SSE"


def _is_aws_event_stream(head: bytes) -> bool:
    """An AWS event-stream prelude: total length, headers length, then a header block."""
    if len(head) < 16:
        return False
    total = int.from_bytes(head[0:4], "big")
    headers = int.from_bytes(head[4:8], "big")
    return 16 <= total <= 16 << 20 and 0 < headers < total and b":event-type" in head[12:64]


def _keys(doc: object) -> str:
    """``[a, b]``: at most 8 keys of a JSON object, each cut short (no values)."""
    names = [str(k)[:30] for k in doc][:8] if isinstance(doc, dict) else []
    return f"[{', '.join(names)}]"


def _event_stream_evidence(head: bytes) -> str:
    """The first messages' event types, and the keys of what they carry (never values).

    An invoke stream's ``chunk`` carries the inner model's JSON base64-encoded in
    ``bytes``: its keys are what tells one model from another.
    """
    try:
        frames = EventStreamDecoder().feed(head)
    except DecoderError:
        frames = []
    seen: list[str] = []
    for frame in frames[:3]:
        try:
            payload = orjson.loads(frame.data)
        except orjson.JSONDecodeError:
            payload = None
        inner = payload.get("bytes") if isinstance(payload, dict) else None
        if isinstance(inner, str):
            try:
                payload = orjson.loads(b64decode(inner, validate=True))
            except (binascii.Error, orjson.JSONDecodeError):
                payload = None
            seen.append(f"{frame.event[:40]!r} carrying keys {_keys(payload)}")
        else:
            seen.append(f"{frame.event[:40]!r} keys {_keys(payload)}")
    if not seen:
        return "binary frames with :event-type headers"
    return "first events " + "; ".join(seen)


def describe_input(head: bytes) -> str | None:
    """What ``head`` (the first bytes of an input) is, when it is clearly not SSE.

    None when it could be an SSE stream. The description has no path, no
    bytes of the input and no control characters: it can be printed as is.
    """
    if not head.strip():
        return "it is empty" if not head else "it holds only whitespace"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return f"it is {what}"
    if _is_aws_event_stream(head):
        return f"it is an AWS event stream ({_event_stream_evidence(head)}), not SSE"
    if b"\x00" in head[:SNIFF_BYTES]:
        return "it is binary data (it holds NUL bytes), not a capture or SSE text"
    text = head[:SNIFF_BYTES].removeprefix(b"\xef\xbb\xbf").lstrip()
    ndjson = _ndjson(text)
    if ndjson is not None:
        return ndjson
    if _JSON_ARRAY.match(text) and _FIELD_LINE.search(text) is None:
        return (
            "it is a JSON array (a stream sent as one array, e.g. Gemini without alt=sse), not SSE"
        )
    for pattern, what in _TEXT_SHAPES:
        if pattern.search(text):
            return f"it is {what}"
    if _FIELD_LINE.search(text) is None:
        return f"it has no SSE field lines (data:, event:) in its first {len(text):,} bytes"
    return None
