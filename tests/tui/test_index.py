"""The index answers "as of k events" with bisects and checkpoints — the same as a replay."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.normalizer import Normalizer, normalize
from inspector.core.trace import Trace, TransportEnd
from inspector.session import load_trace
from inspector.viewmodel import timeline as timeline_module
from inspector.viewmodel.index import TraceIndex

from ..conftest import CAPTURES
from .helpers import REAL
from .scripted import ScriptAdapter, scripted_trace

TOOL_STREAM = [
    [["start"]],
    [["open", 0, "text"], ["delta", 0, "text", "Checking "]],
    [["delta", 0, "text", "now."]],
    [["close", 0]],
    [["ping"]],
    [["open", 1, "tool_call"]],
    [["delta", 1, "json_text", '{"city": ']],
    [["delta", 1, "json_text", '"Paris"}']],
    [["close", 1]],
    [["finish"]],
]


def replayed_text(trace: Trace, block: int, k: int) -> str:
    """The naive answer: join the deltas among the first k events."""
    return "".join(
        e["delta"]["text"]
        for e in list(trace.events)[:k]
        if e["type"] == "block.delta"
        and e["block"]["index"] == block
        and e["delta"]["kind"] in ("text", "json_text")
    )


def replayed_states(trace: Trace, k: int) -> tuple[str, dict[str, str]]:
    """The naive answer: apply every transition caused by the first k events."""
    stream, blocks = "idle", {}
    for t in trace.transitions:
        if t.event < k:
            if t.subject == "stream":
                stream = t.after
            else:
                blocks[t.subject] = t.after
    return stream, blocks


def test_stream_state_is_the_state_after_the_events_that_exist() -> None:
    index = TraceIndex(scripted_trace(TOOL_STREAM))
    assert [index.stream_state_at(index.events_at(p)) for p in (-1, 0, 1, 8, 9)] == [
        "idle", "open", "receiving", "receiving", "completed",
    ]  # fmt: skip


def test_block_text_grows_fragment_by_fragment_and_shrinks_back() -> None:
    index = TraceIndex(scripted_trace(TOOL_STREAM))
    tool = index.blocks[1]
    seen = [tool.text.text_at(index.events_at(p))[0] for p in range(4, 10)]
    assert seen == [
        "",
        "",
        '{"city": ',
        '{"city": "Paris"}',
        '{"city": "Paris"}',
        '{"city": "Paris"}',
    ]
    assert [tool.state_at(index.events_at(p)) for p in (4, 5, 7, 8)] == [
        "new", "open", "open", "closed",
    ]  # fmt: skip


def test_the_events_that_built_a_block_are_numbered_as_a_replay_counts_them() -> None:
    trace = scripted_trace(TOOL_STREAM)
    index = TraceIndex(trace)
    events = list(trace.events)
    for block in (0, 1):
        for k in range(index.n_events + 1):
            numbers = [
                n + 1
                for n, e in enumerate(events[:k])
                if e["type"].startswith("block.") and e["block"]["index"] == block
            ]
            expected = (len(numbers), numbers[0], numbers[-1]) if numbers else None
            assert index.blocks[block].built_span(k) == expected, (block, k)


def test_only_the_tail_of_a_long_text_is_returned_with_the_count_left_out() -> None:
    frames = [[["start"], ["open", 0, "text"]]] + [[["delta", 0, "text", "abcd"]]] * 10
    index = TraceIndex(scripted_trace(frames))
    text, omitted = index.blocks[0].text.text_at(index.n_events, tail=6)
    assert (text, omitted) == ("cdabcd", 34)


def test_tool_arguments_are_parsed_only_once_the_block_closed() -> None:
    frames = [
        [["start"], ["open", 0, "tool_call"], ["delta", 0, "json_text", "{bad"]],
        [["close", 0]],
    ]
    index = TraceIndex(scripted_trace(frames))
    tool = index.blocks[0]
    assert tool.parsed is None
    assert tool.state_at(index.events_at(0)) == "open"
    assert tool.parsed is None, "looking at an open block never parses it"
    # The machine refused the bad JSON at block.stop: the stream failed, the block was aborted.
    assert tool.aborted_at(index.n_events)
    valid, problem = tool.arguments_check()
    assert not valid and problem


def test_an_aborted_block_is_closed_by_the_error_not_by_a_stop() -> None:
    frames = [[["start"], ["open", 0, "text"], ["delta", 0, "text", "par"]], [["fail"]]]
    index = TraceIndex(scripted_trace(frames))
    block = index.blocks[0]
    assert block.state_at(index.n_events) == "closed"
    assert block.aborted_at(index.n_events)
    assert not block.stopped
    assert index.problems.events.tolist() == [3]


def test_a_provider_violation_is_placed_on_its_frame_and_event() -> None:
    frames = [[["start"], ["open", 0, "text"]], [["delta", 5, "text", "x"]]]
    index = TraceIndex(scripted_trace(frames))
    [violation] = index.problems.violations
    assert (violation.rule, violation.frame, violation.source) == (2, 1, "provider")
    assert index.trace.events[violation.event]["type"] == "stream.error"
    assert index.problems.violations_at(violation.event, ended=False) == []
    assert index.problems.violations_at(violation.event + 1, ended=False) == [violation]


def test_positions_run_from_before_the_first_frame_to_the_end_of_bytes() -> None:
    index = TraceIndex(scripted_trace(TOOL_STREAM[:3]))  # cut short: interrupted at EOF
    assert index.has_end and index.last_position == 3
    assert index.events_at(-1) == 0
    interrupted = index.n_events - 1
    assert index.trace.events[interrupted]["type"] == "stream.error"
    assert index.position_of_event(interrupted) == 3, "the end of bytes caused it"
    assert index.events_at(2) == interrupted


def test_a_running_trace_has_no_end_position_until_the_transport_ends() -> None:
    trace = scripted_trace(TOOL_STREAM[:3], end=None)
    index = TraceIndex(trace)
    assert not index.has_end and not index.finished
    assert index.last_position == 2


def test_sync_indexes_only_what_was_appended_and_agrees_with_a_fresh_index() -> None:
    normalizer = Normalizer(ScriptAdapter(), "st_live")
    index = TraceIndex(normalizer.trace)
    for i, steps in enumerate(TOOL_STREAM):
        normalizer.feed(b"data: " + orjson.dumps(steps) + b"\n\n", 0.01 * i)
        assert index.sync()
    assert not index.sync(), "nothing new"
    normalizer.finish(TransportEnd("eof"))
    index.sync()
    fresh = TraceIndex(normalizer.trace)
    for k in range(index.n_events + 1):
        assert index.stream_state_at(k) == fresh.stream_state_at(k)
        assert index.open_blocks_at(k) == fresh.open_blocks_at(k)
        assert index.blocks[1].text.text_at(k) == fresh.blocks[1].text.text_at(k)


def test_frame_labels_name_data_only_frames_by_their_json_type_or_done() -> None:
    index = TraceIndex(scripted_trace(TOOL_STREAM))
    assert index.frame_label(0) == "message"
    trace = normalize(b'data: {"type": "x.y"}\n\n: keep\n\ndata: [DONE]\n\n', "openai-chat")
    labels = TraceIndex(trace)
    assert [labels.frame_label(i) for i in range(3)] == ["x.y", ": comment", "[DONE]"]


def test_longest_gap_and_time_to_first_content() -> None:
    index = TraceIndex(scripted_trace(TOOL_STREAM))
    assert index.max_gap == pytest.approx(0.01)
    assert index.time_to_first_content() == pytest.approx(0.02)


# -- the bisects and checkpoints against a replay, on arbitrary scripts ----------

step = st.one_of(
    st.tuples(st.just("open"), st.integers(0, 3), st.sampled_from(["text", "tool_call"])),
    st.tuples(st.just("delta"), st.integers(0, 3), st.just("text"), st.text(max_size=3)),
    st.tuples(st.just("close"), st.integers(0, 3)),
    st.tuples(st.just("ping")),
    st.tuples(st.just("ignore")),
)
scripts = st.lists(st.lists(step, min_size=1, max_size=3), min_size=1, max_size=40)


@given(scripts, st.booleans())
def test_state_as_of_every_k_matches_a_replay(frames: list[list[Any]], finish: bool) -> None:
    steps: list[list[Any]] = [[["start"]], *[[list(s) for s in f] for f in frames]]
    if finish:
        steps.append([["finish"]])
    trace = scripted_trace(steps)
    original = timeline_module.CHECKPOINT_EVERY
    timeline_module.CHECKPOINT_EVERY = 3  # checkpoints every few events, so they are exercised
    try:
        index = TraceIndex(trace)
        for k in range(index.n_events + 1):
            stream, blocks = replayed_states(trace, k)
            assert index.stream_state_at(k) == stream
            open_now = sorted(int(b[2:]) for b, state in blocks.items() if state == "open")
            assert sorted(index.open_blocks_at(k)) == open_now
            for number, block in index.blocks.items():
                assert block.state_at(k) == blocks.get(block.id, "new")
                assert block.text.text_at(k)[0] == replayed_text(trace, number, k)
            assert index.transitions_at(k) == sum(1 for t in trace.transitions if t.event < k)
    finally:
        timeline_module.CHECKPOINT_EVERY = original


def test_a_trace_without_a_header_or_any_time_is_untimed_until_a_frame_has_one() -> None:
    trace = scripted_trace(TOOL_STREAM)
    assert TraceIndex(trace).timed  # scripted frames are 10 ms apart
    untimed = load_trace(REAL / "openai-chat" / "crusoe-text.sse")
    index = TraceIndex(untimed)
    assert not index.timed and index.frame_gap(3) is None and index.frame_time(3) is None
    assert index.time_to_first_content() is None and index.max_gap_or_none is None


def test_frame_marks_name_error_violation_and_refusal_frames() -> None:
    failed = TraceIndex(load_trace(CAPTURES / "anthropic" / "overloaded-after-text.jsonl"))
    assert failed.frame_marks == {6: "error"}
    refused = TraceIndex(load_trace(CAPTURES / "openai-chat" / "refusal.jsonl"))
    assert set(refused.frame_marks.values()) == {"refusal"}


def test_a_header_that_says_untimed_wins_over_frame_times() -> None:
    # An imported capture (cassette, HAR) may carry made-up times: its header says so.
    trace = scripted_trace(TOOL_STREAM)
    trace.header = {"provider": "openai-chat", "timed": False}
    index = TraceIndex(trace)
    assert not index.timed and index.frame_gap(2) is None


def test_an_opaque_block_shows_each_json_document_on_its_own_line() -> None:
    from itertools import pairwise

    from inspector.session import load_trace
    from inspector.viewmodel.index import TraceIndex

    from ..conftest import CAPTURES

    for name in ("compaction", "web-search-citations"):
        trace = load_trace(CAPTURES / "anthropic" / f"{name}.jsonl")
        index = TraceIndex(trace)
        for block in index.blocks.values():
            if block.kind != "opaque":
                continue
            text, _ = block.text.text_at(index.n_events)
            deltas = [
                e["delta"]["text"] for e in trace.events
                if e["type"] == "block.delta" and e["block"]["index"] == block.index
                and e["delta"]["kind"] == "json_text"
            ]  # fmt: skip
            # After a whole document, a new line; fragments of one join as sent.
            expected = deltas[0] if deltas else ""
            for before, delta in pairwise(deltas):
                expected += ("\n" if _is_json(before) else "") + delta
            assert text == expected


def _is_json(text: str) -> bool:
    import orjson

    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        return False
    return True
