"""The shrinker: ddmin finds a 1-minimal input; a shrunk capture reproduces, and is smaller."""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording
from inspector.cli import main
from inspector.harness.mutations import MUTATIONS
from inspector.harness.oracle import expect
from inspector.harness.runner import Settings, run_scenario
from inspector.harness.shrink import ddmin, load_scenario, shrink, write_repro

from .conftest import CHAT, MARGIN, TIMEOUT, base
from .toys import NAIVE


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 20), min_size=1, max_size=30),
    st.sets(st.integers(0, 20), max_size=3),
)
def test_ddmin_keeps_exactly_what_the_test_needs(items, needed):
    needed &= set(items)

    def test(candidate):
        return needed <= set(candidate)

    found = ddmin(items, test, budget=10_000)
    assert test(found)
    assert set(found) == needed and len(found) == len(needed)


def test_the_budget_bounds_the_tests():
    calls = []
    ddmin(list(range(200)), lambda c: calls.append(1) or 7 in c, budget=15)
    assert len(calls) <= 15


SETTINGS = Settings(timeout=TIMEOUT, margin=MARGIN)


def test_a_shrunk_failing_cell_reproduces_and_is_smaller():
    tool = base(CHAT / "tool-call-fragmented.jsonl")
    cut = MUTATIONS["split-field"].make(tool, "split-field")
    first = run_scenario(NAIVE, cut, SETTINGS)
    assert first.verdict not in ("agrees", "raised")

    def keep(candidate):
        return run_scenario(NAIVE, candidate, SETTINGS).verdict == first.verdict

    shrunk = shrink(cut, keep, budget=300)
    assert keep(shrunk.scenario)
    assert shrunk.bytes_after < shrunk.bytes_before
    assert shrunk.frames_after <= shrunk.frames_before
    assert shrunk.tests <= 300 + 1


def test_shrinking_keeps_the_terminal_state():
    length = base(CHAT / "length-cuts-tool-call.jsonl")
    original = MUTATIONS["as-recorded"].make(length, "as-recorded")
    want = expect(original)

    def keep(candidate):
        got = expect(candidate)
        return (got.state, got.category) == (want.state, want.category)

    shrunk = shrink(original, keep)
    assert keep(shrunk.scenario) and shrunk.bytes_after < shrunk.bytes_before


def test_the_shrink_command_writes_a_capture_that_still_holds(tmp_path, capsys):
    out = tmp_path / "small.jsonl"
    path = CHAT / "length-cuts-tool-call.jsonl"
    assert main(["shrink", str(path), "--until", "state", "-o", str(out)]) == 0
    assert "still holds" in capsys.readouterr().out
    original, small = load_recording(path), load_recording(out)
    assert len(small.body) < len(original.body)
    got = expect(load_scenario(small, str(out)))
    want = expect(load_scenario(original, str(path)))
    assert (got.state, got.category) == (want.state, want.category)


def test_the_shrink_command_refuses_an_unknown_predicate(capsys):
    assert main(["shrink", str(CHAT / "text-simple.jsonl"), "--until", "nonsense"]) == 2
    assert "unknown predicate" in capsys.readouterr().err


def test_a_repro_file_is_runnable_and_hostile_names_stay_data(tmp_path):
    pytest.importorskip("openai")
    text = base(CHAT / "text-simple.jsonl")
    cut = MUTATIONS["eof@mid-text"].make(text, "eof@mid-text")
    # a capture name and model that would break out of a string or a docstring
    hostile = cut.__class__(
        capture='x"""\nimport os; os.system("echo pwned")\n', mutation=cut.mutation,
        provider=cut.provider, model="m'\\\n", pieces=cut.pieces, ending=cut.ending,
    )  # fmt: skip
    shrunk = shrink(hostile, lambda s: run_scenario_driver(s) == "silently_wrong", budget=50)
    info = write_repro(tmp_path, "openai-chat", "silently_wrong", shrunk, 1)
    source = (tmp_path / info["test"].rsplit("/", 1)[-1]).read_text()
    assert "os.system" not in source.replace(repr(hostile.capture), "")
    compile(source, info["test"], "exec")
    spec = importlib.util.spec_from_file_location("repro_module", info["test"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(AssertionError):
        module.test_client_does_not_conclude_wrongly()
    assert load_recording(info["capture"]).body == shrunk.scenario.body


def run_scenario_driver(scenario):
    from inspector.harness.drivers import DRIVERS

    return run_scenario(DRIVERS["openai-chat"], scenario, SETTINGS).verdict
