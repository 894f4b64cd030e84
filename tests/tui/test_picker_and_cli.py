"""The picker over a folder of captures, and the ``open`` command line."""

from __future__ import annotations

from textual.widgets import DataTable

from inspector.cli import _with_default_command, build_parser
from inspector.cli.open import parse_keymap
from inspector.tui import InspectorApp
from inspector.tui.screens.main import MainScreen
from inspector.tui.screens.picker import PickerScreen, capture_files, describe_capture

from ..conftest import ROOT, inspector
from .helpers import DATA, TEXT_THEN_TOOL, VIOLATION, panes, plain


def test_the_picker_lists_stream_files_only() -> None:
    assert [p.name for p in capture_files(DATA)] == [
        "anthropic-text-then-tool.jsonl", "tool-call-violation.jsonl", "untrusted-text.jsonl",
    ]  # fmt: skip


def test_a_capture_is_summarized_by_provider_scenario_outcome_and_size() -> None:
    entry = describe_capture(VIOLATION, DATA)
    assert (entry.provider, entry.scenario, entry.state, entry.detail) == (
        "openai-chat", "tool-call-violation", "failed", "protocol_error",
    )  # fmt: skip
    assert (entry.frames, entry.size) == (10, 2827)


async def test_the_picker_opens_a_capture_and_escape_comes_back() -> None:
    app = InspectorApp(None, captures=DATA)
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        table = picker.query_one(DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert rows[0] == ["anthropic", "anthropic-text-then-tool", "completed · tool_calls", "14",
                           "1562"]  # fmt: skip
        assert rows[1][1:3] == ["tool-call-violation", "failed · protocol_error"]
        assert "data · 3 streams" in plain(picker.query_one("#picker-title"))
        await pilot.press("down", "enter")
        assert isinstance(app.screen, MainScreen)
        assert app.screen.source == "data/tool-call-violation.jsonl"
        assert "frame 0 of 0–9" in panes(app.screen).status
        await pilot.press("escape")
        assert app.screen is picker
        await pilot.press("q")
    assert app.return_code == 0


async def test_an_empty_folder_says_how_to_open_a_file(tmp_path: object) -> None:
    app = InspectorApp(None, captures=tmp_path)  # type: ignore[arg-type]
    async with app.run_test(size=(120, 20)) as pilot:
        await pilot.pause()
        title = plain(app.screen.query_one("#picker-title"))
        assert "no captures found in" in title and "inspector open PATH" in title


def test_a_path_or_nothing_becomes_the_open_command() -> None:
    assert _with_default_command(["x.sse"]) == ["open", "x.sse"]
    assert _with_default_command([]) == ["open"]
    args = build_parser().parse_args(["open", "x.sse", "--frame", "3", "--keymap", "step.next=j"])
    assert (args.path, args.frame, args.keymap) == ("x.sse", 3, ["step.next=j"])


def test_keymaps_are_id_equals_keys() -> None:
    assert parse_keymap(["step.next=j", " step.previous = k,left "]) == {
        "step.next": "j", "step.previous": "k,left",
    }  # fmt: skip
    assert parse_keymap(["step.next"]) is None


def test_open_has_help_and_refuses_what_it_cannot_open() -> None:
    result = inspector("open", "--help")
    assert result.returncode == 0 and "usage: inspector open" in result.stdout
    result = inspector("open", "no/such/file.sse")
    assert result.returncode == 2 and "no/such/file.sse: no such file" in result.stderr
    result = inspector("open", "--keymap", "nonsense", str(TEXT_THEN_TOOL))
    assert result.returncode == 2 and "expected ID=KEYS" in result.stderr


async def test_the_preview_shows_the_highlighted_capture_and_follows_the_highlight() -> None:
    app = InspectorApp(None, captures=DATA)
    async with app.run_test(size=(200, 50)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        assert picker.query_one("#picker-body").has_class("-wide")
        preview = plain(picker.query_one("#picker-preview"))
        expected = [
            "provider  anthropic", "state     completed · tool_calls",
            "size      14 frames · 1562 bytes", "file      anthropic-text-then-tool.jsonl",
            "first text",
        ]  # fmt: skip
        for words in expected:
            assert words in preview, words
        await pilot.press("down")
        preview = plain(picker.query_one("#picker-preview"))
        assert "provider  openai-chat" in preview and "failed · protocol_error" in preview


async def test_the_title_counts_what_the_filter_lets_through_and_says_when_nothing_does() -> None:
    app = InspectorApp(None, captures=DATA)
    async with app.run_test(size=(120, 30)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        await pilot.press(*"violation")
        title = plain(picker.query_one("#picker-title"))
        assert "1 of 3 streams match violation" in title
        await pilot.press(*"zzz")
        title = plain(picker.query_one("#picker-title"))
        assert "0 of 3 streams match violationzzz" in title
        assert "nothing matches: esc clears the filter" in title
        assert "no capture highlighted" in plain(picker.query_one("#picker-preview"))
        await pilot.press("escape")
        assert "· 3 streams" in plain(picker.query_one("#picker-title"))


async def test_a_scenario_cut_at_80_columns_ends_with_an_ellipsis() -> None:
    app = InspectorApp(None, captures=ROOT / "captures")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        table = picker.query_one(DataTable)
        width = picker._widths["scenario"]
        cut = 0
        for i in range(table.row_count):
            key = table.coordinate_to_cell_key((i, 0)).row_key.value
            whole = picker.entries[str(key)].scenario
            shown = table.get_row_at(i)[1].plain
            if len(whole) > width:
                cut += 1
                assert shown == whole[: width - 1] + "…"
            else:
                assert shown == whole
        assert cut, "some scenario is longer than the column at 80 columns"


async def test_an_outcome_cut_at_80_columns_ends_with_an_ellipsis() -> None:
    app = InspectorApp(None, captures=ROOT / "captures")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, PickerScreen)
        table = picker.query_one(DataTable)
        width = picker._widths["state"]
        cut = 0
        for i in range(table.row_count):
            key = table.coordinate_to_cell_key((i, 0)).row_key.value
            entry = picker.entries[str(key)]
            whole = f"{entry.state} · {entry.detail}" if entry.detail else entry.state
            shown = table.get_row_at(i)[2]
            assert shown.cell_len <= width
            if len(whole) > width:
                cut += 1
                assert shown.plain == whole[: width - 1] + "…"
            else:
                assert shown.plain == whole
        assert cut, "some outcome is longer than the column at 80 columns"
