"""Vertex AI's streamed function-call arguments (``partialArgs``) → JSON text.

Split from :mod:`.gemini` along the seam between reading responses and
assembling one call's arguments: :class:`ArgsWriter` keeps only the chain of
open JSON containers of one call, and knows nothing of responses or blocks.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

import orjson

__all__ = ["ArgsWriter", "Segment", "parse_json_path"]

Segment = str | int  # an object key, or an array index


class ArgsWriter:
    """Turns Vertex ``partialArgs`` into JSON text, in arrival order.

    Each partial argument names one leaf by JSON Path (``$.a.b[0].c``) and
    carries its value, a string possibly in several pieces (``willContinue``).
    The writer keeps the chain of objects and arrays that is open, closes
    what the next path leaves and opens what it enters, so the fragments it
    returns concatenate to one valid JSON object, finished by :meth:`finish`.
    Paths are expected in document order (as Vertex streams them); an array
    index out of order is written where it arrives, with a note.
    """

    def __init__(self) -> None:
        self.started = False
        self.segments: list[Segment] = []  # the open containers below the root
        self.kinds: list[str] = ["{"]  # "{" or "[" for the root and each open container
        self.counts: list[int] = [0]  # members written so far at each level
        self.open_string: str | None = None  # jsonPath whose string value continues

    def feed(self, arg: Mapping[str, Any]) -> tuple[str, str | None, bool]:
        """JSON text for one partial argument: (text, note, fatal)."""
        path = arg.get("jsonPath")
        piece = arg.get("stringValue")
        continues = arg.get("willContinue") is True
        out: list[str] = []
        note: str | None = None
        if self.open_string is not None:
            if path == self.open_string and isinstance(piece, str):
                out.append(_escape(piece))
                if not continues:
                    out.append('"')
                    self.open_string = None
                return "".join(out), None, False
            note = f"the string at {self.open_string} was cut short by {path}"
            out.append('"')
            self.open_string = None
        if not isinstance(path, str):
            return "".join(out), "a partial argument without a jsonPath", True
        segments = parse_json_path(path)
        if not segments:
            return "".join(out), f"cannot read the jsonPath {path!r}", True
        value = _scalar(arg)
        if value is None and not isinstance(piece, str):
            return "".join(out), f"the partial argument at {path} has no value", True
        if not self.started:
            self.started = True
            out.append("{")
        *containers, leaf = segments
        shared = 0
        limit = min(len(self.segments), len(containers))
        while shared < limit and self.segments[shared] == containers[shared]:
            shared += 1
        while len(self.segments) > shared:
            self._close_one(out)
        steps = [*containers[shared:], leaf]
        for n, segment in enumerate(steps):
            problem, fatal = self._member(segment, path, out)
            if fatal:
                return "".join(out), problem, True
            note = problem or note
            if n < len(steps) - 1:
                kind = "{" if isinstance(steps[n + 1], str) else "["
                out.append(kind)
                self.segments.append(segment)
                self.kinds.append(kind)
                self.counts.append(0)
        if isinstance(piece, str):
            out.append('"' + _escape(piece))
            if continues:
                self.open_string = path
            else:
                out.append('"')
        elif value is not None:
            out.append(value)
        return "".join(out), note, False

    def finish(self) -> tuple[str, str | None]:
        """The JSON text that closes everything still open: (text, note)."""
        out: list[str] = []
        note = None
        if self.open_string is not None:
            note = f"the string at {self.open_string} never received its last piece"
            out.append('"')
            self.open_string = None
        if self.started:
            while self.segments:
                self._close_one(out)
            out.append("}")
        return "".join(out), note

    def _member(self, segment: Segment, path: str, out: list[str]) -> tuple[str | None, bool]:
        """Write the separator and key for one member: (note, fatal)."""
        parent = self.kinds[-1]
        is_key = isinstance(segment, str)
        if is_key != (parent == "{"):
            inside = "an object" if parent == "{" else "an array"
            what = "a member name" if is_key else "an index"
            return f"jsonPath {path} puts {what} inside {inside}", True
        note = None
        if not is_key and segment != self.counts[-1]:
            note = f"jsonPath {path} arrived out of order (expected index {self.counts[-1]})"
        if self.counts[-1]:
            out.append(",")
        if is_key:
            out.append(orjson.dumps(segment).decode() + ":")
        self.counts[-1] += 1
        return note, False

    def _close_one(self, out: list[str]) -> None:
        self.segments.pop()
        self.counts.pop()
        out.append("}" if self.kinds.pop() == "{" else "]")


def _escape(piece: str) -> str:
    """A string's JSON text without its quotes."""
    return orjson.dumps(piece).decode()[1:-1]


def _scalar(arg: Mapping[str, Any]) -> str | None:
    """JSON text of a non-string partial value (number, bool, null), else None."""
    number = arg.get("numberValue")
    if isinstance(number, int | float) and not isinstance(number, bool):
        return orjson.dumps(number).decode()
    boolean = arg.get("boolValue")
    if isinstance(boolean, bool):
        return "true" if boolean else "false"
    if "nullValue" in arg:
        return "null"
    return None


_PATH_ESCAPES: Final[dict[str, str]] = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX: Final = frozenset("0123456789abcdefABCDEF")


@lru_cache(maxsize=1024)
def parse_json_path(path: str) -> tuple[Segment, ...]:
    """Segments of a JSON Path such as ``$.a.b[0]`` or ``$['a'][0]``; ``()`` if unreadable.

    Only what names one value is accepted: member names (dot or bracket
    notation, quoted with ' or ") and array indices. Paths repeat for every
    piece of a string, hence the cache.
    """
    if not path.startswith("$"):
        return ()
    segments: list[Segment] = []
    i, end = 1, len(path)
    while i < end:
        char = path[i]
        if char == ".":
            j = i + 1
            while j < end and path[j] not in ".[":
                j += 1
            if j == i + 1:
                return ()
            segments.append(path[i + 1 : j])
            i = j
        elif char == "[" and i + 1 < end and path[i + 1] in "'\"":
            quote, j, name = path[i + 1], i + 2, []
            while j < end and path[j] != quote:
                if path[j] == "\\" and j + 1 < end:
                    j += 1
                    if path[j] == "u":
                        code = path[j + 1 : j + 5]
                        if len(code) != 4 or not all(c in _HEX for c in code):
                            return ()
                        name.append(chr(int(code, 16)))
                        j += 5
                        continue
                    name.append(_PATH_ESCAPES.get(path[j], path[j]))
                else:
                    name.append(path[j])
                j += 1
            if j + 1 >= end or path[j + 1] != "]":
                return ()
            segments.append("".join(name))
            i = j + 2
        elif char == "[":
            j = path.find("]", i)
            digits = path[i + 1 : j] if j > 0 else ""
            if not digits.isdigit():
                return ()
            segments.append(int(digits))
            i = j + 1
        else:
            return ()
    return tuple(segments)
