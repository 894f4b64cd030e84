"""Ollama /api/chat and /api/generate: whole normalized sequences from NDJSON lines."""

from __future__ import annotations

import pytest

from .framing_support import compact, ndjson, run

START = ("stream.start", "ollama", "ndjson", "llama3.2")


def chat(**message: object) -> dict[str, object]:
    return {
        "model": "llama3.2",
        "created_at": "2026-12-01T00:00:00Z",
        "message": {"role": "assistant", "content": "", **message},
        "done": False,
    }


def done(reason: str = "stop", **extra: object) -> dict[str, object]:
    return {
        "model": "llama3.2",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": reason,
        "prompt_eval_count": 7,
        "eval_count": 4,
        "total_duration": 1,
        **extra,
    }


def ollama(*lines: dict[str, object]) -> list[tuple[object, ...]]:
    return compact(run([ndjson(lines)], "ollama", "ndjson"))


def test_chat_thinking_then_content_then_done() -> None:
    assert ollama(
        chat(thinking="hm"), chat(thinking="m."), chat(content="Hi"), chat(content="!"), done()
    ) == [
        START,
        ("block.start", 0, "reasoning", "thinking"),
        ("block.delta", 0, "text", "hm"),
        ("block.delta", 0, "text", "m."),
        ("block.stop", 0),
        ("block.start", 1, "text", "text"),
        ("block.delta", 1, "text", "Hi"),
        ("block.delta", 1, "text", "!"),
        ("block.stop", 1),
        ("stream.done", "stop", "stop", (7, 4)),
    ]


def test_whole_tool_calls_are_blocks_and_make_the_reason_tool_calls() -> None:
    calls = [
        {"function": {"name": "f", "arguments": {"x": 1}}},
        {"id": "call_2", "function": {"name": "g", "arguments": {}}},
    ]
    assert ollama(chat(content="Let me look.", tool_calls=calls), done()) == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Let me look."),
        ("block.stop", 0),
        ("block.start", 1, "tool_call", "tool_calls", "f", None),
        ("block.delta", 1, "json_text", '{"x":1}'),
        ("block.stop", 1),
        ("block.start", 2, "tool_call", "tool_calls", "g", "call_2"),
        ("block.delta", 2, "json_text", "{}"),
        ("block.stop", 2),
        ("stream.done", "tool_calls", "stop", (7, 4)),
    ]


def test_generate_reads_the_top_level_response_and_thinking() -> None:
    lines = [
        {"model": "llama3.2", "response": "", "thinking": "t", "done": False},
        {"model": "llama3.2", "response": "Hi", "done": False},
        {
            "model": "llama3.2",
            "response": "",
            "done": True,
            "done_reason": "length",
            "context": [1, 2],
            "prompt_eval_count": 3,
            "eval_count": 2,
        },
    ]
    assert ollama(*lines) == [
        START,
        ("block.start", 0, "reasoning", "thinking"),
        ("block.delta", 0, "text", "t"),
        ("block.stop", 0),
        ("block.start", 1, "text", "text"),
        ("block.delta", 1, "text", "Hi"),
        ("block.stop", 1),
        ("stream.done", "length", "length", (3, 2)),
    ]


@pytest.mark.parametrize(
    ("error", "category"),
    [
        ("model 'x' not found", "not_found"),
        ("an error was encountered while running the model", "server_error"),
        ("input exceeds the context length", "context_length"),
    ],
)
def test_an_error_line_with_status_200_fails(error: str, category: str) -> None:
    events = ollama(chat(content="a"), {"error": error})
    assert events[-1] == ("stream.error", "failed", category, "error")
    assert events[1:3] == [("block.start", 0, "text", "text"), ("block.delta", 0, "text", "a")]


def test_the_bytes_ending_before_done_is_interrupted_and_a_line_without_lf_is_the_tail() -> None:
    body = ndjson([chat(content="a")]) + b'{"model":"llama3.2","done":true,"done_reason":"stop"}'
    trace = run([body], "ollama", "ndjson")
    assert trace.outcome == "interrupted (transport)"
    assert "had no line end after them" in trace.terminal_event["error"]["message"]  # type: ignore[index]


def test_a_line_that_is_not_json_is_a_protocol_error() -> None:
    events = compact(run([ndjson([chat(content="a")]) + b"{oops\n"], "ollama", "ndjson"))
    assert events[-1] == ("stream.error", "failed", "protocol_error", None)


def test_an_unmapped_field_warns_once_with_its_path_and_the_text_still_flows() -> None:
    # The middle lines look plain but for the new fields: the fast path must leave them
    # to feed, which warns (each path once) and maps their text all the same.
    lines = [chat(content="a"), chat(content="b", mood="x"), chat(content="c", mood="y")]
    lines[2]["vision"] = {"ok": 1}
    trace = run([ndjson([*lines, done()])], "ollama", "ndjson")
    warnings = [e["path"] for e in trace.events if e.get("code") == "unread_field"]
    assert warnings == ["message.mood", "vision"]
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts == ["a", "b", "c"]


def test_timings_the_context_and_the_echoed_role_are_read_only_to_be_ignored() -> None:
    line = done(context=[1, 2], load_duration=3, prompt_eval_duration=4, eval_duration=5)
    line["created_at"] = "t"
    assert ("stream.warning", "unread_field") not in ollama(chat(content="Hi"), line)
