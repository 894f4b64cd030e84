"""llm-stream-inspector: a terminal debugger for LLM provider streams.

The public Python API — what exported test transcripts and scripts use:

- :func:`load_trace` reads a capture or raw SSE file and normalizes it;
- :func:`normalize` normalizes bytes (or timed chunks) already in memory;
- :func:`events_of` gives a file's normalized events (the contract dicts);
- :func:`check_invariants` checks an event sequence against the contract;
- :class:`Trace` is the record a normalization produces.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .core.invariants import check_invariants
from .core.normalizer import normalize
from .core.trace import Trace
from .session import load_trace

__all__ = ["Trace", "__version__", "check_invariants", "events_of", "load_trace", "normalize"]

__version__ = "0.1.0"


def events_of(path: str | Path, provider: str | None = None) -> list[dict[str, Any]]:
    """The normalized contract events of a capture or raw SSE file."""
    return list(load_trace(path, provider).events)
