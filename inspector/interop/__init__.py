"""Other tools' recordings: VCR cassettes and HAR logs, read into recordings and written back.

- **Read** (:func:`read_file`, :func:`read_bytes`, :func:`load_foreign`): a
  cassette (:mod:`.vcr`) or HAR log (:mod:`.har`) holds HTTP exchanges; each
  one that streamed becomes a recording (:mod:`.exchange`) whose header says
  what the format lost (``"timed": false``). ``inspector open``/``events``/
  ``check``/``frames`` read these files directly:
  :func:`inspector.capture.load_recording` hands them here when
  :func:`.format_sniff.sniff_format` recognizes the first bytes.
- **Write** (:func:`.vcr.write_vcr`, :func:`.har.write_har`): an already
  anonymized capture as a cassette vcrpy replays, or a HAR log.

This package sits just above :mod:`inspector.inputs` and below the capture
reader that calls it; the commands built on it live higher up
(:mod:`inspector.importer`, :mod:`inspector.export.foreign`,
:mod:`inspector.stream_diff`).

Everything read here is untrusted: YAML is loaded with a loader that never
runs code (:mod:`.yamlsafe`), files and decoded bodies are bounded
(:mod:`.limits`), and output file names never come from file content.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..inputs import Recording, UnreadableInput, open_regular_file
from ..terminal import safe_path
from .format_sniff import sniff_format
from .limits import MAX_FILE, BodyError

# .exchange (email.utils, socket...) is imported when a file is converted: capture
# loading imports this package to sniff every raw file, and must stay quick.
if TYPE_CHECKING:
    from .exchange import Exchange

__all__ = [
    "FORMATS",
    "Imported",
    "InteropError",
    "load_foreign",
    "parse_foreign",
    "read_bytes",
    "read_file",
    "recording_from",
    "sniff_format",
]

FORMATS = ("vcr", "har")


class InteropError(ValueError):
    """A file that cannot be read as a cassette or HAR log; the message says why."""


@dataclass
class Imported:
    """What one file held: a capture per streaming exchange, and what was left out."""

    path: str
    fmt: str
    recordings: list[tuple[int, Recording]] = field(default_factory=list)  # (interaction, rec)
    skipped: list[str] = field(default_factory=list)  # not streaming: why, one line each
    problems: list[str] = field(default_factory=list)  # streaming but unreadable


def _exchanges(data: bytes, fmt: str, name: str) -> list[Exchange]:
    from .har import HarError, read_har
    from .vcr import VcrError, read_vcr

    try:
        return read_vcr(data, name) if fmt == "vcr" else read_har(data, name)
    except (VcrError, HarError) as exc:
        raise InteropError(str(exc)) from None


def read_bytes(data: bytes, path: str) -> Imported:
    """Convert a cassette or HAR log already in memory (raises :class:`InteropError`)."""
    from .exchange import NotStreaming, to_recording

    fmt = sniff_format(data[:4096])
    if fmt is None:
        raise InteropError(f"{path}: neither a VCR cassette nor a HAR file")
    name = Path(path).name
    exchanges = _exchanges(data, fmt, path)
    result = Imported(path, fmt)
    total = len(exchanges)
    for ex in exchanges:
        label = f"{path}#{ex.index}" if total > 1 else path
        try:
            rec = to_recording(ex, name, total, label)
        except NotStreaming as exc:
            result.skipped.append(f"{path}: {exc}")
        except BodyError as exc:
            result.problems.append(f"{path}: {exc}")
        else:
            result.recordings.append((ex.index, rec))
    return result


def read_file(path: str | Path) -> Imported:
    """Convert a cassette or HAR file on disk (raises :class:`InteropError`)."""
    name = str(path)
    try:
        # A FIFO or device is refused unopened; a file over the limit by its size.
        with open_regular_file(path, safe_path(path), MAX_FILE) as file:
            data = file.read(MAX_FILE + 1)
    except UnreadableInput as exc:
        raise InteropError(str(exc)) from None
    except OSError as exc:
        raise InteropError(f"{safe_path(path)}: cannot read ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE:
        raise InteropError(f"{name}: larger than {MAX_FILE // (1024 * 1024)} MiB; not imported")
    return read_bytes(data, name)


def _first(result: Imported) -> Recording:
    if result.recordings:
        return result.recordings[0][1]
    if result.problems:
        raise InteropError(result.problems[0])
    what = "entry" if result.fmt == "har" else "interaction"
    raise InteropError(
        f"{result.path}: no streamed response in this {result.fmt.upper()} file "
        f"({len(result.skipped)} other {what}(s)); nothing to open"
    )


def recording_from(raw: bytes, path: str) -> Recording:
    """The first streaming exchange of a cassette or HAR log in memory.

    Raises :class:`InteropError` when there is none or the file cannot be
    read; ``inspector import`` writes every streaming exchange.
    """
    return _first(read_bytes(raw, path))


def load_foreign(path: str | Path) -> Recording:
    """The first streaming exchange of a cassette or HAR file, as a recording.

    Never raises for bad content: like :func:`inspector.capture.load_recording`,
    an unreadable file becomes a recording whose ``problems`` say why.
    ``inspector import`` writes every streaming exchange.
    """
    try:
        return _first(read_file(path))
    except InteropError as exc:
        return Recording(str(path), "raw", problems=[str(exc)])


def parse_foreign(raw: bytes, path: str = "<bytes>") -> Recording:
    """:func:`load_foreign` for bytes already in memory (stdin, say)."""
    try:
        return recording_from(raw, path)
    except InteropError as exc:
        return Recording(path, "raw", problems=[str(exc)])
