"""The Textual TUI: four synchronized panes over one trace, step-through, live view.

Entry points: :class:`InspectorApp` and :func:`run_app` (``docs/tui.md``).
"""

from .app import InspectorApp
from .run import run_app

__all__ = ["InspectorApp", "run_app"]
