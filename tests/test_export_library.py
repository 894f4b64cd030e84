"""Every stream we have exports with its skeleton intact: the bundled library and the real ones.

Parametrized over whatever exists in ``captures/`` and ``tests/fixtures/real/``,
so it grows with the library. A stream whose provider has no adapter yet is
skipped, saying so.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from inspector.capture import load_recording
from inspector.core.adapters import adapter_for
from inspector.export import ExportOptions, export_paths, prepare_export
from inspector.export.skeleton import skeleton
from inspector.session import guess_provider

from .conftest import CAPTURES, ROOT
from .golden import capture_files

REAL = ROOT / "tests" / "fixtures" / "real"
FILES = capture_files(CAPTURES) + capture_files(REAL)


def require_adapter(path: Path) -> str:
    provider = guess_provider(load_recording(path))
    assert provider is not None, f"{path}: provider not detected"
    try:
        adapter_for(provider)
    except ImportError:
        pytest.skip(f"no {provider} adapter yet: {path.name} cannot be normalized")
    return provider


@pytest.mark.parametrize("text", ["keep", "mask"])
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_an_export_keeps_the_skeleton_timing_and_chunking(path: Path, text: str) -> None:
    require_adapter(path)
    rec = load_recording(path)
    prepared = prepare_export(rec, ExportOptions(text=text))
    assert skeleton(prepared.exported) == skeleton(prepared.original)
    before = [(c.time, len(c.data)) for c in prepared.original.chunks]
    assert [(c.time, len(c.data)) for c in prepared.exported.chunks] == before
    assert [(f.start, f.end) for f in prepared.exported.frames] == [
        (f.start, f.end) for f in prepared.original.frames
    ]
    assert prepared.report["verification"]["leak_scan"]["found"] == 0


def test_the_library_exported_with_pytest_files_passes_its_own_tests(tmp_path: Path) -> None:
    roots = [root for root in (CAPTURES, REAL) if capture_files(root)]
    outcomes = list(export_paths(roots, tmp_path, ExportOptions(pytest=True)))
    failed = [o.error for o in outcomes if o.error and "adapter yet" not in o.error]
    assert failed == []
    exported = sum(o.result is not None for o in outcomes)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-3000:]
    assert f"{3 * exported} passed" in result.stdout
