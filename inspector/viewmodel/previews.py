"""The one-line preview of a frame: the field that matters, not its first bytes.

A frame's data usually starts with ids and bookkeeping (``{"id":"chatcmpl…``),
which makes every OpenAI Chat row look the same. The preview instead shows
what the frame *carries*: the delta text, the tool argument fragment, the
finish reason, the error message, the item that was added. Each provider
has one small function reading its own frame shapes (:data:`PREVIEWERS`);
a frame none of them understands is shown raw, minus the JSON ``type`` the
event column already names.

Strings are shown JSON-quoted (``"a\\nb"``), so quoting is unambiguous and
whitespace is visible; a string of only whitespace also says so. Building
a preview parses the frame once (O(frame size)); the Frames pane asks only
for visible rows and caches them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Final

import orjson
from rich.text import Text

from .textsafe import one_line, plain_value, quoted

__all__ = ["PREVIEWERS", "Preview", "frame_preview"]

#: Characters of a JSON value shown in a preview.
TEXT_LIMIT: Final = 120
#: Characters of the raw data shown when no previewer understands the frame.
RAW_LIMIT: Final = 300

_TYPE_PREFIX: Final = re.compile(r'\{\s*"type"\s*:\s*"([^"\\]*)"\s*,?\s*')


class Preview:
    """A frame's preview: parts separated by ``·``, and whether it carries an error."""

    def __init__(self, text: Text | None = None, carries_error: bool = False) -> None:
        self.text = text if text is not None else Text(end="")
        #: The frame says something failed (an error object, JSON that does not parse).
        self.carries_error = carries_error

    def _sep(self) -> None:
        if self.text:
            self.text.append(" · ", "dim")

    def word(self, value: object, style: str = "", limit: int = 60) -> None:
        """A name, a reason, a number (provider data: escaped)."""
        self._sep()
        self.text.append_text(one_line(plain_value(value), limit, style))

    def label(self, name: str, value: object, style: str = "", limit: int = 60) -> None:
        """``name value`` (our word, dim; then the provider's)."""
        self._sep()
        self.text.append(f"{name} ", "dim")
        self.text.append_text(one_line(plain_value(value), limit, style))

    def string(self, value: str, style: str = "green", name: str | None = None) -> None:
        """A quoted string, optionally named (``args "…"``)."""
        self._sep()
        if name:
            self.text.append(f"{name} ", "dim")
        self.text.append_text(quoted(value, style))

    def json(self, value: object, name: str | None = None) -> None:
        """A compact JSON value (tool arguments as an object)."""
        self._sep()
        if name:
            self.text.append(f"{name} ", "dim")
        self.text.append_text(one_line(orjson.dumps(value).decode(), TEXT_LIMIT, "green"))

    def error(self, value: object) -> None:
        """An error object: its type / code, then its message, in red."""
        self.carries_error = True
        self._sep()
        if not isinstance(value, Mapping):
            self.text.append_text(one_line(plain_value(value), 200, "bold red"))
            return
        code = value.get("code") or value.get("type") or value.get("status")
        if code is not None:
            self.text.append_text(one_line(plain_value(code), 60, "bold red"))
            self.text.append(": ", "red")
        self.text.append_text(one_line(plain_value(value.get("message", "")), 200, "red"))

    def usage(self, inputs: object, outputs: object) -> None:
        """Token counts, when the frame reports them."""
        counts = [(name, n) for name, n in (("in", inputs), ("out", outputs)) if n is not None]
        if counts:
            self._sep()
            words = " ".join(f"{name} {plain_value(n)}" for name, n in counts)
            self.text.append_text(one_line(f"usage {words}", 80, "dim"))


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _first(value: object) -> Mapping[str, Any]:
    return _dict(value[0]) if isinstance(value, list) and value else {}


# -- Anthropic -------------------------------------------------------------------


def _anthropic_delta(p: Preview, delta: Mapping[str, Any]) -> None:
    kind = delta.get("type")
    if kind == "text_delta":
        p.string(plain_value(delta.get("text", "")))
    elif kind == "input_json_delta":
        p.string(plain_value(delta.get("partial_json", "")), name="json")
    elif kind == "thinking_delta":
        p.string(plain_value(delta.get("thinking", "")), "italic magenta", name="thinking")
    elif kind == "signature_delta":
        p.label("signature", f"{len(plain_value(delta.get('signature', '')))} chars", "magenta")
    elif kind == "citations_delta":
        citation = _dict(delta.get("citation"))
        p.label("citation", citation.get("title") or citation.get("cited_text") or "")
    else:
        p.word(kind or "?", "yellow")


def anthropic_preview(label: str, value: Mapping[str, Any]) -> Preview | None:
    """Anthropic Messages: block index, the delta / block / stop reason / error."""
    p = Preview()
    if isinstance(value.get("index"), int):
        p.word(f"[{value['index']}]", "bold")
    if label == "content_block_delta":
        _anthropic_delta(p, _dict(value.get("delta")))
    elif label == "content_block_start":
        block = _dict(value.get("content_block"))
        p.word(block.get("type", "?"), "cyan")
        if block.get("name") is not None:
            p.word(block["name"], "bold")
        if block.get("id") is not None:
            p.word(block["id"], "dim")
        if block.get("text"):
            p.string(plain_value(block["text"]))
    elif label == "message_start":
        message = _dict(value.get("message"))
        p.word(message.get("model", ""))
        usage = _dict(message.get("usage"))
        p.usage(usage.get("input_tokens"), usage.get("output_tokens"))
    elif label == "message_delta":
        delta = _dict(value.get("delta"))
        reason = delta.get("stop_reason")
        p.label("stop_reason", reason, "bold green" if reason == "end_turn" else "bold yellow")
        usage = _dict(value.get("usage"))
        p.usage(usage.get("input_tokens"), usage.get("output_tokens"))
    elif "error" in value:
        p.error(value["error"])
    elif label == "content_block_stop":
        pass  # the block index says it all
    elif len(value) > 1:
        return None
    return p


# -- OpenAI Chat -------------------------------------------------------------------


def _chat_tool_call(p: Preview, call: Mapping[str, Any]) -> None:
    function = _dict(call.get("function"))
    index = call.get("index")
    p.word(f"tool[{index}]" if index is not None else "tool", "cyan")
    if function.get("name") is not None:
        p.word(function["name"], "bold")
    arguments = function.get("arguments")
    if isinstance(arguments, str) and (arguments or function.get("name") is None):
        p.string(arguments)  # the argument fragment: after "tool[i]", no label needed


def _chat_reasoning_detail(p: Preview, detail: Mapping[str, Any]) -> None:
    p.word(detail.get("type", "?"), "magenta")
    if isinstance(detail.get("text"), str):
        p.string(detail["text"], "italic magenta")
    for key in ("signature", "data"):
        if detail.get(key):
            p.label(key, f"{len(plain_value(detail[key]))} chars", "magenta")


def _chat_content_chunk(p: Preview, chunk: Mapping[str, Any]) -> None:
    kind = chunk.get("type")
    inner = chunk.get(kind) if isinstance(kind, str) else None
    parts = inner if isinstance(inner, list) else [chunk]
    for part in parts:
        text = _dict(part).get("text")
        if isinstance(text, str):
            p.string(text, "italic magenta" if kind == "thinking" else "green")


def chat_preview(label: str, value: Mapping[str, Any]) -> Preview | None:
    """OpenAI Chat: the delta's content, reasoning, refusal, tool call; finish; usage."""
    p = Preview()
    if "error" in value:
        p.error(value["error"])
        return p
    choice = _first(value.get("choices"))
    delta = _dict(choice.get("delta"))
    if choice.get("index") not in (0, None):
        # Several choices (n > 1): a chunk of choice 1 is not one of choice 0.
        p.label("choice", choice["index"], "bold")
    if delta.get("role") is not None:
        p.label("role", delta["role"], "dim")
    for key, style, name in (
        ("reasoning_content", "italic magenta", "reasoning"),
        ("reasoning", "italic magenta", "reasoning"),
        ("content", "green", None),
        ("refusal", "bold red", "refusal"),
    ):
        if isinstance(delta.get(key), str):
            p.string(delta[key], style, name)
    if not isinstance(delta.get("reasoning"), str):
        # OpenRouter: reasoning in structured details (text, signature, encrypted data).
        for detail in delta.get("reasoning_details") or ():
            _chat_reasoning_detail(p, _dict(detail))
    for call in delta.get("tool_calls") or ():
        _chat_tool_call(p, _dict(call))
    # Contract v1.1 dialects: Mistral's content chunks, Groq's server-run tools.
    content = delta.get("content")
    for chunk in content if isinstance(content, list) else ():
        _chat_content_chunk(p, _dict(chunk))
    for tool in map(_dict, delta.get("executed_tools") or ()):
        p.word(f"executed {tool.get('type', '?')}", "cyan")
        if isinstance(tool.get("arguments"), str):
            p.string(tool["arguments"])
        if tool.get("output"):
            p.label("output", f"{len(plain_value(tool['output']))} chars", "cyan")
    reason = choice.get("finish_reason")
    if reason is not None:
        p.label("finish", reason, "bold green" if reason == "stop" else "bold yellow")
    usage = _dict(value.get("usage"))
    p.usage(usage.get("prompt_tokens"), usage.get("completion_tokens"))
    return p if p.text else None


# -- OpenAI Responses --------------------------------------------------------------


def _responses_item(p: Preview, item: Mapping[str, Any]) -> None:
    p.word(item.get("type", "?"), "cyan")
    if item.get("name") is not None:
        p.word(item["name"], "bold")
    if item.get("status") is not None:
        p.word(item["status"], "dim")


def responses_preview(label: str, value: Mapping[str, Any]) -> Preview | None:
    """OpenAI Responses: output index, then the delta / item / part / status / error."""
    p = Preview()
    if isinstance(value.get("output_index"), int):
        p.word(f"[{value['output_index']}]", "bold")
    response = _dict(value.get("response"))
    if isinstance(value.get("delta"), str):
        p.string(value["delta"], "bold red" if "refusal" in label else "green")
    elif isinstance(value.get("item"), Mapping):
        _responses_item(p, value["item"])
    elif isinstance(value.get("part"), Mapping):
        p.word(value["part"].get("type", "?"), "cyan")
    elif label == "error" or ("error" in value and not response):
        p.error(value.get("error", value))
    elif response:
        status = response.get("status")
        p.word(status, "bold green" if status == "completed" else "bold yellow")
        if response.get("error"):
            p.error(response["error"])
        details = _dict(response.get("incomplete_details"))
        if details.get("reason") is not None:
            p.label("reason", details["reason"], "bold yellow")
        usage = _dict(response.get("usage"))
        p.usage(usage.get("input_tokens"), usage.get("output_tokens"))
    else:
        for key in ("text", "arguments", "refusal"):
            if isinstance(value.get(key), str):
                p.string(value[key])
                break
        else:
            annotation = _dict(value.get("annotation"))
            if annotation:
                p.word(annotation.get("type", "?"), "cyan")
                p.word(annotation.get("title") or annotation.get("url") or "")
            elif len(p.text) == 0 or len(value) > 4:
                return None
    return p


# -- Gemini ------------------------------------------------------------------------


def _gemini_part(p: Preview, part: Mapping[str, Any]) -> None:
    if isinstance(part.get("text"), str):
        if part.get("thought"):
            p.string(part["text"], "italic magenta", "thought")
        else:
            p.string(part["text"])
    elif isinstance(part.get("functionCall"), Mapping):
        call = part["functionCall"]
        p.word("call", "cyan")
        if call.get("name") is not None:
            p.word(call["name"], "bold")
        if "args" in call:
            p.json(call["args"], "args")
        if call.get("partialArgs") is not None:
            p.json(call["partialArgs"], "partialArgs")
    else:
        kinds = [key for key in part if key != "thoughtSignature"]
        if kinds:
            p.word(kinds[0], "cyan")
    if part.get("thoughtSignature"):
        p.label("signature", f"{len(plain_value(part['thoughtSignature']))} chars", "magenta")


def gemini_preview(label: str, value: Mapping[str, Any]) -> Preview | None:
    """Gemini: each part (text, thought, call), finish reason, block reason, usage, error."""
    p = Preview()
    if "error" in value:
        p.error(value["error"])
        return p
    listed = value.get("candidates")
    candidates = [_dict(c) for c in listed] if isinstance(listed, list) and listed else [{}]
    # Several candidates (candidateCount > 1): each one, named by its index.
    several = len(candidates) > 1 or candidates[0].get("index") not in (0, None)
    finished = False
    for candidate in candidates:
        if several:
            p.label("candidate", candidate.get("index", 0), "bold")
        for part in _dict(candidate.get("content")).get("parts") or ():
            _gemini_part(p, _dict(part))
        reason = candidate.get("finishReason")
        if reason is not None:
            p.label("finish", reason, "bold green" if reason == "STOP" else "bold yellow")
            finished = True
    if finished:
        usage = _dict(value.get("usageMetadata"))
        p.usage(usage.get("promptTokenCount"), usage.get("candidatesTokenCount"))
    feedback = _dict(value.get("promptFeedback"))
    if feedback.get("blockReason") is not None:
        p.label("blocked", feedback["blockReason"], "bold red")
    return p if p.text else None


#: Per provider: ``(label, parsed data) -> preview`` (None: show the raw data).
PREVIEWERS: Final[dict[str, Callable[[str, Mapping[str, Any]], Preview | None]]] = {
    "anthropic": anthropic_preview,
    "openai-chat": chat_preview,
    "openai-responses": responses_preview,
    "gemini": gemini_preview,
}


def raw_preview(data: str, label: str) -> Preview:
    """The data as received, minus a leading JSON ``type`` the event column shows."""
    match = _TYPE_PREFIX.match(data)
    if match is not None and match.group(1) == label:
        data = "{…" + data[match.end() :]
    return Preview(one_line(data, RAW_LIMIT))


def frame_preview(provider: str | None, label: str, data: str) -> Preview:
    """The preview of one frame's data (see the module docstring)."""
    previewer = PREVIEWERS.get(provider or "")
    if previewer is None or data.lstrip()[:1] != "{":
        return raw_preview(data, label)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        text = Text("invalid JSON ", "bold red", end="")
        text.append_text(one_line(str(exc), 80, "red"))
        text.append(" · ", "dim")
        text.append_text(one_line(data, RAW_LIMIT))
        return Preview(text, carries_error=True)
    if not isinstance(value, dict):
        return raw_preview(data, label)
    try:
        preview = previewer(label, value)
    except (TypeError, ValueError, AttributeError):
        # Provider data of an unexpected shape: the raw bytes are the honest preview.
        preview = None
    return raw_preview(data, label) if preview is None else preview
