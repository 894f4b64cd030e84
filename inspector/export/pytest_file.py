"""The ready-to-run pytest file an export writes with ``--pytest``.

It is the form a gateway's own test suite keeps: the anonymized capture and
its golden events side by side, loaded only through the public Python API
(``inspector.events_of``, ``inspector.load_trace``,
``inspector.check_invariants``), asserting the whole normalized sequence and
how the stream ended. It imports nothing but ``json``, ``pathlib`` and
``inspector``, so it can be copied into any project.

Everything that reaches the generated code from outside — file names, the
provider, the state, finish reasons and error categories — is written only as
a ``repr()`` literal assigned to a constant, never inside a hand-written
string, docstring or f-string template; test function names are built only
from ``[a-z0-9_]``. So a capture whose name holds quotes, triple quotes,
backslashes, newlines or ``{}`` gives a module that still parses to the same
statements and runs only its assertions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = ["identifier_for", "pytest_file_name", "render_pytest"]

_NOT_IDENTIFIER = re.compile(r"[^a-z0-9_]+")


def identifier_for(name: str) -> str:
    """A Python identifier made of ``[a-z0-9_]`` only (``tool-call.v2`` → ``tool_call_v2``)."""
    ident = _NOT_IDENTIFIER.sub("_", name.lower()).strip("_")
    ident = re.sub("_+", "_", ident)
    if not ident or ident[0].isdigit():
        ident = f"capture_{ident}".rstrip("_")
    return ident


def pytest_file_name(name: str) -> str:
    """``test_<identifier>.py``."""
    return f"test_{identifier_for(name)}.py"


def _ending(terminal: Mapping[str, Any] | None, state: str) -> tuple[str, list[str], list[str]]:
    """The ending test's name, the constants it compares with, and its assertions."""
    if terminal is None:
        return identifier_for(f"ends_{state}"), [], ["assert trace.terminal_event is None"]
    constants = [f"TERMINAL_TYPE = {terminal['type']!r}"]
    checks = ['assert terminal["type"] == TERMINAL_TYPE']
    if terminal["type"] == "stream.done":
        reason = terminal.get("finish_reason")
        constants.append(f"FINISH_REASON = {reason!r}")
        checks.append('assert terminal["finish_reason"] == FINISH_REASON')
        return identifier_for(f"ends_{state}_with_{reason}"), constants, checks
    category = (terminal.get("error") or {}).get("category")
    constants.append(f"ERROR_CATEGORY = {category!r}")
    checks.append('assert terminal["error"]["category"] == ERROR_CATEGORY')
    return identifier_for(f"ends_{state}_{category}"), constants, checks


_HEAD = '''"""Golden test for an exported capture, written by `inspector export`.

GOLDEN holds exactly what `inspector events CAPTURE` prints in this
directory: the whole normalized sequence. Regenerate both with
`inspector export ORIGINAL -o DIR --pytest` rather than editing them by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import inspector
import pytest

HERE = Path(__file__).resolve().parent
'''

_FIXTURES = """

@pytest.fixture(autouse=True)
def in_this_directory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(HERE)


def golden_events() -> list[dict[str, Any]]:
    lines = (HERE / GOLDEN).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
"""


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
    ending, ending_constants, checks = _ending(terminal, state)
    constants = [
        f"EXPORTED_WITH = {options!r}",
        "# Relative, as in the command: a stream cut before its end record says",
        "# so in its last event, naming the file as it was given.",
        f"CAPTURE = {capture_file!r}",
        f"GOLDEN = {events_file!r}",
        f"PROVIDER = {provider!r}",
        f"STATE = {state!r}",
        *ending_constants,
    ]
    body = [
        "trace = inspector.load_trace(CAPTURE, PROVIDER)",
        "assert trace.state == STATE",
        *(["terminal = trace.terminal_event", "assert terminal is not None"] if terminal else []),
        *checks,
    ]
    tests = [
        (
            f"test_{ident}_normalizes_to_the_whole_golden_sequence",
            ["assert inspector.events_of(CAPTURE, PROVIDER) == golden_events()"],
        ),
        (
            f"test_{ident}_keeps_every_contract_invariant",
            ["assert inspector.check_invariants(inspector.events_of(CAPTURE, PROVIDER)) == []"],
        ),
        (f"test_{ident}_{ending}", body),
    ]
    functions = "".join(
        f"\n\ndef {function}() -> None:\n" + "".join(f"    {line}\n" for line in lines)
        for function, lines in tests
    )
    return _HEAD + "\n".join(constants) + "\n" + _FIXTURES + functions
