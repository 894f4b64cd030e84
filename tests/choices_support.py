"""Streams with several choices, generated: OpenAI Chat, Gemini, legacy Completions.

:func:`several_choice_streams` draws how many choices, each one's text pieces
(and perhaps a tool call), how their frames interleave and how each ends; the
stream's bytes come with what a reader must get back: each choice's text, its
tool-call arguments and its finish reason.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
from hypothesis import strategies as st

PROVIDERS = ("openai-chat", "gemini", "openai-completions")

_PIECE = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=6)


@dataclass
class Choice:
    """One generated choice: its pieces, perhaps a tool call, and how it ends."""

    number: int
    pieces: list[str]
    call: list[str] | None = None  # argument fragments (Chat and Gemini only)
    finish: str = "stop"  # as Chat names it (Gemini: STOP / MAX_TOKENS)
    frames: list[bytes] = field(default_factory=list)


@dataclass
class Generated:
    """A generated stream and what it must normalize to."""

    provider: str
    body: bytes
    choices: list[Choice]
    #: Byte offset of the frame that proves the end (a cut before it is never completed).
    final_at: int


def sse(document: Any) -> bytes:
    data = document if isinstance(document, str) else orjson.dumps(document).decode()
    return f"data: {data}\n\n".encode()


def _chat(number: int, delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse(
        {
            "id": "chatcmpl-g",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {"index": number, "delta": delta, "logprobs": None, "finish_reason": finish}
            ],
        }
    )


def _completion(number: int, text: str, finish: str | None = None) -> bytes:
    return sse(
        {
            "id": "cmpl-g",
            "object": "text_completion",
            "created": 1,
            "model": "gpt-3.5-turbo-instruct",
            "choices": [{"text": text, "index": number, "logprobs": None, "finish_reason": finish}],
        }
    )


def _chat_frames(choice: Choice) -> list[bytes]:
    frames = [_chat(choice.number, {"role": "assistant", "content": ""})]
    frames += [_chat(choice.number, {"content": p}) for p in choice.pieces]
    if choice.call is not None:
        head = {
            "index": 0,
            "id": f"call_{choice.number}",
            "type": "function",
            "function": {"name": "f", "arguments": ""},
        }
        frames.append(_chat(choice.number, {"tool_calls": [head]}))
        frames += [
            _chat(choice.number, {"tool_calls": [{"index": 0, "function": {"arguments": a}}]})
            for a in choice.call
        ]
    return [*frames, _chat(choice.number, {}, choice.finish)]


def _completion_frames(choice: Choice) -> list[bytes]:
    return [
        *(_completion(choice.number, p) for p in choice.pieces),
        _completion(choice.number, "", choice.finish),
    ]


_GEMINI_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "tool_calls": "STOP"}


def _gemini_parts(choice: Choice) -> list[dict[str, Any]]:
    """One candidate entry per frame: its text pieces, its call, then its finishReason."""
    entries: list[dict[str, Any]] = [
        {"content": {"parts": [{"text": p}], "role": "model"}, "index": choice.number}
        for p in choice.pieces
    ]
    if choice.call is not None:
        call = {"functionCall": {"name": "f", "args": orjson.loads("".join(choice.call))}}
        entries.append({"content": {"parts": [call], "role": "model"}, "index": choice.number})
    entries.append({"finishReason": _GEMINI_FINISH[choice.finish], "index": choice.number})
    return entries


@st.composite
def several_choice_streams(draw: st.DrawFn, provider: str | None = None) -> Generated:
    """A stream of 2–3 choices whose frames interleave in any order."""
    provider = provider or draw(st.sampled_from(PROVIDERS))
    choices = []
    for number in range(draw(st.integers(2, 3))):
        pieces = draw(st.lists(_PIECE, min_size=1, max_size=5))
        call = None
        if provider != "openai-completions" and draw(st.booleans()):
            value = draw(st.dictionaries(st.sampled_from("abc"), st.integers(0, 9), max_size=2))
            text = orjson.dumps(value).decode()
            cuts = sorted(draw(st.sets(st.integers(1, max(1, len(text) - 1)), max_size=3)))
            call = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)], strict=True)]
            call = [c for c in call if c]
        # A call cut by ``length`` is a protocol error (its own test); a call ends the turn.
        finish = "tool_calls" if call else draw(st.sampled_from(("stop", "length")))
        choices.append(Choice(number, pieces, call, finish))
    lanes: list[list[Any]]
    if provider == "gemini":
        lanes = [_gemini_parts(c) for c in choices]
    elif provider == "openai-chat":
        lanes = [_chat_frames(c) for c in choices]
    else:
        lanes = [_completion_frames(c) for c in choices]
    # Any interleaving that keeps each choice's own order, every choice starting before
    # any ends (Gemini's stream ends when every candidate that started has ended).
    order = draw(st.permutations(range(len(lanes))))
    order += draw(st.permutations([n for n, lane in enumerate(lanes) for _ in lane[1:]]))
    at = [0] * len(lanes)
    items = []
    for n in order:
        items.append(lanes[n][at[n]])
        at[n] += 1
    if provider == "gemini":
        frames = _gemini_frames(draw, items)
        final = len(frames) - 1
    else:
        frames = [*items, sse("[DONE]")]
        final = len(frames) - 1
    body = b"".join(frames)
    return Generated(provider, body, choices, len(b"".join(frames[:final])))


def _gemini_frames(draw: st.DrawFn, entries: list[dict[str, Any]]) -> list[bytes]:
    """Responses of one or more consecutive candidate entries (never one candidate twice)."""
    frames: list[bytes] = []
    i = 0
    while i < len(entries):
        group = [entries[i]]
        i += 1
        while (
            i < len(entries)
            and entries[i]["index"] not in {e["index"] for e in group}
            and draw(st.booleans())
        ):
            group.append(entries[i])
            i += 1
        document = {"candidates": group, "modelVersion": "gemini-2.5-flash", "responseId": "r"}
        frames.append(sse(document))
    return frames


def by_choice(events: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Each choice's text, tool-call arguments and block kinds, read back from the events."""
    out: dict[int, dict[str, Any]] = {}
    for event in events:
        block = event.get("block")
        if not isinstance(block, dict):
            continue
        # A block sent before a second choice was seen has no ``choice``: it is choice 0's.
        seen = out.setdefault(block.get("choice", 0), {"text": "", "args": "", "kinds": []})
        if event["type"] == "block.start":
            seen["kinds"].append(block["kind"])
        elif event["type"] == "block.delta":
            delta = event["delta"]
            seen["text" if delta["kind"] == "text" else "args"] += delta["text"]
    return out
