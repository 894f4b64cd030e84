"""How each framing is served: its content type, its keep-alive, where its frames end.

===================  ======================================  ===============================
framing              content type                            keep-alive during a stall
===================  ======================================  ===============================
``sse``              ``text/event-stream``                   the provider's ping, else ``: ping``
``ndjson``           ``application/x-ndjson``                none (a stall is silent)
``aws-eventstream``  ``application/vnd.amazon.eventstream``  none (a stall is silent)
``json-array``       ``application/json``                    none (a stall is silent)
===================  ======================================  ===============================

Only SSE has a keep-alive every client skips: an empty NDJSON line fails
``json.loads`` in Ollama's clients, and the event stream has no message a
Bedrock client would ignore. Frame ends come from the core's own decoder
for the framing, so a fault placed "at frame K" lands where a client's
parser sees frame K begin.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Final

from ..core.framing import decoder_for

__all__ = [
    "COMMENT_KEEPALIVE",
    "CONTENT_TYPES",
    "KEEPALIVES",
    "frame_ends",
    "frame_spans",
    "iter_frame_spans",
    "keepalive",
]

#: framing -> the content type a stream in it is served with.
CONTENT_TYPES: Final[dict[str, str]] = {
    "sse": "text/event-stream",
    "ndjson": "application/x-ndjson",
    "aws-eventstream": "application/vnd.amazon.eventstream",
    "json-array": "application/json",
}
#: What a stall sends to keep an SSE line warm: the provider's own ping where it
#: has one, else an SSE comment (valid for every SSE protocol).
KEEPALIVES: Final[dict[str, bytes]] = {"anthropic": b'event: ping\ndata: {"type": "ping"}\n\n'}
COMMENT_KEEPALIVE: Final = b": ping\n\n"


def keepalive(framing: str, service: str) -> bytes | None:
    """What a stall on ``service`` sends every ``ping_every`` seconds (None: silence)."""
    if framing != "sse":
        return None
    return KEEPALIVES.get(service, COMMENT_KEEPALIVE)


def iter_frame_spans(
    body: bytes | Iterable[bytes], framing: str = "sse"
) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each complete frame of ``body`` (bytes, or its chunks) in
    ``framing``, in order, as they are decoded; the spans tile the body up to the
    last complete frame.

    SSE comments are not frames: one may sit between the lines of an event,
    so where it ends is no place for another frame. Decoding stops at the
    first framing error (a CRC mismatch): no frame is counted past it.
    """
    decoder = decoder_for(framing)
    start = 0  # a frame's span starts where the one before ended: spans tile the body
    for chunk in (body,) if isinstance(body, bytes) else body:
        for frame in decoder.feed(chunk):
            if not frame.is_comment:
                yield start, frame.end
                start = frame.end


def frame_spans(body: bytes | Iterable[bytes], framing: str = "sse") -> list[tuple[int, int]]:
    """Every span :func:`iter_frame_spans` gives, as a list."""
    return list(iter_frame_spans(body, framing))


def frame_ends(body: bytes | Iterable[bytes], framing: str = "sse") -> list[int]:
    """Byte offsets just after each complete frame of ``body`` (see :func:`frame_spans`)."""
    return [end for _, end in frame_spans(body, framing)]
