"""Diff across protocols: one answer from Claude direct (SSE) and on Bedrock invoke is the same.

What differs only because the transport differs — ``stream.start``'s
``framing``, keep-alive heartbeats, the ``seq`` they shift — is set aside;
every part of the answer (provider, model, blocks, text, finish, usage,
warnings, errors) is still compared. The pair in tests/data/cross-protocol is
a real Bedrock body and the same events written as the Anthropic API sends
them (README there).
"""

from __future__ import annotations

import base64
from pathlib import Path

import orjson
import pytest

from inspector.capture import load_recording
from inspector.core.sse import FrameDecoder
from inspector.session import load_trace
from inspector.stream_diff import diff_streams
from inspector.stream_diff_report import report_lines, to_json

from .conftest import ROOT, inspector
from .framing_support import invoke_chunk

PAIR = ROOT / "tests" / "data" / "cross-protocol"
DIRECT = PAIR / "claude-direct.sse"
BEDROCK = PAIR / "claude-bedrock.eventstream"
ANTHROPIC = ROOT / "captures" / "anthropic"


def on_bedrock(capture: Path) -> bytes:
    """An Anthropic capture's events as Bedrock invoke sends them (chunks, no pings)."""
    rec = load_recording(capture)
    decoder = FrameDecoder()
    datas = [f.data for _, d in rec.chunks for f in decoder.feed(d) if f.comment is None]
    return b"".join(
        invoke_chunk(d.encode()) for d in datas if orjson.loads(d).get("type") != "ping"
    )


def test_the_matched_pair_is_the_same_by_events() -> None:
    diff = diff_streams(DIRECT, BEDROCK)
    assert diff.same
    assert (diff.left.framing, diff.right.framing) == ("sse", "aws-eventstream")
    assert (diff.left.set_aside, diff.right.set_aside) == (1, 0)
    lines = report_lines(diff)
    assert (
        "transports differ (sse vs aws-eventstream): framing and keep-alives set aside "
        "(1 heartbeat(s) in A)" in lines
    )
    assert lines[-1] == "same"
    run = inspector("diff", str(DIRECT), str(BEDROCK))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.splitlines()[-1] == "same"


def test_exact_shows_what_the_transports_changed() -> None:
    diff = diff_streams(DIRECT, BEDROCK, exact=True)
    assert diff.first is not None and diff.first.index == 0
    assert diff.first.left is not None and diff.first.right is not None
    assert "framing" not in diff.first.left
    assert diff.first.right["framing"] == "aws-eventstream"
    assert to_json(diff)["b"]["framing"] == "aws-eventstream"


def test_a_real_difference_across_protocols_is_still_found(tmp_path: Path) -> None:
    # Another answer on Bedrock: one text delta differs.
    changed = on_bedrock_text(BEDROCK.read_bytes(), old=" di", new=" da")
    path = tmp_path / "other.eventstream"
    path.write_bytes(changed)
    diff = diff_streams(DIRECT, path)
    assert not diff.same and diff.first is not None
    assert diff.first.left is not None and diff.first.right is not None
    assert (diff.first.left["delta"]["text"], diff.first.right["delta"]["text"]) == (" di", " da")
    assert report_lines(diff)[-1] == "different"


def on_bedrock_text(body: bytes, old: str, new: str) -> bytes:
    from inspector.core.framing import decoder_for

    out = []
    for frame in decoder_for("aws-eventstream").feed(body):
        inner = base64.b64decode(orjson.loads(frame.data)["bytes"])
        event = orjson.loads(inner)
        if event.get("delta", {}).get("text") == old:
            event["delta"]["text"] = new
            inner = orjson.dumps(event)
        out.append(invoke_chunk(inner))
    return b"".join(out)


def test_another_model_on_bedrock_differs_at_the_start(tmp_path: Path) -> None:
    titan = ROOT / "captures" / "bedrock-invoke" / "titan-guardrail-anonymized.jsonl"
    diff = diff_streams(DIRECT, titan)
    assert diff.first is not None and diff.first.index == 0
    assert any("B: stream.start provider=bedrock-titan" in line for line in report_lines(diff))


COMPLETED = sorted(
    p for p in ANTHROPIC.glob("*.jsonl")
    if ".events." not in p.name and load_trace(p).state == "completed"
)  # fmt: skip


@pytest.mark.parametrize("capture", COMPLETED, ids=[p.stem for p in COMPLETED])
def test_every_completed_anthropic_capture_is_the_same_when_bedrock_carries_it(
    capture: Path, tmp_path: Path
) -> None:
    path = tmp_path / f"{capture.stem}.eventstream"
    path.write_bytes(on_bedrock(capture))
    diff = diff_streams(capture, path)
    assert diff.same, report_lines(diff)
    assert diff.right.framing == "aws-eventstream"


def test_within_one_transport_heartbeats_still_count(tmp_path: Path) -> None:
    text = DIRECT.read_text()
    without_ping = text.replace('event: ping\ndata: {"type": "ping"}\n\n', "")
    assert without_ping != text
    path = tmp_path / "no-ping.sse"
    path.write_text(without_ping)
    diff = diff_streams(DIRECT, path)
    assert not diff.same
    assert diff.first is not None and diff.first.left is not None
    assert diff.first.left["type"] == "stream.heartbeat"
