"""What the TUI's panes show, computed without Textual.

Indexes over a trace (any cursor position is a bisect), the cursor and its
moves, search, the rows every list pane renders, frame labels and previews,
the live clock, the proxy list's filter and replay requests. Nothing here
imports Textual (an import-linter contract in pyproject.toml says so), so the
view model is tested, benchmarked and reused without a terminal; the widgets
in :mod:`inspector.tui` only lay it out.
"""
