"""Shared pieces of the harness tests: a reduced matrix on a few bundled captures."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.capture import load_recording
from inspector.harness.scenario import Base, base_of

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "captures"
CHAT = LIBRARY / "openai-chat"
#: One capture of each shape the mutations care about: text, a tool call, an error.
SMALL = ("text-simple", "tool-call-fragmented", "error-after-partial-text")
#: Quick enough for tests; the docs run uses the defaults.
TIMEOUT = 0.25
MARGIN = 0.6


def base(path: Path) -> Base:
    found = base_of(load_recording(path), path)
    assert found is not None, path
    return found


def library_bases() -> list[Base]:
    """Every bundled capture the harness plays (event streams of a known provider)."""
    paths = sorted(
        p
        for p in LIBRARY.glob("*/*")
        if p.suffix in (".jsonl", ".sse") and not p.name.endswith(".events.jsonl")
    )
    found = [base_of(load_recording(p), p) for p in paths]
    return [b for b in found if b is not None]


def _chat_chunk(delta: dict, finish: str | None = None) -> bytes:
    import orjson

    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "chatcmpl-toy", "object": "chat.completion.chunk", "choices": [choice]}
    return b"data: " + orjson.dumps(body) + b"\r\n\r\n"


@pytest.fixture(scope="session")
def unicode_capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Chat stream with multi-byte characters on the wire and CRLF line ends."""
    from inspector.capture_writer import CaptureWriter

    path = tmp_path_factory.mktemp("captures") / "unicode-crlf.jsonl"
    writer = CaptureWriter(path, {"provider": "openai-chat", "model": "gpt-toy"})
    for piece in ("Проверяю ", "расписание — ", "東京 🙂"):
        writer.chunk(0.0, _chat_chunk({"content": piece}))
    writer.chunk(0.0, _chat_chunk({}, "stop"))
    writer.chunk(0.0, b"data: [DONE]\r\n\r\n")
    writer.end("eof", 0.0)
    return path


@pytest.fixture(scope="session")
def small_bases(unicode_capture: Path) -> list[Base]:
    return [base(CHAT / f"{name}.jsonl") for name in SMALL] + [base(unicode_capture)]
