"""The Gemini adapter, rule by rule: hand-written frames, whole sequences.

Each test feeds a few ``GenerateContentResponse`` frames through the real
pipeline (decoder → adapter → machine) and compares the complete normalized
sequence with what the contract and the adapter's table of final signals
require. ``shape`` keeps every field that carries meaning and drops only the
envelope (``stream_id``, ``seq``), which ``check_invariants`` verifies for
every stream.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.adapters import adapter_for
from inspector.core.adapters.gemini import (
    DONE_FINISH_REASONS,
    FAILED_FINISH_REASONS,
    FINAL_SIGNALS,
    ArgsWriter,
    normalize_usage,
    parse_json_path,
)
from inspector.core.invariants import check_invariants
from inspector.core.machine import parse_arguments
from inspector.core.normalizer import normalize
from inspector.core.trace import Trace, TransportEnd

MODEL = "gemini-2.5-flash"
RESPONSE_ID = "resp-test-1"
SIG = "CiQBjz1rXsig=="
USAGE = {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}

# -- provider frames ---------------------------------------------------------


def response(
    *parts: dict[str, Any],
    finish: str | None = None,
    usage: dict[str, Any] | None = None,
    **candidate_fields: Any,
) -> dict[str, Any]:
    """One ``GenerateContentResponse`` with candidate 0 holding ``parts``."""
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}}
    if finish is not None:
        candidate["finishReason"] = finish
    candidate.update(candidate_fields)
    frame: dict[str, Any] = {"candidates": [candidate], "modelVersion": MODEL}
    frame["responseId"] = RESPONSE_ID
    if usage is not None:
        frame["usageMetadata"] = usage
    return frame


def text(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, **extra}


def thought(value: str, **extra: Any) -> dict[str, Any]:
    return {"text": value, "thought": True, **extra}


def call(name: str, args: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if args is not None:
        body["args"] = args
    return {"functionCall": body, **extra}


def stream_call(name: str) -> dict[str, Any]:
    """The first piece of a Vertex streamed call: its name, arguments to follow."""
    return {"functionCall": {"name": name, "willContinue": True}}


def partial(*args: dict[str, Any]) -> dict[str, Any]:
    return {"functionCall": {"partialArgs": list(args), "willContinue": True}}


CALL_END: dict[str, Any] = {"functionCall": {}}


def sse(*frames: dict[str, Any]) -> bytes:
    """Frames as Gemini sends them with ``alt=sse``: data lines ended by CRLF CRLF."""
    return b"".join(b"data: " + orjson.dumps(f) + b"\r\n\r\n" for f in frames)


def run(*frames: dict[str, Any], end: str = "eof") -> Trace:
    trace = normalize(sse(*frames), "gemini", "st_test", TransportEnd(end))
    assert check_invariants(trace.events) == []
    return trace


def shape(trace: Trace) -> list[tuple[Any, ...]]:
    """Every event without its envelope, as a compact tuple."""
    out: list[tuple[Any, ...]] = []
    for e in trace.events:
        kind = e["type"]
        if kind == "stream.start":
            out.append(("start", e.get("model")))
        elif kind == "block.start":
            b = e["block"]
            row: tuple[Any, ...] = ("open", b["index"], b["kind"], e["provider_type"])
            if b["kind"] == "tool_call":
                row += (e["name"], e["call_id"])
            if b["kind"] == "reasoning":
                row += (e["visibility"],)
            out.append(row)
        elif kind == "block.delta":
            d = e["delta"]
            value = d["citation"] if d["kind"] == "citation" else d["text"]
            out.append(("delta", e["block"]["index"], d["kind"], value))
        elif kind == "block.stop":
            out.append(("stop", e["block"]["index"]))
        elif kind == "stream.done":
            out.append(("done", e["finish_reason"], e["provider_finish_reason"]))
        elif kind == "stream.error":
            err = e["error"]
            row = (err["category"], err["retryable"], err["provider_code"])
            out.append(("error", e["status"], *row))
        elif kind == "stream.warning":
            out.append(("warning", e["code"]))
        else:
            out.append((kind,))
    return out


def done_event(trace: Trace) -> dict[str, Any]:
    event = trace.events[-1]
    assert event["type"] == "stream.done"
    return event


def error_message(trace: Trace) -> str:
    event = trace.events[-1]
    assert event["type"] == "stream.error"
    message: str = event["error"]["message"]
    return message


# -- text and reasoning ------------------------------------------------------


def test_text_over_several_objects_is_one_block_closed_by_the_finish_frame() -> None:
    trace = run(
        response(text("The")),
        response(text(" capital of France")),
        response(text(" is Paris."), finish="STOP", usage=USAGE),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "The"),
        ("delta", 0, "text", " capital of France"),
        ("delta", 0, "text", " is Paris."),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]
    done = done_event(trace)
    assert (done["model"], done["response_id"]) == (MODEL, RESPONSE_ID)
    assert done["usage"] == {"input_tokens": 10, "output_tokens": 5, "raw": USAGE}


def test_thought_parts_are_a_reasoning_block_and_the_signature_stays_on_its_part() -> None:
    trace = run(
        response(thought("**Planning**")),
        response(thought(" more thinking")),
        response(text("Answer", thoughtSignature=SIG)),
        response(text("."), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "reasoning", "thought", "internal"),
        ("delta", 0, "text", "**Planning**"),
        ("delta", 0, "text", " more thinking"),
        ("stop", 0),
        ("open", 1, "text", "text"),
        ("delta", 1, "text", "Answer"),
        ("delta", 1, "signature", SIG),
        ("delta", 1, "text", "."),
        ("stop", 1),
        ("done", "stop", "STOP"),
    ]


def test_a_part_of_another_kind_closes_the_text_block_and_text_after_it_opens_a_new_one() -> None:
    trace = run(
        response(text("Before"), thought("think"), text("After"), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "Before"),
        ("stop", 0),
        ("open", 1, "reasoning", "thought", "internal"),
        ("delta", 1, "text", "think"),
        ("stop", 1),
        ("open", 2, "text", "text"),
        ("delta", 2, "text", "After"),
        ("stop", 2),
        ("done", "stop", "STOP"),
    ]


def test_an_empty_text_part_with_a_signature_signs_the_open_text_block() -> None:
    trace = run(
        response(text("There are 3")),
        response(text("", thoughtSignature=SIG), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "There are 3"),
        ("delta", 0, "signature", SIG),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]


def test_an_empty_text_part_with_a_signature_and_no_text_block_open_opens_one_for_it() -> None:
    trace = run(
        response(call("now", {})),
        response(text("", thoughtSignature=SIG), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "now", None),
        ("delta", 0, "json_text", "{}"),
        ("stop", 0),
        ("open", 1, "text", "text"),
        ("delta", 1, "signature", SIG),
        ("stop", 1),
        ("done", "tool_calls", "STOP"),
    ]


def test_an_empty_text_part_without_a_signature_carries_nothing() -> None:
    trace = run(
        response(call("get_country", {})),
        response(text(""), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "get_country", None),
        ("delta", 0, "json_text", "{}"),
        ("stop", 0),
        ("done", "tool_calls", "STOP"),
    ]


def test_a_part_holding_only_a_signature_is_read_as_an_empty_text_part() -> None:
    trace = run(response(text("Hi")), response({"thoughtSignature": SIG}, finish="STOP"))
    assert shape(trace)[2:4] == [("delta", 0, "text", "Hi"), ("delta", 0, "signature", SIG)]
    assert shape(trace)[-1] == ("done", "stop", "STOP")


# -- function calls ----------------------------------------------------------


def test_a_whole_function_call_is_one_closed_block_with_its_serialized_args() -> None:
    trace = run(
        response(text("Checking.")),
        response(
            call("get_weather", {"city": "Paris", "days": 2}, thoughtSignature=SIG), finish="STOP"
        ),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "Checking."),
        ("stop", 0),
        ("open", 1, "tool_call", "functionCall", "get_weather", None),
        ("delta", 1, "signature", SIG),
        ("delta", 1, "json_text", '{"city":"Paris","days":2}'),
        ("stop", 1),
        ("done", "tool_calls", "STOP"),
    ]


def test_the_call_id_is_the_provider_id_and_never_invented() -> None:
    with_id = {"functionCall": {"name": "f", "args": {}, "id": "call_7"}}
    trace = run(response(with_id, call("g", {})), response(finish="STOP"))
    starts = [row for row in shape(trace) if row[0] == "open"]
    assert starts == [
        ("open", 0, "tool_call", "functionCall", "f", "call_7"),
        ("open", 1, "tool_call", "functionCall", "g", None),
    ]


def test_parallel_function_calls_in_one_frame_are_separate_blocks() -> None:
    trace = run(
        response(
            call("weather", {"city": "Paris"}),
            call("weather", {"city": "Rome"}),
            finish="STOP",
            usage=USAGE,
        ),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "weather", None),
        ("delta", 0, "json_text", '{"city":"Paris"}'),
        ("stop", 0),
        ("open", 1, "tool_call", "functionCall", "weather", None),
        ("delta", 1, "json_text", '{"city":"Rome"}'),
        ("stop", 1),
        ("done", "tool_calls", "STOP"),
    ]


def test_a_call_without_args_and_without_will_continue_is_complete_at_once() -> None:
    # vertex-partial-args-no-args.sse: read_theme never gets a closing functionCall {}.
    trace = run(response(call("read_theme")), response(text(""), finish="STOP"))
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "read_theme", None),
        ("stop", 0),
        ("done", "tool_calls", "STOP"),
    ]


def test_streamed_partial_args_become_json_fragments_in_arrival_order() -> None:
    trace = run(
        response(stream_call("book")),
        response(partial({"jsonPath": "$.city", "stringValue": "San ", "willContinue": True})),
        response(partial({"jsonPath": "$.city", "stringValue": "Francisco"})),
        response(partial({"jsonPath": "$.nights", "numberValue": 3},
                         {"jsonPath": "$.guest.vip", "boolValue": True},
                         {"jsonPath": "$.guest.note", "nullValue": "NULL_VALUE"},
                         {"jsonPath": "$.tags[0]", "stringValue": "quiet"},
                         {"jsonPath": "$.tags[1]", "stringValue": "high \"floor\""})),
        response(CALL_END),
        response(text(""), finish="STOP"),
    )  # fmt: skip
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "book", None),
        ("delta", 0, "json_text", '{"city":"San '),
        ("delta", 0, "json_text", 'Francisco"'),
        ("delta", 0, "json_text", ',"nights":3'),
        ("delta", 0, "json_text", ',"guest":{"vip":true'),
        ("delta", 0, "json_text", ',"note":null'),
        ("delta", 0, "json_text", '},"tags":["quiet"'),
        ("delta", 0, "json_text", ',"high \\"floor\\""'),
        ("delta", 0, "json_text", "]}"),
        ("stop", 0),
        ("done", "tool_calls", "STOP"),
    ]
    arguments = "".join(
        e["delta"]["text"] for e in trace.events
        if e["type"] == "block.delta" and e["delta"]["kind"] == "json_text"
    )  # fmt: skip
    assert orjson.loads(arguments) == {
        "city": "San Francisco",
        "nights": 3,
        "guest": {"vip": True, "note": None},
        "tags": ["quiet", 'high "floor"'],
    }


def test_a_streamed_call_still_open_at_the_finish_frame_fails_as_a_protocol_error() -> None:
    trace = run(
        response(stream_call("getWeather")),
        response(partial({"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True})),
        response(finish="STOP", usage=USAGE),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "getWeather", None),
        ("delta", 0, "json_text", '{"location":"Bos'),
        ("error", "failed", "protocol_error", False, "STOP"),
    ]
    assert "still open (b_0 tool_call)" in error_message(trace)
    assert [v.rule for v in trace.violations] == [5]


def test_max_tokens_cutting_a_streamed_call_short_is_a_protocol_error_not_a_length_end() -> None:
    trace = run(
        response(stream_call("write")),
        response(partial({"jsonPath": "$.body", "stringValue": "Dear", "willContinue": True})),
        response(finish="MAX_TOKENS"),
    )
    assert shape(trace)[-1] == ("error", "failed", "protocol_error", False, "MAX_TOKENS")


def test_a_new_call_while_one_is_streaming_leaves_the_first_unfinished() -> None:
    trace = run(
        response(stream_call("a")),
        response(partial({"jsonPath": "$.x", "numberValue": 1})),
        response(call("b", {})),
        response(finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "tool_call", "functionCall", "a", None),
        ("delta", 0, "json_text", '{"x":1'),
        ("warning", "unfinished_call"),
        ("open", 1, "tool_call", "functionCall", "b", None),
        ("delta", 1, "json_text", "{}"),
        ("stop", 1),
        ("error", "failed", "protocol_error", False, "STOP"),
    ]


def test_a_streamed_call_cut_by_the_end_of_the_bytes_is_interrupted_and_says_so() -> None:
    trace = run(
        response(stream_call("getWeather")),
        response(partial({"jsonPath": "$.location", "stringValue": "Bos", "willContinue": True})),
        end="reset",
    )
    assert shape(trace)[-1] == ("error", "interrupted", "transport", True, None)
    message = error_message(trace)
    assert "functionCall 'getWeather' was still streaming its arguments" in message
    assert "still open: b_0 tool_call" in message


def test_an_unreadable_json_path_fails_the_stream_rather_than_guess() -> None:
    trace = run(
        response(stream_call("f")),
        response(partial({"jsonPath": "$..items[?(@.x)]", "stringValue": "v"})),
    )
    assert shape(trace)[-1] == ("error", "failed", "protocol_error", False, None)
    assert "cannot read the jsonPath '$..items[?(@.x)]'" in error_message(trace)


def test_a_nameless_function_call_while_nothing_streams_is_skipped_with_a_warning() -> None:
    trace = run(response(text("x")), response(CALL_END, finish="STOP"))
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "x"),
        ("warning", "unknown_field"),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]


# -- provider-run parts ------------------------------------------------------


def test_parts_the_provider_runs_are_opaque_blocks_with_their_content_and_stop_stays_stop() -> None:
    code = {"language": "PYTHON", "code": "print(1)", "id": "c1"}
    result = {"outcome": "OUTCOME_OK", "output": "1\n", "id": "c1"}
    tool = {"toolType": "FILE_SEARCH", "id": "t1"}
    trace = run(
        response({"executableCode": code, "thoughtSignature": SIG}, text("")),
        response({"codeExecutionResult": result}),
        response({"toolCall": tool}, {"toolResponse": tool}),
        response(text("It is 1."), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "opaque", "executableCode"),
        ("delta", 0, "json_text", orjson.dumps(code).decode()),
        ("delta", 0, "signature", SIG),
        ("stop", 0),
        ("open", 1, "opaque", "codeExecutionResult"),
        ("delta", 1, "json_text", orjson.dumps(result).decode()),
        ("stop", 1),
        ("open", 2, "opaque", "toolCall"),
        ("delta", 2, "json_text", orjson.dumps(tool).decode()),
        ("stop", 2),
        ("open", 3, "opaque", "toolResponse"),
        ("delta", 3, "json_text", orjson.dumps(tool).decode()),
        ("stop", 3),
        ("open", 4, "text", "text"),
        ("delta", 4, "text", "It is 1."),
        ("stop", 4),
        ("done", "stop", "STOP"),
    ]


# -- the table of final signals ----------------------------------------------

SIGNAL_FRAMES: dict[str, dict[str, Any]] = {
    "finishReason (done)": response(text("ok"), finish="STOP"),
    "finishReason (failed)": response(text("ok"), finish="MALFORMED_FUNCTION_CALL"),
    "promptFeedback.blockReason": {"promptFeedback": {"blockReason": "SAFETY"}},
    "error": {"error": {"code": 500, "status": "INTERNAL", "message": "boom"}},
}


def test_every_final_signal_has_an_example_frame() -> None:
    assert sorted(SIGNAL_FRAMES) == sorted(FINAL_SIGNALS)


@pytest.mark.parametrize("signal", sorted(FINAL_SIGNALS))
def test_each_final_signal_ends_the_stream_in_its_state_before_the_bytes_end(signal: str) -> None:
    # The end record says "reset": only the signal itself can make the state anything
    # but interrupted.
    trace = run(response(text("draft")), SIGNAL_FRAMES[signal], end="reset")
    assert trace.state == FINAL_SIGNALS[signal][0]


def test_without_a_final_signal_every_end_of_the_bytes_is_an_interruption() -> None:
    for end, category in [("eof", "transport"), ("reset", "transport"),
                          ("timeout", "transport"), ("progress_timeout", "progress_timeout"),
                          ("cancelled", "cancelled")]:  # fmt: skip
        trace = run(response(text("draft")), end=end)
        assert shape(trace)[-1][:3] == ("error", "interrupted", category), end


CONTENT_FILTER = sorted(r for r, n in DONE_FINISH_REASONS.items() if n == "content_filter")


@pytest.mark.parametrize("reason", sorted(set(DONE_FINISH_REASONS) - {"STOP"}))
def test_each_deliberate_finish_after_output_completes_with_its_normalized_reason(
    reason: str,
) -> None:
    trace = run(response(text("partial answer")), response(finish=reason, usage=USAGE))
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "partial answer"),
        ("stop", 0),
        ("done", DONE_FINISH_REASONS[reason], reason),
    ]


def test_the_finish_reason_table_says_what_the_issue_asks() -> None:
    assert DONE_FINISH_REASONS["MAX_TOKENS"] == "length"
    filters = ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY",
               "IMAGE_PROHIBITED_CONTENT", "IMAGE_RECITATION"]  # fmt: skip
    assert sorted(filters) == CONTENT_FILTER
    for reason in ("LANGUAGE", "OTHER", "FINISH_REASON_UNSPECIFIED"):
        assert DONE_FINISH_REASONS[reason] == "other"
    assert not set(DONE_FINISH_REASONS) & set(FAILED_FINISH_REASONS)


def test_a_finish_reason_google_adds_later_completes_as_other_with_the_raw_value() -> None:
    trace = run(response(text("ok"), finish="SOMETHING_NEW"))
    assert shape(trace)[-1] == ("done", "other", "SOMETHING_NEW")


@pytest.mark.parametrize("reason", CONTENT_FILTER)
def test_a_content_filter_finish_before_any_output_is_a_failed_content_filter(reason: str) -> None:
    trace = run(response(finish=reason, usage={"promptTokenCount": 8, "totalTokenCount": 8}))
    assert shape(trace) == [
        ("start", MODEL),
        ("error", "failed", "content_filter", False, reason),
    ]
    assert error_message(trace) == (
        f"the response was blocked ({reason}) before any output was produced"
    )


def test_a_content_filter_finish_after_reasoning_only_is_still_a_failure() -> None:
    trace = run(response(thought("Considering…")), response(finish="SAFETY"))
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "reasoning", "thought", "internal"),
        ("delta", 0, "text", "Considering…"),
        ("error", "failed", "content_filter", False, "SAFETY"),
    ]


@pytest.mark.parametrize("reason", sorted(FAILED_FINISH_REASONS))
def test_each_failing_finish_reason_fails_with_its_category(reason: str) -> None:
    trace = run(
        response(text("Let me call it.")),
        response(finish=reason, finishMessage="Malformed function call: print(x"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "Let me call it."),
        ("error", "failed", FAILED_FINISH_REASONS[reason], False, reason),
    ]
    assert error_message(trace).startswith(f"finishReason {reason}: ")
    assert error_message(trace).endswith("(Malformed function call: print(x)")


def test_malformed_function_call_is_a_protocol_error() -> None:
    assert FAILED_FINISH_REASONS["MALFORMED_FUNCTION_CALL"] == "protocol_error"
    assert FAILED_FINISH_REASONS["UNEXPECTED_TOOL_CALL"] == "protocol_error"


def test_a_blocked_prompt_is_a_failed_content_filter_before_any_block() -> None:
    blocked = {
        "promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 7, "totalTokenCount": 7},
        "modelVersion": MODEL,
        "responseId": RESPONSE_ID,
    }
    trace = run(blocked)
    assert shape(trace) == [
        ("start", MODEL),
        ("error", "failed", "content_filter", False, "PROHIBITED_CONTENT"),
    ]
    assert error_message(trace) == "the prompt was blocked (PROHIBITED_CONTENT)"


def test_prompt_feedback_without_a_block_reason_is_harmless() -> None:
    feedback = {"promptFeedback": {"safetyRatings": []}, **response(text("ok"), finish="STOP")}
    assert shape(run(feedback))[-1] == ("done", "stop", "STOP")
    assert not any(row[0] == "warning" for row in shape(run(feedback)))


@pytest.mark.parametrize(
    ("code", "status", "category", "retryable"),
    [
        (500, "INTERNAL", "server_error", True),
        (503, "UNAVAILABLE", "upstream_overloaded", True),
        (429, "RESOURCE_EXHAUSTED", "rate_limited", True),
        (400, "INVALID_ARGUMENT", "invalid_request", False),
    ],
)
def test_an_error_object_mid_stream_fails_with_the_google_status_and_keeps_the_text(
    code: int, status: str, category: str, retryable: bool
) -> None:
    error = {"error": {"code": code, "status": status, "message": "An internal error occurred."}}
    trace = run(response(text("Half an ans")), error)
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "Half an ans"),
        ("error", "failed", category, retryable, status),
    ]
    assert error_message(trace) == "An internal error occurred."


def test_an_error_object_under_an_event_name_is_still_an_error() -> None:
    error = {"error": {"code": 503, "status": "UNAVAILABLE", "message": "overloaded"}}
    body = sse(response(text("a"))) + b"event: error\r\n" + sse(error)
    trace = normalize(body, "gemini", "st_test")
    assert shape(trace)[-1] == ("error", "failed", "upstream_overloaded", True, "UNAVAILABLE")


def test_the_bytes_ending_before_any_finish_reason_is_an_interruption() -> None:
    trace = run(response(text("The")), response(text(" capital")), end="eof")
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "The"),
        ("delta", 0, "text", " capital"),
        ("error", "interrupted", "transport", True, None),
    ]
    assert "no frame carried a finishReason" in error_message(trace)


def test_frames_after_the_finish_frame_are_kept_as_ignored_not_turned_into_events() -> None:
    late_usage = {"usageMetadata": {"promptTokenCount": 99}, "modelVersion": MODEL}
    trace = run(response(text("ok"), finish="STOP", usage=USAGE), late_usage)
    assert shape(trace)[-1] == ("done", "stop", "STOP")
    assert done_event(trace)["usage"]["input_tokens"] == 10
    assert [(i.frame, i.code) for i in trace.ignored] == [(1, "after_terminal")]


def test_data_that_is_not_json_is_a_protocol_error() -> None:
    trace = normalize(sse(response(text("a"))) + b"data: {not json\r\n\r\n", "gemini", "st_t")
    assert shape(trace)[-1] == ("error", "failed", "protocol_error", False, None)
    assert "data is not valid JSON" in error_message(trace)


def test_a_json_array_of_responses_in_one_frame_is_read_element_by_element() -> None:
    body = b"data: " + orjson.dumps([response(text("a")), response(text("b"), finish="STOP")])
    trace = normalize(body + b"\n\n", "gemini", "st_t")
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "a"),
        ("delta", 0, "text", "b"),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]


def test_an_http_error_body_wrapped_in_an_array_is_classified_by_its_status() -> None:
    body = b'[{"error": {"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}}]'
    fail = adapter_for("gemini").http_error(429, body)
    assert (fail.category, fail.provider_code, fail.message) == (
        "rate_limited", "RESOURCE_EXHAUSTED", "HTTP 429: Quota",
    )  # fmt: skip


# -- unknown and harmless fields ---------------------------------------------


def test_an_unknown_part_type_is_skipped_with_one_warning_and_the_text_goes_on() -> None:
    trace = run(
        response(text("Hello")),
        response({"hologram": {"x": 1}}),
        response({"hologram": {"x": 2}}, text(" world"), finish="STOP"),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "Hello"),
        ("warning", "unknown_part"),
        ("delta", 0, "text", " world"),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]
    assert [i.code for i in trace.ignored] == ["unknown_part"]
    assert "unknown part type 'hologram'" in trace.ignored[0].reason


def test_unknown_response_and_candidate_fields_warn_once_each() -> None:
    frame = {**response(text("a"), sparkle=1), "x-debug": True}
    trace = run(frame, frame, response(finish="STOP"))
    assert [row for row in shape(trace) if row[0] == "warning"] == [
        ("warning", "unread_field"),
        ("warning", "unread_field"),
    ]
    assert sorted(e["path"] for e in trace.events if e["type"] == "stream.warning") == [
        "candidates[].sparkle",
        "x-debug",
    ]


def test_known_harmless_fields_raise_no_warning() -> None:
    frame = response(
        text("ok", thought=False, partMetadata={}),
        finish="STOP",
        usage=USAGE,
        index=0,
        safetyRatings=[{"category": "HARM_CATEGORY_HARASSMENT", "probability": "NEGLIGIBLE"}],
        avgLogprobs=-0.12,
        logprobsResult={},
        groundingMetadata={},
        urlContextMetadata={},
        finishMessage="",
    )
    frame["createTime"] = "2026-04-02T17:03:50Z"
    assert shape(run(frame)) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "ok"),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]


def test_citations_and_grounding_become_citation_deltas_on_the_text_block() -> None:
    source = {"startIndex": 0, "endIndex": 5, "uri": "https://example.com/a"}
    grounding = {"webSearchQueries": ["paris"], "groundingChunks": [{"web": {"uri": "u"}}]}
    trace = run(
        response(text("Paris"), citationMetadata={"citationSources": [source]}),
        response(text("."), finish="STOP", groundingMetadata=grounding),
    )
    assert shape(trace) == [
        ("start", MODEL),
        ("open", 0, "text", "text"),
        ("delta", 0, "text", "Paris"),
        ("delta", 0, "citation", source),
        ("delta", 0, "text", "."),
        ("delta", 0, "citation", grounding),
        ("stop", 0),
        ("done", "stop", "STOP"),
    ]


def test_vertex_citations_under_their_own_name_are_read_too() -> None:
    source = {"startIndex": 1, "uri": "https://example.com/v"}
    trace = run(response(text("x"), citationMetadata={"citations": [source]}, finish="STOP"))
    assert ("delta", 0, "citation", source) in shape(trace)


# Several candidates (v1.1): tests/test_several_choices.py.


def test_an_unknown_named_event_is_skipped() -> None:
    body = b'event: x-unknown\ndata: {"n": 1}\n\n' + sse(response(text("a"), finish="STOP"))
    trace = normalize(body, "gemini", "st_t")
    # Before stream.start nothing may be emitted: the warning is kept in the trace only.
    assert shape(trace)[0] == ("start", MODEL)
    assert [i.code for i in trace.ignored] == ["unknown_event"]


# -- usage -------------------------------------------------------------------


def test_usage_counts_thoughts_as_output_and_tool_use_prompt_as_input() -> None:
    raw = {
        "promptTokenCount": 147,
        "candidatesTokenCount": 108,
        "totalTokenCount": 783,
        "toolUsePromptTokenCount": 360,
        "thoughtsTokenCount": 168,
        "cachedContentTokenCount": 100,
    }
    assert normalize_usage(raw) == {
        "input_tokens": 507,
        "output_tokens": 276,
        "reasoning_tokens": 168,
        "cached_input_tokens": 100,
        "raw": raw,
    }


def test_usage_without_candidate_counts_has_zero_output_and_without_counts_has_none() -> None:
    assert normalize_usage({"promptTokenCount": 8, "totalTokenCount": 8}) == {
        "input_tokens": 8,
        "output_tokens": None,
        "raw": {"promptTokenCount": 8, "totalTokenCount": 8},
    }
    assert normalize_usage({"trafficType": "ON_DEMAND"}) == {
        "input_tokens": None,
        "output_tokens": None,
        "raw": {"trafficType": "ON_DEMAND"},
    }


def test_the_usage_of_the_last_frame_that_reported_one_is_the_final_usage() -> None:
    early = {"promptTokenCount": 15, "totalTokenCount": 15}
    final = {"promptTokenCount": 13, "candidatesTokenCount": 8, "totalTokenCount": 21}
    trace = run(response(text("a"), usage=early), response(text("b"), finish="STOP", usage=final))
    assert done_event(trace)["usage"] == {"input_tokens": 13, "output_tokens": 8, "raw": final}


# -- the argument writer -----------------------------------------------------


@pytest.mark.parametrize(
    ("path", "segments"),
    [
        ("$.location", ("location",)),
        ("$.foo.bar[0].data", ("foo", "bar", 0, "data")),
        ("$['a b'][12]", ("a b", 12)),
        ('$["quote\\"d"]', ('quote"d',)),
        ("$['tab\\there']", ("tab\there",)),
        ("$['\\u00e9t\\u00e9']", ("été",)),
        ("$", ()),
        ("location", ()),
        ("$.", ()),
        ("$[x]", ()),
        ("$['open", ()),
        ("$..deep", ()),
    ],
)
def test_json_paths_name_keys_and_indices_and_anything_else_is_unreadable(
    path: str, segments: tuple[Any, ...]
) -> None:
    assert parse_json_path(path) == segments


def test_a_key_where_an_array_is_open_is_refused() -> None:
    writer = ArgsWriter()
    assert writer.feed({"jsonPath": "$.a[0]", "numberValue": 1}) == ('{"a":[1', None, False)
    _, note, fatal = writer.feed({"jsonPath": "$.a.b", "numberValue": 2})
    assert fatal
    assert note == "jsonPath $.a.b puts a member name inside an array"


def test_an_index_out_of_order_is_written_where_it_arrives_with_a_note() -> None:
    writer = ArgsWriter()
    writer.feed({"jsonPath": "$.a[0]", "numberValue": 1})
    assert writer.feed({"jsonPath": "$.a[2]", "numberValue": 3}) == (
        ",3", "jsonPath $.a[2] arrived out of order (expected index 1)", False,
    )  # fmt: skip
    assert writer.finish() == ("]}", None)


def test_a_string_whose_last_piece_never_came_is_closed_with_a_note() -> None:
    writer = ArgsWriter()
    writer.feed({"jsonPath": "$.a", "stringValue": "x", "willContinue": True})
    assert writer.feed({"jsonPath": "$.b", "numberValue": 1}) == (
        '","b":1', "the string at $.a was cut short by $.b", False,
    )  # fmt: skip
    writer.feed({"jsonPath": "$.c", "stringValue": "y", "willContinue": True})
    assert writer.finish() == ('"}', "the string at $.c never received its last piece")


def test_a_call_without_partial_args_writes_nothing_and_parses_as_no_arguments() -> None:
    writer = ArgsWriter()
    assert writer.finish() == ("", None)
    assert parse_arguments("") == ({}, None)


JSON_LEAF = st.one_of(
    st.text(max_size=12),
    st.integers(-(10**6), 10**6),
    st.booleans(),
    st.none(),
)
KEYS = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6)
JSON_TREE = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, min_size=1, max_size=3),
        st.dictionaries(KEYS, inner, min_size=1, max_size=3),
    ),
    max_leaves=12,
)


def partial_args_for(value: Any, path: str, pieces: int) -> list[dict[str, Any]]:
    """How Vertex would stream ``value`` at ``path``: leaves in order, strings in pieces."""
    if isinstance(value, dict):
        out = []
        for key, item in value.items():
            quoted = key.replace("\\", "\\\\").replace("'", "\\'")
            out += partial_args_for(item, f"{path}['{quoted}']", pieces)
        return out
    if isinstance(value, list):
        out = []
        for i, item in enumerate(value):
            out += partial_args_for(item, f"{path}[{i}]", pieces)
        return out
    if isinstance(value, str):
        size = max(1, len(value) // pieces)
        chunks = [value[i : i + size] for i in range(0, len(value), size)] or [""]
        return [
            {"jsonPath": path, "stringValue": chunk, "willContinue": n < len(chunks) - 1}
            for n, chunk in enumerate(chunks)
        ]
    if isinstance(value, bool):
        return [{"jsonPath": path, "boolValue": value}]
    if value is None:
        return [{"jsonPath": path, "nullValue": "NULL_VALUE"}]
    return [{"jsonPath": path, "numberValue": value}]


@given(
    args=st.dictionaries(KEYS, JSON_TREE, min_size=1, max_size=4),
    pieces=st.integers(1, 4),
)
def test_streamed_arguments_of_any_shape_concatenate_to_the_same_json(
    args: dict[str, Any], pieces: int
) -> None:
    writer = ArgsWriter()
    fragments = []
    for arg in partial_args_for(args, "$", pieces):
        fragment, note, fatal = writer.feed(arg)
        assert (note, fatal) == (None, False)
        fragments.append(fragment)
    tail, note = writer.finish()
    assert note is None
    assert orjson.loads("".join(fragments) + tail) == args
