"""How a message shows a secret it must speak of: kind, length, at most the last 2 characters.

A refusal ("a removed value is still in out/x.jsonl"), a warning ("a
credential of 5 characters is too short to scrub") or a verification report
must say *which* secret without showing it. :func:`masked` gives
``[openai-key, 51 chars, …Zq]``; under :data:`MIN_SHOWN` characters, not even
the tail.
"""

from __future__ import annotations

from typing import Final

from ..terminal import escape_controls

__all__ = ["MIN_SHOWN", "masked"]

#: Shorter values show no character at all (two of five would say too much).
MIN_SHOWN: Final = 16


def masked(value: str, kind: str = "secret") -> str:
    """``value`` as a message may show it (see the module docstring)."""
    tail = f", …{escape_controls(value[-2:])}" if len(value) >= MIN_SHOWN else ""
    return f"[{escape_controls(kind)}, {len(value)} chars{tail}]"
