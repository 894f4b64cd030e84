"""Loading a recorded stream into a trace: the file-side edge of the pipeline."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Final

from .capture import Recording, read_recording
from .collector import collector_paused
from .core.adapters import PROVIDERS, detect_error_body, detect_provider, detection_evidence
from .core.normalizer import Normalizer, stream_id_for
from .core.sse import Frame, FrameDecoder
from .core.trace import Trace, TransportEnd
from .inputs import framing_of, stream_head
from .terminal import safe_path

if TYPE_CHECKING:
    from .core.framing import FramingDecoder

__all__ = [
    "JOINED_PIECE",
    "SNIFF_WINDOW",
    "ProviderUnknown",
    "framing_of",
    "guess_provider",
    "join_chunks",
    "load_trace",
    "provider_unknown",
    "trace_recording",
    "why_unknown",
]

#: How many bytes of a stream are decoded to detect its provider.
SNIFF_WINDOW: Final = 1 << 20
_SNIFF_FRAMES: Final = 50


class ProviderUnknown(ValueError):
    """Neither the capture header nor the frames say which provider this is."""


def _first_frames(rec: Recording) -> tuple[list[Frame], int]:
    """Up to 50 frames from the start of the stream, and how many bytes were fed."""
    framing = framing_of(rec)
    if framing == "sse":
        decoder: FramingDecoder = FrameDecoder(max_line=SNIFF_WINDOW, max_frame=SNIFF_WINDOW)
    else:
        from .core.framing import decoder_for

        decoder = decoder_for(framing, max_line=SNIFF_WINDOW, max_frame=SNIFF_WINDOW)
    frames: list[Frame] = []
    fed = 0
    for time, data in rec.chunks:
        piece = data[: SNIFF_WINDOW - fed]
        frames.extend(decoder.feed(piece, time))
        fed += len(piece)
        if fed >= SNIFF_WINDOW or len(frames) >= _SNIFF_FRAMES:
            break
    return frames, fed


def guess_provider(rec: Recording) -> str | None:
    """The provider from the header, else from the first frames."""
    named = rec.provider
    if named in PROVIDERS:
        return named
    frames = _first_frames(rec)[0]
    found = detect_provider(frames, rec.header)
    if found is None and not frames and rec.chunks:  # v1.1: a bare JSON error body
        found = detect_error_body(b"".join(data for _, data in rec.chunks[:64])[:SNIFF_WINDOW])
    return found


def why_unknown(rec: Recording) -> str:
    """Why :func:`guess_provider` found nothing, in words (no path, safe to print)."""
    from .input_sniff import describe_input  # (only a stream that failed asks)

    head = stream_head(rec)
    if rec.kind == "capture" and not head:
        return "the capture has no chunks"
    # (a capture's chunks are its body: an imported NDJSON body is named as such too)
    described = describe_input(head)
    if described is not None:
        return described
    frames, fed = _first_frames(rec)
    if not frames and fed >= SNIFF_WINDOW:
        return f"the first frame is larger than {SNIFF_WINDOW >> 20} MiB"
    if not frames:
        return "no complete SSE frame (a frame ends with a blank line)"
    return detection_evidence(frames)


def provider_unknown(rec: Recording) -> ProviderUnknown:
    """The error for a stream whose provider cannot be told, with the reason."""
    return ProviderUnknown(
        f"{safe_path(rec.path)}: cannot tell which provider this stream is from: "
        f"{why_unknown(rec)}; pass --provider ({', '.join(PROVIDERS)})"
    )


def trace_recording(
    rec: Recording,
    provider: str | None = None,
    *,
    consume: bool = False,
    as_received: bool = True,
    fast: bool = True,
) -> Trace:
    """Normalize a recording into a trace (raises :class:`ProviderUnknown`).

    ``consume=True`` empties ``rec.chunks`` as they are fed, for a caller that
    keeps the recording for nothing else: the trace holds the bytes anyway,
    so the two copies are never all there at once.

    ``as_received=False`` feeds the chunks joined into pieces of
    :data:`JOINED_PIECE` bytes, as :func:`load_trace` does (see there: the
    same events, problems and frame spans; the pieces' chunk table). When a
    line or event went over the decoder's bound, whose report depends on the
    chunking, the recording is normalized again as received; so the chunks
    are kept until the trace is done (and then emptied, with ``consume``).

    ``fast=False`` normalizes in the reference mode (see
    :class:`~inspector.core.normalizer.Normalizer`).
    """
    if as_received or len(rec.chunks) < 2:
        return _trace(rec, provider, _handed_over(rec.chunks) if consume else rec.chunks, fast)
    trace = _trace(rec, provider, _joined(rec.chunks, JOINED_PIECE), fast)
    if trace.decoder_error is not None:
        trace = _trace(rec, provider, rec.chunks, fast)
    if consume:
        rec.chunks = []
    return trace


def _trace(
    rec: Recording, provider: str | None, chunks: Iterable[tuple[float, bytes]], fast: bool = True
) -> Trace:
    """:func:`trace_recording`, feeding ``chunks`` (the recording's, in order)."""
    provider = provider or guess_provider(rec)
    if provider is None:
        raise provider_unknown(rec)
    stream_id = stream_id_for(*(data for _, data in rec.chunks))
    status = rec.status
    normalizer = Normalizer(
        provider,
        stream_id,
        source=rec.path,
        header=rec.header,
        fast=fast,
        framing=framing_of(rec),
    )
    trace = normalizer.trace
    trace.problems.extend(rec.problems)
    if status is not None and status >= 400:
        # An error response has no stream: keep its bytes, classify the body.
        for time, data in chunks:
            normalizer.receive_error_body(data, time)
        normalizer.fail_http(status)
        trace.transport_end = rec.end
        return trace
    normalizer.feed_many(chunks)  # the whole file is there: frames in batches
    end = rec.end
    if end is None:
        why = (
            _without_path(rec.problems[0], safe_path(rec.path)) if rec.problems else "no end record"
        )
        end = TransportEnd("eof", None, f"the capture is incomplete ({why})")
    return normalizer.finish(end)


def _without_path(problem: str, path: str) -> str:
    # Events must not depend on where the file sits (goldens, exports); the
    # path stays in trace.problems for the user.
    rest = problem.removeprefix(f"{path}:").strip()
    line, sep, what = rest.partition(": ")
    return f"line {line}: {what}" if sep and line.isdigit() else rest


def load_trace(
    path: str | Path, provider: str | None = None, *, as_received: bool = True, fast: bool = True
) -> Trace:
    """Read a capture or raw SSE file (``-``: stdin) and normalize it.

    With ``as_received=False`` a capture's chunks are normalized joined into
    pieces of :data:`JOINED_PIECE` bytes, for a caller that shows none of
    what depends on how the bytes arrived: the events, problems, outcome and
    the frames (count, spans, what they hold) are those of the chunks as
    received - the decoder gives the same frames for any chunking - but the
    trace's chunk table, and each frame's chunk links and time, are the
    pieces'. Far fewer, larger chunks take the decoder's fast paths: ``check``
    and ``events`` on a capture recorded one chunk per event run ~25% faster.

    Raises :class:`~inspector.capture.UnreadableInput` when the input cannot
    be read at all, and :class:`ProviderUnknown` when it is not told and
    cannot be detected; both are ``ValueError`` with a message for the user.
    """
    with collector_paused():
        rec = read_recording(path)
        joined = not as_received and len(rec.chunks) > 1
        # As received, the chunks are let go of as they are fed; joined, they
        # are kept for the rare second pass as received.
        return trace_recording(rec, provider, consume=not joined, as_received=not joined, fast=fast)


#: The size of the pieces ``load_trace(..., as_received=False)`` feeds (the
#: normalizer decodes larger chunks in parts of this size anyway).
JOINED_PIECE: Final = 256 * 1024


def _joined(chunks: Iterable[tuple[float, bytes]], size: int) -> Iterator[tuple[float, bytes]]:
    """The chunks' bytes in order, joined into pieces of about ``size`` bytes.

    A piece is timed as its last chunk: all of its bytes had arrived by then.
    """
    piece: list[bytes] = []
    held = 0
    time = 0.0
    for time, data in chunks:
        piece.append(data)
        held += len(data)
        if held >= size:
            yield time, b"".join(piece)
            piece, held = [], 0
    if piece:
        yield time, b"".join(piece)


def join_chunks(rec: Recording, size: int = JOINED_PIECE) -> None:
    """Put ``rec``'s bytes in pieces of about ``size`` bytes, each timed as its last chunk.

    Each chunk is let go of as it is joined. What the recording then
    normalizes to is what :func:`trace_recording` with ``as_received=False``
    gives (the same bytes, in the same pieces).
    """
    if len(rec.chunks) > 1:
        times = array("d")
        pieces = []
        for time, piece in _joined(_handed_over(rec.chunks), size):
            times.append(time)
            pieces.append(piece)
        # The pieces' times are made anew once every chunk is gone: a chunk's
        # own float kept alive would keep its allocator pool from being freed.
        rec.chunks = list(zip(times.tolist(), pieces, strict=True))


def _handed_over(chunks: list[tuple[float, bytes]]) -> Iterator[tuple[float, bytes]]:
    """The chunks in order, each let go of by the list as it is handed out.

    The trace keeps the bytes it is fed (joined into blocks), so a recording
    no one else holds need not keep its own copy of every chunk while the
    rest are normalized: the memory of the chunks fed is reused as the trace
    grows (peak RSS of ``inspector check`` on a 30 MB capture: -8 MB).
    """
    chunks.reverse()
    take = chunks.pop
    while chunks:
        yield take()
