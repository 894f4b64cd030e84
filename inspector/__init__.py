"""llm-stream-inspector: a terminal debugger for LLM provider streams.

The public Python API — what exported test transcripts and scripts use:

- :func:`load_trace` reads a capture or raw SSE file and normalizes it;
- :func:`normalize` normalizes bytes (or timed chunks) already in memory;
- :func:`events_of` gives a file's normalized events (the contract dicts);
- :func:`check_invariants` checks an event sequence against the contract;
- :class:`Trace` is the record a normalization produces.

They are imported on first use, so that ``import inspector.cli`` (every
command's start-up) does not pay for the normalizer unless it runs it.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from .version import __version__

if TYPE_CHECKING:
    from .core.invariants import check_invariants
    from .core.normalizer import normalize
    from .core.trace import Trace
    from .session import load_trace

__all__ = ["Trace", "__version__", "check_invariants", "events_of", "load_trace", "normalize"]

# Public name -> the module that defines it.
_LAZY: Final = {
    "Trace": ".core.trace",
    "check_invariants": ".core.invariants",
    "load_trace": ".session",
    "normalize": ".core.normalizer",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def events_of(path: str | Path, provider: str | None = None) -> list[dict[str, Any]]:
    """The normalized contract events of a capture or raw SSE file."""
    from .session import load_trace

    return list(load_trace(path, provider).events)
