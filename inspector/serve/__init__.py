"""The replay server: recorded streams served as real HTTP streaming endpoints, with faults.

``catalog`` finds what to serve, ``faults`` is the fault vocabulary and the
pure playback plan, ``errors`` shapes provider error bodies, ``app`` is the
Starlette app and ``runner`` runs it with uvicorn. See ``docs/live.md``.
"""

from __future__ import annotations

from .catalog import Catalog, load_catalog
from .faults import Faults, parse_faults, plan
from .runner import ReplayServer

__all__ = ["Catalog", "Faults", "ReplayServer", "load_catalog", "parse_faults", "plan"]
