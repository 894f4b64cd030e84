"""The core is sans-IO (no Textual, httpx or asyncio inside it), and the layers hold."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

CORE = ROOT / "inspector" / "core"
FORBIDDEN = ("textual", "httpx", "asyncio", "rich", "starlette", "uvicorn", "anyio")


def imported_modules(source: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_no_core_module_imports_io_or_ui_libraries() -> None:
    offenders = {
        str(path.relative_to(ROOT)): sorted(imported_modules(path.read_text()) & set(FORBIDDEN))
        for path in CORE.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}


def test_importing_the_whole_core_loads_none_of_them() -> None:
    code = (
        "import sys, pkgutil, importlib, inspector.core as c\n"
        "for m in pkgutil.walk_packages(c.__path__, 'inspector.core.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = [m for m in {FORBIDDEN!r} if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_the_layers_written_in_pyproject_hold() -> None:
    # The import-linter contracts of pyproject.toml: core < inputs < capture/session <
    # sources and outputs < tui < cli, and the core sans-IO (docs/architecture.md).
    script = Path(sys.executable).with_name("lint-imports")
    if not script.exists():
        pytest.skip("import-linter is in the test extra: pip install -e '.[test]'")
    result = subprocess.run(
        [str(script), "--no-cache"], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout
