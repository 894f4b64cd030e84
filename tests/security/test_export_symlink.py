"""Export never writes through a symbolic link planted in (or on the way to) its output folder.

Output names are predictable (``NAME.jsonl``, ``test_NAME.py``), so in a
shared folder someone can plant ``NAME.jsonl -> ~/.bashrc`` before the
export runs. Each file is written to a fresh temporary file and only then
given its name, which must be free: a planted link (like any existing file)
makes the export refuse and write nothing, its target untouched. A folder
reached through another user's symbolic link is refused outright.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.export import ExportError, ExportOptions, export_capture

from ..conftest import DATA, ROOT

SOURCE = DATA / "export" / "openai-chat-planted.jsonl"
OUTPUTS = ("chat.jsonl", "chat.events.jsonl", "chat.report.json", "test_chat.py")
ORIGINAL = b"the victim's own file\n"


@pytest.mark.parametrize("name", OUTPUTS)
def test_a_symlink_planted_at_an_output_name_is_neither_followed_nor_replaced(
    tmp_path: Path, name: str
) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_bytes(ORIGINAL)
    out = tmp_path / "shared"
    out.mkdir()
    (out / name).symlink_to(victim)
    with pytest.raises(ExportError, match="already exists; an export never replaces a file"):
        export_capture(SOURCE, out, ExportOptions(name="chat", pytest=True))
    assert victim.read_bytes() == ORIGINAL
    assert (out / name).is_symlink()
    assert [p.name for p in out.iterdir()] == [name]  # nothing written, no temporary left


def test_a_dangling_symlink_at_an_output_name_creates_nothing_at_its_target(
    tmp_path: Path,
) -> None:
    target = tmp_path / "elsewhere" / "created.txt"
    target.parent.mkdir()
    out = tmp_path / "shared"
    out.mkdir()
    (out / "chat.jsonl").symlink_to(target)
    with pytest.raises(ExportError, match="already exists"):
        export_capture(SOURCE, out, ExportOptions(name="chat"))
    assert not target.exists()


@pytest.mark.skipif(not hasattr(os, "lchown") or os.geteuid() != 0, reason="needs root to chown")
def test_an_output_folder_behind_another_users_symlink_is_refused(tmp_path: Path) -> None:
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    planted = tmp_path / "out"
    planted.symlink_to(victim_dir)
    os.lchown(planted, 4242, 4242)  # planted by someone else
    with pytest.raises(ExportError, match="symbolic link owned by another user"):
        export_capture(SOURCE, planted / "sub", ExportOptions(name="chat"))
    assert list(victim_dir.iterdir()) == []


def test_the_command_reports_the_refusal_and_exits_1(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to chown")
    victim_dir = tmp_path / "victim"
    victim_dir.mkdir()
    planted = tmp_path / "out"
    planted.symlink_to(victim_dir)
    os.lchown(planted, 4242, 4242)
    done = subprocess.run(
        [sys.executable, "-m", "inspector", "export", str(SOURCE), "-o", str(planted)],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 1
    assert "symbolic link owned by another user" in done.stderr
    assert list(victim_dir.iterdir()) == []
