"""Live mode: streaming requests to real providers, normalized and recorded as they arrive.

``providers`` builds each provider's request (one table), ``secrets`` keeps
keys out of everything written, ``transport`` maps httpx failures to how a
stream ended, ``feed`` is the :class:`LiveFeed` a view or the headless
recorder runs, ``recorder`` writes the capture. See ``docs/live.md``.
"""

from __future__ import annotations

from .feed import LiveFeed
from .providers import PROVIDER_SPECS, LiveRequest, build_request

__all__ = ["PROVIDER_SPECS", "LiveFeed", "LiveRequest", "build_request"]
