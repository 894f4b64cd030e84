"""What a frame is called in the Frames pane, and what a breakpoint on it matches.

Two names per frame:

* :func:`frame_label` — the full name: the SSE event name, or for data-only
  protocols (OpenAI Chat, Gemini) the JSON ``type``, ``[DONE]`` or
  ``: comment``. Breakpoints, search and the frame detail use it.
* :func:`short_label` — what the narrow event column shows, at most
  :data:`LABEL_WIDTH` characters. Provider event names share long prefixes
  (``content_block_start`` / ``content_block_stop``), so cutting them from
  the right makes different frames look alike. Instead each provider has a
  table of abbreviations (:data:`PREFIXES`, and for OpenAI Responses the
  noun and verb tables :data:`RESPONSES_NOUNS` / :data:`RESPONSES_VERBS`);
  the abbreviations are distinct over every event name the adapters know
  (a test checks it over the captures and the real fixtures). A name no
  table knows is shown whole, or cut from the *left* when too long, so its
  distinguishing end stays visible.
"""

from __future__ import annotations

from typing import Final

import orjson

from ..core.sse import Frame

__all__ = [
    "LABEL_WIDTH",
    "PREFIXES",
    "RESPONSES_NOUNS",
    "RESPONSES_VERBS",
    "frame_label",
    "short_label",
]

#: Width of the event column in the Frames pane.
LABEL_WIDTH: Final = 16

#: Per provider: leading parts of event names and their abbreviations.
PREFIXES: Final[dict[str, tuple[tuple[str, str], ...]]] = {
    "anthropic": (("content_block_", "cb."), ("message_", "msg.")),
}

#: OpenAI Responses ``response.<noun>.<verb>``: the noun's abbreviation.
RESPONSES_NOUNS: Final[dict[str, str]] = {
    "output_text": "text",
    "output_item": "item",
    "content_part": "part",
    "function_call_arguments": "args",
    "custom_tool_call_input": "custom",
    "reasoning_summary_text": "summary",
    "reasoning_summary_part": "sum.part",
    "reasoning_text": "reason",
    "refusal": "refusal",
    "code_interpreter_call": "code",
    "code_interpreter_call_code": "code.src",
    "image_generation_call": "image",
    "file_search_call": "files",
    "web_search_call": "web",
    "mcp_call": "mcp",
    "mcp_call_arguments": "mcp.args",
    "mcp_list_tools": "tools",
    "shell_call_command": "shell.cmd",
    "shell_call_output_content": "shell.out",
    "compaction": "compact",
}

#: OpenAI Responses: verbs (and whole ``response.<state>`` names) shortened.
RESPONSES_VERBS: Final[dict[str, str]] = {
    "in_progress": "progress",
    "interpreting": "running",
    "generating": "running",
    "compacting": "running",
    "partial_image": "partial",
    "annotation.added": "annot",
    "keep_alive": "keepalive",
}

_RESPONSES_PREFIX: Final = "response."
#: First words of the noun abbreviations (``code`` of ``code.src``), and ``resp``.
_SHORT_NOUNS: Final = frozenset(
    {short.partition(".")[0] for short in RESPONSES_NOUNS.values()} | {"resp"}
)


def frame_label(frame: Frame) -> str:
    """A frame's event name; for data-only protocols the JSON ``type``.

    OpenAI Chat and Gemini send every frame as the default ``message``
    event, which says nothing; their data's ``type`` (when there is one),
    ``[DONE]`` or ``: comment`` does.
    """
    if frame.comment is not None:
        return ": comment"
    if frame.event != "message":
        return frame.event
    if frame.data.strip() == "[DONE]":
        return "[DONE]"
    if frame.data.lstrip()[:1] == "{" and '"type"' in frame.data:
        try:
            value = orjson.loads(frame.data)
        except orjson.JSONDecodeError:
            return "message"
        if isinstance(value, dict) and isinstance(value.get("type"), str):
            return str(value["type"])
    return "message"


def _responses(label: str) -> str | None:
    if not label.startswith(_RESPONSES_PREFIX):
        return None
    rest = label[len(_RESPONSES_PREFIX) :]
    noun, dot, verb = rest.partition(".")
    if not dot:
        # ``response.completed``, ``response.in_progress``: the response's own state.
        return "resp." + RESPONSES_VERBS.get(rest, rest)
    short = RESPONSES_NOUNS.get(noun)
    if short is None:
        # An unknown noun that reads like an abbreviation (``response.text.delta``)
        # keeps its prefix, so it never looks like a known name.
        return label if noun.partition(".")[0] in _SHORT_NOUNS else rest
    return f"{short}.{RESPONSES_VERBS.get(verb, verb)}"


def short_label(provider: str | None, label: str, width: int = LABEL_WIDTH) -> str:
    """``label`` abbreviated for ``provider``'s table, at most ``width`` characters."""
    short: str | None = None
    if provider == "openai-responses":
        short = _responses(label)
    else:
        for prefix, abbreviation in PREFIXES.get(provider or "", ()):
            if label.startswith(prefix) and len(label) > len(prefix):
                short = abbreviation + label[len(prefix) :]
                break
    if short is None:
        short = label
    if len(short) > width:
        # Cut from the left: names differ at their end (``….completed`` / ``….failed``).
        short = "…" + short[len(short) - width + 1 :]
    return short
