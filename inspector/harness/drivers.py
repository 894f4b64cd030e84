"""Drivers: the clients the harness judges, each written as its users usually write it.

A driver is given a :class:`Target` (an ``httpx.Client`` whose transport
plays the scenario, its base URL, the model, the timeout) and returns an
:class:`Outcome`: what the client concluded. Each SDK driver is optional:
:func:`available` says why one cannot run. An exception that is one of
the client's own error types is a reported error (``raised``); any other
exception is the client failing (``crashed``).
"""

from __future__ import annotations

import functools
import importlib
import importlib.metadata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

import httpx
import orjson

__all__ = ["DRIVERS", "Driver", "Hung", "Outcome", "Target", "available", "outcome_of_call"]

PROMPT: Final = "Say hello."


@dataclass(frozen=True, slots=True)
class Target:
    """Where a driver sends its one request."""

    base_url: str  # the server root; the client appends its provider's path
    provider: str
    model: str
    timeout: float
    http_client: Any = None  # an httpx.Client (httpx2.Client for the anthropic SDK)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a client concluded: success with content, a reported error, or a crash."""

    ok: bool
    text: str = ""
    tool_calls: tuple[tuple[str, str], ...] = ()
    finish_reason: str | None = None
    error: str | None = None
    crashed: bool = False

    def to_json(self) -> dict[str, Any]:
        """JSON-ready (the ``command:`` driver's line has the same keys)."""
        return {
            "ok": self.ok,
            "text": self.text,
            "tool_calls": [{"name": n, "arguments": a} for n, a in self.tool_calls],
            "finish_reason": self.finish_reason,
            "error": self.error,
            "crashed": self.crashed,
        }


Run = Callable[[Target], Outcome]


@dataclass(frozen=True)
class Driver:
    """A named client: the providers it speaks, the package it needs, its error types."""

    name: str
    providers: tuple[str, ...]
    package: str | None
    run: Run
    errors: Callable[[], tuple[type[BaseException], ...]]
    help: str = ""
    guardable: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def version(self) -> str | None:
        """The installed version of the package it drives."""
        if self.package is None:
            return None
        try:
            return importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            return None


def available(driver: Driver) -> str | None:
    """Why ``driver`` cannot run here (its package is missing), or None."""
    if driver.package is None:
        return None
    module = _MODULES.get(driver.package, driver.package)
    try:
        importlib.import_module(module)
    except ImportError as exc:
        return f"{driver.package} is not installed ({exc})"
    return None


_MODULES: Final = {"google-genai": "google.genai", "httpx-sse": "httpx_sse"}


class Hung(Exception):
    """A driver that watches its own client (a program) saw it give no answer in time."""


def outcome_of_call(
    run: Run, target: Target, errors: tuple[type[BaseException], ...]
) -> Outcome | None:
    """Run a driver, turning its exception into a reported error or a crash (None: hung)."""
    try:
        return run(target)
    except Hung:
        return None
    except errors as exc:
        return Outcome(False, error=_described(exc))
    except Exception as exc:  # a client bug, reported as such
        return Outcome(False, error=_described(exc), crashed=True)


def _described(exc: BaseException) -> str:
    """``Type: message``, with the exception that caused it (SDKs wrap transport errors)."""
    text = f"{type(exc).__name__}: {exc}"
    cause = exc.__cause__ or exc.__context__
    if cause is not None and cause is not exc:
        text += f" (caused by {type(cause).__name__}: {cause})"
    return text[:600]


def _calls(slots: dict[int, dict[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple((s["name"], s["arguments"]) for _, s in sorted(slots.items()))


# -- openai ------------------------------------------------------------------


def _openai(target: Target) -> Any:
    import openai

    return openai.OpenAI(
        api_key="sk-harness",
        base_url=target.base_url + "/v1",
        http_client=target.http_client,
        max_retries=0,
        timeout=target.timeout,
    )


def _openai_errors() -> tuple[type[BaseException], ...]:
    import openai

    # OpenAIError: the SDK's own base, e.g. LengthFinishReasonError from the helpers.
    return (openai.OpenAIError, httpx.HTTPError)


def openai_chat(target: Target) -> Outcome:
    """The SDK's usual Chat loop: ``create(stream=True)``, deltas and finish_reason by chunk."""
    stream = _openai(target).chat.completions.create(
        model=target.model, messages=[{"role": "user", "content": PROMPT}], stream=True
    )
    text: list[str] = []
    slots: dict[int, dict[str, str]] = {}
    finish = None
    for chunk in stream:
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if delta is not None and delta.content:
            text.append(delta.content)
        for call in (delta.tool_calls or []) if delta is not None else []:
            slot = slots.setdefault(call.index, {"name": "", "arguments": ""})
            if call.function is not None:
                if call.function.name:
                    slot["name"] = call.function.name
                if call.function.arguments:
                    slot["arguments"] += call.function.arguments
        if choice.finish_reason:
            finish = choice.finish_reason
    return Outcome(True, "".join(text), _calls(slots), finish)


def openai_chat_stream(target: Target) -> Outcome:
    """The ``.stream()`` helper: iterate its events, then ``get_final_completion()``."""
    client = _openai(target)
    with client.chat.completions.stream(
        model=target.model, messages=[{"role": "user", "content": PROMPT}]
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    if not final.choices:
        return Outcome(True)
    choice = final.choices[0]
    message = choice.message
    calls = tuple(
        (c.function.name, c.function.arguments)
        for c in (message.tool_calls or [])
        if getattr(c, "function", None) is not None
    )
    return Outcome(True, message.content or "", calls, choice.finish_reason)


def openai_responses(target: Target) -> Outcome:
    """The Responses loop: ``create(stream=True)``, text and argument deltas, the final status."""
    stream = _openai(target).responses.create(model=target.model, input=PROMPT, stream=True)
    text: list[str] = []
    slots: dict[int, dict[str, str]] = {}
    finish = None
    for event in stream:
        kind = event.type
        if kind == "response.output_text.delta":
            text.append(event.delta)
        elif kind == "response.output_item.added" and event.item.type == "function_call":
            slots[event.output_index] = {"name": event.item.name, "arguments": ""}
        elif kind == "response.function_call_arguments.delta":
            slots[event.output_index]["arguments"] += event.delta
        elif kind == "response.completed":
            finish = event.response.status
        elif kind == "response.incomplete":
            details = event.response.incomplete_details
            finish = (details.reason if details is not None else None) or "incomplete"
    return Outcome(True, "".join(text), _calls(slots), finish)


# -- anthropic ---------------------------------------------------------------


def _anthropic(target: Target) -> Any:
    import anthropic

    return anthropic.Anthropic(
        api_key="sk-ant-harness",
        base_url=target.base_url,
        http_client=target.http_client,
        max_retries=0,
        timeout=target.timeout,
    )


def _anthropic_errors() -> tuple[type[BaseException], ...]:
    import anthropic

    return (anthropic.APIError, _anthropic_http().HTTPError, httpx.HTTPError)


def _anthropic_http() -> Any:
    """The httpx package the installed anthropic SDK is built on (``httpx2`` since 2.x)."""
    return importlib.import_module(_anthropic_module())


@functools.cache
def _anthropic_module() -> str:
    try:
        import anthropic._base_client as base
    except ImportError:
        return "httpx"
    return "httpx2" if hasattr(base, "httpx2") else "httpx"


#: Read when a run needs it: importing the SDK to find out costs half a second.
_ANTHROPIC_HTTP: Final[dict[str, Any]] = {"httpx": _anthropic_module}


def anthropic_raw(target: Target) -> Outcome:
    """The raw loop: ``messages.create(stream=True)``, events by type."""
    stream = _anthropic(target).messages.create(
        model=target.model,
        max_tokens=1024,
        messages=[{"role": "user", "content": PROMPT}],
        stream=True,
    )
    text: list[str] = []
    slots: dict[int, dict[str, str]] = {}
    finish = None
    for event in stream:
        if event.type == "content_block_start" and event.content_block.type == "tool_use":
            slots[event.index] = {"name": event.content_block.name, "arguments": ""}
        elif event.type == "content_block_delta":
            if event.delta.type == "text_delta":
                text.append(event.delta.text)
            elif event.delta.type == "input_json_delta" and event.index in slots:
                # (a server tool's input, say web search, streams too: not a client call)
                slots[event.index]["arguments"] += event.delta.partial_json
        elif event.type == "message_delta":
            finish = event.delta.stop_reason
    return Outcome(True, "".join(text), _calls(slots), finish)


def anthropic_stream(target: Target) -> Outcome:
    """The helper: ``messages.stream()`` then ``get_final_message()``."""
    with _anthropic(target).messages.stream(
        model=target.model, max_tokens=1024, messages=[{"role": "user", "content": PROMPT}]
    ) as stream:
        message = stream.get_final_message()
    text = "".join(b.text for b in message.content if b.type == "text")
    calls = tuple(
        (b.name, orjson.dumps(b.input).decode()) for b in message.content if b.type == "tool_use"
    )
    return Outcome(True, text, calls, message.stop_reason)


# -- google-genai ------------------------------------------------------------


class GeminiCalls:
    """Gemini's function calls as its docs say to assemble them: whole (``name`` and
    ``args``), or streamed (Vertex: ``name`` with ``willContinue``, then ``partialArgs``
    pieces by JSON path, then an empty ``functionCall`` closing it)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.open = False

    def add(self, call: dict[str, Any]) -> None:
        """One ``functionCall`` object (camelCase keys, as on the wire)."""
        partial = call.get("partialArgs")
        if call.get("name"):
            self.calls.append((call["name"], dict(call.get("args") or {})))
            self.open = bool(call.get("willContinue"))
        elif partial and self.open:
            args = self.calls[-1][1]
            for piece in partial:
                key = str(piece.get("jsonPath", "$")).removeprefix("$.")
                if "stringValue" in piece:
                    args[key] = str(args.get(key, "")) + piece["stringValue"]
                else:
                    value = next((piece[k] for k in ("numberValue", "boolValue") if k in piece),
                                 None)  # fmt: skip
                    args[key] = value
        elif not call:
            self.open = False

    def result(self) -> list[tuple[str, str]]:
        """``(name, arguments JSON)`` of every call."""
        return [(name, orjson.dumps(args).decode()) for name, args in self.calls]


def _genai_errors() -> tuple[type[BaseException], ...]:
    from google.genai import errors

    own = tuple(
        getattr(errors, name)
        for name in ("APIError", "UnknownApiResponseError")
        if isinstance(getattr(errors, name, None), type)
    )
    return (*own, httpx.HTTPError)


def google_genai(target: Target) -> Outcome:
    """``models.generate_content_stream``: each chunk's parts, the candidate's finish reason."""
    from google import genai
    from google.genai import types

    client = genai.Client(
        api_key="harness-key",
        http_options=types.HttpOptions(
            base_url=target.base_url,
            httpx_client=target.http_client,
            timeout=int(target.timeout * 1000),
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )
    text: list[str] = []
    calls = GeminiCalls()
    finish = None
    for chunk in client.models.generate_content_stream(model=target.model, contents=PROMPT):
        candidate = chunk.candidates[0] if chunk.candidates else None
        if candidate is None:
            continue
        parts = candidate.content.parts if candidate.content is not None else None
        for part in parts or []:
            if part.text and not part.thought:
                text.append(part.text)
            if part.function_call is not None:
                calls.add(part.function_call.model_dump(exclude_none=True, by_alias=True))
        if candidate.finish_reason is not None:
            reason = candidate.finish_reason
            finish = str(getattr(reason, "value", reason))
    return Outcome(True, "".join(text), tuple(calls.result()), finish)


# -- httpx-sse: the hand-written client --------------------------------------

_PATHS: Final = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/{model}:streamGenerateContent?alt=sse",
}


def _sse_body(target: Target) -> dict[str, Any]:
    if target.provider == "gemini":
        return {"contents": [{"role": "user", "parts": [{"text": PROMPT}]}]}
    if target.provider == "openai-responses":
        return {"model": target.model, "input": PROMPT, "stream": True}
    messages = [{"role": "user", "content": PROMPT}]
    return {"model": target.model, "messages": messages, "stream": True, "max_tokens": 1024}


class _Hand:
    """What a hand-written loop keeps: text, tool-call slots, the finish reason."""

    def __init__(self) -> None:
        self.text: list[str] = []
        self.slots: dict[int, dict[str, str]] = {}
        self.finish: str | None = None
        self.gemini = GeminiCalls()

    def slot(self, index: int, name: str | None = None) -> dict[str, str]:
        slot = self.slots.setdefault(index, {"name": "", "arguments": ""})
        if name:
            slot["name"] = name
        return slot


def _sse_chat(hand: _Hand, data: dict[str, Any]) -> None:
    for choice in data.get("choices") or []:
        delta = choice.get("delta") or {}
        if delta.get("content"):
            hand.text.append(delta["content"])
        for call in delta.get("tool_calls") or []:
            function = call.get("function") or {}
            hand.slot(call["index"], function.get("name"))["arguments"] += (
                function.get("arguments") or ""
            )
        if choice.get("finish_reason"):
            hand.finish = choice["finish_reason"]


def _sse_anthropic(hand: _Hand, data: dict[str, Any]) -> None:
    kind = data.get("type")
    if kind == "content_block_start" and data["content_block"]["type"] == "tool_use":
        hand.slot(data["index"], data["content_block"]["name"])
    elif kind == "content_block_delta":
        delta = data["delta"]
        if delta["type"] == "text_delta":
            hand.text.append(delta["text"])
        elif delta["type"] == "input_json_delta" and data["index"] in hand.slots:
            hand.slots[data["index"]]["arguments"] += delta["partial_json"]
    elif kind == "message_delta":
        hand.finish = data["delta"].get("stop_reason")
    elif kind == "error":
        raise RuntimeError(f"stream error: {data.get('error')}")


def _sse_responses(hand: _Hand, data: dict[str, Any]) -> None:
    kind = data.get("type")
    if kind == "response.output_text.delta":
        hand.text.append(data["delta"])
    elif kind == "response.output_item.added" and data["item"]["type"] == "function_call":
        hand.slot(data["output_index"], data["item"]["name"])
    elif kind == "response.function_call_arguments.delta":
        hand.slot(data["output_index"])["arguments"] += data["delta"]
    elif kind == "response.completed":
        hand.finish = data["response"]["status"]
    elif kind == "response.incomplete":
        details = data["response"].get("incomplete_details") or {}
        hand.finish = details.get("reason") or "incomplete"
    elif kind in ("error", "response.failed"):
        raise RuntimeError(f"stream error: {data}")


def _sse_gemini(hand: _Hand, data: dict[str, Any]) -> None:
    if "error" in data:
        raise RuntimeError(f"stream error: {data['error']}")
    for candidate in data.get("candidates") or []:
        for part in (candidate.get("content") or {}).get("parts") or []:
            if part.get("text") and not part.get("thought"):
                hand.text.append(part["text"])
            if "functionCall" in part:
                hand.gemini.add(part["functionCall"])
        if candidate.get("finishReason"):
            hand.finish = candidate["finishReason"]


_SSE_HANDLERS: Final = {
    "openai-chat": _sse_chat,
    "anthropic": _sse_anthropic,
    "openai-responses": _sse_responses,
    "gemini": _sse_gemini,
}
#: The event after which a hand-written loop stops reading.
_SSE_LAST: Final = {"openai-chat": "[DONE]", "anthropic": "message_stop"}


def httpx_sse_client(target: Target) -> Outcome:
    """A hand-written client on httpx-sse: ``connect_sse``, ``iter_sse``, one handler a provider."""
    from httpx_sse import connect_sse

    client = target.http_client or httpx.Client(timeout=target.timeout)
    url = target.base_url + _PATHS[target.provider].format(model=target.model)
    hand = _Hand()
    handle = _SSE_HANDLERS[target.provider]
    with connect_sse(client, "POST", url, json=_sse_body(target), timeout=target.timeout) as source:
        source.response.raise_for_status()
        for sse in source.iter_sse():
            if sse.data == _SSE_LAST.get(target.provider) or sse.event == _SSE_LAST.get(
                target.provider
            ):
                break
            if sse.data == "[DONE]":
                break
            data = orjson.loads(sse.data)
            if target.provider == "openai-chat" and "error" in data:
                raise RuntimeError(f"stream error: {data['error']}")
            handle(hand, data)
    calls = tuple(hand.gemini.result()) if target.provider == "gemini" else _calls(hand.slots)
    return Outcome(True, "".join(hand.text), calls, hand.finish)


def _httpx_sse_errors() -> tuple[type[BaseException], ...]:
    from httpx_sse import SSEError

    # The hand-written loop raises RuntimeError on an error event: its own report.
    return (httpx.HTTPError, SSEError, RuntimeError)


DRIVERS: Final[dict[str, Driver]] = {
    d.name: d
    for d in (
        Driver("openai-chat", ("openai-chat",), "openai", openai_chat, _openai_errors,
               "openai SDK, chat.completions.create(stream=True) loop"),
        Driver("openai-chat-stream", ("openai-chat",), "openai", openai_chat_stream,
               _openai_errors, "openai SDK, chat.completions.stream() -> get_final_completion()"),
        Driver("openai-responses", ("openai-responses",), "openai", openai_responses,
               _openai_errors, "openai SDK, responses.create(stream=True) loop"),
        Driver("anthropic", ("anthropic",), "anthropic", anthropic_raw, _anthropic_errors,
               "anthropic SDK, messages.create(stream=True) loop", extra=_ANTHROPIC_HTTP),
        Driver("anthropic-stream", ("anthropic",), "anthropic", anthropic_stream,
               _anthropic_errors, "anthropic SDK, messages.stream() -> get_final_message()",
               extra=_ANTHROPIC_HTTP),
        Driver("google-genai", ("gemini",), "google-genai", google_genai, _genai_errors,
               "google-genai SDK, models.generate_content_stream() loop"),
        Driver("httpx-sse", ("openai-chat", "openai-responses", "anthropic", "gemini"),
               "httpx-sse", httpx_sse_client, _httpx_sse_errors,
               "a hand-written client on httpx-sse's connect_sse"),
    )
}  # fmt: skip
