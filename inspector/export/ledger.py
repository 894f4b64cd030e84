"""The bookkeeping of one export: options, the pseudonym table, what was done.

The :class:`Ledger` counts every change by rule for the report, and keeps
the removed secret values — only in memory, only so the leak scan can look
for them in the output. Nothing here is ever written out except the counts.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from ..redact.digests import DigestMatcher
from ..redact.shapes import is_placeholder
from .pseudonyms import Pseudonymizer

__all__ = ["MIN_SCANNED_SECRET", "Context", "Ledger"]

# Shorter values are still removed, but searching the output for them would
# find them by chance (a 4-character cookie value inside any long text).
MIN_SCANNED_SECRET: Final = 8


@dataclass
class Ledger:
    """What one export removed, pseudonymized, masked and kept."""

    removed: Counter[str] = field(default_factory=Counter)
    pseudonymized: dict[str, set[str]] = field(default_factory=dict)
    placeholders: Counter[str] = field(default_factory=Counter)
    masked: Counter[str] = field(default_factory=Counter)
    kept_headers: set[str] = field(default_factory=set)
    # value -> rule; for the leak scan only, never reported.
    secrets: dict[str, str] = field(default_factory=dict)
    # What an earlier step (import) removed, known by keyed hash: for the leak scan.
    digests: list[DigestMatcher] = field(default_factory=list)

    def remove(self, rule: str, value: str) -> None:
        """Count a removed secret and remember it for the leak scan.

        A value that is already a redaction (a recorder's ``[redacted]``) was
        never a secret here: it is neither counted nor searched for.
        """
        value = value.strip()
        if is_placeholder(value):
            return
        self.removed[rule] += 1
        if len(value) >= MIN_SCANNED_SECRET:
            self.secrets.setdefault(value, rule)

    def remove_all(self, rule: str, values: tuple[str, ...]) -> None:
        """Count one removed secret spelled several ways; remember every spelling.

        ``sk\\u002dproj-…`` is removed once, but the leak scan looks for both
        the escaped and the decoded key.
        """
        if not values:
            return
        self.remove(rule, values[0])
        for value in values[1:]:
            value = value.strip()
            if len(value) >= MIN_SCANNED_SECRET and not is_placeholder(value):
                self.secrets.setdefault(value, rule)

    def pseudonym(self, kind: str, value: str) -> None:
        """Count a distinct pseudonymized value of ``kind``."""
        self.pseudonymized.setdefault(kind, set()).add(value)


class Context:
    """Options and shared state of one export."""

    # A plain class: a dataclass execs its methods at import (~1 ms of start-up).
    __slots__ = ("keep_request", "ledger", "mask_text", "pseudonyms")

    def __init__(
        self,
        pseudonyms: Pseudonymizer,
        mask_text: bool = False,
        keep_request: bool = False,
        ledger: Ledger | None = None,
    ) -> None:
        self.pseudonyms = pseudonyms
        self.mask_text = mask_text
        self.keep_request = keep_request
        self.ledger = Ledger() if ledger is None else ledger

    def pseudonym(self, kind: str, value: str) -> str:
        """The pseudonym of ``value``, counted under ``kind``."""
        if not value:
            return value
        self.ledger.pseudonym(kind, value)
        return self.pseudonyms(value)
