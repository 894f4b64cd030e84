"""Bedrock ConverseStream: whole normalized sequences, from event-stream messages."""

from __future__ import annotations

import pytest

from .framing_support import compact, message, run

START = ("stream.start", "bedrock-converse", "aws-eventstream", None)


def converse(*messages: bytes, end: str = "eof") -> list[tuple[object, ...]]:
    return compact(run(messages, "bedrock-converse", "aws-eventstream", end))


def delta(index: int, **value: object) -> bytes:
    return message("contentBlockDelta", {"contentBlockIndex": index, "delta": value, "p": "abc"})


def stop(index: int) -> bytes:
    return message("contentBlockStop", {"contentBlockIndex": index})


def finish(reason: str, **usage: int) -> tuple[bytes, bytes]:
    return (
        message("messageStop", {"stopReason": reason}),
        message(
            "metadata",
            {"usage": usage or {"inputTokens": 5, "outputTokens": 2}, "metrics": {"latencyMs": 9}},
        ),
    )


def test_text_opens_at_its_first_delta_and_ends_at_metadata() -> None:
    assert converse(
        message("messageStart", {"role": "assistant"}),
        delta(0, text="Hel"),
        delta(0, text="lo"),
        stop(0),
        *finish("end_turn", inputTokens=5, outputTokens=2, cacheReadInputTokens=10),
    ) == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Hel"),
        ("block.delta", 0, "text", "lo"),
        ("block.stop", 0),
        ("stream.done", "stop", "end_turn", (15, 2)),
    ]


def test_a_tool_use_block_carries_its_name_id_and_input_fragments() -> None:
    start = message(
        "contentBlockStart",
        {
            "contentBlockIndex": 0,
            "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}},
        },
    )
    assert converse(
        message("messageStart", {"role": "assistant"}),
        start,
        delta(0, toolUse={"input": ""}),
        delta(0, toolUse={"input": '{"city":'}),
        delta(0, toolUse={"input": '"Rome"}'}),
        stop(0),
        *finish("tool_use"),
    ) == [
        START,
        ("block.start", 0, "tool_call", "toolUse", "get_weather", "tooluse_1"),
        ("block.delta", 0, "json_text", '{"city":'),
        ("block.delta", 0, "json_text", '"Rome"}'),
        ("block.stop", 0),
        ("stream.done", "tool_calls", "tool_use", (5, 2)),
    ]


def test_reasoning_text_signature_and_redacted_content() -> None:
    assert converse(
        message("messageStart", {"role": "assistant"}),
        delta(0, reasoningContent={"text": "think"}),
        delta(0, reasoningContent={"signature": "sig"}),
        stop(0),
        delta(1, reasoningContent={"redactedContent": "ZW5j"}),
        stop(1),
        delta(2, text="ok"),
        stop(2),
        *finish("end_turn"),
    ) == [
        START,
        ("block.start", 0, "reasoning", "reasoningContent"),
        ("block.delta", 0, "text", "think"),
        ("block.delta", 0, "signature", "sig"),
        ("block.stop", 0),
        ("block.start", 1, "reasoning", "reasoningContent"),
        ("block.delta", 1, "signature", "ZW5j"),
        ("block.stop", 1),
        ("block.start", 2, "text", "text"),
        ("block.delta", 2, "text", "ok"),
        ("block.stop", 2),
        ("stream.done", "stop", "end_turn", (5, 2)),
    ]


@pytest.mark.parametrize(
    ("reason", "finish_reason"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("guardrail_intervened", "content_filter"),
        ("content_filtered", "content_filter"),
        ("something_new", "other"),
    ],
)
def test_each_stop_reason_normalizes(reason: str, finish_reason: str) -> None:
    events = converse(delta(0, text="a"), stop(0), *finish(reason))
    assert events[-1] == ("stream.done", finish_reason, reason, (5, 2))


@pytest.mark.parametrize(
    ("exception", "category"),
    [
        ("throttlingException", "rate_limited"),
        ("validationException", "invalid_request"),
        ("modelStreamErrorException", "server_error"),
        ("serviceUnavailableException", "upstream_overloaded"),
        ("internalServerException", "server_error"),
        ("ThrottlingException", "rate_limited"),
    ],
)
def test_an_exception_message_fails_with_its_category(exception: str, category: str) -> None:
    events = converse(delta(0, text="a"), message(exception, {"message": "no"}, "exception"))
    assert events == [
        START,
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "a"),
        ("stream.error", "failed", category, exception),
    ]


def test_message_stop_without_metadata_is_not_proof() -> None:
    trace = run(
        [delta(0, text="a"), stop(0), message("messageStop", {"stopReason": "end_turn"})],
        "bedrock-converse",
        "aws-eventstream",
    )
    assert trace.outcome == "interrupted (transport)"
    assert "metadata never arrived" in trace.terminal_event["error"]["message"]  # type: ignore[index]


def test_message_stop_while_a_block_is_open_fails() -> None:
    events = converse(delta(0, text="a"), *finish("max_tokens"))
    assert events[-1] == ("stream.error", "failed", "protocol_error", "max_tokens")


def test_metadata_before_message_stop_is_a_protocol_error() -> None:
    events = converse(delta(0, text="a"), stop(0), finish("end_turn")[1])
    assert events[-1] == ("stream.error", "failed", "protocol_error", None)


def test_an_unknown_event_is_a_warning_and_the_stream_goes_on() -> None:
    events = converse(
        message("newThing", {"x": 1}), delta(0, text="a"), stop(0), *finish("end_turn")
    )
    assert events[:2] == [START, ("stream.warning", "unknown_event")]
    assert events[-1][0] == "stream.done"


def test_an_unmapped_field_warns_once_with_its_path() -> None:
    trace = run(
        [
            message("messageStart", {"role": "assistant", "x_region": "eu"}),
            delta(0, text="a"),
            stop(0),
            message(
                "messageStop", {"stopReason": "end_turn", "additionalModelResponseFields": {"k": 1}}
            ),
            message("metadata", {"usage": {"inputTokens": 1, "outputTokens": 1}, "x_region": "eu"}),
        ],
        "bedrock-converse",
        "aws-eventstream",
    )
    warnings = [e["path"] for e in trace.events if e.get("code") == "unread_field"]
    assert warnings == ["x_region", "additionalModelResponseFields"]  # (each path once)


def test_padding_metrics_traces_and_an_opaque_start_are_read_only_to_be_ignored() -> None:
    opaque = message("contentBlockStart", {"contentBlockIndex": 0, "start": {"image": {"f": 1}}})
    metadata = {
        "usage": {"inputTokens": 1, "outputTokens": 1},
        "metrics": {"latencyMs": 9},
        "trace": {"guardrail": {"modelOutput": ["x"]}},
        "performanceConfig": {"latency": "optimized"},
        "p": "pad",
    }
    events = converse(
        message("messageStart", {"role": "assistant", "p": "pad"}),
        opaque,
        stop(0),
        message("messageStop", {"stopReason": "end_turn", "p": "pad"}),
        message("metadata", metadata),
    )
    assert ("stream.warning", "unread_field") not in events
