"""``inspector diff A B``: two streams compared by their normalized events."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from inspector.session import load_trace
from inspector.stream_diff import DiffInputError, diff_streams, first_divergence
from inspector.stream_diff_report import report_lines

from .conftest import CAPTURES, ROOT, inspector

TOOL = CAPTURES / "anthropic" / "tool-call-fragmented-json.jsonl"
CUT = CAPTURES / "anthropic" / "max-tokens-cuts-tool-call.jsonl"
CASSETTE = ROOT / "tests" / "fixtures" / "cassettes" / "anthropic-text.llm-anthropic.yaml"
HAR = ROOT / "tests" / "fixtures" / "har" / "chrome-shape-anthropic.har"


def test_a_capture_is_the_same_as_itself() -> None:
    diff = diff_streams(TOOL, TOOL)
    assert diff.same
    assert diff.first is None
    assert diff.blocks == []


@pytest.mark.parametrize(
    "capture", sorted(p for p in CAPTURES.rglob("*.jsonl") if not p.name.endswith(".events.jsonl"))
)
def test_every_library_capture_is_the_same_as_its_golden(capture: Path) -> None:
    golden = capture.with_name(capture.name.removesuffix(".jsonl") + ".events.jsonl")
    diff = diff_streams(capture, golden, exact=True)
    assert diff.same, report_lines(diff)
    assert diff.timing[1] is None  # a golden keeps no timing


def test_two_different_captures_name_the_first_divergence_and_both_events() -> None:
    diff = diff_streams(TOOL, CUT)
    assert not diff.same
    assert diff.first is not None
    left = list(load_trace(TOOL).events)
    right = list(load_trace(CUT).events)
    assert diff.first.index == 9
    assert diff.first.left == left[9]
    assert diff.first.right == right[9]
    assert (left[9]["type"], right[9]["type"]) == ("block.delta", "stream.error")
    assert diff.terminal == (
        {"state": "completed", "finish_reason": "tool_calls", "provider_finish_reason": "tool_use"},
        {"state": "failed", "category": "protocol_error", "provider_code": "max_tokens"},
    )
    assert diff.usage[1] is None
    assert diff.blocks == [
        "b_1 tool_call get_weather: arguments (not both valid JSON): different from character 15: "
        '\'…ocation": "Paris"}\' vs \'…ocation": "P\' (21 vs 15 characters); closed vs left open'
    ]


def test_the_timing_shape_is_reported_and_never_compared() -> None:
    diff = diff_streams(CASSETTE, HAR)
    assert diff.same  # same stream, one from a cassette and one from a HAR
    a, b = diff.timing
    assert a is not None and b is not None
    assert (a.timed, a.chunks, a.frames) == (False, 1, 10)
    tool = diff_streams(TOOL, TOOL).timing[0]
    assert tool is not None and tool.timed
    assert (round(tool.ttft * 1000), round(tool.total * 1000), tool.chunks) == (457, 824, 14)
    assert tool.max_gap is not None and tool.max_gap > 0


def test_ids_and_raw_usage_are_ignored_unless_exact() -> None:
    base = [{"stream_id": "st_1", "seq": 1, "type": "stream.done", "response_id": "msg_a",
             "usage": {"output_tokens": 3, "raw": {"x": 1}}}]  # fmt: skip
    other = [{"stream_id": "st_2", "seq": 1, "type": "stream.done", "response_id": "msg_b",
              "usage": {"output_tokens": 3, "raw": {"x": 2}}}]  # fmt: skip
    assert first_divergence(base, other) is None
    divergence = first_divergence(base, other, exact=True)
    assert divergence is not None and divergence.index == 0
    fewer = first_divergence(base, [])
    assert fewer is not None and fewer.right is None


def test_text_differences_say_where_the_text_parts(tmp_path: Path) -> None:
    def stream(text: str) -> bytes:
        return (
            b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":'
            + orjson.dumps(text)
            + b'},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        )

    (tmp_path / "a.sse").write_bytes(stream("The capital of France is Paris."))
    (tmp_path / "b.sse").write_bytes(stream("The capital of France is Lyon."))
    diff = diff_streams(tmp_path / "a.sse", tmp_path / "b.sse")
    assert diff.first is not None and diff.first.index == 2
    assert diff.blocks == [
        "b_0 text: text: different from character 25: '…f France is Paris.' vs "
        "'…f France is Lyon.' (31 vs 30 characters)"
    ]


def test_cli_exit_codes_same_different_unreadable(tmp_path: Path) -> None:
    same = inspector(
        "diff", str(TOOL), str(TOOL.with_name("tool-call-fragmented-json.events.jsonl"))
    )
    assert same.returncode == 0, same.stderr
    assert same.stdout.splitlines()[-1] == "same"
    different = inspector("diff", str(TOOL), str(CUT))
    assert different.returncode == 1
    assert "first divergence at event 10 (seq 10):" in different.stdout
    assert "  B: stream.error status=failed protocol_error (max_tokens)" in different.stdout
    assert different.stdout.splitlines()[-1] == "different"
    missing = inspector("diff", str(TOOL), str(tmp_path / "nope.jsonl"))
    assert missing.returncode == 2
    assert "nope.jsonl" in missing.stderr and "Traceback" not in missing.stderr
    bad = tmp_path / "bad.events.jsonl"
    bad.write_text('{"type": "stream.start", "seq": 1}\nnot json\n')
    assert inspector("diff", str(TOOL), str(bad)).returncode == 2


def test_cli_json_output_carries_the_divergence() -> None:
    result = inspector("diff", str(TOOL), str(CUT), "--json")
    assert result.returncode == 1
    (report,) = [orjson.loads(line) for line in result.stdout.splitlines()]
    assert report["same"] is False
    assert report["first_divergence"]["index"] == 9
    assert report["first_divergence"]["b"]["type"] == "stream.error"
    assert report["terminal"]["b"]["category"] == "protocol_error"


def test_untrusted_text_in_a_diff_is_escaped(tmp_path: Path) -> None:
    evil = "\x1b]52;c;cGF3bmVk\x07 \u202eevil"

    def stream(text: str) -> bytes:
        return (
            b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":'
            + orjson.dumps(text)
            + b'},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
        )

    (tmp_path / "a.sse").write_bytes(stream("fine"))
    (tmp_path / "b\x1b[2J.sse").write_bytes(stream(evil))
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "diff", str(tmp_path / "a.sse"),
         str(tmp_path / "b\x1b[2J.sse")],
        capture_output=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert result.returncode == 1
    assert b"\x1b" not in result.stdout and b"\x07" not in result.stdout
    assert "\u202e".encode() not in result.stdout


def test_an_unreadable_side_raises_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DiffInputError, match="cannot read"):
        diff_streams(TOOL, tmp_path / "missing.jsonl")


async def test_the_diff_screen_marks_the_first_divergence_and_keeps_both_lists_together() -> None:
    from textual.widgets import DataTable

    from inspector.tui.screens.diff import DiffApp

    app = DiffApp(diff_streams(TOOL, CUT))
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        left = screen.query_one("#diff-a", DataTable)
        right = screen.query_one("#diff-b", DataTable)
        assert (left.cursor_row, right.cursor_row) == (9, 9)
        marker, kind, _ = right.get_row_at(9)
        assert (marker.plain, kind.plain) == ("▶10", "stream.error")
        assert left.get_row_at(9)[0].plain == "▶10"
        assert left.get_row_at(8)[0].plain == " 9"
        await pilot.press("down")
        await pilot.pause()
        assert (left.cursor_row, right.cursor_row) == (10, 10)
        await pilot.press("d")
        await pilot.pause()
        assert (left.cursor_row, right.cursor_row) == (9, 9)
        await pilot.press("up", "up", "up")
        await pilot.pause()
        assert (left.cursor_row, right.cursor_row) == (6, 6)
        await pilot.press("n")
        await pilot.pause()
        assert (left.cursor_row, right.cursor_row) == (9, 9)
        await pilot.press("n")
        await pilot.pause()
        assert (left.cursor_row, right.cursor_row) == (10, 10)
