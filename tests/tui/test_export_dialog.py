"""The export dialog (``x``): the same export as ``inspector export``, from the TUI.

Every test drives the real app with a pilot: open a capture, press ``x``,
fill in the dialog as a user would (type a directory, click an option,
press Export), then check the files on disk and what the dialog shows.
Each test runs in its own working directory, so the default output folder
(``exports/NAME``) never lands in the repository.
"""

from __future__ import annotations

import asyncio
import json
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.command import CommandList
from textual.pilot import Pilot
from textual.widgets import Button, Input, Static

from inspector.capture import Recording, load_recording
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace, TransportEnd
from inspector.export import ExportOptions, export_capture
from inspector.feeds import ReplayFeed
from inspector.tui import InspectorApp
from inspector.tui.commands import commands_for
from inspector.tui.screens import export as export_screen
from inspector.tui.screens.export import ExportDialog, default_name
from inspector.tui.screens.help import HelpScreen
from inspector.tui.screens.main import MainScreen

from ..conftest import DATA as TESTS_DATA
from .helpers import TEXT_THEN_TOOL, app_for, plain
from .test_keys import help_listing

SIZE = (160, 44)
PLANTED = TESTS_DATA / "export" / "anthropic-planted.jsonl"
SnapCompare = Callable[..., bool]


@pytest.fixture(autouse=True)
def working_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run each test in an empty folder: the dialog's default directory is relative."""
    folder = tmp_path / "cwd"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


def dialog_of(app: InspectorApp) -> ExportDialog:
    """The export dialog, which must be the screen on top."""
    screen = app.screen
    assert isinstance(screen, ExportDialog), f"expected the export dialog, not {screen!r}"
    return screen


def shown(dialog: ExportDialog) -> str:
    """What the dialog's outcome area says (the hint, the report, or an error)."""
    return plain(dialog.query_one("#export-outcome", Static))


async def type_into(pilot: Pilot[Any], selector: str, value: str) -> None:
    """Replace a field's text by typing, as a user would."""
    field = pilot.app.screen.query_one(selector, Input)
    field.focus()
    await pilot.pause()
    await pilot.press("end", "ctrl+u", *value)
    assert field.value == value


async def export_and_wait(pilot: Pilot[Any]) -> None:
    """Press Export and wait for the worker's outcome to be shown."""
    await pilot.click("#export-run")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


async def test_x_exports_the_open_capture_and_shows_the_files_and_the_report(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        source = plain(dialog.query_one("#export-source", Static))
        assert "data/anthropic-text-then-tool.jsonl" in source and "the file on disk" in source
        await type_into(pilot, "#export-directory", str(out))
        await pilot.click("#export-text-mask")
        await pilot.click("#export-pytest")
        await export_and_wait(pilot)

        assert files_in(out) == [
            "anthropic-text-then-tool.events.jsonl",
            "anthropic-text-then-tool.jsonl",
            "anthropic-text-then-tool.report.json",
            "test_anthropic_text_then_tool.py",
        ]
        text = shown(dialog)
        assert f"✓ Exported 4 files into {out}" in text
        for role, name in [
            ("capture", "anthropic-text-then-tool.jsonl"),
            ("events", "anthropic-text-then-tool.events.jsonl"),
            ("pytest", "test_anthropic_text_then_tool.py"),
            ("report", "anthropic-text-then-tool.report.json"),
        ]:
            assert f"{role:<7}  {out / name}" in text
        assert "masked strings: model-text 2, tool-arguments 1" in text
        assert "verified: skeleton identical, chunking identical" in text
        assert dialog.query_one("#export-close", Button).has_focus
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)

    # The very export the command makes: byte for byte the same files.
    direct = export_capture(TEXT_THEN_TOOL, tmp_path / "direct", ExportOptions("mask", pytest=True))
    for path in direct.files.values():
        assert (out / path.name).read_bytes() == path.read_bytes(), path.name


async def test_the_defaults_are_the_commands_and_enter_exports_into_exports_name(
    working_directory: Path,
) -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        assert dialog.query_one("#export-directory", Input).value == (
            "exports/anthropic-text-then-tool"
        )
        assert dialog.query_one("#export-name", Input).value == "anthropic-text-then-tool"
        assert "before anything is written" in shown(dialog)
        assert dialog.query_one("#export-run", Button).has_focus
        await pilot.press("enter")  # x, enter: export with the defaults
        await app.workers.wait_for_complete()
        await pilot.pause()
        out = working_directory / "exports" / "anthropic-text-then-tool"
        assert files_in(out) == [
            "anthropic-text-then-tool.events.jsonl",
            "anthropic-text-then-tool.jsonl",
            "anthropic-text-then-tool.report.json",
        ]
        report = json.loads((out / "anthropic-text-then-tool.report.json").read_text())
        assert report["options"] == {"text": "keep", "keep_request": False}
        assert "✓ Exported 3 files into exports/anthropic-text-then-tool" in shown(dialog)
        assert "masked strings" not in shown(dialog)


async def test_the_report_counts_removed_secrets_per_rule_and_never_shows_one(
    tmp_path: Path,
) -> None:
    planted = json.loads((PLANTED.parent / "planted.json").read_text())[PLANTED.name]
    app = app_for(PLANTED)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        await type_into(pilot, "#export-directory", str(tmp_path / "out"))
        await pilot.click("#export-keep-request")
        await export_and_wait(pilot)
        text = shown(dialog)
        assert "removed: anthropic-key 1, email 2, github-token 1" in text
        assert "header:x-api-key 1" in text
        assert re.search(r"verified: .* 0 of \d+ removed secrets found in 3 files", text)
        for value in planted["secrets"].values():
            assert value not in text
        report = json.loads((tmp_path / "out" / "anthropic-planted.report.json").read_text())
        assert report["options"] == {"text": "keep", "keep_request": True}


async def test_a_directory_that_cannot_be_created_is_a_message_in_the_dialog(
    tmp_path: Path,
) -> None:
    in_the_way = tmp_path / "a-file"
    in_the_way.write_text("not a folder")
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        await type_into(pilot, "#export-directory", str(in_the_way / "out"))
        await export_and_wait(pilot)
        text = shown(dialog)
        assert text.startswith("✗ Export failed\n")
        assert text.endswith(f"Could not write into {in_the_way / 'out'}: Not a directory")
        assert "Traceback" not in text
        assert not dialog.query_one("#export-run", Button).disabled, "one can try again"
        await type_into(pilot, "#export-directory", str(tmp_path / "out"))
        await export_and_wait(pilot)
        assert shown(dialog).startswith("✓ Exported 3 files")


async def test_an_export_error_is_shown_as_its_message_and_file_names_are_not_markup(
    tmp_path: Path,
) -> None:
    # A capture named like Rich markup, exported onto itself: the exporter refuses.
    capture = tmp_path / "[bold red]own.jsonl"
    shutil.copy(TEXT_THEN_TOOL, capture)
    before = capture.read_bytes()
    app = app_for(capture)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        assert "[bold red]own.jsonl" in plain(dialog.query_one("#export-source", Static))
        assert dialog.query_one("#export-name", Input).value == "[bold red]own"
        await type_into(pilot, "#export-directory", str(tmp_path))
        await export_and_wait(pilot)
        text = shown(dialog)
        assert text.startswith("✗ Export failed\n")
        assert f"{capture}: the export would overwrite its own input" in text
    assert capture.read_bytes() == before
    assert files_in(tmp_path) == ["[bold red]own.jsonl", "cwd"]


async def test_a_name_with_folders_is_refused_before_exporting(working_directory: Path) -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        await type_into(pilot, "#export-name", "../elsewhere")
        await pilot.press("enter")  # enter in a field exports too
        await pilot.pause()
        assert "without folders" in shown(dialog)
        assert list(working_directory.iterdir()) == []


async def test_escape_closes_the_dialog_without_writing(working_directory: Path) -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog_of(app)
        await pilot.click("#export-pytest")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        await pilot.press("x")
        await pilot.click("#export-close")
        assert isinstance(app.screen, MainScreen)
    assert list(working_directory.iterdir()) == []


async def test_the_export_runs_off_the_ui_thread_and_escape_waits_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()
    threads: list[threading.Thread] = []

    def held_export(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread())
        assert release.wait(10), "the test never released the export"
        return export_capture(*args, **kwargs)

    monkeypatch.setattr(export_screen, "export_capture", held_export)
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)
        await type_into(pilot, "#export-directory", str(tmp_path / "out"))
        await pilot.click("#export-run")
        await pilot.pause()
        # The export is held in its thread, and the interface still answers keys.
        assert shown(dialog).startswith("Exporting…")
        assert dialog.query_one("#export-run", Button).disabled
        await pilot.press("escape")
        assert app.screen is dialog, "closing now would hide whether files were written"
        await pilot.press("tab")
        assert not dialog.query_one("#export-run", Button).has_focus
        release.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert threads and threads[0] is not threading.main_thread()
        assert shown(dialog).startswith("✓ Exported 3 files")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


class HeldFeed:
    """A live stream that sends its first chunks, then waits until cancelled."""

    def __init__(self, recording: Recording, chunks: int) -> None:
        self.recording = recording
        self.chunks = chunks
        url = "https://api.example.test/v1/messages"
        self.normalizer = Normalizer("anthropic", "st_held", source=url, header=recording.header)
        self.trace: Trace = self.normalizer.trace
        self.description = f"live · {url}"
        self.exchange: dict[str, Any] = {"request": None, "response": None, "timings": {}}
        self.cancelled = asyncio.Event()

    async def run(self, notify: Callable[[], None]) -> None:
        for time, data in self.recording.chunks[: self.chunks]:
            self.normalizer.feed(data, time)
            notify()
        await self.cancelled.wait()
        self.normalizer.finish(TransportEnd("cancelled", 1.0, "cancelled by the user"))
        notify()

    def cancel(self) -> None:
        self.cancelled.set()


async def test_a_live_stream_is_exported_once_it_ended_as_what_the_session_recorded(
    tmp_path: Path,
) -> None:
    feed = HeldFeed(load_recording(TEXT_THEN_TOOL), chunks=4)
    app = InspectorApp(feed)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.pause()
        assert screen.feed_running
        await pilot.press("x")
        assert isinstance(app.screen, MainScreen), "no export while the stream still arrives"
        assert "Export…" not in [c.name for c in commands_for(screen)]
        await pilot.press("c")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Export…" in [c.name for c in commands_for(screen)]
        await pilot.press("x")
        dialog = dialog_of(app)
        source = plain(dialog.query_one("#export-source", Static))
        assert "live · https://api.example.test/v1/messages" in source
        assert "what this session recorded" in source
        assert dialog.query_one("#export-directory", Input).value == "exports/live-anthropic"
        await type_into(pilot, "#export-directory", str(tmp_path / "out"))
        await export_and_wait(pilot)
        assert shown(dialog).startswith("✓ Exported 3 files")
    events = (tmp_path / "out" / "live-anthropic.events.jsonl").read_text().splitlines()
    last = json.loads(events[-1])
    assert last["type"] == "stream.error" and last["error"]["category"] == "cancelled"
    capture = (tmp_path / "out" / "live-anthropic.jsonl").read_text().splitlines()
    assert len(capture) == 1 + 4 + 1, "the header, the four chunks received, the end"


async def test_a_replay_exports_what_it_played_the_same_as_its_file(tmp_path: Path) -> None:
    app = InspectorApp(ReplayFeed(load_recording(TEXT_THEN_TOOL), speed=1e9))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("x")
        dialog = dialog_of(app)
        assert "what this session recorded" in plain(dialog.query_one("#export-source", Static))
        await type_into(pilot, "#export-directory", str(tmp_path / "replay"))
        await export_and_wait(pilot)
        assert shown(dialog).startswith("✓ Exported 3 files")
    direct = export_capture(TEXT_THEN_TOOL, tmp_path / "direct")
    for path in direct.files.values():
        assert (tmp_path / "replay" / path.name).read_bytes() == path.read_bytes(), path.name


async def test_the_palette_and_the_help_offer_the_export() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        listing = help_listing(app)
        assert "x  Export an anonymized capture, its golden events and a report" in listing
        await pilot.press("escape", "ctrl+p", *"export")
        hits = app.screen.query_one(CommandList)
        for _ in range(200):  # the palette searches in the background: wait for the hit
            if hits.option_count:
                break
            await pilot.pause(0.01)
        assert str(hits.get_option_at_index(0).prompt).startswith("Export…")
        await pilot.press("enter")
        await pilot.pause()
        dialog_of(app)


def test_the_default_name_is_the_files_name_or_live_and_the_provider() -> None:
    assert default_name(Trace("st", "anthropic", "captures/a/tool-call.jsonl")) == "tool-call"
    assert default_name(Trace("st", "openai-chat", "/tmp/curl-output.sse")) == "curl-output"
    url = "https://api.openai.com/v1/chat/completions"
    assert default_name(Trace("st", "openai-chat", url)) == "live-openai-chat"
    assert default_name(Trace("st", None, None)) == "live-stream"


async def show_a_finished_export(pilot: Pilot[Any]) -> None:
    """x, mask the text, add the pytest file, export into ./exports/NAME, wait."""
    await pilot.app.workers.wait_for_complete()
    await pilot.press("x")
    await pilot.click("#export-text-mask")
    await pilot.click("#export-pytest")
    await export_and_wait(pilot)
    await pilot.pause()


def test_snapshot_of_the_dialog_after_an_export(snap_compare: SnapCompare) -> None:
    # The output directory is the default, relative one: the picture does not
    # depend on where the test's temporary folder is.
    app = app_for(TEXT_THEN_TOOL)
    assert snap_compare(app, terminal_size=(120, 40), run_before=show_a_finished_export)


async def test_each_option_shows_a_mark_only_when_it_is_on() -> None:
    app = app_for(TEXT_THEN_TOOL)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("x")
        dialog = dialog_of(app)

        def drawn(selector: str) -> str:
            return str(dialog.query_one(selector).render()).strip()

        assert drawn("#export-pytest").startswith("▐ ▌")
        assert drawn("#export-text-keep").startswith("▐●▌")
        assert drawn("#export-text-mask").startswith("▐ ▌")
        await pilot.click("#export-pytest")
        await pilot.click("#export-text-mask")
        await pilot.pause()
        assert drawn("#export-pytest").startswith("▐✓▌")
        assert drawn("#export-text-mask").startswith("▐●▌")
        assert drawn("#export-text-keep").startswith("▐ ▌")
