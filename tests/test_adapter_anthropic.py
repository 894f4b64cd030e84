"""The Anthropic Messages adapter, rule by rule: hand-written frames, whole sequences.

Each test feeds a few SSE frames through the real pipeline (decoder → adapter →
machine) and compares the complete normalized sequence — envelope aside, which
``events`` checks once for every stream — with what the contract requires.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from inspector.core.adapters.anthropic import FINAL_SIGNALS, STOP_REASONS, normalize_usage
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import normalize
from inspector.core.trace import Trace, TransportEnd

MODEL = "claude-sonnet-4-5"
MSG_ID = "msg_01Test"

# -- provider frames ---------------------------------------------------------


def message_start(usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": MSG_ID,
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage if usage is not None else {"input_tokens": 10, "output_tokens": 1},
        },
    }


def block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def block_delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def text_delta(index: int, text: str) -> dict[str, Any]:
    return block_delta(index, {"type": "text_delta", "text": text})


def json_delta(index: int, fragment: str) -> dict[str, Any]:
    return block_delta(index, {"type": "input_json_delta", "partial_json": fragment})


def block_stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(stop_reason: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason, "stop_sequence": None},
        "usage": usage if usage is not None else {"output_tokens": 5},
    }


TEXT = {"type": "text", "text": ""}
PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}


def error_frame(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}}


def sse(*frames: dict[str, Any]) -> bytes:
    """Frames as Anthropic sends them: an ``event:`` line naming the type, then ``data:``."""
    return b"".join(
        b"event: " + str(f["type"]).encode() + b"\ndata: " + orjson.dumps(f) + b"\n\n"
        for f in frames
    )


def run(*frames: dict[str, Any], end: TransportEnd | None = None, raw: bytes = b"") -> Trace:
    return normalize(sse(*frames) + raw, "anthropic", stream_id="st_test", end=end)


def events(trace: Trace) -> list[dict[str, Any]]:
    """The events without their envelope, after checking the envelope and the invariants."""
    assert [e["seq"] for e in trace.events] == list(range(1, len(trace.events) + 1))
    assert {e["stream_id"] for e in trace.events} == {"st_test"}
    assert check_invariants(trace.events) == []
    return [{k: v for k, v in e.items() if k not in ("stream_id", "seq")} for e in trace.events]


# -- expected contract events ------------------------------------------------

START = {"type": "stream.start", "provider": "anthropic", "model": MODEL}
HEARTBEAT = {"type": "stream.heartbeat", "source": "ping"}
USAGE_10_5 = {
    "input_tokens": 10,
    "output_tokens": 5,
    "raw": {"input_tokens": 10, "output_tokens": 5},
}


def ref(index: int, kind: str) -> dict[str, Any]:
    return {"id": f"b_{index}", "index": index, "kind": kind}


def opened(index: int, kind: str, provider_type: str, **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "block.start", "block": ref(index, kind)}
    event.update(extra)
    event["provider_type"] = provider_type
    return event


def tool_opened(index: int, name: str, call_id: str) -> dict[str, Any]:
    return opened(index, "tool_call", "tool_use", name=name, call_id=call_id)


def delta(index: int, kind: str, delta_kind: str, text: str) -> dict[str, Any]:
    return {
        "type": "block.delta",
        "block": ref(index, kind),
        "delta": {"kind": delta_kind, "text": text},
    }


def stopped(index: int, kind: str) -> dict[str, Any]:
    return {"type": "block.stop", "block": ref(index, kind)}


def done(finish: str, provider_finish: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "type": "stream.done",
        "status": "completed",
        "finish_reason": finish,
        "provider_finish_reason": provider_finish,
        "usage": usage if usage is not None else USAGE_10_5,
        "model": MODEL,
        "response_id": MSG_ID,
    }


def error(status: str, category: str, retryable: bool, code: Any, message: str) -> dict[str, Any]:
    return {
        "type": "stream.error",
        "status": status,
        "error": {
            "category": category,
            "retryable": retryable,
            "provider_code": code,
            "message": message,
        },
    }


def warning(code: str, message: str) -> dict[str, Any]:
    return {"type": "stream.warning", "code": code, "message": message}


HELLO = [
    message_start(),
    block_start(0, TEXT),
    text_delta(0, "Hel"),
    text_delta(0, "lo"),
    block_stop(0),
]

# -- completed ---------------------------------------------------------------


def test_simple_text_is_one_text_block_and_message_stop_proves_completion() -> None:
    trace = run(*HELLO, message_delta("end_turn"), MESSAGE_STOP)
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Hel"),
        delta(0, "text", "text", "lo"),
        stopped(0, "text"),
        done("stop", "end_turn"),
    ]
    assert trace.state == "completed"


@pytest.mark.parametrize(
    ("stop_reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("model_context_window_exceeded", "length"),
        ("tool_use", "tool_calls"),
        ("refusal", "refusal"),
        ("pause_turn", "other"),
        ("a_reason_from_the_future", "other"),
    ],
)
def test_each_stop_reason_maps_to_its_finish_reason(stop_reason: str, finish_reason: str) -> None:
    trace = run(*HELLO, message_delta(stop_reason), MESSAGE_STOP)
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Hel"),
        delta(0, "text", "text", "lo"),
        stopped(0, "text"),
        done(finish_reason, stop_reason),
    ]


def test_the_stop_reason_table_names_every_documented_stop_reason() -> None:
    assert set(STOP_REASONS) == {
        "end_turn", "stop_sequence", "max_tokens", "model_context_window_exceeded",
        "tool_use", "refusal", "pause_turn",
    }  # fmt: skip


def test_the_last_stop_reason_announced_before_message_stop_is_the_one_reported() -> None:
    trace = run(*HELLO, message_delta("pause_turn"), message_delta("end_turn"), MESSAGE_STOP)
    assert events(trace)[-1] == done("stop", "end_turn")


FINAL_SIGNAL_STREAMS = {
    "message_stop": [*HELLO, message_delta("end_turn"), MESSAGE_STOP],
    "error": [*HELLO, error_frame("api_error", "Internal server error")],
}


@pytest.mark.parametrize("signal", sorted(FINAL_SIGNALS))
def test_each_final_signal_ends_the_stream_in_the_state_its_table_row_names(signal: str) -> None:
    trace = run(*FINAL_SIGNAL_STREAMS[signal])
    assert trace.state == FINAL_SIGNALS[signal][0]
    assert events(trace)[-1]["type"] in ("stream.done", "stream.error")


def test_without_a_final_signal_the_end_of_the_bytes_is_an_interruption() -> None:
    trace = run(*HELLO)
    assert trace.state == "interrupted"
    assert events(trace)[-1]["error"]["category"] == "transport"


# -- tool calls ----------------------------------------------------------------


def test_tool_use_arguments_arrive_as_json_text_fragments_without_the_input_placeholder() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}),
        json_delta(0, ""),
        json_delta(0, '{"locati'),
        json_delta(0, 'on": "Par'),
        json_delta(0, 'is"}'),
        block_stop(0),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        tool_opened(0, "get_weather", "toolu_01"),
        delta(0, "tool_call", "json_text", '{"locati'),
        delta(0, "tool_call", "json_text", 'on": "Par'),
        delta(0, "tool_call", "json_text", 'is"}'),
        stopped(0, "tool_call"),
        done("tool_calls", "tool_use"),
    ]


def test_parallel_tool_calls_are_consecutive_blocks_each_with_its_own_call_id() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "text", "text": ""}),
        text_delta(0, "Both cities."),
        block_stop(0),
        block_start(1, {"type": "tool_use", "id": "toolu_a", "name": "weather", "input": {}}),
        json_delta(1, '{"city": "Paris"}'),
        block_stop(1),
        block_start(2, {"type": "tool_use", "id": "toolu_b", "name": "weather", "input": {}}),
        json_delta(2, '{"city": '),
        json_delta(2, '"Tokyo"}'),
        block_stop(2),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Both cities."),
        stopped(0, "text"),
        tool_opened(1, "weather", "toolu_a"),
        delta(1, "tool_call", "json_text", '{"city": "Paris"}'),
        stopped(1, "tool_call"),
        tool_opened(2, "weather", "toolu_b"),
        delta(2, "tool_call", "json_text", '{"city": '),
        delta(2, "tool_call", "json_text", '"Tokyo"}'),
        stopped(2, "tool_call"),
        done("tool_calls", "tool_use"),
    ]


def test_a_ping_inside_a_tool_block_is_a_heartbeat_and_leaves_the_arguments_whole() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "tool_use", "id": "toolu_01", "name": "weather", "input": {}}),
        json_delta(0, '{"location": "San Francisco'),
        PING,
        json_delta(0, '"}'),
        PING,
        block_stop(0),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        tool_opened(0, "weather", "toolu_01"),
        delta(0, "tool_call", "json_text", '{"location": "San Francisco'),
        HEARTBEAT,
        delta(0, "tool_call", "json_text", '"}'),
        HEARTBEAT,
        stopped(0, "tool_call"),
        done("tool_calls", "tool_use"),
    ]


def test_content_already_in_content_block_start_is_kept_as_deltas() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "text", "text": "Pre"}),
        block_stop(0),
        block_start(1, {"type": "thinking", "thinking": "hm", "signature": "sig"}),
        block_stop(1),
        block_start(2, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {"a": 1}}),
        block_stop(2),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Pre"),
        stopped(0, "text"),
        opened(1, "reasoning", "thinking", visibility="internal"),
        delta(1, "reasoning", "text", "hm"),
        delta(1, "reasoning", "signature", "sig"),
        stopped(1, "reasoning"),
        tool_opened(2, "f", "toolu_1"),
        delta(2, "tool_call", "json_text", '{"a":1}'),
        stopped(2, "tool_call"),
        done("tool_calls", "tool_use"),
    ]


# -- reasoning -------------------------------------------------------------------


def test_thinking_is_a_reasoning_block_with_its_signature_then_text() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        block_delta(0, {"type": "thinking_delta", "thinking": "Two "}),
        block_delta(0, {"type": "thinking_delta", "thinking": "names."}),
        block_delta(0, {"type": "thinking_delta", "thinking": ""}),
        block_delta(0, {"type": "signature_delta", "signature": "EtABCkY"}),
        block_stop(0),
        block_start(1, TEXT),
        text_delta(1, "Pelly"),
        block_stop(1),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "reasoning", "thinking", visibility="internal"),
        delta(0, "reasoning", "text", "Two "),
        delta(0, "reasoning", "text", "names."),
        delta(0, "reasoning", "signature", "EtABCkY"),
        stopped(0, "reasoning"),
        opened(1, "text", "text"),
        delta(1, "text", "text", "Pelly"),
        stopped(1, "text"),
        done("stop", "end_turn"),
    ]


def test_redacted_thinking_is_a_reasoning_block_whose_data_is_a_signature() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix"}),
        block_stop(0),
        block_start(1, TEXT),
        text_delta(1, "Done."),
        block_stop(1),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "reasoning", "redacted_thinking", visibility="internal"),
        delta(0, "reasoning", "signature", "EmwKAhgBEgy3va3pzix"),
        stopped(0, "reasoning"),
        opened(1, "text", "text"),
        delta(1, "text", "text", "Done."),
        stopped(1, "text"),
        done("stop", "end_turn"),
    ]


# -- provider-run tools: opaque blocks ---------------------------------------------

SERVER_TOOL = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_1",
    "content": [{"type": "web_search_result", "url": "https://example.com", "title": "Ex"}],
}


def test_server_tools_are_opaque_blocks_carrying_the_start_json_then_every_fragment() -> None:
    trace = run(
        message_start(),
        block_start(0, SERVER_TOOL),
        json_delta(0, ""),
        json_delta(0, '{"query": '),
        json_delta(0, '"weather"}'),
        block_stop(0),
        block_start(1, SEARCH_RESULT),
        block_stop(1),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "opaque", "server_tool_use"),
        delta(0, "opaque", "json_text", orjson.dumps(SERVER_TOOL).decode()),
        delta(0, "opaque", "json_text", '{"query": '),
        delta(0, "opaque", "json_text", '"weather"}'),
        stopped(0, "opaque"),
        opened(1, "opaque", "web_search_tool_result"),
        delta(1, "opaque", "json_text", orjson.dumps(SEARCH_RESULT).decode()),
        stopped(1, "opaque"),
        done("stop", "end_turn"),
    ]


@pytest.mark.parametrize(
    "block_type",
    [
        "web_fetch_tool_result",
        "code_execution_tool_result",
        "bash_code_execution_tool_result",
        "text_editor_code_execution_tool_result",
        "tool_search_tool_result",
        "mcp_tool_use",
        "mcp_tool_result",
        "container_upload",
        "compaction",
    ],
)
def test_every_known_provider_run_block_type_is_opaque_without_a_warning(block_type: str) -> None:
    block = {"type": block_type, "id": "x_1", "content": None}
    trace = run(message_start(), block_start(0, block), block_stop(0),
                message_delta("end_turn"), MESSAGE_STOP)  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "opaque", block_type),
        delta(0, "opaque", "json_text", orjson.dumps(block).decode()),
        stopped(0, "opaque"),
        done("stop", "end_turn"),
    ]


def test_any_other_delta_in_an_opaque_block_is_carried_whole_as_json_text() -> None:
    compaction_delta = {"type": "compaction_delta", "content": "Summary: say hello."}
    trace = run(
        message_start(),
        block_start(0, {"type": "compaction", "content": None}),
        block_delta(0, compaction_delta),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "opaque", "compaction"),
        delta(0, "opaque", "json_text", '{"type":"compaction","content":null}'),
        delta(0, "opaque", "json_text", orjson.dumps(compaction_delta).decode()),
        stopped(0, "opaque"),
        done("stop", "end_turn"),
    ]


def test_a_client_tool_after_a_server_tool_is_still_a_tool_call() -> None:
    trace = run(
        message_start(),
        block_start(0, SERVER_TOOL),
        block_stop(0),
        block_start(1, {"type": "tool_use", "id": "toolu_9", "name": "lookup", "input": {}}),
        json_delta(1, "{}"),
        block_stop(1),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "opaque", "server_tool_use"),
        delta(0, "opaque", "json_text", orjson.dumps(SERVER_TOOL).decode()),
        stopped(0, "opaque"),
        tool_opened(1, "lookup", "toolu_9"),
        delta(1, "tool_call", "json_text", "{}"),
        stopped(1, "tool_call"),
        done("tool_calls", "tool_use"),
    ]


# -- citations -------------------------------------------------------------------

CITATION = {
    "type": "web_search_result_location",
    "cited_text": "Apple Ginza opens Friday.",
    "url": "https://www.apple.com/newsroom/",
    "title": "Apple Ginza",
    "encrypted_index": "Eo8B",
}


def test_a_citations_delta_is_a_citation_delta_holding_the_provider_object() -> None:
    trace = run(
        message_start(),
        block_start(0, {"citations": [], "type": "text", "text": ""}),
        block_delta(0, {"type": "citations_delta", "citation": CITATION}),
        text_delta(0, "It opens Friday."),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        {
            "type": "block.delta",
            "block": ref(0, "text"),
            "delta": {"kind": "citation", "text": "", "citation": CITATION},
        },
        delta(0, "text", "text", "It opens Friday."),
        stopped(0, "text"),
        done("stop", "end_turn"),
    ]


def test_citations_already_in_content_block_start_are_citation_deltas() -> None:
    trace = run(
        message_start(),
        block_start(0, {"citations": [CITATION], "type": "text", "text": "It opens Friday."}),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "It opens Friday."),
        {
            "type": "block.delta",
            "block": ref(0, "text"),
            "delta": {"kind": "citation", "text": "", "citation": CITATION},
        },
        stopped(0, "text"),
        done("stop", "end_turn"),
    ]


# -- unknown and unexpected input -----------------------------------------------------


def test_an_unknown_event_type_is_skipped_with_a_warning_and_the_text_goes_on() -> None:
    trace = run(
        message_start(),
        block_start(0, TEXT),
        text_delta(0, "Hel"),
        {"type": "content_block_annotation", "index": 0, "note": "new in some future API"},
        text_delta(0, "lo"),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Hel"),
        warning("unknown_event", "frame 3: unknown event type 'content_block_annotation' skipped"),
        delta(0, "text", "text", "lo"),
        stopped(0, "text"),
        done("stop", "end_turn"),
    ]
    assert [(i.frame, i.code) for i in trace.ignored] == [(3, "unknown_event")]


def test_an_unknown_delta_type_is_skipped_with_a_warning() -> None:
    trace = run(
        message_start(),
        block_start(0, TEXT),
        block_delta(0, {"type": "emphasis_delta", "level": 2}),
        text_delta(0, "Hi"),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        warning("unknown_delta", "frame 2: unknown delta type 'emphasis_delta' for b_0 skipped"),
        delta(0, "text", "text", "Hi"),
        stopped(0, "text"),
        done("stop", "end_turn"),
    ]


def test_a_delta_of_the_wrong_kind_for_its_block_is_skipped_not_mixed_in() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}),
        text_delta(0, "stray text"),
        json_delta(0, "{}"),
        block_stop(0),
        message_delta("tool_use"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        tool_opened(0, "f", "toolu_1"),
        warning(
            "unexpected_delta", "frame 2: a text_delta cannot extend b_0, a tool_use block; skipped"
        ),
        delta(0, "tool_call", "json_text", "{}"),
        stopped(0, "tool_call"),
        done("tool_calls", "tool_use"),
    ]


def test_an_unknown_block_type_is_kept_as_an_opaque_block_with_a_warning() -> None:
    fallback = {"type": "fallback", "from": {"model": "a"}, "to": {"model": "b"}}
    trace = run(
        message_start(),
        block_start(0, fallback),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "opaque", "fallback"),
        delta(0, "opaque", "json_text", orjson.dumps(fallback).decode()),
        warning(
            "unknown_block",
            "frame 1: content block type 'fallback' is not modelled; "
            "b_0 is kept as an opaque block",
        ),
        stopped(0, "opaque"),
        done("stop", "end_turn"),
    ]


def test_a_delta_whose_fragment_is_not_a_string_is_skipped_with_a_warning() -> None:
    trace = run(
        message_start(),
        block_start(0, TEXT),
        block_delta(0, {"type": "text_delta", "text": None}),
        text_delta(0, "Hi"),
        block_stop(0),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        warning("malformed_delta", "frame 2: text_delta for b_0 has no string 'text'"),
        delta(0, "text", "text", "Hi"),
        stopped(0, "text"),
        done("stop", "end_turn"),
    ]


def test_a_ping_before_message_start_starts_the_stream_without_a_model() -> None:
    trace = run(PING, *HELLO, message_delta("end_turn"), MESSAGE_STOP)
    got = events(trace)
    assert got[:2] == [{"type": "stream.start", "provider": "anthropic"}, HEARTBEAT]
    assert got[-1] == done("stop", "end_turn")  # the model is still reported at the end
    assert trace.violations == []


def test_the_sse_event_name_is_used_when_the_data_has_no_type() -> None:
    raw = b"event: ping\ndata: {}\n\n"
    trace = run(*HELLO, raw=raw + sse(message_delta("end_turn"), MESSAGE_STOP))
    assert events(trace)[5] == HEARTBEAT
    assert trace.state == "completed"


# -- failed ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "category", "retryable"),
    [
        ("overloaded_error", "upstream_overloaded", True),
        ("api_error", "server_error", True),
        ("rate_limit_error", "rate_limited", True),
        ("timeout_error", "server_error", True),
        ("invalid_request_error", "invalid_request", False),
        ("request_too_large", "invalid_request", False),
        ("authentication_error", "authentication", False),
        ("permission_error", "permission", False),
        ("not_found_error", "not_found", False),
        ("billing_error", "quota_exceeded", False),
        ("a_new_error", "unknown", False),
    ],
)
def test_an_error_event_after_partial_text_fails_the_stream_with_its_category(
    kind: str, category: str, retryable: bool
) -> None:
    trace = run(message_start(), block_start(0, TEXT), text_delta(0, "Hel"),
                error_frame(kind, "Something went wrong"))  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Hel"),
        error("failed", category, retryable, kind, "Something went wrong"),
    ]
    assert trace.state == "failed"


def test_the_first_terminal_signal_wins_and_later_frames_are_kept_as_ignored() -> None:
    trace = run(
        message_start(),
        block_start(0, TEXT),
        text_delta(0, "Hel"),
        error_frame("overloaded_error", "Overloaded"),
        message_delta("end_turn"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Hel"),
        error("failed", "upstream_overloaded", True, "overloaded_error", "Overloaded"),
    ]
    assert [(i.frame, i.code) for i in trace.ignored] == [
        (4, "after_terminal"),
        (5, "after_terminal"),
    ]


def test_max_tokens_with_a_tool_block_open_is_a_protocol_error_carrying_the_stop_reason() -> None:
    trace = run(
        message_start(),
        block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "make_file", "input": {}}),
        json_delta(0, '{"filename": "taxes.txt", "lines": ["# GUIDE",'),
        message_delta("max_tokens"),
        MESSAGE_STOP,
    )
    assert events(trace) == [
        START,
        tool_opened(0, "make_file", "toolu_1"),
        delta(0, "tool_call", "json_text", '{"filename": "taxes.txt", "lines": ["# GUIDE",'),
        error(
            "failed",
            "protocol_error",
            False,
            "max_tokens",
            "final signal 'max_tokens' arrived while a block is still open (b_0 tool_call); "
            "its content is incomplete",
        ),
    ]
    (violation,) = trace.violations
    assert (violation.rule, violation.frame) == (5, 4)


def test_message_stop_without_a_stop_reason_is_a_protocol_error() -> None:
    trace = run(*HELLO, MESSAGE_STOP)
    assert events(trace)[-1] == error(
        "failed",
        "protocol_error",
        False,
        None,
        "frame 5: message_stop arrived but no message_delta carried a stop_reason",
    )


def test_a_second_different_message_start_is_a_protocol_error() -> None:
    trace = run(*HELLO, message_start({"input_tokens": 99, "output_tokens": 1}))
    assert events(trace)[-1] == error(
        "failed",
        "protocol_error",
        False,
        None,
        "frame 5: a second message_start; one stream carries one message",
    )


def test_a_frame_that_is_not_json_fails_the_stream_and_keeps_the_text_before_it() -> None:
    trace = run(*HELLO[:3], raw=b'event: content_block_delta\ndata: {"type": "content_blo\n\n')
    got = events(trace)
    assert got[:3] == [START, opened(0, "text", "text"), delta(0, "text", "text", "Hel")]
    assert got[3]["error"]["category"] == "protocol_error"
    assert got[3]["error"]["message"].startswith(
        "frame 3 (content_block_delta): data is not valid JSON"
    )
    assert len(got) == 4


def test_a_block_event_without_an_index_is_a_protocol_error() -> None:
    trace = run(message_start(), {"type": "content_block_start", "content_block": TEXT})
    assert events(trace)[-1] == error(
        "failed", "protocol_error", False, None, "frame 1: content_block_start has no valid 'index'"
    )


def test_a_delta_for_a_block_never_opened_is_refused_by_the_machine_as_rule_2() -> None:
    trace = run(message_start(), text_delta(3, "orphan"))
    assert events(trace)[-1] == error(
        "failed",
        "protocol_error",
        False,
        None,
        "a delta arrived for b_3, which was never opened",
    )
    assert trace.violations[0].rule == 2


# -- interrupted ---------------------------------------------------------------------


def test_a_reset_mid_text_is_an_interruption_naming_the_open_block() -> None:
    trace = run(*HELLO[:3], end=TransportEnd("reset", 1.2, "connection reset by peer"))
    assert events(trace) == [
        START,
        opened(0, "text", "text"),
        delta(0, "text", "text", "Hel"),
        error(
            "interrupted",
            "transport",
            True,
            None,
            "the connection was reset before the provider's terminal signal; "
            "connection reset by peer; still open: b_0 text (content is a draft)",
        ),
    ]


def test_a_stop_reason_without_message_stop_is_still_an_interruption() -> None:
    trace = run(*HELLO, message_delta("end_turn"))
    assert events(trace)[-1] == error(
        "interrupted",
        "transport",
        True,
        None,
        "the bytes ended before the provider's terminal signal; message_delta announced "
        "stop_reason 'end_turn', but message_stop never arrived, so the end was not proved",
    )


def test_a_final_message_stop_without_its_blank_line_is_never_dispatched() -> None:
    trace = run(
        *HELLO, message_delta("end_turn"), raw=b'event: message_stop\ndata: {"type":"message_stop"}'
    )
    assert events(trace)[-1] == error(
        "interrupted",
        "transport",
        True,
        None,
        "the bytes ended before the provider's terminal signal; 49 bytes at the end "
        f"(event 'message_stop' from byte {len(sse(*HELLO, message_delta('end_turn')))}) had no "
        "blank line after them, so they were never dispatched; message_delta announced "
        "stop_reason 'end_turn', but message_stop never arrived, so the end was not proved",
    )


# -- usage ---------------------------------------------------------------------------


def test_usage_counts_cache_reads_and_writes_as_input_and_keeps_the_merged_raw_object() -> None:
    start_usage = {
        "input_tokens": 6,
        "cache_creation_input_tokens": 3337,
        "cache_read_input_tokens": 6289,
        "output_tokens": 1,
        "service_tier": "standard",
    }
    final_usage = {
        "input_tokens": None,
        "output_tokens": 198,
        "output_tokens_details": {"thinking_tokens": 67},
    }
    trace = run(
        message_start(start_usage), *HELLO[1:], message_delta("end_turn", final_usage), MESSAGE_STOP
    )
    assert events(trace)[-1]["usage"] == {
        "input_tokens": 6 + 3337 + 6289,
        "output_tokens": 198,
        "reasoning_tokens": 67,
        "cached_input_tokens": 6289,
        "raw": {
            "input_tokens": 6,
            "cache_creation_input_tokens": 3337,
            "cache_read_input_tokens": 6289,
            "output_tokens": 198,
            "service_tier": "standard",
            "output_tokens_details": {"thinking_tokens": 67},
        },
    }


def test_usage_after_compaction_is_the_sum_over_the_sampling_iterations() -> None:
    usage = {
        "input_tokens": 181,
        "cache_read_input_tokens": 0,
        "output_tokens": 8,
        "iterations": [
            {"type": "compaction", "input_tokens": 100, "cache_read_input_tokens": 55096,
             "cache_creation_input_tokens": 0, "output_tokens": 83},
            {"type": "message", "input_tokens": 181, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 0, "output_tokens": 8},
        ],
    }  # fmt: skip
    assert normalize_usage(usage) == {
        "input_tokens": 100 + 55096 + 181,
        "output_tokens": 83 + 8,
        "cached_input_tokens": 55096,
        "raw": usage,
    }


def test_usage_without_counts_reports_none_rather_than_zero() -> None:
    assert normalize_usage({"service_tier": "standard"}) == {
        "input_tokens": None,
        "output_tokens": None,
        "raw": {"service_tier": "standard"},
    }


def test_a_stream_without_any_usage_reports_null_usage() -> None:
    start = message_start()
    del start["message"]["usage"]
    trace = run(start, *HELLO[1:], {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
                MESSAGE_STOP)  # fmt: skip
    assert events(trace)[-1] == done("stop", "end_turn") | {"usage": None}
