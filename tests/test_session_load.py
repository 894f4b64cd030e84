"""load_trace pauses the cycle collector while it works, and leaves it as it found it."""

from __future__ import annotations

import gc
from pathlib import Path

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
    real = session.trace_recording

    def watched(*args: object, **kwargs: object) -> object:
        during.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session, "trace_recording", watched)
    load_trace(CAPTURE)
    assert during == [False]
