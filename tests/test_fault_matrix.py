"""The fault matrix: every fault, over real loopback HTTP, ends in the right state and category.

Each row names a recorded stream, the faults the replay server is asked for,
and the terminal state and category live mode must reach. For every row the
capture on disk must hold every byte the client received — which, except for
the keep-alives of a stall, is exactly what the server's plan sent — and must
reopen to the same ending.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import orjson
import pytest

from inspector.capture import load_recording
from inspector.live import LiveFeed
from inspector.serve import ReplayServer, load_catalog, parse_faults, plan
from inspector.serve.app import COMMENT_KEEPALIVE, KEEPALIVES
from inspector.serve.catalog import stream_name
from inspector.serve.errors import error_body
from inspector.serve.faults import Send, Stall
from inspector.session import load_trace

from .golden import terminal_of
from .test_live_helpers import CHAT, REAL, record_live, without_ids

TEXT = CHAT / "openai-text-plain.sse"
TOOL = CHAT / "openai-tool-call-fragmented.sse"
CLAUDE = REAL / "anthropic" / "text-basic.sse"


def _middle_of_frame(path: Path, number: int) -> int:
    """A byte offset in the middle of the ``number``-th event (1-based) of a raw file."""
    body = path.read_bytes()
    start = 0
    for _ in range(number - 1):
        start = body.index(b"\n\n", start) + 2
    return start + (body.index(b"\n\n", start) - start) // 2


def _draft_text_is_kept(feed: LiveFeed) -> None:
    assert any(e["type"] == "block.delta" for e in feed.trace.events)
    assert "still open: b_0 text (content is a draft)" in _message(feed)


def _draft_arguments_are_kept(feed: LiveFeed) -> None:
    arguments = "".join(e["delta"]["text"] for e in feed.trace.events if e["type"] == "block.delta")
    assert arguments.startswith("{")
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(arguments)  # a fragment: never to be used as a result
    assert "still open: b_0 tool_call" in _message(feed)


def _done_never_came(feed: LiveFeed) -> None:
    assert "finish_reason 'stop' arrived but [DONE] never did" in _message(feed)


def _pings_did_not_count(feed: LiveFeed) -> None:
    assert any(e["type"] == "stream.heartbeat" for e in feed.trace.events)
    assert "no meaningful frame for 0.5 s (pings and comments do not count)" in _message(feed)


def _silence_timed_out(feed: LiveFeed) -> None:
    assert feed.trace.transport_end is not None
    assert feed.trace.transport_end.reason == "timeout"


def _one_byte_at_a_time(feed: LiveFeed) -> None:
    # One byte per chunk, except where the scrubber held a byte back as the
    # possible start of a spelling of the key: that one goes out with the next.
    sizes = [len(chunk.data) for chunk in feed.trace.chunks]
    assert sizes.count(1) > len(sizes) // 2 and max(sizes) <= 1 + feed.scrubber.max_hold
    assert without_ids(feed.trace.events) == without_ids(load_trace(TEXT).events)


def _closed_after_done(feed: LiveFeed) -> None:
    assert feed.trace.transport_end is not None
    assert feed.trace.transport_end.reason == "progress_timeout"


def _message(feed: LiveFeed) -> str:
    terminal = feed.trace.terminal_event
    assert terminal is not None and terminal["type"] == "stream.error"
    return str(terminal["error"]["message"])


@dataclass(frozen=True)
class Row:
    """One fault and the ending it must produce."""

    source: Path
    provider: str
    faults: dict[str, object]
    ending: tuple[str, str]
    check: Callable[[LiveFeed], None] | None = None
    timeouts: dict[str, float] = field(default_factory=dict)


MATRIX: dict[str, Row] = {
    "reset mid-text": Row(
        TEXT, "openai-chat", {"reset": _middle_of_frame(TEXT, 4)},
        ("interrupted", "transport"), _draft_text_is_kept,
    ),
    "connection dropped mid-text": Row(
        TEXT, "openai-chat", {"drop": _middle_of_frame(TEXT, 6)},
        ("interrupted", "transport"), _draft_text_is_kept,
    ),
    "reset mid-tool-arguments": Row(
        TOOL, "openai-chat", {"reset": _middle_of_frame(TOOL, 5)},
        ("interrupted", "transport"), _draft_arguments_are_kept,
    ),
    "cut before the terminal frame": Row(
        TEXT, "openai-chat", {"cut": TEXT.read_bytes().index(b"data: [DONE]")},
        ("interrupted", "transport"), _done_never_came,
    ),
    "stall with comment pings past the progress timeout": Row(
        TEXT, "openai-chat",
        {"stall": 30, "stall_at": _middle_of_frame(TEXT, 5), "ping_every": 0.05},
        ("interrupted", "progress_timeout"), _pings_did_not_count,
        {"progress_timeout": 0.5},
    ),
    "stall with provider pings past the progress timeout": Row(
        CLAUDE, "anthropic",
        {"stall": 30, "stall_at": _middle_of_frame(CLAUDE, 4), "ping_every": 0.05},
        ("interrupted", "progress_timeout"), _pings_did_not_count,
        {"progress_timeout": 0.5},
    ),
    "silent stall past the transport timeout": Row(
        TEXT, "openai-chat",
        {"stall": 30, "stall_at": _middle_of_frame(TEXT, 5), "ping_every": 0},
        ("interrupted", "transport"), _silence_timed_out,
        {"transport_timeout": 0.5},
    ),
    "429 before the stream": Row(
        TEXT, "openai-chat", {"status": 429}, ("failed", "rate_limited"),
    ),
    "529 before the stream": Row(
        CLAUDE, "anthropic", {"status": 529}, ("failed", "upstream_overloaded"),
    ),
    "rechunk to 1 byte": Row(
        TEXT, "openai-chat", {"chunk": 1}, ("completed", "stop"), _one_byte_at_a_time,
    ),
    "connection kept open after [DONE]": Row(
        TEXT, "openai-chat", {"stall": 30, "stall_at": 10**9, "ping_every": 0.05},
        ("completed", "stop"), _closed_after_done,
        {"after_terminal_grace": 0.2},
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def servers() -> Iterator[dict[Path, ReplayServer]]:
    running = {folder: ReplayServer(load_catalog([folder]), speed=0).start()
               for folder in {row.source.parent for row in MATRIX.values()}}  # fmt: skip
    yield running
    for server in running.values():
        server.stop()


def _what_the_server_sends(row: Row) -> tuple[bytes, bytes | None]:
    """(the bytes the plan sends, the keep-alive a stall repeats between them or None)."""
    faults = parse_faults({k: str(v) for k, v in row.faults.items()})
    ping = KEEPALIVES.get(row.provider, COMMENT_KEEPALIVE)
    if faults.status is not None:
        return orjson.dumps(error_body(row.provider, faults.status)), None
    steps = plan(load_recording(row.source).chunks, faults, speed=0, ping=ping)
    stall = next((i for i, s in enumerate(steps) if isinstance(s, Stall)), len(steps))
    before = b"".join(s.data for s in steps[:stall] if isinstance(s, Send))
    return before, (ping if stall < len(steps) else None)


@pytest.mark.parametrize("name", MATRIX)
async def test_fault_ends_in_the_right_state_with_every_byte_recorded(
    name: str, servers: dict[Path, ReplayServer], tmp_path: Path
) -> None:
    row = MATRIX[name]
    capture = tmp_path / "fault.jsonl"
    url = f"{servers[row.source.parent].url}?{urlencode(row.faults)}"
    options = {"transport_timeout": 10.0, "progress_timeout": 10.0, **row.timeouts}

    feed = await record_live(url, row.provider, stream_name(row.source), capture, **options)

    assert terminal_of(feed.trace) == row.ending
    if row.check is not None:
        row.check(feed)
    recorded = load_recording(capture)
    assert recorded.body == b"".join(chunk.data for chunk in feed.trace.chunks)
    sent, keepalive = _what_the_server_sends(row)
    if keepalive is None:
        assert recorded.body == sent
    else:
        assert recorded.body.startswith(sent)
        pings = recorded.body[len(sent) :]
        assert pings == keepalive * (len(pings) // len(keepalive))
    assert terminal_of(load_trace(capture)) == row.ending
