"""Chat Completions usage: where a chunk carries it, and what its counts mean."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import int_or_none

__all__ = ["choice_usage", "normalize_usage"]


def choice_usage(choices: Any) -> dict[str, Any] | None:
    """The usage a choice carries (Moonshot puts the stream's there), when a chunk has none."""
    if not isinstance(choices, list):
        return None
    for choice in choices:
        usage = choice.get("usage") if isinstance(choice, dict) else None
        if isinstance(usage, dict):
            return usage
    return None


def normalize_usage(usage: Mapping[str, Any], adds_reasoning: bool = False) -> dict[str, Any]:
    """Chat usage → the contract's usage (raw object kept under ``raw``).

    ``adds_reasoning``: the server's ``completion_tokens`` leave the reasoning
    tokens out (xAI), so ``output_tokens`` (all generated tokens) adds them.
    """
    out: dict[str, Any] = {
        "input_tokens": int_or_none(usage.get("prompt_tokens")),
        "output_tokens": int_or_none(usage.get("completion_tokens")),
    }
    details = usage.get("completion_tokens_details")
    if isinstance(details, dict) and int_or_none(details.get("reasoning_tokens")) is not None:
        out["reasoning_tokens"] = details["reasoning_tokens"]
        if adds_reasoning and out["output_tokens"] is not None:
            out["output_tokens"] += details["reasoning_tokens"]
    prompt_details = usage.get("prompt_tokens_details")
    if isinstance(prompt_details, dict):
        cached = int_or_none(prompt_details.get("cached_tokens"))
        if cached is not None:
            out["cached_input_tokens"] = cached
    elif int_or_none(usage.get("prompt_cache_hit_tokens")) is not None:
        out["cached_input_tokens"] = usage["prompt_cache_hit_tokens"]  # DeepSeek
    out["raw"] = dict(usage)
    return out
