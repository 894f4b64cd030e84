"""Starting the TUI with the user's keymap: :func:`run_app`, the one call the CLI and live use.

The keymap file (:mod:`.keymap`) is read here, not by the app: checking it
needs every screen's bindings, and the screens import the app. ``inspector
open`` checks the file itself and exits 2 on a problem; a live session given
no keymap reads it here and, if it cannot be used, starts with the default
keys and says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..core.trace import Trace
from ..feeds import Feed
from .app import InspectorApp
from .keymap import KeymapError, resolve_keymap

__all__ = ["app_with_keymap", "run_app"]


def app_with_keymap(
    source: Trace | Feed | None = None,
    *,
    captures: Path | None = None,
    keymap: Mapping[str, str] | None = None,
    position: int = 0,
) -> InspectorApp:
    """The app on ``source``, with ``keymap`` or else the user's keymap file."""
    problem = None
    if keymap is None:
        try:
            keymap = resolve_keymap([])
        except KeymapError as exc:
            problem = "The keymap file is not used: " + "; ".join(exc.problems)
            keymap = {}
    app = InspectorApp(source, captures=captures, keymap=keymap, position=position)
    app.keymap_problem = problem
    return app


def run_app(
    source: Trace | Feed | None = None,
    *,
    captures: Path | None = None,
    keymap: Mapping[str, str] | None = None,
    position: int = 0,
) -> int:
    """Run the TUI until the user quits; returns the exit code (0)."""
    app = app_with_keymap(source, captures=captures, keymap=keymap, position=position)
    return int(app.run() or 0)
