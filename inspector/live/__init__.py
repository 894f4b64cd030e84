"""Live mode: streaming requests to real providers, normalized and recorded as they arrive.

``providers`` builds each provider's request (one table), ``keys`` finds the
key (:mod:`inspector.redact` keeps it out of everything written),
``transport`` maps httpx failures to how a stream ended, ``feed`` is the
:class:`LiveFeed` a view or the headless recorder runs, ``recorder`` writes
the capture. See ``docs/live.md``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .providers import PROVIDER_SPECS, LiveRequest, build_request

if TYPE_CHECKING:
    from .feed import LiveFeed

__all__ = ["PROVIDER_SPECS", "LiveFeed", "LiveRequest", "build_request"]


def __getattr__(name: str) -> Any:
    # LiveFeed brings httpx (~130 ms): loaded on first use, so the CLI's
    # parsers and the secret helpers start fast.
    if name == "LiveFeed":
        from .feed import LiveFeed

        return LiveFeed
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
