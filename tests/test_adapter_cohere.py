"""Cohere v2 chat: whole normalized sequences."""

from __future__ import annotations

import pytest

from .framing_support import compact, run, sse

START = ("stream.start", "cohere", None, None)


def cohere(*events: dict[str, object]) -> list[tuple[object, ...]]:
    return compact(run([sse(events, named=True)], "cohere", "sse"))


def content(index: int, *texts: str, kind: str = "text") -> list[dict[str, object]]:
    field = "text" if kind == "text" else "thinking"
    return [
        {
            "type": "content-start",
            "index": index,
            "delta": {"message": {"content": {"type": kind, field: ""}}},
        },
        *[
            {"type": "content-delta", "index": index, "delta": {"message": {"content": {field: t}}}}
            for t in texts
        ],
        {"type": "content-end", "index": index},
    ]


def end(reason: str, **extra: object) -> dict[str, object]:
    usage = {
        "billed_units": {"input_tokens": 3, "output_tokens": 2},
        "tokens": {"input_tokens": 90, "output_tokens": 2},
    }
    return {"type": "message-end", "delta": {"finish_reason": reason, "usage": usage, **extra}}


MESSAGE_START = {"type": "message-start", "id": "m1", "delta": {"message": {"role": "assistant"}}}


def test_text_then_message_end() -> None:
    assert cohere(MESSAGE_START, *content(0, "Bon", "jour"), end("COMPLETE")) == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Bon"),
        ("block.delta", 0, "text", "jour"),
        ("block.stop", 0),
        ("stream.done", "stop", "COMPLETE", (3, 2)),
    ]


def test_tool_plan_then_two_calls_each_their_own_block() -> None:
    def call(i: int, name: str, args: str) -> list[dict[str, object]]:
        start = {
            "type": "tool-call-start",
            "index": i,
            "delta": {
                "message": {
                    "tool_calls": {
                        "id": f"c{i}",
                        "type": "function",
                        "function": {"name": name, "arguments": ""},
                    }
                }
            },
        }
        return [
            start,
            {
                "type": "tool-call-delta",
                "index": i,
                "delta": {"message": {"tool_calls": {"function": {"arguments": args}}}},
            },
            {"type": "tool-call-end", "index": i},
        ]

    plan = [
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": t}}}
        for t in ("I will", " call.")
    ]
    assert cohere(
        MESSAGE_START, *plan, *call(0, "a", "{}"), *call(1, "b", '{"x":1}'), end("TOOL_CALL")
    ) == [
        START,
        ("block.start", 0, "reasoning", "tool_plan"),
        ("block.delta", 0, "text", "I will"),
        ("block.delta", 0, "text", " call."),
        ("block.stop", 0),
        ("block.start", 1, "tool_call", "tool_call", "a", "c0"),
        ("block.delta", 1, "json_text", "{}"),
        ("block.stop", 1),
        ("block.start", 2, "tool_call", "tool_call", "b", "c1"),
        ("block.delta", 2, "json_text", '{"x":1}'),
        ("block.stop", 2),
        ("stream.done", "tool_calls", "TOOL_CALL", (3, 2)),
    ]


def test_a_citation_rides_on_the_open_text_block_else_is_an_opaque_block() -> None:
    citation = {"start": 0, "end": 3, "text": "Bon", "sources": []}
    cite = [
        {"type": "citation-start", "index": 0, "delta": {"message": {"citations": citation}}},
        {"type": "citation-end", "index": 0},
    ]
    text = content(0, "Bon")
    events = cohere(MESSAGE_START, *text[:2], *cite, text[2], *cite, end("COMPLETE"))
    assert events == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Bon"),
        ("block.delta", 0, "citation", citation),
        ("block.stop", 0),
        ("block.start", 1, "opaque", "citation"),
        ("block.delta", 1, "json_text", '{"start":0,"end":3,"text":"Bon","sources":[]}'),
        ("block.stop", 1),
        ("stream.done", "stop", "COMPLETE", (3, 2)),
    ]


@pytest.mark.parametrize(
    ("reason", "outcome"),
    [
        ("MAX_TOKENS", ("stream.done", "length")),
        ("STOP_SEQUENCE", ("stream.done", "stop")),
        ("ERROR", ("stream.error", "server_error")),
        ("TIMEOUT", ("stream.error", "server_error")),
        ("USER_CANCEL", ("stream.error", "cancelled")),
    ],
)
def test_each_finish_reason(reason: str, outcome: tuple[str, str]) -> None:
    last = cohere(MESSAGE_START, *content(0, "a"), end(reason, error="boom"))[-1]
    assert (last[0], last[2] if last[0] == "stream.error" else last[1]) == outcome


def test_thinking_content_is_reasoning() -> None:
    events = cohere(
        MESSAGE_START, *content(0, "hmm", kind="thinking"), *content(1, "ok"), end("COMPLETE")
    )
    assert events[1:4] == [
        ("block.start", 0, "reasoning", "thinking"),
        ("block.delta", 0, "text", "hmm"),
        ("block.stop", 0),
    ]


def test_no_message_end_is_interrupted() -> None:
    trace = run([sse([MESSAGE_START, *content(0, "a")], named=True)], "cohere", "sse")
    assert trace.outcome == "interrupted (transport)"


def test_an_unmapped_field_warns_once_with_its_path_and_the_text_still_flows() -> None:
    events = [MESSAGE_START, *content(0, "a", "b", "c"), end("COMPLETE")]
    events[3]["delta"]["message"]["content"]["logprobs"] = [0.1]  # type: ignore[index]
    events[4]["delta"]["message"]["content"]["logprobs"] = [0.2]  # type: ignore[index]
    events[4]["x_trace"] = "t"
    trace = run([sse(events, named=True)], "cohere", "sse")
    warnings = [e["path"] for e in trace.events if e.get("code") == "unread_field"]
    assert warnings == ["delta.message.content.logprobs", "x_trace"]
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts == ["a", "b", "c"]


def test_an_opaque_content_start_is_read_whole() -> None:
    start = {
        "type": "content-start",
        "index": 0,
        "delta": {"message": {"content": {"type": "image", "url": "u", "detail": "d"}}},
    }
    events = [MESSAGE_START, start, {"type": "content-end", "index": 0}, end("COMPLETE")]
    assert ("stream.warning", "unread_field") not in cohere(*events)
