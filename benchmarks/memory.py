"""Memory of a loaded trace: what ``load_trace`` keeps, and its peak on the way.

The capture is an OpenAI-Chat stream recorded one chunk per frame, as live
mode records a stream that arrives event by event (the worst case for
per-chunk overhead). Three numbers:

- **retained**: bytes still allocated once ``load_trace`` has returned (the
  trace, and nothing else: the file's bytes and the parsed recording are
  gone), measured with ``tracemalloc``;
- **tracemalloc peak**: the most allocated at any moment during the load;
- **peak RSS**: the growth of the process's peak resident set while loading,
  in a fresh interpreter (``ru_maxrss``), which also counts allocator slack.

Each is compared with the stream's raw size: the SSE bytes the capture holds.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from inspector.capture import load_recording
from inspector.capture_writer import CaptureWriter
from inspector.session import load_trace

from .peak import PEAK_KIB_SOURCE
from .streams import GENERATORS, frames_in

__all__ = ["MemoryResult", "measure_memory", "write_capture"]

_RSS_SCRIPT = (
    """
import gc, json, sys
from inspector.session import load_trace
"""
    + PEAK_KIB_SOURCE
    + """
load_trace(sys.argv[2])  # imports and first-use caches, off the measurement
gc.collect()
before = peak_kib()
trace = load_trace(sys.argv[1])
after = peak_kib()
print(json.dumps({"before_kib": before, "after_kib": after, "frames": len(trace.frames)}))
"""
)


@dataclass
class MemoryResult:
    """Memory for one loaded capture; sizes in bytes."""

    frames: int
    raw_bytes: int
    file_bytes: int
    retained: int
    tracemalloc_peak: int
    rss_peak_growth: int | None

    @property
    def retained_ratio(self) -> float:
        """Retained trace size over the raw stream size."""
        return self.retained / self.raw_bytes

    @property
    def bytes_per_frame(self) -> float:
        """Retained bytes per frame."""
        return self.retained / self.frames


def write_capture(path: Path, frames: int, provider: str = "openai-chat") -> bytes:
    """Record a ``frames``-frame stream as a capture, one chunk per frame; its body."""
    make = GENERATORS[provider]
    body = make(max(1, frames - (frames_in(make(1)) - 1)))
    separator = b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"
    events = [event + separator for event in body.split(separator)[:-1]]
    writer = CaptureWriter(path, {"provider": provider, "endpoint": "benchmark"})
    for i, event in enumerate(events):
        writer.chunk(i * 0.001, event)
    writer.end("eof", len(events) * 0.001)
    return body


def _rss_growth(path: Path, warmup: Path) -> int | None:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, str(path), str(warmup)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    if done.returncode != 0:
        return None
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return int(result["after_kib"] - result["before_kib"]) * 1024


def measure_memory(directory: Path, frames: int, rss: bool = True) -> MemoryResult:
    """Write a ``frames``-frame capture in ``directory`` and measure loading it."""
    path = directory / f"memory-{frames}.jsonl"
    warmup = directory / "memory-warmup.jsonl"
    write_capture(warmup, 20)
    body = write_capture(path, frames)
    raw = len(load_recording(path).body)
    assert raw == len(body)
    load_trace(warmup)  # imports and first-use caches, off the measurement
    gc.collect()
    tracemalloc.start()
    trace = load_trace(path)
    gc.collect()
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    loaded = len(trace.frames)
    del trace
    return MemoryResult(
        frames=loaded,
        raw_bytes=raw,
        file_bytes=path.stat().st_size,
        retained=retained,
        tracemalloc_peak=peak,
        rss_peak_growth=_rss_growth(path, warmup) if rss else None,
    )
