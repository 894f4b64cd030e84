"""The bundled capture library: each capture's whole normalized sequence is golden.

Goldens sit beside their capture as ``<name>.events.jsonl``; regenerate with
``python scripts/update_goldens.py`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.core.invariants import check_invariants
from inspector.session import load_trace

from .conftest import CAPTURES, ROOT
from .golden import capture_files, golden_for, read_jsonl

FILES = capture_files()


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(CAPTURES)) for p in FILES])
def test_capture_normalizes_to_its_golden_sequence(path: Path) -> None:
    golden = golden_for(path)
    assert golden.exists(), f"no golden for {path.relative_to(ROOT)}"
    trace = load_trace(path)
    assert trace.events == read_jsonl(golden)
    assert check_invariants(trace.events) == []
