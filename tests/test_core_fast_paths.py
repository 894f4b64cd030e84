"""The core's fast paths give exactly what the general paths give.

Speed work added shortcuts that skip per-event work (the invariant checker
reading a trace's compact event columns; runs of plain deltas handed from an
adapter to the machine in bulk). Each is checked here against the general path
on the same input, including inputs built to break the rules.
"""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks.streams import GENERATORS, stream_of_size
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import normalize
from inspector.core.trace import EventLog


def _broken_log() -> EventLog:
    log = EventLog("st_x")
    text = {"id": "b_0", "index": 0, "kind": "text"}
    log.append({"stream_id": "st_x", "seq": 1, "type": "stream.start", "provider": "p"})
    log.append_delta(text, "text", "before the block opened")
    log.append({"stream_id": "st_x", "seq": 3, "type": "block.start", "block": text})
    log.append_delta(text, "text", "fine")
    log.append({"stream_id": "st_y", "seq": 9, "type": "block.stop", "block": text})
    log.append_delta(text, "json_text", "after its stop")
    log.append({"stream_id": "st_x", "seq": 7, "type": "stream.done", "status": "completed"})
    log.append_delta({"id": "b_4", "index": 4, "kind": "text"}, "text", "after the end")
    log.append({"stream_id": "st_x", "seq": "9", "type": "stream.error", "status": "failed"})
    return log


def test_the_checker_reads_an_event_log_as_it_reads_the_same_events_as_dicts() -> None:
    log = _broken_log()
    as_dicts: list[dict[str, Any]] = list(log)
    problems = check_invariants(log)
    assert problems == check_invariants(as_dicts)
    assert {rule for rule, _, _ in problems} == {2, 3, 4, 6}
    assert (2, 1, "delta for block 0, which is not open") in problems
    assert (4, 7, "'block.delta' follows the terminal event") in problems
    assert check_invariants(log, ended=False) == check_invariants(as_dicts, ended=False)


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_the_checker_agrees_on_every_provider_stream_whole_and_cut(provider: str) -> None:
    body = stream_of_size(provider, 20_000)
    for cut in (len(body), len(body) // 2):
        trace = normalize(body[:cut], provider)
        assert check_invariants(trace.events) == check_invariants(list(trace.events))
