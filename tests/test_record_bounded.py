"""Headless ``record`` keeps no history (a summary), and reports exactly what
the retaining trace reports: the same summary line, exit code, problem line and
capture file, for every capture in ``captures/`` replayed by the server and for
a stream ending each way (done, error, HTTP error, reset, transport timeout,
progress timeout, ``--max-bytes``)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from inspector.capture import load_recording
from inspector.core.adapters import ADAPTERS as ALL_ADAPTERS
from inspector.core.summary import Summary
from inspector.core.trace import Trace
from inspector.library import expand_paths
from inspector.live import LiveFeed, build_request
from inspector.live.headless import exit_code, problem_line, summary_line
from inspector.live.options import add_live_arguments, feed_from_args
from inspector.live.providers import PROVIDER_SPECS
from inspector.serve import ReplayServer, load_catalog
from inspector.serve.catalog import stream_name
from inspector.session import guess_provider

from .conftest import CAPTURES, ROOT
from .test_live_helpers import CHAT

#: The adapters of the providers live mode streams (not yet the newer protocols').
ADAPTERS = {name: where for name, where in ALL_ADAPTERS.items() if name in PROVIDER_SPECS}

#: Parts of the summary that are wall-clock times, or where this run's capture went.
_VARYING = re.compile(r" (first_content|last_byte)=\S+s| capture=\S+")


def _captures() -> list[Path]:
    found = []
    for provider in sorted(ADAPTERS):
        folder = CAPTURES / provider
        if folder.is_dir():
            found.extend(Path(p) for p in expand_paths([str(folder)]))
    return found


CAPTURE_FILES = _captures()


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[Path, ReplayServer]]:
    """A replay server per folder (names are unique within a folder), started on demand."""
    running: dict[Path, ReplayServer] = {}
    yield running
    for server in running.values():
        server.stop()


def _url(servers: dict[Path, ReplayServer], folder: Path) -> str:
    if folder not in servers:
        servers[folder] = ReplayServer(load_catalog([folder]), speed=0).start()
    return servers[folder].url


async def _record(
    url: str, provider: str, model: str, capture: Path, keep_history: bool, **options: Any
) -> LiveFeed:
    fault = options.pop("fault", None)
    headers = [("X-Inspector-Fault", fault)] if fault else []
    request = build_request(provider, model=model, prompt="hi", base_url=url, headers=headers)
    feed = LiveFeed(request, capture=capture, keep_history=keep_history, **options)
    await feed.run(lambda: None)
    return feed


def _report(feed: LiveFeed) -> dict[str, Any]:
    """Everything headless ``record`` prints, returns and writes (wall-clock times aside)."""
    assert feed.sink.path is not None
    rec = load_recording(feed.sink.path)
    header = {k: v for k, v in (rec.header or {}).items() if k not in ("recorded_at", "timings")}
    response = header.get("response") or {}
    if "headers" in response:  # the server's clock: the two runs may straddle a second
        response["headers"] = {k: v for k, v in response["headers"].items() if k != "date"}
    return {
        "summary": _VARYING.sub("", summary_line(feed)),
        "exit": exit_code(feed.trace, capped=feed.capped),
        "problem": problem_line(feed),
        "timings": sorted(feed.exchange["timings"]),
        "header": header,
        "body": rec.body,
        "end": (rec.end.reason, rec.end.error) if rec.end else None,
    }


async def _both(tmp_path: Path, url: str, provider: str, model: str, **options: Any) -> Any:
    full = await _record(url, provider, model, tmp_path / "full.jsonl", True, **dict(options))
    bounded = await _record(url, provider, model, tmp_path / "bounded.jsonl", False, **options)
    assert isinstance(bounded.trace, Summary)
    assert not isinstance(full.trace, Summary)
    return full, bounded


@pytest.mark.parametrize(
    "path", CAPTURE_FILES, ids=[f"{p.parent.name}/{p.name}" for p in CAPTURE_FILES]
)
async def test_record_without_history_reports_what_record_with_history_reports(
    path: Path, servers: dict[Path, ReplayServer], tmp_path: Path
) -> None:
    provider = guess_provider(load_recording(path))
    assert provider is not None
    url = _url(servers, path.parent)
    full, bounded = await _both(tmp_path, url, provider, stream_name(path))
    assert _report(bounded) == _report(full)


ENDINGS = {
    "http error": {"fault": "status=429"},
    "reset": {"fault": "reset=900"},
    "dropped": {"fault": "drop=700"},
    "cut short": {"fault": "cut=1000; chunk=7"},
    "transport timeout": {"fault": "stall=5; stall_at=800; ping_every=0", "transport_timeout": 0.3},
    # Silent, so the bytes received do not depend on how many pings fit in the wait.
    "progress timeout": {"fault": "stall=5; stall_at=800; ping_every=0", "progress_timeout": 0.3},
    "max bytes": {"max_bytes": 600, "fault": "chunk=50"},
    "done, one byte a chunk": {"fault": "chunk=1"},
}


@pytest.mark.parametrize("how", list(ENDINGS))
async def test_every_way_a_stream_ends_is_reported_the_same_without_history(
    how: str, tmp_path: Path
) -> None:
    path = Path(expand_paths([str(CHAT)])[0])
    with ReplayServer(load_catalog([CHAT]), speed=0) as server:
        full, bounded = await _both(
            tmp_path, server.url, "openai-chat", stream_name(path), **ENDINGS[how]
        )
    assert _report(bounded) == _report(full)
    if how != "done, one byte a chunk":
        assert _report(bounded)["exit"] == 1


async def test_first_content_is_when_the_frame_with_the_first_delta_arrived(
    tmp_path: Path,
) -> None:
    path = Path(expand_paths([str(CHAT)])[0])
    with ReplayServer(load_catalog([CHAT]), speed=0) as server:
        feed = await _record(
            server.url, "openai-chat", stream_name(path), tmp_path / "c.jsonl", True,
            fault="chunk=3",
        )  # fmt: skip
    trace = feed.trace
    assert isinstance(trace, Trace)
    first = next(i for i in range(len(trace.events)) if trace.events.type_of(i) == "block.delta")
    frame_time = trace.frames.time_of(trace.event_frame[first])
    assert feed.exchange["timings"]["first_content"] == round(frame_time, 6)


def test_the_record_command_builds_a_feed_without_history(tmp_path: Path) -> None:
    parser = argparse.ArgumentParser()
    add_live_arguments(parser)
    args = parser.parse_args(
        ["--provider", "openai-chat", "--model", "m", "--prompt", "hi",
         "--base-url", "http://127.0.0.1:9",
         "-o", str(tmp_path / "c.jsonl")]
    )  # fmt: skip
    assert isinstance(feed_from_args(args, {}, keep_history=False).trace, Summary)
    assert not isinstance(feed_from_args(args, {}).trace, Summary)


def test_the_memory_benchmark_measures_record_and_the_proxy() -> None:
    from benchmarks.bench_record_memory import Code, measure, table

    rows = measure([200_000], [Code("after", ROOT)], proxy=True)
    assert set(rows[0].peaks) == {"record after", "proxy after"}
    assert all(peak > 10_000 for peak in rows[0].peaks.values())  # KiB: a Python process
    assert table(rows)[0] == "| stream | record after (MB) | proxy after (MB) |"
