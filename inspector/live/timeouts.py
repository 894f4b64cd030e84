"""The two clocks' defaults, apart from :mod:`.feed` so the CLI can show them without httpx."""

from __future__ import annotations

from typing import Final

__all__ = ["DEFAULT_PROGRESS_TIMEOUT", "DEFAULT_TRANSPORT_TIMEOUT"]

#: Seconds. Reasoning models may think silently for a long time, so both are generous:
#: no byte at all (connecting, or between reads), and nothing but pings.
DEFAULT_TRANSPORT_TIMEOUT: Final = 60.0
DEFAULT_PROGRESS_TIMEOUT: Final = 120.0
