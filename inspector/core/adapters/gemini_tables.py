"""Gemini's vocabulary as data: final signals, finish and block reasons, parts, fields,
and what ``usageMetadata``'s counts mean in the contract's usage.

Split from :mod:`.gemini` along the seam between what Google's API says (these
tables, which the provider page documents one for one) and how the adapter
reads a stream with them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from .base import int_or_none
from .fields import IGNORED, READ, FieldTable
from .fields import Shape as FieldShape

__all__ = [
    "BLOCK_REASON_NUMBERS",
    "CANDIDATE_FIELDS",
    "DONE_FINISH_REASONS",
    "FAILED_FINISH_REASONS",
    "FAILED_WHAT",
    "FINAL_SIGNALS",
    "FINISH_REASON_NUMBERS",
    "OPAQUE_PARTS",
    "PART_META",
    "RESPONSE_FIELDS",
    "SHARED_NUMBERS",
    "normalize_usage",
]

FINAL_SIGNALS: Final[dict[str, tuple[str, str]]] = {
    "finishReason (done)": (
        "completed",
        "a reason of DONE_FINISH_REASONS, no streamed call unfinished, and output produced "
        "when it is a content filter (else failed / content_filter)",
    ),
    "finishReason (failed)": ("failed", "a reason of FAILED_FINISH_REASONS, with its category"),
    "promptFeedback.blockReason": ("failed", "content_filter"),
    "error": ("failed", "category from the Google status"),
}
"""The frame fields that end a stream → (terminal state, condition). Nothing else
does: without one of them the end of the bytes is ``interrupted``."""

# finishReason -> normalized finish_reason of a ``stream.done``. A reason not
# listed here nor in FAILED_FINISH_REASONS (a value Google adds later) is
# ``other``, with the raw value kept in provider_finish_reason.
DONE_FINISH_REASONS: Final[dict[str, str]] = {
    "STOP": "stop",  # becomes "tool_calls" when the response called a client function
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "IMAGE_PROHIBITED_CONTENT": "content_filter",
    "IMAGE_RECITATION": "content_filter",
    "LANGUAGE": "other",
    "OTHER": "other",
    "FINISH_REASON_UNSPECIFIED": "other",
    "IMAGE_OTHER": "other",
    "NO_IMAGE": "other",
}

# finishReason -> error category: the model's output is not a usable result.
# The model produced a call the API could not accept; like tool arguments that
# do not parse at block.stop, that is a protocol error of the response.
FAILED_FINISH_REASONS: Final[dict[str, str]] = {
    "MALFORMED_FUNCTION_CALL": "protocol_error",
    "UNEXPECTED_TOOL_CALL": "protocol_error",
    "TOO_MANY_TOOL_CALLS": "protocol_error",
    "MALFORMED_RESPONSE": "protocol_error",
    # The request left out a thought signature the model needed: the caller's fault.
    "MISSING_THOUGHT_SIGNATURE": "invalid_request",
}

FAILED_WHAT: Final[dict[str, str]] = {
    "MALFORMED_FUNCTION_CALL": "the model generated a function call the API could not parse",
    "UNEXPECTED_TOOL_CALL": "the model called a tool the request did not make available",
    "TOO_MANY_TOOL_CALLS": "the model made more tool calls than the API allows in one turn",
    "MALFORMED_RESPONSE": "the model's response was malformed",
    "MISSING_THOUGHT_SIGNATURE": "the request is missing a thought signature the model needs",
}

# Part data keys the provider runs or returns itself: never a client tool call.
OPAQUE_PARTS: Final = frozenset(
    {"executableCode", "codeExecutionResult", "toolCall", "toolResponse",
     "functionResponse", "inlineData", "fileData"}
)  # fmt: skip

# Part keys that describe a part rather than hold its data; not worth a warning.
PART_META: Final = frozenset(
    {"thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution"}
)

# v1.1 unread-field accounting: the fields of a response the adapter reads, and
# those it reads only to ignore. Parts are read whole (a part type the adapter
# does not know is an ``unknown_part`` warning of its own).
CANDIDATE_FIELDS: Final[FieldShape] = {
    "content": {"parts": READ, "role": IGNORED},
    "finishReason": READ,
    "finishMessage": READ,
    "index": READ,
    "citationMetadata": READ,
    "groundingMetadata": READ,
    # Scores and token details with no slot in the contract.
    "safetyRatings": IGNORED,
    "avgLogprobs": IGNORED,
    "logprobsResult": IGNORED,
    "tokenCount": IGNORED,
}
RESPONSE_FIELDS: Final[FieldTable] = {
    "response": {
        "candidates": CANDIDATE_FIELDS,
        "usageMetadata": READ,
        "modelVersion": READ,
        "responseId": READ,
        "createTime": IGNORED,
        "error": READ,
        "promptFeedback": {"blockReason": READ, "safetyRatings": IGNORED},
    },
}

# Enum values sent as integers (``$alt=json;enum-encoding=int``) -> their names:
# google.ai.generativelanguage.v1beta Candidate.FinishReason / BlockReason.
# (Vertex numbers the values after OTHER differently; only 0-5 are shared.)
FINISH_REASON_NUMBERS: Final[dict[int, str]] = {
    0: "FINISH_REASON_UNSPECIFIED", 1: "STOP", 2: "MAX_TOKENS", 3: "SAFETY", 4: "RECITATION",
    5: "OTHER", 6: "LANGUAGE", 7: "BLOCKLIST", 8: "PROHIBITED_CONTENT", 9: "SPII",
    10: "MALFORMED_FUNCTION_CALL", 11: "IMAGE_SAFETY", 12: "UNEXPECTED_TOOL_CALL",
    13: "TOO_MANY_TOOL_CALLS",
}  # fmt: skip
SHARED_NUMBERS: Final = 5  # the highest value Vertex numbers the same way
BLOCK_REASON_NUMBERS: Final[dict[int, str]] = {
    0: "BLOCK_REASON_UNSPECIFIED", 1: "SAFETY", 2: "OTHER", 3: "BLOCKLIST",
    4: "PROHIBITED_CONTENT", 5: "IMAGE_SAFETY",
}  # fmt: skip


def normalize_usage(usage: Mapping[str, Any]) -> dict[str, Any]:
    """``usageMetadata`` → the contract's usage (raw object kept under ``raw``).

    Google leaves zero counts out (proto3 JSON), so a missing count is 0 once
    any count of that side is present. Input includes ``toolUsePromptTokenCount``
    (search results or code output the model read, billed as input); output
    includes ``thoughtsTokenCount`` (billed as output). So input + output is
    ``totalTokenCount``.
    """
    prompt = int_or_none(usage.get("promptTokenCount"))
    tool_prompt = int_or_none(usage.get("toolUsePromptTokenCount"))
    candidates = int_or_none(usage.get("candidatesTokenCount"))
    thoughts = int_or_none(usage.get("thoughtsTokenCount"))
    out: dict[str, Any] = {
        "input_tokens": _sum(prompt, tool_prompt),
        "output_tokens": _sum(candidates, thoughts),
    }
    if thoughts is not None:
        out["reasoning_tokens"] = thoughts
    cached = int_or_none(usage.get("cachedContentTokenCount"))
    if cached is not None:
        out["cached_input_tokens"] = cached
    out["raw"] = dict(usage)
    return out


def _sum(a: int | None, b: int | None) -> int | None:
    if a is None and b is None:
        return None
    return (a or 0) + (b or 0)
