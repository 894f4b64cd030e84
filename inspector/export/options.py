"""What an export is asked to do, and what it gives back: options, results, the error."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .report import report_lines

__all__ = [
    "DEFAULT_OPTIONS",
    "TEXT_MODES",
    "ExportError",
    "ExportOptions",
    "ExportOutcome",
    "ExportResult",
]

TEXT_MODES: Final = ("keep", "mask")


class ExportError(Exception):
    """An export that could not be done or did not verify; the message says why."""


@dataclass(frozen=True)
class ExportOptions:
    """How to export.

    ``text``: ``"keep"`` the model's text, or ``"mask"`` it (and string values
    of tool arguments) character for character. ``keep_request`` keeps the
    recorded request's prompt (secrets are removed regardless). ``pytest``
    also writes a test module. ``name`` is the base name of the outputs
    (default: the input's). ``provider`` overrides detection.
    ``test_prefix`` goes in front of the test module's name: pytest needs
    unique module names across a tree, and a library exported directory by
    directory has ``text-simple`` in every provider's folder.
    """

    text: str = "keep"
    keep_request: bool = False
    pytest: bool = False
    name: str | None = None
    provider: str | None = None
    test_prefix: str = ""


#: The options of a plain ``inspector export``.
DEFAULT_OPTIONS: Final = ExportOptions()


@dataclass(frozen=True)
class ExportResult:
    """A finished export: the files written (by role) and the report."""

    source: str
    files: dict[str, Path]
    report: dict[str, Any]

    def summary(self) -> list[str]:
        """The report as a few lines of text."""
        return report_lines(self.report)


@dataclass(frozen=True)
class ExportOutcome:
    """One input of :func:`export_paths`: its result, or why it failed."""

    source: Path
    result: ExportResult | None = None
    error: str | None = None
