"""Where the bundled capture library is, in a checkout or after ``pip install``."""

from __future__ import annotations

import sys
import sysconfig
from pathlib import Path

__all__ = ["captures_dir"]

_INSTALLED = Path("share") / "llm-stream-inspector" / "captures"


def captures_dir() -> Path | None:
    """The bundled ``captures/`` directory, or None if it cannot be found."""
    checkout = Path(__file__).resolve().parent.parent / "captures"
    candidates = [checkout]
    for base in {sys.prefix, sysconfig.get_paths()["data"]}:
        candidates.append(Path(base) / _INSTALLED)
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    return None
