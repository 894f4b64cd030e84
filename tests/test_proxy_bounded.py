"""A proxied exchange records a summary (counts, not history) while it
streams, so an open exchange costs the same memory however long its stream;
what the flow reports is what a flow keeping history reports, and a view that
follows it gets the whole trace, rebuilt from the capture written so far."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from inspector.capture import Recording, load_recording
from inspector.core.summary import Summary
from inspector.core.trace import Trace, TransportEnd
from inspector.library import expand_paths
from inspector.proxy import FlowRequest
from inspector.proxy.flow import Flow
from inspector.proxy.routes import Route
from inspector.session import guess_provider, load_trace

from .conftest import CAPTURES
from .test_live_helpers import without_ids


def _captures() -> list[tuple[Path, Recording, str]]:
    found = []
    for path in expand_paths([str(CAPTURES)]):
        rec = load_recording(path)
        provider = guess_provider(rec)
        if provider is not None:
            found.append((Path(path), rec, provider))
    return found


CAPTURE_FILES = _captures()
IDS = [f"{path.parent.name}/{path.name}" for path, _, _ in CAPTURE_FILES]


def _flow(provider: str, directory: Path | None) -> Flow:
    request = FlowRequest("POST", "/v1/x", "", [], b'{"model": "m"}', "http://upstream/v1/x")
    return Flow(1, request, Route(provider, "openai"), "m", secrets_seen=(), directory=directory)


def _respond(flow: Flow, rec: Recording) -> None:
    status = rec.status or 200
    # The recorded content type: it says the framing (an event stream, NDJSON, SSE).
    response = (rec.header or {}).get("response") or {}
    recorded = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
    media = recorded.get("content-type", "text/event-stream")
    if status < 400 and media == "application/json":
        media = "text/event-stream"  # a raw .sse file's guess; only Gemini streams JSON arrays
    flow.response(status, "HTTP/1.1", {"content-type": media})


def _end(rec: Recording) -> TransportEnd:
    return rec.end or TransportEnd("eof")


def _stream(flow: Flow, rec: Recording, upto: int | None = None) -> None:
    for time, data in rec.chunks[:upto]:
        flow.chunk(time, data)


def _report(flow: Flow) -> dict[str, Any]:
    timings = flow.exchange["timings"]
    return {
        "state": flow.state,
        "bytes": flow.bytes,
        "first_content": timings.get("first_content"),
        "problem": flow.problem,
    }


@pytest.mark.parametrize(("path", "rec", "provider"), CAPTURE_FILES, ids=IDS)
async def test_a_flow_without_history_reports_what_a_flow_with_history_reports(
    path: Path, rec: Recording, provider: str, tmp_path: Path
) -> None:
    bounded, full = _flow(provider, tmp_path), _flow(provider, None)
    for flow in (bounded, full):
        _respond(flow, rec)
        _stream(flow, rec)
    assert isinstance(bounded.trace, Summary)
    assert not isinstance(full.trace, Summary)
    assert full.trace is not None
    assert bounded.trace.outcome == full.trace.outcome
    assert isinstance(full.trace, Trace)
    assert bounded.trace.event_count == full.trace.event_count
    events = full.trace.events
    first = next((i for i in range(len(events)) if events.type_of(i) == "block.delta"), None)
    # When the frame that carried the first delta arrived (what first_content says).
    arrived = None if first is None else full.trace.frames.time_of(full.trace.event_frame[first])
    for flow in (bounded, full):
        flow.finish(_end(rec))
    assert _report(bounded) == _report(full)
    assert bounded.exchange["timings"].get("first_content") == (
        None if arrived is None else round(arrived, 6)
    )
    assert bounded.capture is not None
    written = load_recording(bounded.capture)
    assert written.body == rec.body[: len(written.body)]
    assert written.end is not None and written.end.reason == _end(rec).reason


@pytest.mark.parametrize(("path", "rec", "provider"), CAPTURE_FILES, ids=IDS)
async def test_following_a_flow_midway_gives_the_whole_trace_from_its_start(
    path: Path, rec: Recording, provider: str, tmp_path: Path
) -> None:
    followed, full = _flow(provider, tmp_path), _flow(provider, None)
    half = len(rec.chunks) // 2
    for flow in (followed, full):
        _respond(flow, rec)
        _stream(flow, rec, half)
    trace = followed.follow()
    assert isinstance(trace, Trace) and not isinstance(trace, Summary)
    assert followed.follow() is trace  # rebuilt once; the flow keeps history from then on
    for flow in (followed, full):
        for time, data in rec.chunks[half:]:
            flow.chunk(time, data)
    assert full.trace is not None
    assert without_ids(trace.events) == without_ids(full.trace.events)
    assert len(trace.frames) == len(full.trace.frames)
    assert trace.bytes_received == full.trace.bytes_received
    for flow in (followed, full):
        flow.finish(_end(rec))
    assert _report(followed) == _report(full)
    assert followed.follow() is None  # ended: the capture is the record
    assert followed.capture is not None
    expected = load_trace(followed.capture)
    assert without_ids(trace.events) == without_ids(expected.events)
    assert expected.outcome == load_trace(path).outcome  # read in the capture's own framing


def test_a_flow_whose_capture_failed_cannot_be_followed(tmp_path: Path) -> None:
    _, rec, provider = CAPTURE_FILES[0]
    flow = _flow(provider, tmp_path)
    _respond(flow, rec)
    flow._stop_recording("the disk is full")
    assert flow.follow() is None
    flow.finish(TransportEnd("eof"))


async def test_an_open_exchange_stores_as_much_for_a_long_stream_as_for_a_short_one(
    tmp_path: Path,
) -> None:
    from benchmarks.streams import chunked, stream_of_size

    sizes = []
    for size in (50_000, 500_000):
        flow = _flow("openai-chat", tmp_path / str(size))
        (tmp_path / str(size)).mkdir()
        flow.response(200, "HTTP/1.1", {"content-type": "text/event-stream"})
        for i, piece in enumerate(chunked(stream_of_size("openai-chat", size), 4096)):
            flow.chunk(i * 0.001, piece)
        trace = flow.trace
        assert isinstance(trace, Summary)
        sizes.append(
            (len(trace.recent_events), len(trace.stream_transitions), len(trace.ignored.items))
        )
        flow.finish(TransportEnd("eof"))
        await asyncio.sleep(0)
    assert sizes[0] == sizes[1]


def test_a_bedrock_error_code_named_only_in_a_header_is_the_failures_code(
    tmp_path: Path,
) -> None:
    flow = _flow("bedrock-converse", tmp_path)
    headers = {"content-type": "application/json", "x-amzn-errortype": "ThrottlingException:x"}
    flow.response(429, "HTTP/1.1", headers)
    flow.chunk(0.01, b'{"message": "Too many requests"}')
    flow.finish(TransportEnd("eof", 0.02))
    assert flow.state.startswith("failed (rate_limited")
    assert flow.capture is not None
    error = load_trace(flow.capture).events[-1]["error"]
    assert (error["category"], error["provider_code"]) == ("rate_limited", "ThrottlingException")
