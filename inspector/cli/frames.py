"""``inspector frames PATH``: the decoded SSE frames as JSON Lines."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .common import EXIT_OK, EXIT_PROBLEM, EXIT_USAGE, error, write_jsonl

if TYPE_CHECKING:
    from ..core.framing import FramingDecoder


def register(sub: Any) -> None:
    """Add the ``frames`` subcommand."""
    parser = sub.add_parser(
        "frames",
        help="print the decoded SSE frames as JSON Lines",
        description=(
            "Decode a capture or raw SSE file and print one JSON object per frame: "
            '{"event", "data", "id", "retry"} (null when absent), or {"comment": ...}.'
        ),
    )
    parser.add_argument("path", help="a capture (.jsonl) or raw SSE file; - reads stdin")
    parser.set_defaults(func=run)


def frame_records(chunks: list[tuple[float, bytes]], decoder: FramingDecoder) -> Iterator[Any]:
    """The JSON records for every frame of ``chunks``."""
    for time, data in chunks:
        for frame in decoder.feed(data, time):
            if frame.comment is not None:
                yield {"comment": frame.comment}
            else:
                record: dict[str, Any] = {
                    "event": frame.event,
                    "data": frame.data,
                    "id": frame.id or None,
                    "retry": frame.retry,
                }
                headers = getattr(frame, "headers", None)  # an event-stream message's
                if headers:
                    record["headers"] = {k: _plain(v) for k, v in headers}
                yield record


def _plain(value: Any) -> Any:
    """A header value as JSON can hold it (bytes as base64)."""
    if isinstance(value, bytes):
        import base64

        return base64.b64encode(value).decode()
    return value


def run(args: argparse.Namespace) -> int:
    """Print the frames; report damage and undispatched bytes on stderr."""
    from ..capture import UnreadableInput, read_recording
    from ..core.framing import decoder_for
    from ..inputs import framing_of
    from ..terminal import safe_path

    try:
        rec = read_recording(args.path)
    except UnreadableInput as exc:
        error(exc)
        return EXIT_USAGE
    name = safe_path(rec.path)
    decoder = decoder_for(framing_of(rec))
    write_jsonl(frame_records(rec.chunks, decoder))
    status = EXIT_OK
    for problem in rec.problems:
        error(problem)
        status = EXIT_PROBLEM
    if decoder.error is not None:
        error(f"{name}: {decoder.error}")
        status = EXIT_PROBLEM
    tail = decoder.close()
    tail_note = getattr(decoder, "tail_note", None)
    if tail.unterminated and tail_note is not None:
        error(f"{name}: {tail_note(tail)}")
    elif tail.unterminated:
        error(
            f"{name}: {tail.pending_bytes} bytes at the end had no blank line after "
            "them and were not dispatched"
        )
    return status
