"""Anthropic's usage object → the contract's usage.

``message_start`` carries a first usage object and every ``message_delta`` a
cumulative one (:func:`merge_usage` overlays them); :func:`normalize_usage`
turns the merged object into the contract's counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import int_or_none

__all__ = ["merge_usage", "normalize_usage"]

# Keys of a usage object that hold token counts, as Anthropic names them.
_FRESH = "input_tokens"
_CACHE_WRITE = "cache_creation_input_tokens"
_CACHE_READ = "cache_read_input_tokens"


def merge_usage(base: dict[str, Any] | None, update: Mapping[str, Any]) -> dict[str, Any]:
    """Overlay a usage object: ``message_delta`` counts are cumulative, nulls mean "unchanged"."""
    merged = dict(base) if base is not None else {}
    for key, value in update.items():
        if value is not None:
            merged[key] = value
    return merged


def _sum(parts: list[Mapping[str, Any]], *keys: str) -> int | None:
    total: int | None = None
    for part in parts:
        for key in keys:
            value = int_or_none(part.get(key))
            if value is not None:
                total = value if total is None else total + value
    return total


def normalize_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """Anthropic usage → the contract's usage (the merged object kept under ``raw``).

    Anthropic's ``input_tokens`` counts only uncached input; the contract's
    counts all of it, so cache writes and cache reads are added in, and cache
    reads are also ``cached_input_tokens``. When compaction ran, the top-level
    counts cover only the final sampling step: the billed totals are the sum
    over ``iterations``.
    """
    iterations = usage.get("iterations")
    parts: list[Mapping[str, Any]] = [usage]
    if isinstance(iterations, list):
        steps = [step for step in iterations if isinstance(step, Mapping)]
        if steps:
            parts = steps
    out: dict[str, Any] = {
        "input_tokens": (
            _sum(parts, _FRESH, _CACHE_WRITE, _CACHE_READ)
            if _sum(parts, _FRESH) is not None
            else None
        ),
        "output_tokens": _sum(parts, "output_tokens"),
    }
    details = usage.get("output_tokens_details")
    if isinstance(details, Mapping):
        thinking = int_or_none(details.get("thinking_tokens"))
        if thinking is not None:
            out["reasoning_tokens"] = thinking
    cached = _sum(parts, _CACHE_READ)
    if cached is not None:
        out["cached_input_tokens"] = cached
    out["raw"] = dict(usage)
    return out
