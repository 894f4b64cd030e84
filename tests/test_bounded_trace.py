"""A summary (``Normalizer(keep_history=False)``) says what the full trace says
about a stream — outcome, counts, violations, invariant problems — and stores the
same amount whether the stream is short or ten times longer."""

from __future__ import annotations

import random
from array import array
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.streams import GENERATORS, stream_of_size
from inspector.capture import Recording, load_recording
from inspector.core.adapters import PROVIDERS
from inspector.core.invariants import IndexRanges, InvariantChecker, check_invariants
from inspector.core.normalizer import Normalizer
from inspector.core.summary import KEPT_ENTRIES, KEPT_EVENTS, Summary
from inspector.core.trace import EventLog, IntColumn, Trace, TransportEnd
from inspector.library import expand_paths
from inspector.session import guess_provider

from .conftest import CAPTURES, ROOT

SHARED_REAL = ROOT.parent / "shared" / "fixtures" / "real"
FOLDERS = [CAPTURES, ROOT / "tests" / "fixtures" / "real", SHARED_REAL]


def _recordings() -> list[tuple[str, Recording, str]]:
    found = []
    for root in FOLDERS:
        if not root.is_dir():
            continue
        for path in expand_paths([str(root)]):
            rec = load_recording(path)
            provider = guess_provider(rec)
            if provider is not None:
                found.append((f"{root.name}/{Path(path).relative_to(root)}", rec, provider))
    return found


RECORDINGS = _recordings()


def _chunkings(rec: Recording, seed: int) -> Iterator[tuple[str, list[tuple[float, bytes]]]]:
    """As recorded; everything in one piece; and random cuts (a CRLF split, a frame split)."""
    yield "as recorded", rec.chunks
    body = rec.body
    yield "whole", [(0.0, body)] if body else []
    rng = random.Random(seed)
    for round_ in range(3):
        pieces, at = [], 0
        while at < len(body):
            size = rng.choice((1, 2, 3, 7, 64, 500)) if round_ else rng.randint(1, 40)
            pieces.append((at / 1000, body[at : at + size]))
            at += size
        yield f"random {round_}", pieces


def _normalize(
    rec: Recording,
    provider: str,
    chunks: list[tuple[float, bytes]],
    keep_history: bool,
    many: bool = False,
) -> Trace | Summary:
    """What ``trace_recording`` does, chunk by chunk as live mode feeds (an error
    body is handed to ``fail_http``: a summary keeps no bytes)."""
    normalizer = Normalizer(provider, "st_test", keep_history=keep_history)
    status = rec.status
    if status is not None and status >= 400:
        for time, data in chunks:
            normalizer.receive_error_body(data, time)
        normalizer.fail_http(status, b"".join(data for _, data in chunks))
        return normalizer.trace
    if many:  # as a file is read: frames in batches
        normalizer.feed_many(chunks)
    else:
        for time, data in chunks:
            normalizer.feed(data, time)
    return normalizer.finish(rec.end or TransportEnd("eof"))


def _summary(trace: Trace | Summary) -> dict[str, Any]:
    """Everything a recorder reports of a stream, from a trace or a summary."""
    if isinstance(trace, Summary):
        violations, ignored = trace.violations.items, trace.ignored.total
        stream = trace.stream_transitions
    else:
        violations, ignored = list(trace.violations), len(trace.ignored)
        stream = [t for t in trace.transitions if t.subject == "stream"]
    return {
        "outcome": trace.outcome,
        "terminal": trace.terminal_event,
        "frames": trace.frame_count,
        "events": trace.event_count,
        "bytes": trace.bytes_received,
        "violations": violations,
        "ignored": ignored,
        "stream transitions": stream,
        "decoder error": trace.decoder_error,
        "transport end": trace.transport_end,
        "type counts": dict(trace.type_counts()),
    }


@pytest.mark.parametrize(
    ("name", "rec", "provider"), RECORDINGS, ids=[name for name, _, _ in RECORDINGS]
)
def test_a_bounded_trace_reports_what_the_full_trace_reports(
    name: str, rec: Recording, provider: str
) -> None:
    for how, chunks in _chunkings(rec, seed=len(name)):
        full = _normalize(rec, provider, chunks, keep_history=True)
        bounded = _normalize(rec, provider, chunks, keep_history=False)
        assert isinstance(full, Trace) and isinstance(bounded, Summary)
        assert _summary(bounded) == _summary(full), how
        assert bounded.invariant_problems() == check_invariants(full.events), how
        assert bounded.checker.found == len(check_invariants(full.events)), how
        assert bounded.recent_events == list(full.events[-KEPT_EVENTS:]), how
        batched = _normalize(rec, provider, chunks, keep_history=False, many=True)
        assert _summary(batched) == _summary(full), how


def test_every_provider_and_every_folder_is_covered() -> None:
    providers = {provider for _, _, provider in RECORDINGS}
    assert providers == set(PROVIDERS)
    assert any(name.startswith("captures/") for name, _, _ in RECORDINGS)


def test_the_invariant_check_mid_stream_matches_the_full_pass() -> None:
    for name, rec, provider in RECORDINGS:
        if rec.status is not None and rec.status >= 400:
            continue
        full = Normalizer(provider, "st_test")
        bounded = Normalizer(provider, "st_test", keep_history=False)
        for time, data in rec.chunks:
            full.feed(data, time)
            bounded.feed(data, time)
            expected = check_invariants(full.trace.events, ended=False)
            assert bounded.trace.invariant_problems(ended=False) == expected, name


# -- the incremental checker against the full pass, on event sequences of any shape --

_TYPES = ("stream.start", "block.start", "block.delta", "block.stop", "stream.done",
          "stream.error", "stream.heartbeat", "stream.warning")  # fmt: skip


@st.composite
def _event_sequences(draw: st.DrawFn) -> list[tuple[str, Any]]:
    """Operations on an event log: whole events (any seq, stream id, block) and delta runs."""
    ops: list[tuple[str, Any]] = []
    for seq in range(1, draw(st.integers(0, 40)) + 1):
        if draw(st.booleans()):
            index = draw(st.integers(0, 3))
            ops.append(("deltas", (index, draw(st.integers(1, 5)))))
            continue
        kind = draw(st.sampled_from(_TYPES))
        event: dict[str, Any] = {
            "stream_id": draw(st.sampled_from(["st_a", "st_a", "st_a", "st_b"])),
            "seq": draw(st.sampled_from([seq, seq, seq, seq + 1, None, "x"])),
            "type": kind,
        }
        if kind.startswith("block."):
            event["block"] = {"index": draw(st.sampled_from([0, 1, 2, 3, None, 1.0, "1"]))}
        ops.append(("event", event))
    return ops


@given(_event_sequences(), st.booleans())
def test_the_incremental_checker_gives_the_full_passes_problems(
    ops: list[tuple[str, Any]], ended: bool
) -> None:
    full = EventLog("st_a")
    bounded = Summary("st_a")
    for op, arg in ops:
        if op == "event":
            full.append(arg)
            bounded.emit(arg, -1)
        else:
            index, count = arg
            full.extend_deltas({"index": index}, "text", ["t"] * count)
            bounded.emit_deltas({"index": index}, "text", ["t"] * count, -1, IntColumn())
    expected = check_invariants(full, ended)
    assert bounded.checker.finish(ended) == expected[:KEPT_ENTRIES]
    assert bounded.event_count == len(full)


def test_the_checker_keeps_the_first_problems_and_counts_them_all() -> None:
    checker = InvariantChecker(limit=3)
    checker.rows(("stream.start", 1, "st", None) for _ in range(10))
    assert checker.found == 9
    assert checker.finish(ended=False) == [
        (3, 1, "seq 1 does not follow 1"),
        (3, 2, "seq 1 does not follow 1"),
        (3, 3, "seq 1 does not follow 1"),
    ]


def test_the_checker_fed_piecewise_equals_one_pass() -> None:
    rows = [("stream.start", 1, "s", None), ("block.delta", 2, "s", 0),
            ("block.start", 3, "s", 0), ("block.delta", 4, "s", 0),
            ("stream.done", 5, "s", None), ("block.stop", 6, "s", 0)]  # fmt: skip
    piecewise = InvariantChecker()
    for row in rows:
        piecewise.rows((row,))
    assert piecewise.finish() == check_invariants(
        [{"type": k, "seq": s, "stream_id": i, "block": {"index": b}} for k, s, i, b in rows]
    )


# -- what a summary stores does not grow with the stream -------------------------


def _held(value: object) -> int:
    """How many items a container stores (not what a counting one says it counted)."""
    if isinstance(value, array):
        return value.buffer_info()[1]
    for kind in (list, dict, set, deque, bytes, bytearray, str):
        if isinstance(value, kind):
            return kind.__len__(value)  # type: ignore[attr-defined, no-any-return]
    return 0


def _attributes(part: object) -> dict[str, Any]:
    if hasattr(part, "__dict__"):
        return vars(part)
    return {name: getattr(part, name) for name in getattr(part, "__slots__", ())}


def _stored(normalizer: Normalizer[Summary]) -> dict[str, int]:
    """Items held by every container attribute of the summary and its parts, the
    machine, the decoder and the adapter (read generically: a new or renamed column
    counts too)."""
    summary = normalizer.trace
    assert isinstance(summary, Summary)
    parts = {
        "summary": summary, "frames": summary.span_log, "checker": summary.checker,
        "violations": summary.violations, "ignored": summary.ignored,
        "problems": summary.problems, "machine": normalizer.machine,
        "seen": normalizer.machine.seen, "decoder": normalizer.decoder,
        "adapter": normalizer.adapter,
    }  # fmt: skip
    held = {
        f"{name}.{attribute}": _held(value)
        for name, part in parts.items()
        for attribute, value in _attributes(part).items()
        if attribute != "header"  # the capture's header: fixed
    }
    open_blocks = normalizer.machine.open_blocks.values()
    held["open block text"] = sum(_held(b.parts) + _held(b.events) for b in open_blocks)
    return held


def _fed(provider: str, body: bytes, chunk: int) -> Normalizer[Summary]:
    normalizer = Normalizer(provider, "st_test", keep_history=False)
    for at in range(0, len(body), chunk):
        normalizer.feed(body[at : at + chunk], at / 1e6)
    normalizer.finish()
    return normalizer


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_a_bounded_trace_stores_as_much_for_10n_frames_as_for_n(provider: str) -> None:
    short = _fed(provider, GENERATORS[provider](500), 97)
    long = _fed(provider, GENERATORS[provider](5000), 97)
    assert long.trace.frame_count > 9 * short.trace.frame_count
    assert long.trace.event_count > 9 * short.trace.event_count
    assert short.trace.outcome == long.trace.outcome
    assert _stored(long) == _stored(short)


def _anthropic_blocks(count: int, after_end: int = 0) -> bytes:
    """An Anthropic stream of ``count`` text blocks, and pings after its end."""

    def sse(body: dict[str, Any]) -> bytes:
        return b"event: " + body["type"].encode() + b"\ndata: " + orjson.dumps(body) + b"\n\n"

    text = {"type": "text", "text": ""}
    out = [sse({"type": "message_start", "message": {"model": "m", "usage": {}}})]
    for i in range(count):
        out.append(sse({"type": "content_block_start", "index": i, "content_block": text}))
        delta = {"type": "text_delta", "text": "hi"}
        out.append(sse({"type": "content_block_delta", "index": i, "delta": delta}))
        out.append(sse({"type": "content_block_stop", "index": i}))
    out.append(sse({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}))
    out.append(sse({"type": "message_stop"}))
    out += [sse({"type": "ping"})] * after_end
    return b"".join(out)


def test_many_blocks_and_frames_after_the_end_store_no_more() -> None:
    short = _fed("anthropic", _anthropic_blocks(200, after_end=200), 50)
    long = _fed("anthropic", _anthropic_blocks(2000, after_end=2000), 50)
    assert long.trace.outcome == "completed (stop)"
    # Left: the Anthropic adapter's own per-block mode table (an int and a str a block).
    assert _stored(long).pop("adapter.modes") == 2000
    assert {k: v for k, v in _stored(long).items() if k != "adapter.modes"} == {
        k: v for k, v in _stored(short).items() if k != "adapter.modes"
    }
    assert long.trace.ignored.total == 2000
    assert len(long.trace.ignored.items) == KEPT_ENTRIES
    full = Normalizer("anthropic", "st_test")
    full.feed(_anthropic_blocks(2000, after_end=2000))
    full.finish()
    assert _summary(long.trace) == _summary(full.trace)


def test_a_summary_is_no_trace_it_keeps_the_last_events_and_no_bytes() -> None:
    summary = _fed("openai-chat", GENERATORS["openai-chat"](50), 100).trace
    assert not isinstance(summary, Trace)
    for history in ("events", "frames", "chunks", "event_frame", "block_events"):
        assert not hasattr(summary, history)  # nothing to misread as a whole history
    recent = summary.recent_events
    assert len(recent) == KEPT_EVENTS and recent[-1] == summary.terminal_event
    assert [event["seq"] for event in recent] == list(
        range(summary.event_count - KEPT_EVENTS + 1, summary.event_count + 1)
    )
    assert summary.error_body() == b""


def test_block_indices_seen_are_kept_as_ranges() -> None:
    seen = IndexRanges()
    for index in (0, 1, 2, 5, 4, 3, 10, 8):
        seen.add(index)
    assert seen.ranges == [(0, 6), (8, 9), (10, 11)]
    assert 3 in seen and 9 not in seen and -1 not in seen and "1" not in seen
    assert 2.0 in seen and 2.5 not in seen  # as in a set of ints
    assert len(seen) == 8


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_a_file_read_whole_gives_the_same_bounded_summary(provider: str) -> None:
    body = stream_of_size(provider, 1_500_000)  # decoded in 256 KiB parts by feed_many
    traces = []
    for keep_history in (True, False):
        normalizer = Normalizer(provider, "st_test", keep_history=keep_history)
        normalizer.feed_many([(0.0, body)])
        traces.append(normalizer.finish())
    full, bounded = traces
    assert _summary(bounded) == _summary(full)
    assert isinstance(full, Trace) and isinstance(bounded, Summary)
    assert bounded.invariant_problems() == check_invariants(full.events) == []
