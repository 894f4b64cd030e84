"""The AI SDK UI message stream: whole normalized sequences."""

from __future__ import annotations

from .framing_support import compact, run, sse

START = ("stream.start", "ai-sdk-ui", None, None)


def ui(*parts: dict[str, object] | str) -> list[tuple[object, ...]]:
    return compact(run([sse(parts)], "ai-sdk-ui", "sse"))


def text(key: str, *pieces: str) -> list[dict[str, object]]:
    return [
        {"type": "text-start", "id": key},
        *[{"type": "text-delta", "id": key, "delta": p} for p in pieces],
        {"type": "text-end", "id": key},
    ]


OPEN = [{"type": "start", "messageId": "m1"}, {"type": "start-step"}]
CLOSE = [{"type": "finish-step"}, {"type": "finish"}, "[DONE]"]


def test_reasoning_and_text_then_finish_and_done() -> None:
    reasoning = [
        {"type": "reasoning-start", "id": "r"},
        {"type": "reasoning-delta", "id": "r", "delta": "hm"},
        {"type": "reasoning-end", "id": "r"},
    ]
    assert ui(*OPEN, *reasoning, *text("t", "Hi", "!"), *CLOSE) == [
        START,
        ("block.start", 0, "reasoning", "reasoning"),
        ("block.delta", 0, "text", "hm"),
        ("block.stop", 0),
        ("block.start", 1, "text", "text"),
        ("block.delta", 1, "text", "Hi"),
        ("block.delta", 1, "text", "!"),
        ("block.stop", 1),
        ("stream.done", "stop", None, (None, None)),
    ]


TOOL = [
    {"type": "tool-input-start", "toolCallId": "c1", "toolName": "weather"},
    {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '{"city":'},
    {"type": "tool-input-delta", "toolCallId": "c1", "inputTextDelta": '"Oslo"}'},
    {
        "type": "tool-input-available",
        "toolCallId": "c1",
        "toolName": "weather",
        "input": {"city": "Oslo"},
    },
]


def test_a_tool_call_without_output_is_for_the_client() -> None:
    assert ui(*OPEN, *TOOL, *CLOSE) == [
        START,
        ("block.start", 0, "tool_call", "tool-input", "weather", "c1"),
        ("block.delta", 0, "json_text", '{"city":'),
        ("block.delta", 0, "json_text", '"Oslo"}'),
        ("block.stop", 0),
        ("stream.done", "tool_calls", None, (None, None)),
    ]


def test_a_tool_output_means_the_server_ran_it_and_is_an_opaque_block() -> None:
    output = {"type": "tool-output-available", "toolCallId": "c1", "output": {"t": 3}}
    events = ui(*OPEN, *TOOL, output, *text("t", "3 degrees"), *CLOSE)
    assert events[5:8] == [
        ("block.start", 1, "opaque", "tool-output-available"),
        (
            "block.delta",
            1,
            "json_text",
            '{"type":"tool-output-available","toolCallId":"c1","output":{"t":3}}',
        ),
        ("block.stop", 1),
    ]
    assert events[-1] == ("stream.done", "stop", None, (None, None))


def test_a_whole_tool_call_without_streamed_input_carries_its_input() -> None:
    events = ui(*OPEN, TOOL[3], *CLOSE)
    assert events[1:4] == [
        ("block.start", 0, "tool_call", "tool-input", "weather", "c1"),
        ("block.delta", 0, "json_text", '{"city":"Oslo"}'),
        ("block.stop", 0),
    ]


def test_data_and_source_parts_are_opaque_blocks() -> None:
    events = ui(
        *OPEN,
        {"type": "data-weather", "data": {"t": 1}},
        {"type": "source-url", "sourceId": "s", "url": "u"},
        *CLOSE,
    )
    assert [e[:4] for e in events if e[0] == "block.start"] == [
        ("block.start", 0, "opaque", "data-weather"),
        ("block.start", 1, "opaque", "source-url"),
    ]


def test_error_and_abort_parts_end_the_stream() -> None:
    assert ui(*OPEN, *text("t", "a")[:2], {"type": "error", "errorText": "boom"}, "[DONE]")[-1] == (
        "stream.error",
        "failed",
        "unknown",
        "error",
    )
    assert ui(*OPEN, {"type": "abort"}, "[DONE]")[-1] == (
        "stream.error",
        "interrupted",
        "cancelled",
        "abort",
    )


def test_done_without_finish_fails_and_finish_without_done_is_interrupted() -> None:
    assert ui(*OPEN, *text("t", "a"), "[DONE]")[-1] == (
        "stream.error",
        "failed",
        "protocol_error",
        None,
    )
    trace = run([sse([*OPEN, *text("t", "a"), {"type": "finish"}])], "ai-sdk-ui", "sse")
    assert trace.outcome == "interrupted (transport)"


def test_an_unmapped_field_warns_once_with_its_path_and_the_text_still_flows() -> None:
    parts: list[dict[str, object] | str] = [*OPEN, *text("t0", "a", "b", "c"), *CLOSE]
    parts[4]["providerMetadata"] = {"openai": {"itemId": "i"}}  # type: ignore[index]
    parts[5]["providerMetadata"] = {"openai": {"itemId": "j"}}  # type: ignore[index]
    trace = run([sse(parts)], "ai-sdk-ui", "sse")
    warnings = [e["path"] for e in trace.events if e.get("code") == "unread_field"]
    assert warnings == ["providerMetadata"]
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts == ["a", "b", "c"]


def test_whole_parts_and_message_metadata_never_warn() -> None:
    extra = [
        {"type": "source-url", "sourceId": "s", "url": "u", "title": "t", "more": 1},
        {"type": "data-weather", "data": {"t": 1}},
        {"type": "message-metadata", "messageMetadata": {"createdAt": 1}},
    ]
    assert ("stream.warning", "unread_field") not in ui(*OPEN, *extra, *CLOSE)
