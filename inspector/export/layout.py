"""What anonymizing must keep of a stream besides its events, and how two are compared.

The export verifies that the anonymized capture normalizes like the
original: the same chunks (count, sizes, times), the same SSE frame
boundaries, the same transport end and the same event skeleton
(:mod:`.skeleton`). A :class:`Layout` holds all of that compactly, so the
original's can be kept while its trace is freed.
"""

from __future__ import annotations

import operator
from array import array

from ..core.digest import blake2b  # hashlib's BLAKE2b, without loading OpenSSL
from ..core.trace import Trace
from ..inputs import Recording
from .skeleton import EventSummary, Step, first_difference

__all__ = ["Layout", "chunk_columns", "difference", "frames_digest", "layout_of"]


class Layout:
    """What anonymizing must keep of a stream besides its skeleton, held compactly.

    Chunk times and sizes, the trace's chunk count and bytes, every frame's
    span and chunks (start, end, first and last chunk: four columns, kept as
    their digest: :func:`frames_digest`), and the transport's end — in flat
    arrays, so the original's can be kept while its trace is freed, and two
    compared in C.
    """

    # A plain class, not a NamedTuple: at import that evaluates (compiles) every
    # field's annotation, a few milliseconds of the command's start-up in all.
    __slots__ = ("chunk_sizes", "chunk_times", "chunk_totals", "end", "frames", "skeleton")

    def __init__(
        self,
        chunk_times: array[float],
        chunk_sizes: array[int],
        chunk_totals: tuple[int, int],
        frames: bytes,
        end: tuple[str | None, float | None],
        skeleton: list[Step],
    ) -> None:
        self.chunk_times = chunk_times
        self.chunk_sizes = chunk_sizes
        self.chunk_totals = chunk_totals
        self.frames = frames
        self.end = end
        self.skeleton = skeleton


def chunk_columns(rec: Recording) -> tuple[array[float], array[int]]:
    """The times and sizes of a recording's chunks."""
    chunks = rec.chunks
    return (
        array("d", map(operator.itemgetter(0), chunks)),
        array("q", map(len, map(operator.itemgetter(1), chunks))),
    )


def layout_of(
    columns: tuple[array[float], array[int]], trace: Trace, summary: EventSummary
) -> Layout:
    """The layout of ``trace`` (``summary``: its events'), normalized from chunk ``columns``."""
    ended = trace.transport_end
    return Layout(
        *columns,
        (len(trace.chunks), trace.chunks.stored_bytes),
        frames_digest(trace.frames.span_columns()),  # the stored columns: nothing decoded
        (ended.reason, ended.time) if ended is not None else (None, None),
        summary.steps,
    )


def frames_digest(columns: tuple[array[int], ...]) -> bytes:
    """A digest of every frame's span and chunks: equal exactly when the columns are.

    The columns are four arrays of eight bytes an entry, a frame each: on a
    30 MB stream 4 MB held through the rewrite and verification beside the
    stream's copies, where the comparison needs only whether they are equal.
    """
    digest = blake2b(digest_size=32)
    for column in columns:
        digest.update(len(column).to_bytes(8, "little"))
        digest.update(memoryview(column).cast("B"))
    return digest.digest()


def difference(original: Layout, exported: Layout) -> str | None:
    """How the anonymized stream's layout differs from the original's; None if it does not."""
    if (original.chunk_times, original.chunk_sizes, original.chunk_totals) != (
        exported.chunk_times,
        exported.chunk_sizes,
        exported.chunk_totals,
    ):
        return "the chunks (count, sizes or times) differ"
    if original.frames != exported.frames:
        return "the SSE frame boundaries differ"
    if original.end != exported.end:
        return "the transport end differs"
    return first_difference(original.skeleton, exported.skeleton)
