"""Every TUI test runs without the user's keymap file (the app reads it when given no keymap)."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.tui.keymap import KEYMAP_FILE_ENV


@pytest.fixture(autouse=True)
def no_user_keymap(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Point the keymap file at a path that does not exist."""
    missing = tmp_path_factory.getbasetemp() / "no-keymap.toml"
    monkeypatch.setenv(KEYMAP_FILE_ENV, str(missing))
    return missing
