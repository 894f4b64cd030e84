"""The OpenAI Responses protocol's tables: its event types, item and part kinds, and
how one reads a final response (its finish reason and usage).

:mod:`.openai_responses` maps frames by these tables; its module docstring says what
each signal and block means. Nothing here keeps state.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from .base import int_or_none

__all__ = [
    "ARGUMENTS",
    "CONTENT",
    "CUSTOM_INPUT",
    "FINAL_SIGNALS",
    "FRAGMENT_EVENTS",
    "HEARTBEATS",
    "INCOMPLETE_REASONS",
    "ITEM",
    "ITEM_TYPES",
    "PART_KINDS",
    "PART_TEXT_FIELD",
    "QUIET_EVENTS",
    "REASONING_TEXT",
    "REFUSAL",
    "SUMMARY",
    "SUMMARY_TEXT",
    "TEXT",
    "WHOLE_TEXT_EVENTS",
    "Key",
    "Rule",
    "completed_reason",
    "normalize_usage",
]

FINAL_SIGNALS: Final[dict[str, str]] = {
    "response.completed": "completed",
    "response.incomplete": "completed",
    "response.failed": "failed",
    "error": "failed",
}
"""Event type → the terminal state it proves (see the module's table)."""

INCOMPLETE_REASONS: Final[dict[str, str]] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}
"""``incomplete_details.reason`` → ``finish_reason``; anything else is ``other``."""

# output item type -> how its blocks are made. "message" and "reasoning" items
# are containers of parts; "function_call" is the one tool the client runs.
# Everything else is run by OpenAI (or is bookkeeping) and stays opaque.
ITEM_TYPES: Final[dict[str, str]] = {
    "message": "message",
    "reasoning": "reasoning",
    "function_call": "tool_call",
    "web_search_call": "opaque",
    "file_search_call": "opaque",
    "code_interpreter_call": "opaque",
    "image_generation_call": "opaque",
    "mcp_call": "opaque",
    "mcp_list_tools": "opaque",
    "mcp_approval_request": "opaque",
    # Server-run by default; the client's when the item says ``execution: client``.
    "tool_search_call": "by_execution",
    "tool_search_output": "opaque",
    # An action object for a client the contract has no tool_call shape for yet.
    "computer_call": "opaque",
    # v1.1: client calls whose input is not JSON arguments. A custom tool's
    # input is free text (input_format "text"); the shell and patch tools'
    # input is the item itself (input_format "item", one json_text delta).
    "custom_tool_call": "tool_text",
    "local_shell_call": "tool_item",
    # Client-run with a local environment, server-run in a hosted container.
    "shell_call": "by_execution",
    "apply_patch_call": "tool_item",
    "compaction": "opaque",
}

PART_KINDS: Final[dict[str, str]] = {
    "output_text": "text",
    "refusal": "refusal",
    "reasoning_text": "reasoning",
    "summary_text": "reasoning",
}
"""Content / summary part type → block kind; another type is ``opaque``."""

# The field of a part that holds its whole text.
PART_TEXT_FIELD: Final[dict[str, str]] = {"refusal": "refusal"}

# Known events that carry nothing for the contract: the progress of opaque
# items, whose content the done item holds in full.
QUIET_EVENTS: Final = frozenset(
    {
        "response.web_search_call.in_progress",
        "response.web_search_call.searching",
        "response.web_search_call.completed",
        "response.file_search_call.in_progress",
        "response.file_search_call.searching",
        "response.file_search_call.completed",
        "response.code_interpreter_call.in_progress",
        "response.code_interpreter_call.interpreting",
        "response.code_interpreter_call.completed",
        "response.code_interpreter_call_code.delta",
        "response.code_interpreter_call_code.done",
        "response.image_generation_call.in_progress",
        "response.image_generation_call.generating",
        "response.image_generation_call.partial_image",
        "response.image_generation_call.completed",
        "response.mcp_call.in_progress",
        "response.mcp_call.completed",
        "response.mcp_call.failed",
        "response.mcp_call_arguments.delta",
        "response.mcp_call_arguments.done",
        "response.mcp_list_tools.in_progress",
        "response.mcp_list_tools.completed",
        "response.mcp_list_tools.failed",
        "response.shell_call_command.added",
        "response.shell_call_command.delta",
        "response.shell_call_command.done",
        "response.shell_call_output_content.delta",
        "response.shell_call_output_content.done",
        "response.compaction.compacting",
    }
)

# OpenAI's undocumented keep-alive, and OpenRouter's name for it.
HEARTBEATS: Final = frozenset({"keepalive", "response.keep_alive"})

# Where a block sits in the output array: (output_index, section, sub-index).
ITEM, CONTENT, SUMMARY = 0, 1, 2
Key = tuple[int, int, int]


class Rule(NamedTuple):
    """How one fragment-carrying event finds its block and what it carries."""

    section: int
    sub_field: str  # the event's field naming the part ("" for item blocks)
    kind: str  # the block kind, when the event has to open the block
    provider_type: str
    delta_kind: str
    full_field: str  # on a ``.done`` event: the field repeating the whole text
    input_format: str | None = None  # of a tool_call block it opens (v1.1)


TEXT = Rule(CONTENT, "content_index", "text", "output_text", "text", "text")
REFUSAL = Rule(CONTENT, "content_index", "refusal", "refusal", "text", "refusal")
REASONING_TEXT = Rule(CONTENT, "content_index", "reasoning", "reasoning_text", "text", "text")
SUMMARY_TEXT = Rule(SUMMARY, "summary_index", "reasoning", "summary_text", "text", "text")
ARGUMENTS = Rule(ITEM, "", "tool_call", "function_call", "json_text", "arguments")
CUSTOM_INPUT = Rule(ITEM, "", "tool_call", "custom_tool_call", "text", "input", "text")

FRAGMENT_EVENTS: Final[dict[str, Rule]] = {
    "response.output_text.delta": TEXT,
    "response.refusal.delta": REFUSAL,
    "response.reasoning_text.delta": REASONING_TEXT,
    "response.reasoning_summary_text.delta": SUMMARY_TEXT,
    "response.function_call_arguments.delta": ARGUMENTS,
    "response.custom_tool_call_input.delta": CUSTOM_INPUT,
}

WHOLE_TEXT_EVENTS: Final[dict[str, Rule]] = {
    "response.output_text.done": TEXT,
    "response.refusal.done": REFUSAL,
    "response.reasoning_text.done": REASONING_TEXT,
    "response.reasoning_summary_text.done": SUMMARY_TEXT,
    "response.function_call_arguments.done": ARGUMENTS,
    "response.custom_tool_call_input.done": CUSTOM_INPUT,
}


def completed_reason(output: Any, function_calls: int, refusals: int) -> str:
    """``finish_reason`` of a ``response.completed``.

    ``tool_calls`` when the client has a function call to run, ``refusal``
    when the answer was a refusal, else ``stop``. The final output array is
    consulted too, so a call or refusal that was never streamed still counts.
    """
    items = [i for i in output if isinstance(i, Mapping)] if isinstance(output, list) else []
    if function_calls or any(i.get("type") == "function_call" for i in items):
        return "tool_calls"
    if refusals:
        return "refusal"
    for item in items:
        content = item.get("content") if item.get("type") == "message" else None
        if isinstance(content, list) and any(
            isinstance(p, Mapping) and p.get("type") == "refusal" for p in content
        ):
            return "refusal"
    return "stop"


def normalize_usage(usage: Any) -> dict[str, Any] | None:
    """Responses usage → the contract's usage (raw object kept under ``raw``)."""
    if not isinstance(usage, Mapping):
        return None
    out: dict[str, Any] = {
        "input_tokens": int_or_none(usage.get("input_tokens")),
        "output_tokens": int_or_none(usage.get("output_tokens")),
    }
    details = usage.get("output_tokens_details")
    if isinstance(details, Mapping):
        reasoning = int_or_none(details.get("reasoning_tokens"))
        if reasoning is not None:
            out["reasoning_tokens"] = reasoning
    input_details = usage.get("input_tokens_details")
    if isinstance(input_details, Mapping):
        cached = int_or_none(input_details.get("cached_tokens"))
        if cached is not None:
            out["cached_input_tokens"] = cached
    out["raw"] = dict(usage)
    return out
