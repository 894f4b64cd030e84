"""Loading a recorded stream into a trace: the file-side edge of the pipeline."""

from __future__ import annotations

from pathlib import Path

from .capture import Recording, load_recording
from .core.adapters import PROVIDERS, detect_provider
from .core.normalizer import Normalizer, stream_id_for
from .core.sse import FrameDecoder
from .core.trace import Trace, TransportEnd

__all__ = ["ProviderUnknown", "guess_provider", "load_trace", "trace_recording"]

_SNIFF_BYTES = 256 * 1024


class ProviderUnknown(ValueError):
    """Neither the capture header nor the frames say which provider this is."""


def guess_provider(rec: Recording) -> str | None:
    """The provider from the header, else from the first frames."""
    named = rec.provider
    if named in PROVIDERS:
        return named
    decoder = FrameDecoder(max_line=_SNIFF_BYTES * 4, max_frame=_SNIFF_BYTES * 4)
    frames = []
    fed = 0
    for time, data in rec.chunks:
        frames.extend(decoder.feed(data[: _SNIFF_BYTES - fed], time))
        fed += len(data)
        if fed >= _SNIFF_BYTES or len(frames) >= 50:
            break
    return detect_provider(frames, rec.header)


def trace_recording(rec: Recording, provider: str | None = None) -> Trace:
    """Normalize a recording into a trace (raises :class:`ProviderUnknown`)."""
    provider = provider or guess_provider(rec)
    if provider is None:
        raise ProviderUnknown(
            f"{rec.path}: cannot tell which provider this stream is from; "
            f"pass --provider ({', '.join(PROVIDERS)})"
        )
    stream_id = stream_id_for(*(data for _, data in rec.chunks))
    normalizer = Normalizer(provider, stream_id, source=rec.path, header=rec.header)
    trace = normalizer.trace
    trace.problems.extend(rec.problems)
    status = rec.status
    if status is not None and status >= 400:
        # An error response has no stream: keep its bytes, classify the body.
        for time, data in rec.chunks:
            normalizer.receive_error_body(data, time)
        normalizer.fail_http(status)
        trace.transport_end = rec.end
        return trace
    for time, data in rec.chunks:
        normalizer.feed(data, time)
    end = rec.end
    if end is None:
        why = _without_path(rec.problems[0], rec.path) if rec.problems else "no end record"
        end = TransportEnd("eof", None, f"the capture is incomplete ({why})")
    return normalizer.finish(end)


def _without_path(problem: str, path: str) -> str:
    # Events must not depend on where the file sits (goldens, exports); the
    # path stays in trace.problems for the user.
    rest = problem.removeprefix(f"{path}:").strip()
    line, sep, what = rest.partition(": ")
    return f"line {line}: {what}" if sep and line.isdigit() else rest


def load_trace(path: str | Path, provider: str | None = None) -> Trace:
    """Read a capture or raw SSE file and normalize it."""
    return trace_recording(load_recording(path), provider)
