"""load_trace pauses the cycle collector while it works, and leaves it as it found it."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from inspector.capture import UnreadableInput
from inspector.session import load_trace

from .conftest import CAPTURES

CAPTURE = CAPTURES / "anthropic" / "text-simple.jsonl"


@pytest.mark.parametrize("enabled", [True, False])
def test_loading_leaves_the_collector_as_it_found_it(enabled: bool, tmp_path: Path) -> None:
    was = gc.isenabled()
    try:
        (gc.enable if enabled else gc.disable)()
        trace = load_trace(CAPTURE)
        assert trace.outcome.startswith("completed")
        assert gc.isenabled() is enabled
        with pytest.raises(UnreadableInput):
            load_trace(tmp_path / "missing.jsonl")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_the_collector_does_not_run_while_a_file_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    import inspector.session as session

    during: list[bool] = []
    real = session.read_recording

    def watched(*args: Any) -> Any:
        during.append(gc.isenabled())
        return real(*args)

    monkeypatch.setattr(session, "read_recording", watched)
    load_trace(CAPTURE)
    assert during == [False]
    assert gc.isenabled()


def test_loading_a_file_gives_the_trace_of_its_recording() -> None:
    # load_trace lets go of each chunk as it is fed; the trace is the same.
    from inspector.capture import read_recording
    from inspector.session import trace_recording

    paths = sorted(CAPTURES.glob("*/*.jsonl"))
    paths = [path for path in paths if not path.name.endswith(".events.jsonl")]
    assert len(paths) >= 20
    for path in paths:
        loaded, traced = load_trace(path), trace_recording(read_recording(path))
        assert list(loaded.events) == list(traced.events), path
        assert loaded.problems == traced.problems, path
        assert loaded.chunks.bytes_received == traced.chunks.bytes_received, path
        assert len(loaded.frames) == len(traced.frames), path
        assert loaded.transport_end == traced.transport_end, path


@pytest.mark.parametrize(
    "capture",
    sorted(p for p in CAPTURES.rglob("*.jsonl") if not p.name.endswith(".events.jsonl")),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_a_consumed_recording_normalizes_as_a_kept_one_and_is_emptied(capture: Path) -> None:
    from inspector.capture import read_recording
    from inspector.session import trace_recording

    kept = read_recording(capture)
    consumed = read_recording(capture)
    whole = trace_recording(kept)
    trace = trace_recording(consumed, consume=True)
    assert consumed.chunks == [] and kept.chunks
    assert trace.stream_id == whole.stream_id and list(trace.events) == list(whole.events)
    assert [trace.frames.span_of(i) for i in range(len(trace.frames))] == [
        whole.frames.span_of(i) for i in range(len(whole.frames))
    ]
    assert trace.chunks.span(0, trace.bytes_received) == whole.chunks.span(0, whole.bytes_received)
