"""The process benchmark's ``check DIR`` rows: every core against one, the same output."""

from __future__ import annotations

from pathlib import Path

from benchmarks.process import FOLDER_FILES, PROVIDERS, measure, render, targets
from inspector.capture import load_recording

TINY = 20_000


def test_the_folder_holds_captures_of_every_provider_that_load_clean(tmp_path: Path) -> None:
    from benchmarks.process import write_folder

    total = write_folder(tmp_path / "folder", TINY, files=8)
    files = sorted((tmp_path / "folder").iterdir())
    assert len(files) == 8 and total > TINY // 2
    assert {load_recording(f).header["provider"] for f in files} == set(PROVIDERS)
    assert all(load_recording(f).problems == [] for f in files)


def test_check_dir_is_timed_with_one_job_and_every_core_and_their_outputs_compared(
    tmp_path: Path,
) -> None:
    report = measure(tmp_path, TINY, rounds=1, only={"folder"}, startup=False, memory=False)
    assert report.runs == {} and report.folder_files == FOLDER_FILES
    assert list(report.folder) == ["check DIR --jobs 1", "check DIR"]
    assert all(run.ok for run in report.folder.values())
    assert report.folder_identical
    report.command = "test"
    assert "| `inspector check DIR --jobs 1` |" in render(report)
    [(name, measured, _)] = targets(report)
    assert name.startswith("`inspector check DIR` on ") and "output identical" in measured
