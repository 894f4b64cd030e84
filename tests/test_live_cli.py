"""``inspector serve`` and ``inspector record`` as a user runs them: real processes and sockets."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from inspector.capture import load_recording
from inspector.core.adapters import ADAPTERS as ALL_ADAPTERS
from inspector.library import expand_paths
from inspector.live.providers import PROVIDER_SPECS
from inspector.serve.catalog import stream_name
from inspector.session import load_trace

from .conftest import CAPTURES, ROOT
from .test_live_helpers import CHAT, SECRET_ENV, assert_nothing_holds

#: The adapters of the providers live mode streams (not yet the newer protocols').
ADAPTERS = {name: where for name, where in ALL_ADAPTERS.items() if name in PROVIDER_SPECS}

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env.update(extra)
    return env


def inspector(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env or _environment(),
        timeout=60,
    )


class Served:
    """``inspector serve`` in a child process; ``url`` read from its first line."""

    def __init__(self, *paths: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "inspector", "serve", *map(str, paths),
             "--port", "0", "--speed", "0"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
        )  # fmt: skip
        assert self.process.stdout is not None
        first = self.process.stdout.readline()
        assert first.startswith("serving "), first + self.process.stderr.read()  # type: ignore[union-attr]
        self.url = first.split(" on ")[1].split()[0]

    def stop(self) -> str:
        """Stop with Ctrl+C, as a user would; return what it logged."""
        self.process.send_signal(signal.SIGINT)
        try:
            _, err = self.process.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, err = self.process.communicate()
        return err


@pytest.fixture(scope="module")
def library() -> Iterator[Served]:
    served = Served(CAPTURES, CHAT)
    yield served
    served.stop()


def _one_clean_stream_per_provider() -> list[Path]:
    chosen = []
    for provider in ADAPTERS:
        folder = CAPTURES / provider
        candidates = expand_paths([str(folder)]) if folder.is_dir() else []
        for path in candidates:
            rec = load_recording(path)
            if rec.end is not None and rec.end.reason == "eof" and not rec.end.error:
                chosen.append(path)
                break
    return chosen


ONE_PER_PROVIDER = _one_clean_stream_per_provider()


@pytest.mark.parametrize("path", ONE_PER_PROVIDER, ids=[p.parent.name for p in ONE_PER_PROVIDER])
def test_record_against_serve_reproduces_the_capture(
    library: Served, tmp_path: Path, path: Path
) -> None:
    capture = tmp_path / "recorded.jsonl"
    provider = path.parent.name
    result = inspector("record", "--provider", provider, "--model", stream_name(path),
                       "--prompt", "hi", "--base-url", library.url, "-o", str(capture))  # fmt: skip
    expected = load_trace(path)
    assert result.returncode == (0 if expected.state == "completed" else 1), result.stderr
    assert result.stdout.startswith(expected.state)
    assert f"frames={len(expected.frames)} events={len(expected.events)} " in result.stdout
    assert f"bytes={expected.bytes_received} " in result.stdout
    assert result.stdout.rstrip().endswith(f"capture={capture}")
    assert load_trace(capture).events == expected.events


def test_keys_are_never_written_printed_or_logged(tmp_path: Path) -> None:
    served = Served(CHAT)
    secrets = tuple(SECRET_ENV.values())
    outputs = []
    try:
        for provider in ADAPTERS:
            base = served.url + (
                "?key=" + SECRET_ENV["GEMINI_API_KEY"] if provider == "gemini" else ""
            )
            pasted = f"x-extra-auth: {SECRET_ENV['OPENAI_API_KEY']}"
            result = inspector(
                "record", "--provider", provider, "--model", "openai-text-plain", "--prompt",
                "hi", "--base-url", base, "--header", pasted,
                "-o", str(tmp_path / f"{provider}.jsonl"), env=_environment(**SECRET_ENV),
            )  # fmt: skip
            outputs += [result.stdout, result.stderr]
            header = load_recording(tmp_path / f"{provider}.jsonl").header
            assert header is not None and "key=" not in header["request"]["url"]
            assert "[redacted]" in header["request"]["headers"].values()
    finally:
        outputs.append(served.stop())
    assert_nothing_holds(secrets, tmp_path, *outputs)


def test_a_missing_key_is_a_usage_error_naming_the_variable(tmp_path: Path) -> None:
    result = inspector("record", "--provider", "gemini", "--model", "g", "--prompt", "x",
                       "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    assert result.returncode == 2
    assert "set GEMINI_API_KEY or GOOGLE_API_KEY" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_http_error_exits_1_and_says_what_happened(library: Served, tmp_path: Path) -> None:
    overloaded = library.url + "?status=529"
    result = inspector("record", "--provider", "anthropic", "--model", "x", "--prompt", "hi",
                       "--base-url", overloaded, "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    assert result.returncode == 1
    assert "failed (upstream_overloaded, retryable): HTTP 529: Overloaded" in result.stderr
    assert result.stdout.startswith("failed (upstream_overloaded) frames=0 events=2")
    assert "status=529 retry-after=1 " in result.stdout


def test_ctrl_c_cancels_keeps_the_draft_and_closes_the_capture(
    library: Served, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    stalled = library.url + "?stall=60&stall_at=1500&ping_every=0.05"
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "record", "--provider", "openai-chat",
         "--model", "openai-text-plain", "--prompt", "hi", "--base-url", stalled,
         "-o", str(capture)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=_environment(),
    )  # fmt: skip
    try:
        pause = 0.0
        while not (capture.exists() and b'"type":"chunk"' in capture.read_bytes()):
            assert process.poll() is None, process.communicate()
            assert pause < 30, "no chunk recorded"
            pause += 0.05
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 130, err
    assert out.startswith("interrupted (cancelled) ")
    assert "Traceback" not in err
    rec = load_recording(capture)
    assert rec.end is not None and rec.end.reason == "cancelled"
    trace = load_trace(capture)
    assert any(e["type"] == "block.delta" for e in trace.events)


def test_serve_says_clearly_when_there_is_nothing_to_serve(tmp_path: Path) -> None:
    result = inspector("serve", str(tmp_path), "--port", "0")
    assert result.returncode == 2
    assert "nothing to serve" in result.stderr


def test_serve_says_clearly_when_the_port_is_taken(library: Served) -> None:
    port = library.url.rsplit(":", 1)[1]
    result = inspector("serve", str(CHAT), "--port", port)
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


@pytest.mark.parametrize("command", ["record", "serve"])
def test_help(command: str) -> None:
    result = inspector(command, "--help")
    assert result.returncode == 0
    assert f"usage: inspector {command}" in result.stdout
