"""Render the TUI on bundled captures into ``screenshots/`` as SVG and PNG.

The README shows these pictures; run this after a change to how the TUI
looks and commit what it writes:

    .venv/bin/python scripts/export_screenshots.py

It drives the real app headless with a pilot (as the tests do), saves
Textual's SVG, and converts it to PNG with ``rsvg-convert`` — install it
with ``apt-get install librsvg2-bin`` (Debian/Ubuntu) or ``brew install
librsvg`` (macOS). Without it the SVGs are still written and the script
says which PNGs it could not make. Captures come from ``captures/``; when
one is missing the script falls back to ``tests/fixtures/real`` and says so.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from inspector.session import load_trace
from inspector.tui import InspectorApp
from inspector.tui.index import TraceIndex

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "captures"
REAL = ROOT / "tests" / "fixtures" / "real"
OUT = ROOT / "screenshots"


def middle_of_first_tool_call(path: Path) -> int:
    """The frame where the first tool call's arguments are about half written."""
    index = TraceIndex(load_trace(path))
    tool = next(b for b in index.blocks.values() if b.kind == "tool_call")
    fragments = list(tool.text.events)
    middle = fragments[max(0, (len(fragments) - 1) // 2)]
    return index.position_of_event(middle)


async def export_with_masked_text(pilot: Pilot[Any]) -> None:
    """In the export dialog: mask the text, add the pytest file, export, wait.

    The export is written into a temporary working directory, so the dialog
    shows the default ``exports/NAME`` and nothing lands in the checkout.
    """
    await pilot.click("#export-text-mask")
    await pilot.click("#export-pytest")
    with tempfile.TemporaryDirectory() as folder, contextlib.chdir(folder):
        await pilot.click("#export-run")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


@dataclass
class Shot:
    """One picture: what to open, where to put the cursor, which keys to press."""

    name: str
    title: str
    capture: str | None  # under captures/ (None: the picker)
    fallback: str | None = None  # under tests/fixtures/real
    size: tuple[int, int] = (180, 44)
    keys: list[str] = field(default_factory=list)
    position: Callable[[Path], int] | None = None
    then: Callable[[Pilot[Any]], Awaitable[None]] | None = None  # after the keys


SHOTS = [
    Shot(
        "tool-call-mid-stream",
        "a tool call whose JSON arguments are half received",
        "anthropic/tool-call-fragmented-json.jsonl",
        "anthropic/tool-use-with-text.sse",
        position=middle_of_first_tool_call,
    ),
    Shot(
        "failed-stream-violation",
        "max_tokens while the tool call is still open: rule 5, failed",
        "anthropic/max-tokens-cuts-tool-call.jsonl",
        "openai-chat/openai-tool-call-fragmented.sse",
        keys=["e"],
    ),
    Shot(
        "export-dialog",
        "x: the export dialog after an export, with the files written and the report",
        "anthropic/tool-call-fragmented-json.jsonl",
        "anthropic/tool-use-with-text.sse",
        keys=["x"],
        then=export_with_masked_text,
    ),
    Shot("picker", "the bundled capture library", None, size=(130, 36)),
    Shot(
        "narrow-tabbed",
        "a narrow terminal: one pane at a time under tabs",
        "anthropic/reasoning.jsonl",
        "anthropic/thinking-signature.sse",
        size=(90, 30),
        keys=["tab", "tab"],
        position=lambda path: 19,
    ),
]


def source_of(shot: Shot) -> Path | None:
    """The capture to open, from the library or, failing that, the real fixtures."""
    if shot.capture is None:
        return None
    path = CAPTURES / shot.capture
    if path.exists() or shot.fallback is None:
        return path
    print(f"  {shot.capture} is not in captures/ yet: using tests/fixtures/real/{shot.fallback}")
    return REAL / shot.fallback


async def render(shot: Shot) -> Path:
    """Run the app on the shot's capture and save the SVG."""
    path = source_of(shot)
    if path is None:
        app = InspectorApp(None, captures=CAPTURES)
    else:
        position = shot.position(path) if shot.position is not None else 0
        app = InspectorApp(load_trace(path), position=position)
    async with app.run_test(size=shot.size) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.pause()
        for key in shot.keys:
            await pilot.press(key)
        await pilot.pause()
        if shot.then is not None:
            await shot.then(pilot)
        svg = OUT / f"{shot.name}.svg"
        app.save_screenshot(filename=svg.name, path=str(OUT))
    return svg


def to_png(svg: Path, converter: str) -> Path:
    """Convert with rsvg-convert, keeping the terminal's spaces.

    Textual writes runs of spaces as non-breaking spaces; librsvg collapses
    them at the start of a text run unless whitespace is declared preserved.
    """
    preserved = svg.with_suffix(".preserve.svg")
    preserved.write_text(svg.read_text().replace("<svg ", '<svg xml:space="preserve" ', 1))
    png = svg.with_suffix(".png")
    try:
        subprocess.run([converter, str(preserved), "-o", str(png)], check=True)
    finally:
        preserved.unlink()
    return png


def main() -> int:
    """Render every shot; 1 when a PNG could not be made."""
    OUT.mkdir(exist_ok=True)
    converter = shutil.which("rsvg-convert")
    if converter is None:
        print(
            "rsvg-convert not found: SVGs only. Install librsvg "
            "(apt-get install librsvg2-bin / brew install librsvg) for the PNGs.",
            file=sys.stderr,
        )
    status = 0
    for shot in SHOTS:
        print(f"{shot.name}: {shot.title}")
        svg = asyncio.run(render(shot))
        print(f"  wrote {svg.relative_to(ROOT)}")
        if converter is not None:
            print(f"  wrote {to_png(svg, converter).relative_to(ROOT)}")
        else:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
