"""The generated pytest file cannot run code, whatever the capture is named.

File names come from outside. A name holding quotes, triple quotes,
backslashes, a newline, ``{}``/``%``, ``#`` or ``\\u2028`` must give a module
that compiles, parses to exactly the expected statements (imports, constant
assignments of plain literals, the fixture, the helper and three test
functions named from ``[a-z0-9_]``), and when run executes only its
assertions: a name built to create a marker file if executed never does.
"""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from inspector.export import ExportOptions, export_capture

from ..conftest import DATA

SOURCE = DATA / "export" / "openai-chat-planted.jsonl"
MARKER = "PWNED"
PAYLOAD = f"__import__('pathlib').Path('{MARKER}').write_text('x')"

HOSTILE_STEMS = {
    "triple-double-quotes": f'x"""\n{PAYLOAD}\n"""',
    "triple-single-quotes": f"x'''\n{PAYLOAD}\n'''",
    "double-quote": f'x"; {PAYLOAD}; "',
    "single-quote": f"x'; {PAYLOAD}; '",
    "backslash-and-quote": f'x\\"; {PAYLOAD} #',
    "braces-and-percent": f"x{{{PAYLOAD}}}%s%(a)s{{0}}",
    "hash-and-newline": f"x #\n{PAYLOAD}\n#",
    "line-separator": f"x\u2028{PAYLOAD}\u2029#",
    "everything": f"\"'\\{{}}%#\u2028\n{PAYLOAD}\n'''\"\"\"",
}

EXPECTED_IMPORTS = [
    ("from", "__future__", ("annotations",)),
    ("import", None, ("json",)),
    ("from", "pathlib", ("Path",)),
    ("from", "typing", ("Any",)),
    ("import", None, ("inspector",)),
    ("import", None, ("pytest",)),
]
TEST_NAME = re.compile(r"test_[a-z0-9_]+")


def export_named(tmp_path: Path, stem: str) -> tuple[Path, Path]:
    source = tmp_path / "in" / (stem + ".jsonl")
    source.parent.mkdir()
    shutil.copyfile(SOURCE, source)
    out = tmp_path / "out"
    result = export_capture(source, out, ExportOptions(pytest=True))
    return out, result.files["pytest"]


def statement_shapes(
    tree: ast.Module,
) -> tuple[list[tuple[str, str | None, tuple[str, ...]]], list[str], list[str]]:
    """The imports, the assigned constant names and the function names; fails on anything else."""
    imports: list[tuple[str, str | None, tuple[str, ...]]] = []
    constants: list[str] = []
    functions: list[str] = []
    body = tree.body
    assert isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)  # docstring
    for node in body[1:]:
        if isinstance(node, ast.Import):
            imports.append(("import", None, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            imports.append(("from", node.module, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.Assign):
            [target] = node.targets
            assert isinstance(target, ast.Name)
            if target.id != "HERE":
                # Every other constant is a plain literal: nothing to evaluate.
                assert isinstance(node.value, ast.Constant), ast.dump(node)
            constants.append(target.id)
        elif isinstance(node, ast.FunctionDef):
            functions.append(node.name)
        else:
            pytest.fail(f"unexpected statement: {ast.dump(node)[:200]}")
    return imports, constants, functions


@pytest.mark.parametrize("stem", HOSTILE_STEMS.values(), ids=HOSTILE_STEMS.keys())
def test_a_hostile_capture_name_gives_a_module_of_only_the_expected_statements(
    tmp_path: Path, stem: str
) -> None:
    _, module = export_named(tmp_path, stem)
    assert re.fullmatch(r"test_[a-z0-9_]+\.py", module.name)
    source = module.read_text(encoding="utf-8")
    compile(source, str(module), "exec")
    imports, constants, functions = statement_shapes(ast.parse(source))
    assert imports == EXPECTED_IMPORTS
    assert constants == ["HERE", "EXPORTED_WITH", "CAPTURE", "GOLDEN", "PROVIDER", "STATE",
                         "TERMINAL_TYPE", "FINISH_REASON"]  # fmt: skip
    assert functions[:2] == ["in_this_directory", "golden_events"]
    assert len(functions) == 5
    assert all(TEST_NAME.fullmatch(name) for name in functions[2:])
    # The name is still there, as data: the constant holds the file's real name.
    values = {
        node.targets[0].id: node.value.value
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign)
        and isinstance(node.targets[0], ast.Name)
        and isinstance(node.value, ast.Constant)
    }
    assert values["CAPTURE"] == stem + ".jsonl"


@pytest.mark.parametrize(
    "stem", [HOSTILE_STEMS["triple-double-quotes"], HOSTILE_STEMS["everything"]],
    ids=["triple-double-quotes", "everything"],
)  # fmt: skip
def test_running_the_generated_module_executes_only_its_assertions(
    tmp_path: Path, stem: str
) -> None:
    out, module = export_named(tmp_path, stem)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", module.name],
        capture_output=True, text=True, cwd=out, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 passed" in done.stdout
    assert not (out / MARKER).exists()
    assert not (tmp_path / MARKER).exists()
