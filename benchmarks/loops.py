"""What is timed: our decoder and pipeline, and the baselines, on chunks in memory.

Every function takes the stream as a list of byte chunks and returns how many
SSE events it produced, so runs can be checked against each other. Nothing is
kept that the loop would not keep in real use: decoders hand their events to
a consumer that counts them; our pipeline keeps its trace, because a trace is
what it is for.

Baselines
---------
``plain_loop``
    The SSE reader one writes by hand: split on LF, strip a CR, collect
    ``data:`` lines, dispatch on a blank line. Not WHATWG-complete (no lone CR,
    no ``id``/``retry``), which is what makes it the floor to compare with.
``httpx_sse_loop``
    httpx-sse as ``EventSource.iter_sse`` drives it: httpx's incremental UTF-8
    text decoding of each chunk, ``httpx_sse._decoders.SSELineDecoder``, then
    ``line.rstrip("\\n")`` and ``SSEDecoder.decode`` per line, through the same
    two generator layers (``_iter_sse_lines`` and ``iter_sse``).
``openai_sdk_loop`` / ``anthropic_sdk_loop``
    The SDK's own ``_streaming.SSEDecoder().iter_bytes(...)`` and
    ``sse.json()`` (``json.loads``) for every event with data, as
    ``Stream.__stream__`` does before building response models (model
    building, which we do not do either, is left out).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator

from inspector.core.normalizer import Normalizer
from inspector.core.sse import FrameDecoder
from inspector.core.trace import Trace

__all__ = [
    "anthropic_sdk_loop",
    "httpx_sse_loop",
    "inspector_decoder",
    "inspector_pipeline",
    "openai_sdk_loop",
    "plain_loop",
]


def inspector_decoder(chunks: list[bytes]) -> int:
    """Our :class:`FrameDecoder`, frames counted (comments included)."""
    decoder = FrameDecoder()
    count = 0
    for chunk in chunks:
        count += len(decoder.feed(chunk))
    return count


def inspector_pipeline(chunks: list[bytes], provider: str) -> Trace:
    """Decode → JSON → adapter → machine → trace, chunk by chunk, as live mode does."""
    normalizer = Normalizer(provider, "st_benchmark")
    feed = normalizer.feed
    for chunk in chunks:
        feed(chunk)
    return normalizer.finish()


def plain_loop(chunks: list[bytes]) -> int:
    """The hand-written line-splitting loop (see the module docstring)."""
    count = 0
    buffer = b""
    data: list[bytes] = []
    event = None
    for chunk in chunks:
        buffer += chunk
        lines = buffer.split(b"\n")
        buffer = lines.pop()
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            if not line:
                if data:
                    _ = (event or "message", b"\n".join(data).decode("utf-8", "replace"))
                    count += 1
                    data = []
                event = None
            elif line.startswith(b"data:"):
                data.append(line[6:] if line[5:6] == b" " else line[5:])
            elif line.startswith(b"event:"):
                event = (line[7:] if line[6:7] == b" " else line[6:]).decode("utf-8", "replace")
    return count


def _httpx_sse_lines(chunks: list[bytes]) -> Iterator[str]:
    # httpx_sse._api._iter_sse_lines over Response.iter_text(): httpx decodes each
    # chunk with an incremental UTF-8 decoder (errors="replace"), then splits lines.
    from httpx_sse._decoders import SSELineDecoder

    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lines = SSELineDecoder()
    for chunk in chunks:
        yield from lines.decode(text.decode(chunk))
    tail = text.decode(b"", final=True)
    if tail:
        yield from lines.decode(tail)
    yield from lines.flush()


def _httpx_sse_events(chunks: list[bytes]) -> Iterator[object]:
    # httpx_sse.EventSource.iter_sse, without the response object around it.
    from httpx_sse._decoders import SSEDecoder

    decoder = SSEDecoder()
    for line in _httpx_sse_lines(chunks):
        line = line.rstrip("\n")
        sse = decoder.decode(line)
        if sse is not None:
            yield sse


def httpx_sse_loop(chunks: list[bytes]) -> int:
    """httpx-sse's decoder and line splitter, as ``iter_sse`` drives them."""
    count = 0
    for _ in _httpx_sse_events(chunks):
        count += 1
    return count


def openai_sdk_loop(chunks: list[bytes]) -> int:
    """The openai SDK's SSE decoder and ``json.loads`` of every event with data."""
    from openai._streaming import SSEDecoder

    count = 0
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        count += 1
        if sse.data and not sse.data.startswith("[DONE]"):
            sse.json()
    return count


def anthropic_sdk_loop(chunks: list[bytes]) -> int:
    """The anthropic SDK's SSE decoder and ``json.loads`` of every event with data."""
    from anthropic._streaming import SSEDecoder

    count = 0
    for sse in SSEDecoder().iter_bytes(iter(chunks)):
        count += 1
        if sse.data and not sse.data.startswith("[DONE]"):
            sse.json()
    return count
