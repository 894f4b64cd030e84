"""A capture file as the export writes it, and what it reads back of the one it wrote.

:func:`capture_pieces` renders a capture in pieces of whole lines, so it is
written to disk as it comes and never held whole beside the body it is cut
from; every chunk keeps exactly its recorded time. :func:`read_back_records`
hands the leak scan the lines of the written capture that are not chunks.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import IO, Any, Final

import orjson

from ..capture_writer import chunk_record
from ..core.trace import TransportEnd
from ..inputs import Recording

__all__ = ["capture_pieces", "read_back_records", "render_capture"]


def render_capture(rec: Recording) -> bytes:
    """A recording in its own format: capture JSON Lines, or the raw body."""
    if rec.kind == "raw":
        return rec.body
    return _capture_lines(rec.header, rec.chunks, rec.end)


def _capture_lines(
    header: dict[str, Any] | None, chunks: Iterable[tuple[float, bytes]], end: TransportEnd | None
) -> bytes:
    """The JSON Lines of a capture with this header, chunks and end."""
    return b"".join(capture_pieces(header, chunks, end))


#: Chunks per piece :func:`capture_pieces` hands out (~70 KB of lines for a delta a chunk),
#: and the chunk bytes at which a piece ends sooner: large chunks come a few at a time, so
#: a piece (and the chunks held for it) stays small whatever the chunking.
_CAPTURE_BATCH: Final = 256
_CAPTURE_BATCH_BYTES: Final = 64 * 1024
# A text chunk's record, orjson's bytes for it around its time's and its text's.
_CHUNK_OPEN: Final = b'{"type":"chunk","t":'
_CHUNK_TEXT: Final = b',"text":'
_CHUNK_CLOSE: Final = b"}\n"


def capture_pieces(
    header: dict[str, Any] | None, chunks: Iterable[tuple[float, bytes]], end: TransportEnd | None
) -> Iterator[bytes]:
    """:func:`_capture_lines` in pieces of whole lines (:func:`_batches` of chunks).

    Written to disk as they come, a capture is never held whole beside the
    body it is cut from. A piece (under glibc's mmap threshold, nearly
    always) comes from the heap and its memory serves the next.
    """
    dumps = orjson.dumps
    yield dumps(header) + b"\n"
    for batch in _batches(chunks):
        times, datas = zip(*batch, strict=True)
        try:
            texts = list(map(bytes.decode, datas))  # UTF-8, strict: as chunk_record
        except (UnicodeDecodeError, TypeError):  # a b64 chunk (or not bytes): one at a time
            yield b"".join(_chunk_lines(batch))
            continue
        # chunk_record's record (same keys, same order), with exactly the recorded
        # time, not re-rounded: orjson writes a value the same wherever it is, so
        # each line is the dict's dumps, without a dict or a call made a chunk.
        yield b"".join(
            itertools.chain.from_iterable(
                zip(
                    itertools.repeat(_CHUNK_OPEN),
                    map(dumps, times),
                    itertools.repeat(_CHUNK_TEXT),
                    map(dumps, texts),
                    itertools.repeat(_CHUNK_CLOSE),
                )
            )
        )
    if end is not None:
        from ..capture_writer import end_line  # the one writer's end record (t rounded alike)

        yield end_line(end.reason, end.time, end.error)


def _batches(chunks: Iterable[tuple[float, bytes]]) -> Iterator[list[tuple[float, bytes]]]:
    """``chunks`` in lists of :data:`_CAPTURE_BATCH`, or fewer once they reach
    :data:`_CAPTURE_BATCH_BYTES` bytes."""
    batch: list[tuple[float, bytes]] = []
    size = 0
    for chunk in chunks:
        batch.append(chunk)
        size += len(chunk[1])
        if len(batch) == _CAPTURE_BATCH or size >= _CAPTURE_BATCH_BYTES:
            yield batch
            batch = []
            size = 0
    if batch:
        yield batch


def _chunk_lines(chunks: Iterable[tuple[float, bytes]]) -> Iterator[bytes]:
    """The record line of each chunk: :func:`chunk_record`'s, with exactly the recorded time."""
    for time, data in chunks:
        try:
            record = {"type": "chunk", "t": time, "text": data.decode("utf-8")}
        except UnicodeDecodeError:
            record = chunk_record(time, data)
            record["t"] = time
        yield orjson.dumps(record) + b"\n"


#: How much of a capture is read at a time when its last line is looked for.
_TAIL_READ: Final = 1 << 16


def read_back_records(file: IO[bytes], size: int, parsed: Recording) -> bytes | None:
    """A capture's lines that are not chunks, as the leak scan joins them; None to let it parse.

    For the capture this export wrote, just read back by the capture reader
    (``parsed``, from ``file`` of ``size`` bytes): when that found no
    problem and at least one chunk, its lines are the header, the chunk
    records (their bytes are ``parsed``'s chunks) and the end record, if
    any — the first and last lines of the file, read here and checked to
    be those records. The leak scan's own parsing would find the same.
    """
    if parsed.kind != "capture" or parsed.problems or not parsed.chunks:
        return None
    file.seek(0)
    lines = [file.readline(size)]
    if parsed.end is not None:
        lines.append(_last_line(file, size))
    for line, kind in zip(lines, ("header", "end"), strict=False):
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            return None
        if not (line.endswith(b"\n") and type(record) is dict and record.get("type") == kind):
            return None
    records = b"\n".join(line[:-1] for line in lines)
    return None if b"\r" in records else records


def _last_line(file: IO[bytes], size: int) -> bytes:
    """The last line of ``file`` (``size`` bytes) with its LF, read backwards a block at a time."""
    parts = []
    end = size - 1  # the last byte: the line's own LF, if it has one
    while end > 0:
        start = max(0, end - _TAIL_READ)
        file.seek(start)
        block = file.read(end - start)
        cut = block.rfind(b"\n")
        if cut >= 0:
            parts.append(block[cut + 1 :])
            break
        parts.append(block)
        end = start
    file.seek(max(0, size - 1))
    parts.reverse()
    return b"".join(parts) + file.read(1)
