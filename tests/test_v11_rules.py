"""Contract v1.1's smaller rules, in every adapter each applies to.

Each test feeds hand-written frames through the real pipeline and checks the
outcome the v1.1 section of the contract prescribes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.core.invariants import check_invariants
from inspector.core.normalizer import Normalizer, normalize
from inspector.core.trace import Trace
from inspector.session import load_trace


def sse(*frames: Any, event: str | None = None) -> bytes:
    out = b""
    for frame in frames:
        data = frame if isinstance(frame, bytes) else orjson.dumps(frame)
        named = frame.get("type") if event == "type" and isinstance(frame, dict) else event
        out += (f"event: {named}\n".encode() if named else b"") + b"data: " + data + b"\n\n"
    return out


def run(body: bytes, provider: str, header: dict[str, Any] | None = None) -> Trace:
    normalizer = Normalizer(provider, "st_rules", header=header)
    normalizer.feed(body)
    trace = normalizer.finish()
    assert check_invariants(trace.events) == []
    return trace


def last(trace: Trace) -> dict[str, Any]:
    return trace.events[-1]


def codes(trace: Trace) -> list[str]:
    return [e["code"] for e in trace.events if e["type"] == "stream.warning"]


# -- OpenAI Chat frames --------------------------------------------------------------


def chat(
    delta: dict[str, Any] | None = None, finish: str | None = None, model: str = "m"
) -> dict[str, Any]:
    return {
        "id": "c",
        "model": model,
        "choices": [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
    }


def call(arguments: str | None, index: int = 0) -> dict[str, Any]:
    function: dict[str, Any] = {"name": "f"}
    if arguments is not None:
        function["arguments"] = arguments
    return {
        "tool_calls": [
            {"index": index, "id": f"call_{index}", "type": "function", "function": function}
        ]
    }


DONE = b"data: [DONE]\n\n"


# -- finish reason from content ------------------------------------------------------


def test_chat_forced_tool_call_with_stop_finishes_as_tool_calls() -> None:
    trace = run(sse(chat(call('{"a":1}')), chat(finish="stop")) + DONE, "openai-chat")
    assert (last(trace)["finish_reason"], last(trace)["provider_finish_reason"]) == (
        "tool_calls",
        "stop",
    )


@pytest.mark.parametrize(
    ("raw", "expected"), [("length", "length"), ("content_filter", "content_filter")]
)
def test_chat_length_and_content_filter_keep_their_reason_after_a_tool_call(
    raw: str, expected: str
) -> None:
    trace = run(sse(chat({"content": "x"}), chat(finish=raw)) + DONE, "openai-chat")
    assert last(trace)["finish_reason"] == expected


def anthropic_stream(stop_reason: str, *, tool: bool) -> bytes:
    frames: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {"id": "msg_1", "model": "claude", "usage": {"input_tokens": 1}},
        },
    ]
    if tool:
        frames += [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": "{}"},
            },
        ]
    else:
        frames += [
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": "hi"},
            },
        ]
    frames += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]
    return sse(*frames, event="type")


def test_anthropic_end_turn_with_a_tool_use_block_finishes_as_tool_calls() -> None:
    trace = run(anthropic_stream("end_turn", tool=True), "anthropic")
    assert (last(trace)["finish_reason"], last(trace)["provider_finish_reason"]) == (
        "tool_calls",
        "end_turn",
    )
    assert (
        last(run(anthropic_stream("end_turn", tool=False), "anthropic"))["finish_reason"] == "stop"
    )
    assert (
        last(run(anthropic_stream("max_tokens", tool=True), "anthropic"))["finish_reason"]
        == "length"
    )


def gemini(
    parts: list[dict[str, Any]] | None = None, finish: Any = None, **top: Any
) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts or [], "role": "model"}, "index": 0}
    if finish is not None:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", **top}


def test_gemini_stop_with_a_function_call_finishes_as_tool_calls() -> None:
    body = sse(gemini([{"functionCall": {"name": "f", "args": {}}}], "STOP"))
    assert last(run(body, "gemini"))["finish_reason"] == "tool_calls"


# -- [DONE] without a finish reason -----------------------------------------------------


def test_done_without_finish_reason_closes_a_tool_call_and_completes_as_tool_calls() -> None:
    trace = run(sse(chat(call('{"city":')), chat(call('"Oslo"}'))) + DONE, "openai-chat")
    types = [e["type"] for e in trace.events]
    assert types[-3:] == ["block.stop", "stream.warning", "stream.done"]
    assert codes(trace) == ["no_finish_reason"]
    assert (last(trace)["finish_reason"], last(trace)["provider_finish_reason"]) == (
        "tool_calls",
        None,
    )


def test_done_without_finish_reason_with_broken_arguments_fails() -> None:
    trace = run(sse(chat(call('{"city":'))) + DONE, "openai-chat")
    assert (last(trace)["status"], last(trace)["error"]["category"]) == ("failed", "protocol_error")


def test_a_finish_reason_without_done_is_still_interrupted() -> None:
    trace = run(sse(chat({"content": "x"}), chat(finish="stop")), "openai-chat")
    assert last(trace)["status"] == "interrupted"


# -- client calls whose input is not JSON (Responses) -------------------------------------


def responses(*events: dict[str, Any], output: list[dict[str, Any]] | None = None) -> bytes:
    frames: list[dict[str, Any]] = [
        {
            "type": "response.created",
            "response": {"id": "resp_1", "model": "gpt-5", "status": "in_progress"},
        },
        *events,
        {
            "type": "response.completed",
            "response": {
                "id": "resp_1",
                "model": "gpt-5",
                "status": "completed",
                "output": output or [],
            },
        },
    ]
    return sse(*frames, event="type")


def item(kind: str, index: int, state: str, **fields: Any) -> dict[str, Any]:
    return {
        "type": f"response.output_item.{state}",
        "output_index": index,
        "item": {"id": f"it_{index}", "type": kind, **fields},
    }


def block_starts(trace: Trace) -> list[tuple[str, Any, Any]]:
    return [
        (e["block"]["kind"], e["provider_type"], e.get("input_format"))
        for e in trace.events
        if e["type"] == "block.start"
    ]


def test_custom_tool_call_input_is_text_never_parsed() -> None:
    body = responses(
        item("custom_tool_call", 0, "added", name="patch", call_id="call_1", input=""),
        {
            "type": "response.custom_tool_call_input.delta",
            "output_index": 0,
            "item_id": "it_0",
            "delta": "*** Begin",
        },
        {
            "type": "response.custom_tool_call_input.delta",
            "output_index": 0,
            "item_id": "it_0",
            "delta": " Patch",
        },
        item(
            "custom_tool_call", 0, "done", name="patch", call_id="call_1", input="*** Begin Patch"
        ),
    )
    trace = run(body, "openai-responses")
    assert block_starts(trace) == [("tool_call", "custom_tool_call", "text")]
    deltas = [
        (e["delta"]["kind"], e["delta"]["text"]) for e in trace.events if e["type"] == "block.delta"
    ]
    assert deltas == [("text", "*** Begin"), ("text", " Patch")]
    assert last(trace)["finish_reason"] == "tool_calls"


@pytest.mark.parametrize("kind", ["apply_patch_call", "local_shell_call"])
def test_client_items_are_tool_calls_carrying_the_item(kind: str) -> None:
    fields = {"call_id": "call_1", "status": "completed", "operation": {"type": "update_file"}}
    trace = run(
        responses(item(kind, 0, "added", **fields), item(kind, 0, "done", **fields)),
        "openai-responses",
    )
    assert block_starts(trace) == [("tool_call", kind, "item")]
    carried = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert orjson.loads(carried[0])["type"] == kind
    assert last(trace)["finish_reason"] == "tool_calls"


@pytest.mark.parametrize(
    ("environment", "expected"),
    [
        (None, ("tool_call", "shell_call", "item")),
        ({"type": "local"}, ("tool_call", "shell_call", "item")),
        ({"type": "container_auto"}, ("opaque", "shell_call", None)),
    ],
)
def test_shell_call_is_the_clients_only_in_a_local_environment(
    environment: dict[str, Any] | None, expected: tuple[str, str, Any]
) -> None:
    fields: dict[str, Any] = {"call_id": "call_1", "action": {"commands": ["ls"]}}
    if environment is not None:
        fields["environment"] = environment
    trace = run(
        responses(
            item("shell_call", 0, "added", **fields), item("shell_call", 0, "done", **fields)
        ),
        "openai-responses",
    )
    assert block_starts(trace) == [expected]


@pytest.mark.parametrize(
    ("execution", "kind", "warned"),
    [("client", "tool_call", False), ("server", "opaque", False), (None, "opaque", True)],
)
def test_tool_search_call_follows_its_execution_flag(
    execution: Any, kind: str, warned: bool
) -> None:
    fields = {"execution": execution} if execution else {}
    trace = run(
        responses(
            item("tool_search_call", 0, "added", **fields),
            item("tool_search_call", 0, "done", **fields),
        ),
        "openai-responses",
    )
    assert block_starts(trace)[0][0] == kind
    assert ("execution_unknown" in codes(trace)) is warned


# -- model omitted when empty ---------------------------------------------------------


def test_an_empty_model_is_omitted_from_stream_start() -> None:
    for body, provider in [
        (sse(chat({"content": "x"}, model=""), chat(finish="stop")) + DONE, "openai-chat"),
        (sse({**gemini([{"text": "x"}], "STOP"), "modelVersion": ""}), "gemini"),
    ]:
        assert "model" not in run(body, provider).events[0]


# -- empty arguments -------------------------------------------------------------------


def test_empty_arguments_are_an_empty_object_not_a_parse_error() -> None:
    trace = run(sse(chat(call(None)), chat(finish="tool_calls")) + DONE, "openai-chat")
    assert last(trace)["finish_reason"] == "tool_calls"
    trace = run(sse(chat(call("")), chat(finish="tool_calls")) + DONE, "openai-chat")
    assert last(trace)["finish_reason"] == "tool_calls"


# -- error detail reasons ---------------------------------------------------------------

GOOGLE_BAD_KEY = {
    "error": {
        "code": 400,
        "message": "API key not valid. Please pass a valid API key.",
        "status": "INVALID_ARGUMENT",
        "details": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}
        ],
    }
}


def test_a_google_detail_reason_refines_the_category_in_stream_and_http() -> None:
    trace = run(sse(GOOGLE_BAD_KEY), "gemini")
    assert last(trace)["error"]["category"] == "authentication"
    http = Normalizer("gemini", "st_http").fail_http(400, orjson.dumps(GOOGLE_BAD_KEY))
    assert last(http)["error"]["category"] == "authentication"
    plain = {"error": {**GOOGLE_BAD_KEY["error"], "details": []}}
    assert last(run(sse(plain), "gemini"))["error"]["category"] == "invalid_request"


# -- bare JSON error bodies ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("document", "provider", "category"),
    [
        (GOOGLE_BAD_KEY, "gemini", "authentication"),
        ([GOOGLE_BAD_KEY], "gemini", "authentication"),
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "anthropic",
            "upstream_overloaded",
        ),
        (
            {
                "error": {
                    "message": "Incorrect API key",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            "openai-chat",
            "authentication",
        ),
    ],
)
def test_a_bare_json_error_body_is_read_as_the_error_it_states(
    tmp_path: Path, document: Any, provider: str, category: str
) -> None:
    path = tmp_path / "body.json"
    path.write_bytes(orjson.dumps(document, option=orjson.OPT_INDENT_2))
    trace = load_trace(path)
    assert trace.provider == provider
    assert (last(trace)["status"], last(trace)["error"]["category"]) == ("failed", category)


def test_a_json_document_that_is_not_an_error_is_still_not_a_stream(tmp_path: Path) -> None:
    path = tmp_path / "body.json"
    path.write_bytes(b'{"choices": [{"message": {"content": "hi"}}]}')
    with pytest.raises(ValueError, match="JSON response body"):
        load_trace(path)


# -- integer enums ------------------------------------------------------------------------


@pytest.mark.parametrize(("number", "reason"), [(1, "stop"), (2, "length"), (5, "other")])
def test_gemini_integer_finish_reasons_mean_their_names(number: int, reason: str) -> None:
    trace = run(sse(gemini([{"text": "x"}], number)), "gemini")
    assert last(trace)["finish_reason"] == reason


def test_gemini_integer_enums_beyond_the_shared_ones_follow_the_api() -> None:
    assert (
        last(run(sse(gemini([{"text": "x"}], 10)), "gemini"))["error"]["provider_code"]
        == "MALFORMED_FUNCTION_CALL"
    )
    vertex = {
        "request": {
            "url": "https://us-central1-aiplatform.googleapis.com/v1/x:streamGenerateContent"
        }
    }
    # Vertex numbers its values after OTHER differently: 10 is not read as a name there.
    trace = run(sse(gemini([{"text": "x"}], 10)), "gemini", header=vertex)
    assert last(trace)["provider_finish_reason"] == "10"
    blocked = run(sse({"promptFeedback": {"blockReason": 1}, "modelVersion": "g"}), "gemini")
    assert (last(blocked)["error"]["category"], last(blocked)["error"]["provider_code"]) == (
        "content_filter",
        "SAFETY",
    )


# -- opaque blocks closed by the final payload -----------------------------------------------


def test_an_open_opaque_item_listed_as_completed_is_closed_by_the_final_payload() -> None:
    search = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {"query": "q"},
    }
    body = responses(item("web_search_call", 0, "added", status="in_progress"), output=[search])
    trace = run(body, "openai-responses")
    assert [e["type"] for e in trace.events][-3:] == ["stream.warning", "block.stop", "stream.done"]
    assert "closed_by_final" in codes(trace)


def test_an_open_text_block_is_never_closed_by_the_final_payload() -> None:
    message = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "content": [{"type": "output_text", "text": "hi"}],
    }
    body = responses(
        item("message", 0, "added", content=[]),
        {
            "type": "response.content_part.added",
            "output_index": 0,
            "content_index": 0,
            "item_id": "it_0",
            "part": {"type": "output_text", "text": ""},
        },
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "item_id": "it_0",
            "delta": "hi",
        },
        output=[message],
    )
    trace = run(body, "openai-responses")
    assert (last(trace)["status"], last(trace)["error"]["category"]) == ("failed", "protocol_error")


# -- repeated start frames -----------------------------------------------------------------


def test_a_message_start_repeated_byte_for_byte_is_ignored_with_a_warning() -> None:
    body = anthropic_stream("end_turn", tool=False)
    start, rest = body.split(b"\n\n", 1)
    trace = run(start + b"\n\n" + start + b"\n\n" + rest, "anthropic")
    assert "repeated_start" in codes(trace)
    assert last(trace)["status"] == "completed"


def test_a_different_message_start_mid_message_fails() -> None:
    body = anthropic_stream("end_turn", tool=False)
    start, rest = body.split(b"\n\n", 1)
    other = start.replace(b"msg_1", b"msg_2")
    trace = run(start + b"\n\n" + other + b"\n\n" + rest, "anthropic")
    assert (last(trace)["status"], last(trace)["error"]["category"]) == ("failed", "protocol_error")


def test_normalize_without_a_header_keeps_v1_defaults() -> None:
    trace = normalize(
        sse(chat({"content": "x"}), chat(finish="stop")) + DONE, "openai-chat", "st_x"
    )
    assert last(trace)["finish_reason"] == "stop"
