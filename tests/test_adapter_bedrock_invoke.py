"""Bedrock invoke for Claude: the Anthropic events unwrapped from ``chunk`` events."""

from __future__ import annotations

from inspector.core.framing.eventstream import encode_message

from .framing_support import compact, invoke_chunk, message, run

CLAUDE = [
    {
        "type": "message_start",
        "message": {
            "id": "msg_bdrk_1",
            "model": "claude-3-haiku",
            "usage": {"input_tokens": 9, "output_tokens": 1},
        },
    },
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
    {"type": "content_block_stop", "index": 0},
    {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}},
    {
        "type": "message_stop",
        "amazon-bedrock-invocationMetrics": {"inputTokenCount": 9, "outputTokenCount": 3},
    },
]


def test_the_inner_anthropic_events_drive_the_anthropic_rules() -> None:
    assert compact(run([invoke_chunk(e) for e in CLAUDE], "anthropic", "aws-eventstream")) == [
        ("stream.start", "anthropic", "aws-eventstream", "claude-3-haiku"),
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Hi"),
        ("block.stop", 0),
        ("stream.done", "stop", "end_turn", (9, 3)),
    ]


def test_the_same_events_over_sse_and_over_bedrock_compare_equal_but_for_the_framing() -> None:
    from .framing_support import sse

    direct = compact(run([sse(CLAUDE)], "anthropic", "sse"))
    bedrock = compact(run([invoke_chunk(e) for e in CLAUDE], "anthropic", "aws-eventstream"))
    assert direct[1:] == bedrock[1:]
    assert direct[0][2] is None and bedrock[0][2] == "aws-eventstream"


def test_an_exception_after_chunks_fails_with_its_category() -> None:
    pieces = [invoke_chunk(e) for e in CLAUDE[:3]] + [
        message("throttlingException", {"message": "slow down"}, "exception")
    ]
    assert compact(run(pieces, "anthropic", "aws-eventstream"))[-1] == (
        "stream.error",
        "failed",
        "rate_limited",
        "throttlingException",
    )


def test_a_chunk_whose_bytes_are_not_base64_is_a_protocol_error() -> None:
    pieces = [invoke_chunk(CLAUDE[0]), message("chunk", {"bytes": "not base64!"})]
    assert compact(run(pieces, "anthropic", "aws-eventstream"))[-1] == (
        "stream.error",
        "failed",
        "protocol_error",
        None,
    )


def test_the_end_of_the_bytes_before_message_stop_is_interrupted() -> None:
    trace = run([invoke_chunk(e) for e in CLAUDE[:5]], "anthropic", "aws-eventstream")
    assert trace.outcome == "interrupted (transport)"


def test_a_message_cut_in_its_middle_is_the_tail_and_says_how_much_came() -> None:
    last = invoke_chunk(CLAUDE[5])
    trace = run([*(invoke_chunk(e) for e in CLAUDE[:5]), last[:30]], "anthropic", "aws-eventstream")
    assert trace.outcome == "interrupted (transport)"
    assert f"30 of its {len(last)} bytes arrived" in trace.terminal_event["error"]["message"]  # type: ignore[index]
    assert encode_message  # (the helper the messages are built with)
