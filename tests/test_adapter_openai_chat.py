"""The OpenAI Chat adapter, rule by rule: hand-written chunks, whole sequences.

Each test feeds a few SSE frames through the real pipeline and compares the
complete normalized sequence (seq and stream_id aside) with what the contract
and the adapter's table of final signals require.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from inspector.core.adapters.openai_chat import FINISH_REASONS
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import normalize
from inspector.core.trace import Trace, TransportEnd

MODEL = "gpt-4o-mini"


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **extra: Any) -> bytes:
    body: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "model": MODEL,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }
    body.update(extra)
    return b"data: " + orjson.dumps(body) + b"\n\n"


USAGE = {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}
USAGE_CHUNK = (
    b"data: " + orjson.dumps({"id": "chatcmpl-1", "choices": [], "usage": USAGE}) + b"\n\n"
)
DONE = b"data: [DONE]\n\n"


def run(*frames: bytes, end: str = "eof") -> Trace:
    trace = normalize(b"".join(frames), "openai-chat", "st_test", TransportEnd(end))
    assert check_invariants(trace.events) == []
    return trace


def shape(trace: Trace) -> list[tuple[Any, ...]]:
    out: list[tuple[Any, ...]] = []
    for e in trace.events:
        kind = e["type"]
        if kind == "stream.start":
            out.append((kind, e.get("model")))
        elif kind == "block.start":
            out.append((kind, e["block"]["index"], e["block"]["kind"], e.get("name")))
        elif kind == "block.delta":
            out.append((kind, e["block"]["index"], e["delta"]["kind"], e["delta"]["text"]))
        elif kind == "block.stop":
            out.append((kind, e["block"]["index"]))
        elif kind == "stream.done":
            out.append((kind, e["finish_reason"], e["provider_finish_reason"]))
        elif kind == "stream.error":
            out.append((kind, e["status"], e["error"]["category"], e["error"]["provider_code"]))
        else:
            out.append((kind, e.get("code") or e.get("source")))
    return out


START = ("stream.start", MODEL)


def test_text_then_finish_then_usage_then_done_is_completed_with_usage() -> None:
    trace = run(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk(finish="stop"),
        USAGE_CHUNK,
        DONE,
    )
    assert shape(trace) == [
        START,
        ("block.start", 0, "text", None),
        ("block.delta", 0, "text", "Hel"),
        ("block.delta", 0, "text", "lo"),
        ("block.stop", 0),
        ("stream.done", "stop", "stop"),
    ]
    usage = trace.events[-1]["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["raw"]) == (5, 7, USAGE)
    assert (trace.events[-1]["model"], trace.events[-1]["response_id"]) == (MODEL, "chatcmpl-1")


def test_parallel_tool_calls_whose_fragments_interleave_land_in_their_own_blocks() -> None:
    def call(i: int, args: str, name: str | None = None) -> dict[str, Any]:
        c: dict[str, Any] = {"index": i, "function": {"arguments": args}}
        if name:
            c.update(id=f"call_{i}", type="function")
            c["function"]["name"] = name
        return {"tool_calls": [c]}

    trace = run(
        chunk(call(0, "", "a")),
        chunk(call(1, "", "b")),
        chunk(call(0, '{"x"')),
        chunk(call(1, '{"y"')),
        chunk(call(0, ": 1}")),
        chunk(call(1, ": 2}")),
        chunk(finish="tool_calls"),
        DONE,
    )
    assert shape(trace) == [
        START,
        ("block.start", 0, "tool_call", "a"),
        ("block.start", 1, "tool_call", "b"),
        ("block.delta", 0, "json_text", '{"x"'),
        ("block.delta", 1, "json_text", '{"y"'),
        ("block.delta", 0, "json_text", ": 1}"),
        ("block.delta", 1, "json_text", ": 2}"),
        ("block.stop", 0),
        ("block.stop", 1),
        ("stream.done", "tool_calls", "tool_calls"),
    ]
    assert [e.get("call_id") for e in trace.events if e["type"] == "block.start"] == [
        "call_0",
        "call_1",
    ]


def test_reasoning_then_text_are_two_blocks_and_openrouter_signature_is_kept() -> None:
    detail = {"type": "reasoning.text", "text": "", "signature": "sig=="}
    trace = run(
        chunk({"reasoning": "think"}),
        chunk({"reasoning_details": [detail]}),
        chunk({"content": "answer"}),
        chunk(finish="stop"),
        DONE,
    )
    assert shape(trace) == [
        START,
        ("block.start", 0, "reasoning", None),
        ("block.delta", 0, "text", "think"),
        ("block.delta", 0, "signature", "sig=="),
        ("block.stop", 0),
        ("block.start", 1, "text", None),
        ("block.delta", 1, "text", "answer"),
        ("block.stop", 1),
        ("stream.done", "stop", "stop"),
    ]
    assert trace.events[1]["visibility"] == "internal"


def test_a_refusal_is_a_refusal_block_and_the_finish_reason_says_refusal() -> None:
    trace = run(chunk({"refusal": "I can't"}), chunk(finish="stop"), DONE)
    assert shape(trace)[1] == ("block.start", 0, "refusal", None)
    assert shape(trace)[-1] == ("stream.done", "refusal", "stop")


@pytest.mark.parametrize(("provider", "contract"), sorted(FINISH_REASONS.items()))
def test_each_finish_reason_maps_through_the_table(provider: str, contract: str) -> None:
    trace = run(chunk({"content": "x"}), chunk(finish=provider), DONE)
    assert shape(trace)[-1] == ("stream.done", contract, provider)


def test_an_unknown_finish_reason_is_other_with_the_raw_value_kept() -> None:
    trace = run(chunk({"content": "x"}), chunk(finish="weird"), DONE)
    assert shape(trace)[-1] == ("stream.done", "other", "weird")


def test_done_without_any_finish_reason_closes_the_text_and_completes_as_other() -> None:
    # Contract v1.1 (v1 ended this failed/protocol_error).
    trace = run(chunk({"content": "x"}), DONE)
    assert shape(trace)[-3:] == [
        ("block.stop", 0),
        ("stream.warning", "no_finish_reason"),
        ("stream.done", "other", None),
    ]


def test_a_finish_reason_without_done_is_interrupted_and_says_why() -> None:
    trace = run(chunk({"content": "x"}), chunk(finish="stop"), USAGE_CHUNK)
    assert shape(trace)[-1] == ("stream.error", "interrupted", "transport", None)
    assert (
        "finish_reason 'stop' arrived but [DONE] never did"
        in (trace.events[-1]["error"]["message"])
    )


def test_an_error_object_mid_stream_fails_with_its_code_and_keeps_the_text() -> None:
    error = {"error": {"message": "overloaded", "type": "server_error", "code": None}}
    trace = run(chunk({"content": "partial"}), b"data: " + orjson.dumps(error) + b"\n\n")
    assert shape(trace) == [
        START,
        ("block.start", 0, "text", None),
        ("block.delta", 0, "text", "partial"),
        ("stream.error", "failed", "server_error", "server_error"),
    ]


def test_groq_event_error_with_a_code_maps_by_code() -> None:
    error = {
        "error": {"message": "bad tool", "type": "invalid_request_error", "code": "tool_use_failed"}
    }
    trace = run(chunk({"reasoning": "r"}), b"event: error\ndata: " + orjson.dumps(error) + b"\n\n")
    assert shape(trace)[-1] == ("stream.error", "failed", "invalid_request", "tool_use_failed")


def test_length_while_a_tool_call_is_open_is_a_protocol_error_with_the_stop_reason() -> None:
    call = {"tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": '{"a'}}]}
    trace = run(chunk(call), chunk(finish="length"), DONE)
    assert shape(trace)[-1] == ("stream.error", "failed", "protocol_error", "length")
    assert trace.violations[0].rule == 5


def test_arguments_that_do_not_parse_at_block_stop_fail_the_stream() -> None:
    call = {
        "tool_calls": [{"index": 0, "id": "c", "function": {"name": "f", "arguments": "{oops"}}]
    }
    trace = run(chunk(call), chunk(finish="tool_calls"), DONE)
    assert shape(trace)[-1] == ("stream.error", "failed", "protocol_error", None)


def test_an_unknown_event_and_an_unknown_field_warn_without_cutting_the_text() -> None:
    trace = run(
        chunk({"content": "a"}),
        b'event: x-metrics\ndata: {"queue_ms": 3}\n\n',
        chunk({"content": "b", "x_trace": {"hop": 1}}),
        chunk(finish="stop"),
        DONE,
    )
    assert shape(trace) == [
        START,
        ("block.start", 0, "text", None),
        ("block.delta", 0, "text", "a"),
        ("stream.warning", "unknown_event"),
        ("stream.warning", "unread_field"),
        ("block.delta", 0, "text", "b"),
        ("block.stop", 0),
        ("stream.done", "stop", "stop"),
    ]
    assert [i.code for i in trace.ignored] == ["unknown_event", "unread_field"]
    assert trace.events[4]["path"] == "choices[].delta.x_trace"


def test_sse_comments_are_heartbeats_once_the_stream_started() -> None:
    trace = run(b": OPENROUTER PROCESSING\n\n", chunk({"content": "a"}), b": x\n\n",
                chunk(finish="stop"), DONE)  # fmt: skip
    assert shape(trace) == [
        START,
        ("block.start", 0, "text", None),
        ("block.delta", 0, "text", "a"),
        ("stream.heartbeat", "comment"),
        ("block.stop", 0),
        ("stream.done", "stop", "stop"),
    ]


def test_bytes_after_done_are_ignored_not_turned_into_events() -> None:
    trace = run(chunk({"content": "a"}), chunk(finish="stop"), DONE, chunk({"content": "late"}))
    assert shape(trace)[-1] == ("stream.done", "stop", "stop")
    assert trace.ignored[-1].code == "after_terminal"
