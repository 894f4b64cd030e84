"""Frames pane rows that tell frames apart.

* The event column abbreviates per provider (``content_block_start`` →
  ``cb.start``), and the abbreviations stay distinct over every event name
  in the captures and the real fixtures; unknown names are shown whole, or
  cut from the left.
* The preview shows what the frame carries (delta text, argument fragment,
  finish reason, error message), JSON-quoted, so OpenAI Chat rows — all
  ``message`` — differ by it.
* Untimed captures (raw ``.sse``) show ``—``, never a fake ``0``.
* Rows render lazily: a step computes previews only for visible rows.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import orjson
import pytest

from inspector.session import load_trace
from inspector.tui.screens.main import MainScreen
from inspector.viewmodel import rows as rows_module
from inspector.viewmodel.index import TraceIndex
from inspector.viewmodel.labels import LABEL_WIDTH, frame_label, short_label
from inspector.viewmodel.previews import frame_preview
from inspector.viewmodel.rows import frame_header, frame_row

from ..conftest import CAPTURES, ROOT
from .helpers import REAL, app_for

SIZE = (200, 50)
STREAMS = sorted(
    p for p in CAPTURES.glob("*/*.jsonl") if not p.name.endswith(".events.jsonl")
) + sorted(REAL.glob("*/*.sse"))


def labels_by_provider() -> dict[str, set[str]]:
    found: dict[str, set[str]] = defaultdict(set)
    for path in STREAMS:
        trace = load_trace(path)
        for frame in trace.frames:
            found[str(trace.provider)].add(frame_label(frame))
    return found


def test_abbreviations_are_distinct_over_every_event_name_in_the_library() -> None:
    found = labels_by_provider()
    assert {"anthropic", "openai-chat", "openai-responses", "gemini"} <= set(found)
    assert sum(len(names) for names in found.values()) > 60
    for provider, names in found.items():
        shown: dict[str, str] = {}
        for name in sorted(names):
            short = short_label(provider, name)
            assert len(short) <= LABEL_WIDTH, (provider, name, short)
            assert shown.setdefault(short, name) == name, (provider, name, shown[short])


def test_abbreviations_are_distinct_over_every_name_the_responses_adapter_knows() -> None:
    # Names the adapter handles but no capture has yet (shell calls, compaction, …).
    adapters = ROOT / "inspector" / "core" / "adapters"  # the adapter and its tables
    source = "".join(path.read_text() for path in adapters.glob("openai_responses*.py"))
    known = set(re.findall(r'"(response\.[a-z_]+(?:\.[a-z_]+)*)"', source))
    assert len(known) > 50
    # Every name the adapter knows fits the column whole (no "…").
    assert all("…" not in short_label("openai-responses", name) for name in known)
    names = known | labels_by_provider()["openai-responses"]
    assert len({short_label("openai-responses", name) for name in names}) == len(names)


def test_the_names_that_used_to_look_alike_no_longer_do() -> None:
    assert short_label("anthropic", "content_block_start") == "cb.start"
    assert short_label("anthropic", "content_block_stop") == "cb.stop"
    assert short_label("anthropic", "message_delta") == "msg.delta"
    assert short_label("openai-responses", "response.output_text.delta") == "text.delta"
    assert short_label("openai-responses", "response.function_call_arguments.done") == "args.done"
    assert short_label("openai-responses", "response.completed") == "resp.completed"
    assert short_label("openai-responses", "response.failed") == "resp.failed"


def test_an_unknown_name_never_takes_the_look_of_a_known_one() -> None:
    known = short_label("openai-responses", "response.output_text.delta")
    assert short_label("openai-responses", "response.text.delta") != known
    assert short_label("openai-responses", "response.resp.completed") != "resp.completed"
    assert short_label("openai-responses", "response.audio.delta") == "audio.delta"


def test_unknown_names_are_shown_whole_or_cut_from_the_left() -> None:
    assert short_label("anthropic", "vendor_extension") == "vendor_extension"
    assert short_label("openai-chat", "x-proxy-metrics") == "x-proxy-metrics"
    long = "response.moderation.checked_and_more"
    assert short_label("openai-responses", long) == "…hecked_and_more"
    shown = short_label("gemini", "a_very_long_unknown_event_name")
    assert shown.startswith("…") and shown.endswith("event_name") and len(shown) == LABEL_WIDTH


def preview(index: TraceIndex, frame: int) -> str:
    header = frame_header(index).plain
    return frame_row(index, frame, False).plain[header.index("data") :]


def carried(value: object) -> object:
    if isinstance(value, dict):
        return {k: carried(v) for k, v in value.items() if v not in (None, "", [], {})}
    if isinstance(value, list):
        return [carried(v) for v in value]
    return value


# Several choices (v1.1): the preview names a chunk's choice, so their rows differ too.
_SEVERAL = "openai-chat/several-choices-*.jsonl"


def test_openai_chat_rows_differ_by_what_their_frame_carries() -> None:
    _rows_differ(p for p in CAPTURES.glob("openai-chat/*.jsonl") if not p.match(_SEVERAL))


def test_openai_chat_rows_of_several_choices_differ_by_their_choice() -> None:
    _rows_differ(CAPTURES.glob(_SEVERAL))


def _rows_differ(paths: Iterable[Path]) -> None:
    for path in sorted(paths):
        if path.name.endswith(".events.jsonl"):
            continue
        index = TraceIndex(load_trace(path))
        seen: dict[str, bytes] = {}
        for i in range(index.n_frames):
            f = index.trace.frames[i]
            if f.comment is not None or not f.data.startswith("{"):
                continue
            shown = preview(index, i)
            assert not shown.startswith('{"id"'), (path.name, i, shown)
            try:
                value = orjson.loads(f.data)
            except orjson.JSONDecodeError:
                assert shown.startswith("invalid JSON"), (path.name, i, shown)
                continue
            # What a chunk carries: its choices, usage and error (not its id or
            # clock), minus empty values (``""``, ``null``, ``[]``) that carry nothing.
            payload = orjson.dumps(
                carried([value.get("choices"), value.get("usage"), value.get("error")]),
                option=orjson.OPT_SORT_KEYS,
            )
            assert seen.setdefault(shown, payload) == payload, (path.name, i, shown)


@pytest.mark.parametrize(
    ("path", "frame", "expected"),
    [
        ("anthropic/tool-call-fragmented-json.jsonl", 8, '[1] · json "{\\"locati"'),
        ("anthropic/tool-call-fragmented-json.jsonl", 13, "stop_reason tool_use · usage out 65"),
        ("anthropic/overloaded-after-text.jsonl", 6, "overloaded_error: Overloaded"),
        ("openai-chat/text-simple.jsonl", 0, 'role assistant · ""'),
        ("openai-chat/text-simple.jsonl", 9, "finish stop"),
        ("openai-chat/reasoning-then-tool-call.jsonl", 0, 'role assistant · reasoning "First"'),
        ("openai-responses/text-then-tool.jsonl", 22,
         "[2] · function_call · get_capital · in_progress"),
        ("gemini/text-several-objects.jsonl", 2,
         '" is Paris.\\n" · finish STOP · usage in 13 out 8'),
    ],
)  # fmt: skip
def test_the_preview_shows_the_field_that_matters(path: str, frame: int, expected: str) -> None:
    index = TraceIndex(load_trace(CAPTURES / path))
    assert preview(index, frame).rstrip() == expected


def test_whitespace_only_text_is_quoted_and_said_to_be_whitespace() -> None:
    index = TraceIndex(load_trace(REAL / "openai-chat" / "crusoe-text.sse"))
    assert preview(index, 3).rstrip() == '" " (whitespace)'


def test_an_untimed_capture_shows_no_time_and_a_timed_one_does() -> None:
    untimed = TraceIndex(load_trace(REAL / "anthropic" / "tool-use-json-fragments.sse"))
    assert not untimed.timed
    assert all(frame_row(untimed, i, False).plain.split()[1:3] == ["—", "—"] for i in range(3))
    assert untimed.frame_time(2) is None and untimed.time_to_first_content() is None
    assert untimed.max_gap_or_none is None
    timed = TraceIndex(load_trace(CAPTURES / "anthropic" / "tool-call-fragmented-json.jsonl"))
    assert timed.timed and frame_row(timed, 1, False).plain.split()[1:3] == ["430", "11"]


async def test_the_frame_detail_of_an_untimed_capture_says_untimed() -> None:
    app = app_for(REAL / "anthropic" / "tool-use-json-fragments.sse")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n")
        heading = app.screen.query_one("#frame-heading").render()
        assert str(heading).startswith("frame 1 · content_block_start · untimed")


def big_capture(path: Path, deltas: int) -> Path:
    body = [
        b'event: message_start\ndata: {"type":"message_start","message":{"model":"m"}}\n\n',
        b'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        b'"content_block":{"type":"text","text":""}}\n\n',
    ]
    delta = (
        b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        b'"delta":{"type":"text_delta","text":"x"}}\n\n'
    )
    path.write_bytes(b"".join(body) + delta * deltas)
    return path


async def test_a_step_computes_previews_only_for_rows_on_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[int] = []
    real = rows_module.frame_preview

    def counting(provider: str | None, label: str, data: str) -> object:
        calls.append(1)
        return real(provider, label, data)

    monkeypatch.setattr(rows_module, "frame_preview", counting)
    app = app_for(big_capture(tmp_path / "big.sse", 5000))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert len(calls) < 100  # the first screen: tens of rows, not 5,000
        calls.clear()
        await pilot.press("n")
        assert len(calls) <= 2  # the old and the new cursor row
        calls.clear()
        await pilot.press("end")
        assert len(calls) < 100


@pytest.mark.parametrize(
    ("provider", "label", "data"),
    [
        ("anthropic", "content_block_delta",
         '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":null}}'),
        ("anthropic", "content_block_start",
         '{"type":"content_block_start","index":"x","content_block":{"type":"text","text":{"a":1}}}'),
        ("openai-chat", "message", '{"choices":[{"delta":{"content":null,"tool_calls":[null]}}]}'),
        ("openai-chat", "message", '{"choices":"nope","usage":{"prompt_tokens":null}}'),
        ("openai-responses", "response.output_text.delta", '{"delta":{"x":[true,false]}}'),
        ("gemini", "message", '{"candidates":[{"content":{"parts":[{"text":null},7]}}]}'),
        ("gemini", "message", '{"error":{"code":429,"message":null,"status":"RESOURCE"}}'),
        ("gemini", "message", "[1, 2]"),
    ],
)  # fmt: skip
def test_frames_of_unexpected_shape_preview_in_json_notation(
    provider: str, label: str, data: str
) -> None:
    shown = frame_preview(provider, label, data).text.plain
    assert shown
    assert not re.search(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['", shown), shown
