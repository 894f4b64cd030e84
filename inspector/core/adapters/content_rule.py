"""The v1.1 rule "finish reason from content", for the adapters of the newer protocols.

When a response ends normally with at least one client ``tool_call`` block and
the provider's reason normalizes to ``stop`` or ``other``, ``finish_reason``
is ``tool_calls`` (the raw value stays in ``provider_finish_reason``);
``length`` and ``content_filter`` keep their value.
"""

from __future__ import annotations

from typing import Final

__all__ = ["by_content"]

_REFINED: Final = frozenset({"stop", "other"})


def by_content(finish_reason: str, called_tools: bool) -> str:
    """``finish_reason`` after the rule: ``tool_calls`` when tools were called and it allows."""
    return "tool_calls" if called_tools and finish_reason in _REFINED else finish_reason
