"""``inspector export --format vcr|har``: an exported capture written as a cassette or HAR log.

The input is the capture :mod:`inspector.export` already anonymized and
verified — nothing here sees the original — and the output holds the same
request header and body bytes in the other format, next to it:
``NAME.yaml`` (a vcrpy cassette a test suite replays unchanged) or
``NAME.har``.

Two things a cassette cannot carry are said, not hidden: the chunking and
timing (the body is one piece), and a transport end other than a clean one
(a reset or timeout replays as a complete body). A raw SSE file has no
request at all: the provider's usual endpoint is used so vcrpy has a URL to
match.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

from ..capture import Recording, load_recording
from ..interop.har import write_har
from ..interop.vcr import write_vcr
from .output import write_file

__all__ = ["EXPORT_FORMATS", "write_exported"]

EXPORT_FORMATS: Final = ("capture", "vcr", "har")
_SUFFIX: Final = {"vcr": ".yaml", "har": ".har"}
# The endpoint a raw SSE body (no recorded request) is filed under, per provider.
_DEFAULT_URLS: Final = {
    "openai-chat": "https://api.openai.com/v1/chat/completions",
    "openai-responses": "https://api.openai.com/v1/responses",
    "anthropic": "https://api.anthropic.com/v1/messages",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/models/"
    "model:streamGenerateContent?alt=sse",
}


def _with_request(rec: Recording, provider: str | None) -> Recording:
    if rec.header is not None:
        return rec
    url = _DEFAULT_URLS.get(provider or "", "http://localhost/stream")
    header = {
        "request": {"method": "POST", "url": url, "headers": {}, "body": None},
        "response": {"status": 200, "headers": {"content-type": "text/event-stream"}},
    }
    return Recording(rec.path, "capture", header, rec.chunks, rec.end)


def write_exported(capture: Path, fmt: str, provider: str | None) -> tuple[Path, list[str]]:
    """Write ``capture`` (an exported capture) as ``fmt``; the path and notes for the user.

    Raises ``ValueError`` when the capture cannot be read back, ``OSError`` when
    the file cannot be written.
    """
    rec = load_recording(capture)
    if rec.problems and not rec.chunks:
        raise ValueError(rec.problems[0])
    rec = _with_request(rec, provider)
    data = write_vcr([rec]) if fmt == "vcr" else write_har([rec])
    name = capture.name.removesuffix(".jsonl").removesuffix(".sse")
    target = capture.with_name(name + _SUFFIX[fmt])
    write_file(target.parent, target.name, data)
    notes = ["the body is stored in one piece: chunking and timing are not kept"]
    if rec.end is not None and rec.end.reason != "eof":
        notes.append(
            f"the stream ended with a transport {rec.end.reason}, which a "
            f"{'cassette' if fmt == 'vcr' else 'HAR log'} cannot carry: it replays as a "
            "complete body"
        )
    return target, notes
