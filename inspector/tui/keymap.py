"""Keymaps: the user's keymap file and ``--keymap``, checked before the TUI starts.

A keymap maps a binding id (``step.next``) to the keys that run it
(``"j,right"``), replacing that binding's own keys, as Textual's keymaps do.
It comes from two places, the second overriding the first:

* the **keymap file**, ``keymap.toml`` in the user's config directory
  (``$XDG_CONFIG_HOME/llm-stream-inspector/``, else
  ``~/.config/llm-stream-inspector/``; ``$INSPECTOR_KEYMAP`` names another
  file), where k9s and lazygit keep theirs::

      [step]
      next = "j,right"        # the id step.next: TOML's dotted keys
      previous = ["k", "left"]

* ``--keymap ID=KEYS`` on the command line (repeatable).

Textual itself takes any id and, when two bindings end up on one key,
quietly drops one of them from the footer and the help. So the keymap is
checked first against every binding the TUI declares (:data:`SCOPES`): an
unknown id, or a key it gives to an action whose screen already uses that
key for another, is an error naming the id and the key (``inspector open``
exits 2), and the TUI starts only with a keymap under which the footer and
the help are true.
"""

from __future__ import annotations

import difflib
import os
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from textual.binding import Binding

__all__ = [
    "KEYMAP_FILE_ENV",
    "KeymapError",
    "check_keymap",
    "default_keymap_path",
    "load_keymap_file",
    "parse_keymap_items",
    "resolve_keymap",
    "scopes",
]

#: An environment variable naming the keymap file instead of the usual place.
KEYMAP_FILE_ENV: Final = "INSPECTOR_KEYMAP"
_APP_DIR: Final = "llm-stream-inspector"


class KeymapError(ValueError):
    """A keymap that cannot be used; ``problems`` says each thing wrong, one a line."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def default_keymap_path(environ: Mapping[str, str] | None = None) -> Path:
    """Where the keymap file is looked for (it need not exist)."""
    env = os.environ if environ is None else environ
    named = env.get(KEYMAP_FILE_ENV)
    if named:
        return Path(named).expanduser()
    base = env.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(base) / _APP_DIR / "keymap.toml"


def _flatten(table: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            _flatten(value, name + ".", out)
        else:
            out[name] = value


def _keys_of(value: Any) -> str | None:
    """A keymap value as Textual's comma-separated keys (None: not a key list)."""
    if isinstance(value, str):
        keys = [k.strip() for k in value.split(",")]
    elif isinstance(value, list) and all(isinstance(k, str) for k in value):
        keys = [k.strip() for k in value]
    else:
        return None
    if not keys or not all(keys) or any(" " in k for k in keys):
        return None
    return ",".join(keys)


def load_keymap_file(path: Path) -> dict[str, str]:
    """The keymap in ``path`` (``{}`` when there is no such file). Raises KeymapError."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise KeymapError([f"{path}: cannot read the keymap file ({exc.strerror or exc})"]) from exc
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise KeymapError([f"{path}: not a TOML keymap: {exc}"]) from exc
    flat: dict[str, Any] = {}
    _flatten(table, "", flat)
    keymap: dict[str, str] = {}
    problems = []
    for binding_id, value in flat.items():
        keys = _keys_of(value)
        if keys is None:
            problems.append(
                f'{path}: {binding_id} = {value!r}: expected keys, as "j,right" or ["j", "right"]'
            )
        else:
            keymap[binding_id] = keys
    if problems:
        raise KeymapError(problems)
    return keymap


def parse_keymap_items(items: Iterable[str]) -> dict[str, str]:
    """``["step.next=j", ...]`` → ``{"step.next": "j"}``. Raises KeymapError."""
    keymap: dict[str, str] = {}
    problems = []
    for item in items:
        binding_id, sep, value = item.partition("=")
        keys = _keys_of(value) if sep else None
        if not binding_id.strip() or keys is None:
            problems.append(f"--keymap {item!r}: expected ID=KEYS, e.g. step.next=j,right")
            continue
        keymap[binding_id.strip()] = keys
    if problems:
        raise KeymapError(problems)
    return keymap


@dataclass(frozen=True)
class Scope:
    """Bindings that are active together (one screen, its widgets and the app)."""

    name: str
    bindings: tuple[Binding, ...] = field(default=())


def _bindings(*owners: type) -> tuple[Binding, ...]:
    """The bindings with an id that ``owners`` and the classes they inherit from declare."""
    found: list[Binding] = []
    for owner in owners:
        for klass in reversed(owner.__mro__):
            declared = vars(klass).get("BINDINGS", [])
            found.extend(b for b in declared if isinstance(b, Binding) and b.id)
    return tuple(found)


def scopes() -> list[Scope]:
    """Every screen's bindings, with those of the widgets it shows and the app's."""
    from .app import InspectorApp
    from .screens.breakpoints import BreakpointsScreen
    from .screens.details import DetailsScreen
    from .screens.diff import DiffScreen
    from .screens.export import ExportDialog
    from .screens.flows import FilterBar, FlowsScreen
    from .screens.help import HelpScreen
    from .screens.main import MainScreen
    from .screens.picker import PickerScreen
    from .screens.replay import ReplayDialog
    from .widgets.blocks import BlocksPane
    from .widgets.lines import LineList
    from .widgets.search import GotoBar, SearchBar

    # A focused widget's keys come before its screen's, so each widget is checked
    # with its screen; two widgets are never focused at once.
    return [
        Scope("main screen, a list focused", _bindings(InspectorApp, MainScreen, LineList)),
        Scope(
            "main screen, the Blocks pane focused", _bindings(InspectorApp, MainScreen, BlocksPane)
        ),
        Scope("main screen, the search bar open", _bindings(InspectorApp, MainScreen, SearchBar)),
        Scope("main screen, the go-to bar open", _bindings(InspectorApp, MainScreen, GotoBar)),
        Scope("the picker", _bindings(InspectorApp, PickerScreen)),
        Scope("the proxy's flow list", _bindings(InspectorApp, FlowsScreen)),
        Scope(
            "the proxy's flow list, the filter open",
            _bindings(InspectorApp, FlowsScreen, FilterBar),
        ),
        Scope("the diff screen", _bindings(InspectorApp, DiffScreen, LineList)),
        Scope("the help", _bindings(InspectorApp, HelpScreen)),
        Scope("the details screen", _bindings(InspectorApp, DetailsScreen)),
        Scope("the export dialog", _bindings(InspectorApp, ExportDialog)),
        Scope("the breakpoints list", _bindings(InspectorApp, BreakpointsScreen)),
        Scope("the replay dialog", _bindings(InspectorApp, ReplayDialog)),
    ]


def _split(keys: str) -> list[str]:
    return [key.strip() for key in keys.split(",") if key.strip()]


def check_keymap(keymap: Mapping[str, str], all_scopes: list[Scope] | None = None) -> list[str]:
    """What is wrong with ``keymap``: unknown ids, and keys it gives to two actions at once.

    A conflict is reported only where the keymap made it: a screen's own
    defaults are what the help already shows.
    """
    all_scopes = scopes() if all_scopes is None else all_scopes
    known = sorted({b.id for scope in all_scopes for b in scope.bindings if b.id})
    problems = []
    for binding_id in keymap:
        if binding_id not in known:
            close = difflib.get_close_matches(binding_id, known, n=3)
            hint = f"; did you mean {' or '.join(close)}?" if close else ""
            problems.append(
                f"unknown binding id {binding_id!r}{hint} (the ids are listed in docs/tui.md)"
            )
    said: set[tuple[str, frozenset[str]]] = set()
    for scope in all_scopes:
        owners: dict[str, set[str]] = {}
        for binding in scope.bindings:
            assert binding.id is not None
            keys = keymap.get(binding.id, binding.key)
            for key in _split(keys):
                owners.setdefault(key, set()).add(binding.id)
        for key, ids in sorted(owners.items()):
            if len(ids) > 1 and ids & set(keymap) and (key, frozenset(ids)) not in said:
                said.add((key, frozenset(ids)))
                names = " and ".join(sorted(ids))
                problems.append(f"key {key!r} is bound to both {names} ({scope.name})")
    return problems


def resolve_keymap(items: Iterable[str], path: Path | None = None) -> dict[str, str]:
    """The keymap file's keymap overridden by ``--keymap`` items, checked. Raises KeymapError."""
    keymap = load_keymap_file(default_keymap_path() if path is None else path)
    keymap.update(parse_keymap_items(items))
    problems = check_keymap(keymap)
    if problems:
        raise KeymapError(problems)
    return keymap
