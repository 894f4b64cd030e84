"""What ``inspector export`` prints about a file never lets its name act on the terminal.

A capture's file name is untrusted: an escape sequence in it could retitle
the window, clear the screen or fake a line of output. Everything the
command prints — the summary of an export, the reason one failed — shows
such characters as visible escapes (``\\x1b``, ``\\n``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ..conftest import DATA, ROOT

SOURCE = DATA / "export" / "anthropic-planted.jsonl"
HOSTILE = "evil\x1b]0;owned\x07\x1b[2J\nexported 9 of 9 files\u202e"


def run_export(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", "export", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip


def assert_inert(text: str) -> None:
    for char in ("\x1b", "\x07", "\u202e"):
        assert char not in text
    assert "exported 9 of 9" not in text.splitlines()  # no faked line of its own


def test_the_summary_of_an_export_escapes_the_file_name(tmp_path: Path) -> None:
    source = tmp_path / (HOSTILE + ".jsonl")
    shutil.copyfile(SOURCE, source)
    done = run_export(str(source), "-o", str(tmp_path / "out"), "--pytest")
    assert done.returncode == 0, done.stderr
    assert_inert(done.stdout + done.stderr)
    assert "evil\\x1b]0;owned\\x07" in done.stdout


def test_the_reason_an_export_failed_escapes_the_file_name(tmp_path: Path) -> None:
    source = tmp_path / (HOSTILE + ".jsonl")
    source.write_bytes(SOURCE.read_bytes().splitlines()[0] + b"\n{not a record\n")
    done = run_export(str(source), "-o", str(tmp_path / "out"))
    assert done.returncode == 1
    assert_inert(done.stdout + done.stderr)
    assert "evil\\x1b" in done.stderr
