"""No import circles inside the TUI and its view model, lazy imports (in functions, under
TYPE_CHECKING) included; the view model imports no Textual."""

from __future__ import annotations

import ast
from pathlib import Path

import inspector

PACKAGE = Path(inspector.__file__).parent
TUI = PACKAGE / "tui"
VIEWMODEL = PACKAGE / "viewmodel"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """Every module of ``inspector`` that ``path`` imports, wherever the import stands."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            target = (
                (f"{base}.{node.module}" if node.module else base)
                if node.level
                else (node.module or "")
            )
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def graph() -> dict[str, set[str]]:
    paths = [*TUI.rglob("*.py"), *VIEWMODEL.rglob("*.py")]
    modules = {module_name(p): p for p in paths}
    return {name: imports_of(path) & set(modules) - {name} for name, path in modules.items()}


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in edges[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_the_tui_modules_import_each_other_without_a_circle() -> None:
    edges = graph()
    # A package's __init__ re-exports its modules: importing the package is not a cycle
    # of the modules under it.
    for name in list(edges):
        if name.endswith(("tui", "screens", "widgets", "viewmodel")):
            edges[name] = set()
    assert cycles(edges) == []


def test_the_view_model_imports_no_textual_anywhere_in_it() -> None:
    textual = {
        f"{module_name(path)} imports {target}"
        for path in VIEWMODEL.rglob("*.py")
        for target in imports_of(path)
        if target == "textual" or target.startswith("textual.")
    }
    assert textual == set()


def test_no_module_left_in_the_tui_could_live_in_the_view_model() -> None:
    """A module of the tui package that needs no Textual belongs in the view model."""
    needs_textual = {}
    for path in TUI.glob("*.py"):
        if path.name == "__init__.py":
            continue
        targets = imports_of(path)
        needs_textual[path.name] = any(
            t == "textual" or t.startswith(("textual.", "inspector.tui.")) for t in targets
        )
    assert [name for name, needs in sorted(needs_textual.items()) if not needs] == []
