"""The matrix and the oracle, over every bundled capture, with no client in the loop."""

from __future__ import annotations

import pytest

from inspector.harness.drivers import Outcome
from inspector.harness.mutations import MUTATIONS, applicable, mutation_names, positions
from inspector.harness.oracle import Content, Expectation, expect
from inspector.harness.verdict import judge

from .conftest import library_bases

BASES = library_bases()
#: Wire mutations that leave every byte's meaning alone (hold-open: same bytes, then silence).
SAME_MEANING = [m for m in mutation_names("wire") if m not in ("as-recorded",)]


@pytest.mark.parametrize("base", BASES, ids=lambda b: f"{b.provider}/{b.name}")
def test_wire_mutations_leave_the_oracles_conclusion_unchanged(base):
    original = expect(MUTATIONS["as-recorded"].make(base, "as-recorded"))
    for scenario in applicable(base, SAME_MEANING):
        mutated = expect(scenario)
        assert (mutated.completed, mutated.content) == (original.completed, original.content), (
            scenario.mutation
        )


@pytest.mark.parametrize("base", BASES, ids=lambda b: f"{b.provider}/{b.name}")
def test_a_stream_cut_before_its_final_signal_is_never_proven(base):
    cuts = [m for m in mutation_names("semantic") if "@" in m] + ["no-final-signal"]
    for scenario in applicable(base, cuts):
        assert not expect(scenario).completed, scenario.mutation


@pytest.mark.parametrize("base", BASES, ids=lambda b: f"{b.provider}/{b.name}")
def test_rechunked_pieces_join_to_the_recorded_bytes(base):
    for name in ("split-utf8", "split-field", "one-byte", "coalesced"):
        scenario = MUTATIONS[name].make(base, name)
        if scenario is not None:
            assert scenario.body == base.body
    one_byte = MUTATIONS["one-byte"].make(base, "one-byte")
    assert one_byte is None or all(len(piece) == 1 for piece in one_byte.pieces)


def test_split_utf8_cuts_inside_every_multibyte_character(unicode_capture):
    from .conftest import base as base_of_path

    scenario = MUTATIONS["split-utf8"].make(base_of_path(unicode_capture), "split-utf8")
    assert scenario is not None
    starts = [piece[0] for piece in scenario.pieces[1:]]
    # every piece after the first starts with a UTF-8 continuation byte
    assert starts and all(0x80 <= b < 0xC0 for b in starts)


def test_positions_lie_in_order_before_the_proof():
    for base in BASES:
        found = positions(base)
        order = [found[k] for k in ("start", "mid-text", "mid-tool-args", "after-finish")
                 if k in found]  # fmt: skip
        assert found["start"] == 0 and all(0 <= at <= len(base.body) for at in order)
        if "after-finish" in found and "mid-text" in found:
            assert found["mid-text"] <= found["after-finish"]


PROVEN = Expectation(True, "completed", "stop", Content("hi", (("f", '{"a": 1}'),), "stop"))
BROKEN = Expectation(False, "interrupted", "transport", message="cut")


@pytest.mark.parametrize(
    ("expected", "outcome", "verdict"),
    [
        (PROVEN, Outcome(True, "hi", (("f", '{"a":1}'),), "stop"), "agrees"),
        (PROVEN, Outcome(True, "hi", (("f", '{"a": 2}'),), "stop"), "silently_wrong"),
        (PROVEN, Outcome(True, "h", (("f", '{"a": 1}'),), "stop"), "silently_wrong"),
        (PROVEN, Outcome(True, "hi", (), "stop"), "silently_wrong"),
        (PROVEN, Outcome(True, "hi", (("f", '{"a": 1}'),), None), "silently_wrong"),
        (PROVEN, Outcome(False, error="boom"), "false_alarm"),
        (BROKEN, Outcome(True, "hi"), "silently_wrong"),
        (BROKEN, Outcome(False, error="cut"), "raised"),
        (BROKEN, Outcome(False, error="KeyError", crashed=True), "crashed"),
        (PROVEN, None, "hung"),
    ],
)
def test_verdicts_follow_the_issue_definitions(expected, outcome, verdict):
    assert judge(expected, outcome)[0] == verdict


def test_a_binary_event_stream_recorded_under_a_providers_name_is_not_played():
    from inspector.capture import load_recording
    from inspector.harness.scenario import base_of

    from .conftest import LIBRARY

    for path in (LIBRARY / "bedrock-invoke").glob("*.jsonl"):
        if not path.name.endswith(".events.jsonl"):
            assert base_of(load_recording(path), path) is None, path
