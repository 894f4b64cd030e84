"""A block's content, readable as of any event count.

Used by :class:`~inspector.viewmodel.index.TraceIndex`: each block keeps the
events that built it and its fragments with cumulative lengths, so the text
"as of k events" is a prefix found with one bisect — stepping back never
rebuilds anything.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from dataclasses import dataclass, field

import orjson

__all__ = ["PRETTY_LIMIT", "BlockInfo", "PrefixText"]

#: Tool arguments longer than this (characters) are shown raw, not pretty-printed.
PRETTY_LIMIT = 64 * 1024


class PrefixText:
    """Text assembled from fragments, readable as of any event count.

    ``ends[j]`` is the total length after fragment ``j`` and ``events[j]`` the
    event that carried it; the text as of ``k`` events is a prefix of the
    whole, found with one bisect. Fragments are joined lazily, once.
    """

    __slots__ = ("_joined", "_pending", "ends", "events")

    def __init__(self) -> None:
        self.ends = array("q")
        self.events = array("q")
        self._joined = ""
        self._pending: list[str] = []

    def add(self, event: int, text: str) -> None:
        """Record one fragment carried by event ``event``."""
        self.ends.append((self.ends[-1] if self.ends else 0) + len(text))
        self.events.append(event)
        self._pending.append(text)

    def count_at(self, k: int) -> int:
        """Fragments received among the first ``k`` events."""
        return bisect_left(self.events, k)

    def length_at(self, k: int) -> int:
        """Characters received among the first ``k`` events."""
        j = bisect_left(self.events, k)
        return self.ends[j - 1] if j else 0

    def text_at(self, k: int, tail: int | None = None) -> tuple[str, int]:
        """(text as of ``k`` events, characters left out before it).

        With ``tail`` only the last ``tail`` characters are returned, so a
        block of megabytes still renders in constant time.
        """
        length = self.length_at(k)
        if self._pending:
            self._joined += "".join(self._pending)
            self._pending.clear()
        start = 0 if tail is None else max(0, length - tail)
        return self._joined[start:length], start


@dataclass(slots=True)
class BlockInfo:
    """One block as the index knows it (content readable at any event count)."""

    index: int  # its key: the contract index, with the choice above it (index.block_key)
    id: str
    kind: str
    provider_type: str
    name: str | None
    call_id: str | None
    start_event: int
    #: The choice the block belongs to, when the stream has several (contract v1.1).
    choice: int | None = None
    close_event: int | None = None  # block.stop, or the stream.error that aborted it
    stopped: bool = False  # closed by block.stop (not aborted)
    events: array[int] = field(default_factory=lambda: array("q"))
    text: PrefixText = field(default_factory=PrefixText)
    signature: PrefixText = field(default_factory=PrefixText)
    citations: array[int] = field(default_factory=lambda: array("q"))
    parsed: tuple[bool, str | None] | None = None  # (valid, error) once closed
    pretty: str | None = None  # the arguments pretty-printed once closed ("" if they cannot be)

    def state_at(self, k: int) -> str:
        """``new`` / ``open`` / ``closed`` as of ``k`` events."""
        if self.start_event >= k:
            return "new"
        if self.close_event is not None and self.close_event < k:
            return "closed"
        return "open"

    def aborted_at(self, k: int) -> bool:
        """True when the block was closed by the stream ending, not by block.stop."""
        return self.state_at(k) == "closed" and not self.stopped

    def events_at(self, k: int) -> int:
        """How many of the events that built this block exist among the first ``k``."""
        return bisect_left(self.events, k)

    def built_span(self, k: int) -> tuple[int, int, int] | None:
        """The events that built this block among the first ``k``, as the panes number them
        (from 1): ``(how many, the first, the last)``; None before the first."""
        built = bisect_left(self.events, k)
        if not built:
            return None
        return built, self.events[0] + 1, self.events[built - 1] + 1

    def arguments_check(self) -> tuple[bool, str | None]:
        """Parse the whole content as JSON (only ever asked once the block closed)."""
        if self.parsed is None:
            raw, _ = self.text.text_at(1 << 62)
            if not raw.strip():
                self.parsed = (True, None)  # no parameters: providers send ""
            else:
                try:
                    orjson.loads(raw)
                    self.parsed = (True, None)
                except orjson.JSONDecodeError as exc:
                    self.parsed = (False, str(exc))
        return self.parsed

    def pretty_arguments(self, limit: int = PRETTY_LIMIT) -> str | None:
        """The whole content pretty-printed (2-space JSON), when it is valid JSON.

        None while the content does not parse or is empty, and when either
        the content or the pretty text is longer than ``limit`` characters
        (the raw text is shown then). Computed once: a closed block never
        changes.
        """
        if self.pretty is None:
            self.pretty = ""  # "" : not pretty-printable, asked once
            length = self.text.length_at(1 << 62)
            if 0 < length <= PRETTY_LIMIT and self.arguments_check() == (True, None):
                raw, _ = self.text.text_at(1 << 62)
                if raw.strip():
                    value = orjson.loads(raw)
                    self.pretty = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        return self.pretty if self.pretty and len(self.pretty) <= limit else None
