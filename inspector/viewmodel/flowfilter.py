"""Which proxy flows the list shows, in which order: the filter and the sort keys.

The filter is words, all of which must match (case-insensitive): a plain
word matches anywhere in the row (method, path, provider, model, status,
terminal state); ``FIELD:VALUE`` matches one field — ``provider:anthropic``,
``model:gpt``, ``status:429`` (or ``status:4xx``), ``state:failed``,
``path:/v1/messages``, ``method:post`` — as mitmproxy's ``~`` filters do,
in words. The sort keys are the list's columns. No Textual here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

__all__ = ["SORTS", "FlowFilter", "FlowLike", "FlowRow", "parse_filter", "row_of"]


class FlowLike(Protocol):
    """What the filter reads of a proxy flow."""

    number: int
    method: str
    path: str
    provider: str | None
    model: str | None
    status: int | None
    state: str
    bytes: int
    duration: float | None


@dataclass(frozen=True, slots=True)
class FlowRow:
    """A flow's fields as the filter compares them (lower-cased text)."""

    number: int
    fields: Mapping[str, str]
    bytes: int
    duration: float


def row_of(flow: FlowLike) -> FlowRow:
    """The filterable fields of ``flow``."""
    fields = {
        "method": flow.method,
        "path": flow.path,
        "provider": flow.provider or "",
        "model": flow.model or "",
        "status": "" if flow.status is None else str(flow.status),
        "state": flow.state,
    }
    return FlowRow(
        flow.number,
        {key: value.lower() for key, value in fields.items()},
        flow.bytes,
        flow.duration if flow.duration is not None else 0.0,
    )


def _status_matches(status: str, wanted: str) -> bool:
    # "4xx" or "4**": a class of statuses; otherwise the number as given.
    if len(wanted) == 3 and wanted[0].isdigit() and wanted[1:] in ("xx", "**"):
        return status[:1] == wanted[0]
    return status == wanted


@dataclass(frozen=True, slots=True)
class FlowFilter:
    """The parsed filter: plain words, and (field, value) pairs."""

    text: str
    words: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.words or self.fields)

    def matches(self, row: FlowRow) -> bool:
        """Whether every word of the filter matches ``row``."""
        for field, wanted in self.fields:
            value = row.fields[field]
            if field == "status":
                if not _status_matches(value, wanted):
                    return False
            elif wanted not in value:
                return False
        everything = " ".join(row.fields.values())
        return all(word in everything for word in self.words)


_FIELDS: Final = frozenset({"method", "path", "provider", "model", "status", "state"})


def parse_filter(text: str) -> FlowFilter:
    """The filter ``text`` describes (unknown ``FIELD:`` prefixes are plain words)."""
    words: list[str] = []
    fields: list[tuple[str, str]] = []
    for word in text.lower().split():
        field, sep, value = word.partition(":")
        if sep and field in _FIELDS and value:
            fields.append((field, value))
        else:
            words.append(word)
    return FlowFilter(text, tuple(words), tuple(fields))


def _by_field(name: str) -> Callable[[FlowRow], Any]:
    return lambda row: (row.fields[name], row.number)


#: (name, key, newest first) in the order ``s`` cycles through them.
SORTS: Final[tuple[tuple[str, Callable[[FlowRow], Any], bool], ...]] = (
    ("#", lambda row: row.number, False),
    ("duration", lambda row: (row.duration, row.number), True),
    ("bytes", lambda row: (row.bytes, row.number), True),
    ("status", _by_field("status"), False),
    ("model", _by_field("model"), False),
    ("state", _by_field("state"), False),
)
