"""The ready-to-run pytest file an export writes with ``--pytest``.

It is the form a gateway's own test suite keeps: the anonymized capture and
its golden events side by side, loaded only through the public Python API
(``inspector.events_of``, ``inspector.load_trace``,
``inspector.check_invariants``), asserting the whole normalized sequence and
how the stream ended. It imports nothing but ``json``, ``pathlib`` and
``inspector``, so it can be copied into any project.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["identifier_for", "pytest_file_name", "render_pytest"]


def identifier_for(name: str) -> str:
    """A Python identifier made from an export name (``tool-call.v2`` → ``tool_call_v2``)."""
    ident = re.sub(r"\W+", "_", name, flags=re.ASCII).strip("_").lower()
    if not ident or ident[0].isdigit():
        ident = f"capture_{ident}"
    return ident


def pytest_file_name(name: str) -> str:
    """``test_<identifier>.py``."""
    return f"test_{identifier_for(name)}.py"


def _literal(value: Any) -> str:
    """A Python literal for a string or None, in double quotes like the rest."""
    return "None" if value is None else json.dumps(value)


def _ending(terminal: Mapping[str, Any] | None, state: str) -> tuple[str, list[str]]:
    """The name of the ending test and its assertions."""
    if terminal is None:
        return f"ends_{state}", ["assert trace.terminal_event is None"]
    lines = [f'assert terminal["type"] == {_literal(terminal["type"])}']
    if terminal["type"] == "stream.done":
        reason = terminal.get("finish_reason")
        lines.append(f'assert terminal["finish_reason"] == {_literal(reason)}')
        return f"ends_{state}_with_{identifier_for(str(reason))}", lines
    category = (terminal.get("error") or {}).get("category")
    lines.append(f'assert terminal["error"]["category"] == {_literal(category)}')
    return f"ends_{state}_{identifier_for(str(category))}", lines


def render_pytest(
    *,
    name: str,
    capture_file: str,
    events_file: str,
    provider: str,
    state: str,
    terminal: Mapping[str, Any] | None,
    options: str,
) -> str:
    """The source of the test module for one exported capture."""
    ident = identifier_for(name)
    ending, checks = _ending(terminal, state)
    body = "\n    ".join(
        [
            "trace = inspector.load_trace(CAPTURE, PROVIDER)",
            f"assert trace.state == {_literal(state)}",
        ]
        + (["terminal = trace.terminal_event", "assert terminal is not None"] if terminal else [])
        + checks
    )
    return f'''"""Golden test for {capture_file}, written by `inspector export` ({options}).

{events_file} holds exactly what `inspector events {capture_file}` prints in
this directory: the whole normalized sequence. Regenerate both with
`inspector export ORIGINAL -o DIR --pytest` rather than editing them by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import inspector
import pytest

HERE = Path(__file__).resolve().parent
# Relative, as in the command above: a stream cut before its end record says
# so in its last event, naming the file as it was given.
CAPTURE = {_literal(capture_file)}
GOLDEN = HERE / {_literal(events_file)}
PROVIDER = {_literal(provider)}


@pytest.fixture(autouse=True)
def in_this_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HERE)


def golden_events() -> list[dict[str, Any]]:
    lines = GOLDEN.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_{ident}_normalizes_to_the_whole_golden_sequence() -> None:
    assert inspector.events_of(CAPTURE, PROVIDER) == golden_events()


def test_{ident}_keeps_every_contract_invariant() -> None:
    assert inspector.check_invariants(inspector.events_of(CAPTURE, PROVIDER)) == []


def test_{ident}_{ending}() -> None:
    {body}
'''
