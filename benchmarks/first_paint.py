"""``inspector open FILE``, headless, until the first paint: the process benchmark's TUI row.

    python -m benchmarks.first_paint FILE [inspector open options]

Runs the real command (``inspector.cli.main(["open", ...])``: argument
parsing, loading and normalizing the file, building the app) with one change,
made here and not in the app: ``run_app`` runs :class:`InspectorApp` headless
at 200×50 and exits once it has painted its first screen (the pilot's first
``pause()``, as ``benchmarks/bench_tui.py`` measures first paint). The
process's wall time is then what a user waits from pressing Enter to seeing
the stream, plus the exit.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path

import inspector.tui
from inspector.core.trace import Trace
from inspector.tui.app import InspectorApp

SIZE = (200, 50)


def run_until_painted(
    source: Trace | None = None,
    *,
    captures: Path | None = None,
    keymap: Mapping[str, str] | None = None,
    position: int = 0,
) -> int:
    """``run_app``'s stand-in: the same app, headless, closed after its first paint."""
    app = InspectorApp(source, captures=captures, keymap=keymap, position=position)

    async def exit_after_first_paint(pilot: object) -> None:
        await pilot.pause()  # type: ignore[attr-defined]
        app.exit()

    app.run(headless=True, size=SIZE, auto_pilot=exit_after_first_paint)
    return 0


def main(argv: list[str]) -> int:
    """``inspector open`` with ``argv``, ending at the first paint."""
    inspector.tui.run_app = run_until_painted  # type: ignore[assignment]
    from inspector.cli import main as inspector_main

    return inspector_main(["open", *argv])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
