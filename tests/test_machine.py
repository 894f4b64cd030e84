"""The stream machine: transition tables, invariants, refusals, interruptions."""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.actions import (
    CloseBlock,
    Delta,
    Fail,
    Finish,
    Heartbeat,
    Ignore,
    OpenBlock,
    Start,
)
from inspector.core.invariants import check_invariants
from inspector.core.machine import (
    BLOCK_TRANSITIONS,
    STREAM_TRANSITIONS,
    StreamMachine,
    TransitionError,
    next_state,
)
from inspector.core.trace import Trace, TransportEnd

STREAM_STATES = ["idle", "open", "receiving", "completed", "failed", "interrupted"]
STREAM_TRIGGERS = ["start", "content", "done", "error", "interrupt"]
BLOCK_STATES = ["new", "open", "closed"]
BLOCK_TRIGGERS = ["start", "delta", "stop", "abort"]


def machine() -> StreamMachine:
    return StreamMachine(Trace(stream_id="st_test"), "openai-chat")


def shape(m: StreamMachine) -> list[tuple[Any, ...]]:
    """Each event as (type, block index or status, detail)."""
    out: list[tuple[Any, ...]] = []
    for e in m.trace.events:
        if e["type"].startswith("block."):
            detail = e.get("delta", {}).get("text") if e["type"] == "block.delta" else None
            out.append((e["type"], e["block"]["index"], detail))
        elif e["type"] == "stream.error":
            out.append((e["type"], e["status"], e["error"]["category"]))
        elif e["type"] == "stream.done":
            out.append((e["type"], e["finish_reason"], None))
        else:
            out.append((e["type"], None, None))
    return out


def test_text_then_tool_call_then_text_gives_the_contract_example_sequence() -> None:
    m = machine()
    for action in [
        Start("m"),
        OpenBlock(0, "text", "text"),
        Delta(0, "text", "Проверяю расписание."),
        CloseBlock(0),
        OpenBlock(1, "tool_call", "tool_use", name="get_schedule", call_id="toolu_01"),
        Delta(1, "json_text", '{"date":"2026-07-23"'),
        Delta(1, "json_text", "}"),
        CloseBlock(1),
        OpenBlock(2, "text", "text"),
        Delta(2, "text", "На сегодня доступно..."),
        CloseBlock(2),
        Finish("stop", "end_turn"),
    ]:
        m.apply(action, 0)
    assert shape(m) == [
        ("stream.start", None, None),
        ("block.start", 0, None),
        ("block.delta", 0, "Проверяю расписание."),
        ("block.stop", 0, None),
        ("block.start", 1, None),
        ("block.delta", 1, '{"date":"2026-07-23"'),
        ("block.delta", 1, "}"),
        ("block.stop", 1, None),
        ("block.start", 2, None),
        ("block.delta", 2, "На сегодня доступно..."),
        ("block.stop", 2, None),
        ("stream.done", "stop", None),
    ]
    assert [e["seq"] for e in m.trace.events] == list(range(1, 13))
    assert m.state == "completed"
    assert m.blocks[1].text == '{"date":"2026-07-23"}'
    assert check_invariants(m.trace.events) == []
    tool_start = m.trace.events[4]
    assert (tool_start["name"], tool_start["call_id"], tool_start["provider_type"]) == (
        "get_schedule", "toolu_01", "tool_use",
    )  # fmt: skip


def test_every_state_change_is_recorded_as_a_transition() -> None:
    m = machine()
    for action in [Start(None), OpenBlock(0, "text", "t"), Delta(0, "text", "x"), CloseBlock(0)]:
        m.apply(action, 3)
    m.apply(Finish("stop", "stop"), 4)
    assert [(t.subject, t.before, t.after, t.frame) for t in m.trace.transitions] == [
        ("stream", "idle", "open", 3),
        ("stream", "open", "receiving", 3),
        ("b_0", "new", "open", 3),
        ("b_0", "open", "closed", 3),
        ("stream", "receiving", "completed", 4),
    ]


ALLOWED_STREAM = set(STREAM_TRANSITIONS)
FORBIDDEN_STREAM = [
    (s, t) for s in STREAM_STATES for t in STREAM_TRIGGERS if (s, t) not in ALLOWED_STREAM
]
FORBIDDEN_BLOCK = [
    (s, t) for s in BLOCK_STATES for t in BLOCK_TRIGGERS if (s, t) not in set(BLOCK_TRANSITIONS)
]


@pytest.mark.parametrize(
    ("state", "trigger"), FORBIDDEN_STREAM, ids=[f"{s}-{t}" for s, t in FORBIDDEN_STREAM]
)
def test_forbidden_stream_transition_is_a_missing_key_named_in_the_error(
    state: str, trigger: str
) -> None:
    with pytest.raises(TransitionError, match=f"no transition from '{state}' on '{trigger}'"):
        next_state(STREAM_TRANSITIONS, "stream", state, trigger)


@pytest.mark.parametrize(
    ("state", "trigger"), FORBIDDEN_BLOCK, ids=[f"{s}-{t}" for s, t in FORBIDDEN_BLOCK]
)
def test_forbidden_block_transition_is_a_missing_key_named_in_the_error(
    state: str, trigger: str
) -> None:
    with pytest.raises(TransitionError):
        next_state(BLOCK_TRANSITIONS, "b_0", state, trigger)


def test_the_forbidden_transitions_include_the_ones_that_matter() -> None:
    for pair in [("completed", "content"), ("failed", "done"), ("idle", "done"),
                 ("interrupted", "error"), ("completed", "start")]:  # fmt: skip
        assert pair in FORBIDDEN_STREAM
    for pair in [("closed", "delta"), ("closed", "stop"), ("new", "delta"), ("closed", "start")]:
        assert pair in FORBIDDEN_BLOCK


def test_a_delta_for_a_block_never_opened_is_refused_as_rule_2_and_fails_the_stream() -> None:
    m = machine()
    m.apply(Start(None), 0)
    m.apply(Delta(7, "text", "x"), 1)
    assert shape(m) == [("stream.start", None, None), ("stream.error", "failed", "protocol_error")]
    (v,) = m.trace.violations
    assert (v.rule, v.frame, v.source) == (2, 1, "provider")
    assert "b_7, which was never opened" in v.message
    assert check_invariants(m.trace.events) == []


def test_a_delta_after_block_stop_is_refused() -> None:
    m = machine()
    for a in [OpenBlock(0, "text", "t"), CloseBlock(0), Delta(0, "text", "late")]:
        m.apply(a, 0)
    assert (
        m.trace.events[-1]["error"]["message"] == "a delta arrived for b_0, which is already closed"
    )


def test_a_final_signal_with_a_block_open_is_a_protocol_error_carrying_the_stop_reason() -> None:
    m = machine()
    for a in [OpenBlock(0, "tool_call", "tool_use", "f", "t1"), Delta(0, "json_text", '{"a": ')]:
        m.apply(a, 0)
    m.apply(Finish("length", "max_tokens"), 1)
    error = m.trace.events[-1]
    assert error["type"] == "stream.error"
    assert error["error"]["category"] == "protocol_error"
    assert error["error"]["provider_code"] == "max_tokens"
    assert m.trace.violations[0].rule == 5
    assert not any(e["type"] == "block.stop" for e in m.trace.events)
    assert m.blocks[0].state == "closed"


def test_tool_arguments_that_do_not_parse_at_block_stop_fail_the_stream_and_keep_the_raw_text() -> (
    None
):
    m = machine()
    for a in [OpenBlock(0, "tool_call", "function", "f", None), Delta(0, "json_text", '{"a": 1,'),
              CloseBlock(0)]:  # fmt: skip
        m.apply(a, 0)
    assert shape(m)[-1] == ("stream.error", "failed", "protocol_error")
    assert "arguments are not valid JSON at block.stop" in m.trace.events[-1]["error"]["message"]
    assert m.blocks[0].text == '{"a": 1,'


def test_empty_tool_arguments_are_a_call_without_parameters() -> None:
    m = machine()
    for a in [
        OpenBlock(0, "tool_call", "function", "now", "c1"),
        CloseBlock(0),
        Finish("tool_calls", "tool_calls"),
    ]:
        m.apply(a, 0)
    assert m.state == "completed"


def test_first_terminal_signal_wins_and_later_actions_are_recorded_as_ignored() -> None:
    m = machine()
    m.apply(Fail("quota_exceeded", "insufficient_quota", "no quota"), 0)
    m.apply(Fail("server_error", "x", "second"), 1)
    m.apply(Finish("stop", "stop"), 2)
    assert [e["type"] for e in m.trace.events] == ["stream.start", "stream.error"]
    assert [(i.frame, i.code) for i in m.trace.ignored] == [
        (1, "after_terminal"),
        (2, "after_terminal"),
    ]


def test_interruption_names_the_open_blocks_and_uses_the_transport_category() -> None:
    m = machine()
    m.apply(OpenBlock(0, "tool_call", "function", "f", "c"), 0)
    m.interrupt(TransportEnd("reset", 1.0, "connection reset by peer"))
    error = m.trace.events[-1]
    assert (error["status"], error["error"]["category"], error["error"]["retryable"]) == (
        "interrupted", "transport", True,
    )  # fmt: skip
    assert "the connection was reset" in error["error"]["message"]
    assert "still open: b_0 tool_call" in error["error"]["message"]
    assert check_invariants(m.trace.events) == []


@pytest.mark.parametrize(
    ("reason", "category"),
    [
        ("eof", "transport"),
        ("timeout", "transport"),
        ("progress_timeout", "progress_timeout"),
        ("cancelled", "cancelled"),
    ],
)
def test_each_transport_end_maps_to_its_interruption_category(reason: str, category: str) -> None:
    m = machine()
    m.interrupt(TransportEnd(reason))
    assert m.trace.events[-1]["error"]["category"] == category
    assert [e["type"] for e in m.trace.events] == ["stream.start", "stream.error"]


def test_heartbeats_and_warnings_never_change_state() -> None:
    m = machine()
    m.apply(Start(None), 0)
    m.apply(Heartbeat("ping"), 1)
    m.apply(Ignore("unknown event 'x'"), 2)
    assert m.state == "open"
    assert [e["type"] for e in m.trace.events] == [
        "stream.start",
        "stream.heartbeat",
        "stream.warning",
    ]
    assert m.trace.ignored[0].frame == 2


def test_a_second_start_is_refused_as_rule_1() -> None:
    m = machine()
    m.apply(Start("a"), 0)
    m.apply(Start("b"), 1)
    assert m.trace.violations[0].rule == 1
    assert m.state == "failed"


def test_the_independent_checker_finds_every_broken_rule() -> None:
    base = {"stream_id": "s"}
    events = [
        {**base, "seq": 1, "type": "block.delta", "block": {"index": 0}},
        {**base, "seq": 3, "type": "block.start", "block": {"index": 1}},
        {**base, "seq": 4, "type": "stream.done"},
        {**base, "seq": 5, "type": "stream.error"},
    ]
    rules = sorted({rule for rule, _, _ in check_invariants(events)})
    assert rules == [1, 2, 3, 4, 5, 6]
