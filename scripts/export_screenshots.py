"""Render the TUI on bundled captures into ``screenshots/`` as SVG and PNG.

The README shows these pictures; run this after a change to how the TUI
looks and commit what it writes:

    .venv/bin/python scripts/export_screenshots.py
    .venv/bin/python scripts/export_screenshots.py --out /tmp/shots --only picker

Each picture is named for what it shows and the terminal size it was taken
at (``tool-call-mid-stream-80x24.png``): the main screen at 200x50, 120x30
and 80x24 (four panes, the 2x2 grid, Frames and one pane), the help, a
search, the export dialog and the picker.

It drives the real app headless with a pilot (as the tests do), saves
Textual's SVG, and converts it to PNG with ``rsvg-convert`` — install it
with ``apt-get install librsvg2-bin`` (Debian/Ubuntu) or ``brew install
librsvg`` (macOS). Without it the SVGs are still written and the script
says which PNGs it could not make. Captures come from ``captures/``; when
one is missing the script falls back to ``tests/fixtures/real`` and says so.
"""

from __future__ import annotations

import argparse
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
from inspector.terminal import safe_path
from inspector.tui import InspectorApp
from inspector.viewmodel.index import TraceIndex

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
    size: tuple[int, int] = (200, 50)
    keys: list[str] = field(default_factory=list)
    position: Callable[[Path], int] | None = None
    then: Callable[[Pilot[Any]], Awaitable[None]] | None = None  # after the keys

    @property
    def file_name(self) -> str:
        """The picture's name: what it shows and the terminal's size."""
        return f"{self.name}-{self.size[0]}x{self.size[1]}"


def mid_tool_call(size: tuple[int, int], layout: str) -> Shot:
    """The main screen at ``size``: the same moment of the same stream in each layout."""
    return Shot(
        "tool-call-mid-stream",
        f"a tool call whose JSON arguments are half received ({layout})",
        "anthropic/tool-call-fragmented-json.jsonl",
        "anthropic/tool-use-with-text.sse",
        size=size,
        position=middle_of_first_tool_call,
    )


SHOTS = [
    mid_tool_call((200, 50), "four panes side by side"),
    mid_tool_call((120, 30), "the 2x2 grid"),
    mid_tool_call((80, 24), "Frames and one pane under tabs"),
    Shot(
        "failed-stream-violation",
        "max_tokens while the tool call is still open: rule 5, failed",
        "anthropic/max-tokens-cuts-tool-call.jsonl",
        "openai-chat/openai-tool-call-fragmented.sse",
        keys=["e"],
    ),
    Shot(
        "search",
        "a search: the match counter, the matches highlighted in the rows",
        "anthropic/tool-call-fragmented-json.jsonl",
        "anthropic/tool-use-with-text.sse",
        keys=["slash", *"input_json", "enter", "enter", "escape"],
    ),
    Shot(
        "help",
        "?: every key, grouped by task",
        "anthropic/tool-call-fragmented-json.jsonl",
        "anthropic/tool-use-with-text.sse",
        size=(120, 30),
        keys=["question_mark"],
    ),
    Shot(
        "export-dialog",
        "x: the export dialog after an export, with the files written and the report",
        "anthropic/tool-call-fragmented-json.jsonl",
        "anthropic/tool-use-with-text.sse",
        keys=["x"],
        then=export_with_masked_text,
    ),
    Shot(
        "bedrock-tool-use",
        "Bedrock ConverseStream (AWS event stream): a frame's headers, mid tool call",
        "bedrock-converse/tool-use.jsonl",
        position=middle_of_first_tool_call,
    ),
    Shot(
        "ollama-thinking",
        "Ollama /api/chat (NDJSON): thinking, then the answer, then done",
        "ollama/chat-thinking.jsonl",
        position=lambda path: 3,
    ),
    Shot("picker", "the bundled capture library", None),
    Shot(
        "picker",
        "the picker at 80 columns, filtered as you type",
        None,
        size=(80, 24),
        keys=[*"tool"],
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


async def render(shot: Shot, out: Path) -> Path:
    """Run the app on the shot's capture and save the SVG into ``out``."""
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
        svg = out / f"{shot.file_name}.svg"
        app.save_screenshot(filename=svg.name, path=str(out))
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


def main(argv: list[str] | None = None) -> int:
    """Render every shot (or those named); 1 when a PNG could not be made."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write (screenshots/)")
    parser.add_argument("--only", action="append", metavar="NAME", help="only these shots")
    args = parser.parse_args(argv)
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    shots = [shot for shot in SHOTS if not args.only or shot.name in args.only]
    converter = shutil.which("rsvg-convert")
    if converter is None:
        print(
            "rsvg-convert not found: SVGs only. Install librsvg "
            "(apt-get install librsvg2-bin / brew install librsvg) for the PNGs.",
            file=sys.stderr,
        )
    status = 0
    for shot in shots:
        print(f"{shot.file_name}: {shot.title}")
        svg = asyncio.run(render(shot, out))
        print(f"  wrote {safe_path(svg)}")
        if converter is not None:
            print(f"  wrote {safe_path(to_png(svg, converter))}")
        else:
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
