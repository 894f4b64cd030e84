"""One frame decoded again from its bytes: what lets a trace keep spans instead of frames."""

from __future__ import annotations

from .decoder import FrameDecoder

__all__ = ["parse_span"]


def parse_span(raw: bytes) -> tuple[str, str, int | None, str | None]:
    """Decode one frame again from its wire bytes: ``(event, data, retry, comment)``.

    ``raw`` is exactly a frame's span (``stream[frame.start:frame.end]``), so a
    trace can keep bytes and offsets instead of :class:`Frame` objects and
    rebuild any frame on demand. The ``id`` is not in the span (it is the
    last-event-ID buffer, which persists across events), so the caller keeps it.
    """
    plain = raw
    if 0x0D in plain and plain.count(b"\r") == plain.count(b"\r\n") == plain.count(b"\n"):
        plain = plain.replace(b"\r\n", b"\n")  # CRLF throughout: the same shapes as LF
    if plain[-2:] == b"\n\n" and 0x0D not in plain:  # (an int: memchr, see decoder._feed)
        # The usual shapes, ``data: …`` or ``event: …`` + ``data: …``, without a decoder.
        lines = plain[:-2].split(b"\n")
        if len(lines) == 1 and lines[0][:6] == b"data: ":
            return "message", lines[0][6:].decode("utf-8", "replace"), None, None
        if len(lines) == 2 and lines[0][:7] == b"event: " and lines[1][:6] == b"data: ":
            name = lines[0][7:].decode("utf-8", "replace") or "message"
            return name, lines[1][6:].decode("utf-8", "replace"), None, None
    # The span's lines are all there is, so a size limit of its length never trips;
    # and it starts mid-stream, where leading EF BB BF bytes are not a BOM.
    decoder = FrameDecoder(max_line=len(raw), max_frame=len(raw))
    decoder._bom_state = 1
    frames = decoder.feed(raw)
    if not frames:
        raise ValueError(f"{raw[:40]!r} is not the span of a frame")
    # An event's span may hold comment lines too; they are frames of their own.
    events = [f for f in frames if f.comment is None]
    frame = events[-1] if events else frames[0]
    return frame.event, frame.data, frame.retry, frame.comment
