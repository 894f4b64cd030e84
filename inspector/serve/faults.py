"""Faults on demand: what a request may ask the replay server to do wrong.

A request asks for faults in its query string (``?reset=1200&chunk=1``) or in
one header (``X-Inspector-Fault: reset=1200; chunk=1``); the query wins where
both name the same fault. :data:`FAULTS` is the whole vocabulary.

A fault's place is a stated byte offset (``cut=1200``) or a frame boundary
of the recording's own framing (``cut=frame:3``: where frame 3, counted from
0, begins — after three whole frames). A frame is an SSE event, an NDJSON
line, an AWS event-stream message or a JSON-array element
(:mod:`.framings`): so a fault on a binary stream never splits a message
unless its offset asks for that. ``corrupt`` damages one byte (every bit
flipped): on the AWS event stream that is a CRC mismatch any client detects.

:func:`plan` is pure: from a recording's chunks and the faults it makes the
list of :class:`Send` / :class:`Stall` / :class:`Close` steps the server then
plays. Tests read the plan to know exactly which bytes a client must get.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Final, Required, TypedDict, Unpack

from .framings import frame_ends, iter_frame_spans

__all__ = [
    "CLOSE_FAULTS",
    "FAULTS",
    "FAULT_HEADER",
    "Close",
    "FaultError",
    "Faults",
    "FrameAt",
    "Send",
    "Stall",
    "Step",
    "frame_ends",
    "parse_faults",
    "plan",
]

FAULT_HEADER: Final = "x-inspector-fault"


class FaultError(ValueError):
    """A fault request the server cannot follow; the message names it."""


#: ASCII digits only: ``int()`` and ``float()`` also take ``"\u0661\u0662"``,
#: ``"1_0"``, ``" 5"``, ``"1e9"``, ``"nan"`` and ``"inf"``.
_WHOLE: Final = re.compile(r"[0-9]{1,15}")
_DECIMAL: Final = re.compile(r"[0-9]{1,9}(?:\.[0-9]{1,9})?")

#: Bounds, so no request can make the server hold or wait without end.
MAX_OFFSET: Final = 1 << 40
MAX_CHUNK: Final = 16 << 20
MAX_STALL: Final = 3600.0
MIN_PING: Final = 0.01
MAX_RETRY_AFTER: Final = 86400.0
MIN_SPEED: Final = 0.001
MAX_SPEED: Final = 1e6

Parser = Callable[[str, str], "float | int | FrameAt"]


def _whole(low: int, high: int, unit: str = "bytes") -> Parser:
    def parse(name: str, text: str) -> int:
        if _WHOLE.fullmatch(text) is None or not low <= int(text) <= high:
            raise FaultError(
                f"fault {name}={text!r}: expected a whole number of {unit} from {low} to {high} "
                "(ASCII digits)"
            )
        return int(text)

    return parse


def _seconds(high: float, *, least: float = 0.0, what: str = "seconds") -> Parser:
    """Seconds (or a factor) in ``[least, high]``, or exactly 0."""

    def parse(name: str, text: str) -> float:
        value = float(text) if _DECIMAL.fullmatch(text) else -1.0
        if not (value == 0 or least <= value <= high):
            low = f"0 or {least:g}" if least > 0 else "0"
            raise FaultError(
                f"fault {name}={text!r}: expected {what} (a number such as 2 or 0.5) "
                f"from {low} to {high:g}"
            )
        return value

    return parse


@dataclass(frozen=True, slots=True)
class FrameAt:
    """A place given as a frame: where frame ``index`` (from 0) begins."""

    index: int

    def __str__(self) -> str:
        return f"frame:{self.index}"


Place = int | FrameAt
_FRAME: Final = re.compile(r"frame:([0-9]{1,9})")


def _place(name: str, text: str) -> Place:
    """A byte offset, or ``frame:K`` (where frame K begins)."""
    framed = _FRAME.fullmatch(text)
    if framed is not None:
        return FrameAt(int(framed.group(1)))
    if _WHOLE.fullmatch(text) is None or not 0 <= int(text) <= MAX_OFFSET:
        raise FaultError(
            f"fault {name}={text!r}: expected a whole number of bytes from 0 to {MAX_OFFSET} "
            "(ASCII digits), or frame:K (where frame K, counted from 0, begins)"
        )
    return int(text)


def _status(name: str, text: str) -> int:
    if _WHOLE.fullmatch(text) is None or not 400 <= int(text) <= 599:
        raise FaultError(f"fault {name}={text!r}: expected an HTTP error status (400-599)")
    return int(text)


# name -> (parser, what it does). The docs (docs/live.md) and `GET /` repeat this table.
FAULTS: Final[dict[str, tuple[Parser, str]]] = {
    "cut": (_place,
            "end the body cleanly after N bytes, or at frame:K (HTTP-complete: the client "
            "sees EOF)"),
    "drop": (_place,
             "after N bytes (or at frame:K), close the connection without ending the body"),
    "reset": (_place,
              "after N bytes (or at frame:K), reset the connection (TCP RST) instead of a "
              "clean close"),
    "corrupt": (_place, "flip every bit of byte N (frame:K: the middle byte of frame K); "
                "on the AWS event stream a CRC mismatch"),
    "stall": (_seconds(MAX_STALL),
              "pause S seconds, sending keep-alives (see ping_every) meanwhile; SSE only has "
              "keep-alives, other framings stall in silence"),
    "stall_at": (_place, "where the stall starts: byte N (moved to the next frame boundary "
                 "when keep-alives are sent) or frame:K (default 0)"),
    "ping_every": (_seconds(MAX_STALL, least=MIN_PING), "seconds between keep-alives during "
                   "an SSE stall; 0 stalls in silence (default 1)"),
    "chunk": (_whole(1, MAX_CHUNK), "re-cut the body into pieces of N bytes"),
    "status": (_status, "answer with this HTTP status and the provider's error body instead"),
    "retry_after": (_seconds(MAX_RETRY_AFTER),
                    "the retry-after header of a 429/503/529 status (default 1)"),
    "speed": (_seconds(MAX_SPEED, least=MIN_SPEED, what="a speed"),
              "replay speed for this request (0: no delays); overrides --speed"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Faults:
    """The faults one request asked for (None: not asked)."""

    cut: Place | None = None
    drop: Place | None = None
    reset: Place | None = None
    corrupt: Place | None = None
    stall: float | None = None
    stall_at: Place = 0
    ping_every: float = 1.0
    chunk: int | None = None
    status: int | None = None
    retry_after: float = 1.0
    speed: float | None = None

    def describe(self) -> str:
        """``cut=10 chunk=1``: the faults that differ from the defaults, for logs."""
        default = Faults()
        return " ".join(
            f"{name}={_shown(getattr(self, name))}"
            for name in FAULTS
            if getattr(self, name) != getattr(default, name)
        )

    @property
    def by_frame(self) -> bool:
        """Whether a place is given as a frame (the body's frames must be found)."""
        return any(isinstance(getattr(self, name), FrameAt) for name in _PLACES)


#: The faults whose value is a place in the body.
_PLACES: Final = ("cut", "drop", "reset", "corrupt", "stall_at")


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, int | float) else str(value)


def _pairs_from_header(value: str) -> list[tuple[str, str]]:
    pairs = []
    for item in value.replace("&", ";").replace(",", ";").split(";"):
        if item.strip():
            name, sep, text = item.partition("=")
            if not sep:
                raise FaultError(f"{FAULT_HEADER}: {item.strip()!r} is not NAME=VALUE")
            pairs.append((name.strip().lower(), text.strip()))
    return pairs


def parse_faults(query: Mapping[str, str], header: str | None = None) -> Faults:
    """The faults of one request (raises :class:`FaultError`).

    Unknown query parameters are ignored (real APIs have their own, such as
    Gemini's ``alt``); an unknown name in the fault header is an error, so a
    typo does not silently test nothing.
    """
    values: dict[str, float | int | FrameAt] = {}
    for name, text in _pairs_from_header(header or ""):
        if name not in FAULTS:
            raise FaultError(f"{FAULT_HEADER}: unknown fault {name!r}; known: {', '.join(FAULTS)}")
        values[name] = FAULTS[name][0](name, text)
    for name, (parse, _) in FAULTS.items():
        if name in query:
            values[name] = parse(name, query[name])
    enders = [name for name in CLOSE_FAULTS if name in values]
    if len(enders) > 1:
        raise FaultError(f"faults {' and '.join(enders)} all end the body: choose one")
    return Faults(**values)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Send:
    """Send ``data`` ``at`` seconds after the response started (stalls shift it)."""

    at: float
    data: bytes


@dataclass(frozen=True, slots=True)
class Stall:
    """Pause ``seconds``, sending ``ping`` every ``every`` seconds (0 or no ping: silence)."""

    seconds: float
    every: float
    ping: bytes | None


#: How a response can end: the fault that asks for it -> what the server does.
CLOSE_FAULTS: Final[dict[str, str]] = {
    "cut": "finish the HTTP response normally",
    "drop": "close the TCP connection (FIN) with the HTTP body unfinished",
    "reset": "abort the TCP connection (RST)",
}


@dataclass(frozen=True, slots=True)
class Close:
    """End the response: ``how`` is ``cut`` (clean), ``drop`` or ``reset``."""

    how: str


Step = Send | Stall | Close


Pieces = Iterable[tuple[float, bytes]]


def _rechunk(chunks: Pieces, size: int) -> Iterator[tuple[float, bytes]]:
    """Pieces of ``size`` bytes, each with the time of the recorded chunk its first byte
    came in. Linear in the body and lazy: ``chunk=1`` on a large capture makes no list
    of millions of pieces and copies no byte twice."""
    carry = bytearray()
    carry_time = 0.0
    for time, data in chunks:
        view = memoryview(data)
        start = 0
        if carry:
            start = size - len(carry)
            carry += view[:start]
            if len(carry) < size:
                continue
            yield carry_time, bytes(carry)
            carry.clear()
        while len(data) - start >= size:
            yield time, bytes(view[start : start + size])
            start += size
        if start < len(data):
            carry += view[start:]
            carry_time = time
    if carry:
        yield carry_time, bytes(carry)


def _truncate(chunks: Pieces, limit: int) -> Iterator[tuple[float, bytes]]:
    """The chunks' first ``limit`` bytes."""
    left = limit
    for time, data in chunks:
        if left <= 0:
            return
        yield time, data[:left] if len(data) > left else data
        left -= len(data)


def _corrupted(chunks: Pieces, offset: int) -> Iterator[tuple[float, bytes]]:
    """The chunks with every bit of body byte ``offset`` flipped (a byte past the end: none)."""
    position = 0
    for time, data in chunks:
        if position <= offset < position + len(data):
            at = offset - position
            data = data[:at] + bytes((data[at] ^ 0xFF,)) + data[at + 1 :]
        position += len(data)
        yield time, data


class _Places:
    """The byte offsets of a request's places, frame addresses found by decoding.

    Frames are decoded as each question is asked and stop at the frame it
    needs: no list of a large capture's frames is ever made for a request.
    """

    def __init__(self, chunks: list[tuple[float, bytes]], framing: str) -> None:
        self.total = sum(len(d) for _, d in chunks)
        self.framing = framing
        self._chunks = chunks

    def spans(self) -> Iterator[tuple[int, int]]:
        """Every complete frame's span, in order (one pass over the body)."""
        return iter_frame_spans((d for _, d in self._chunks), self.framing)

    def _span(self, index: int) -> tuple[int, int] | None:
        return next(itertools.islice(self.spans(), index, None), None)

    def boundary(self, place: Place) -> int:
        """The byte offset of ``place``: where frame K begins (past the last: the end)."""
        if isinstance(place, int):
            return place
        span = self._span(place.index)
        return span[0] if span is not None else self.total

    def corrupted_byte(self, place: Place) -> int:
        """The byte ``corrupt`` damages: the offset, or the middle of frame K (none: -1)."""
        if isinstance(place, int):
            return place
        span = self._span(place.index)
        if span is None:
            return -1
        start, end = span
        return start + (end - start) // 2


def _stall_offset(places: _Places, faults: Faults, limit: int | None, ping: bytes | None) -> int:
    """Where the stall goes, in the (already cut) body: see :data:`FAULTS`."""
    total = places.total if limit is None else min(limit, places.total)
    stall_at = min(places.boundary(faults.stall_at), total)
    if faults.ping_every <= 0 or ping is None:
        return stall_at
    # A keep-alive inside a frame would corrupt it: move to a frame boundary.
    for _, end in places.spans():
        if end > total:
            break
        if end >= stall_at:
            return end
    return total


def iter_plan(
    chunks: list[tuple[float, bytes]],
    faults: Faults,
    *,
    speed: float,
    ping: bytes | None,
    recorded_close: str = "cut",
    framing: str = "sse",
) -> Iterator[Step]:
    """The steps that play ``chunks`` with ``faults``, made as they are played.

    Memory and time are linear in the recording, whatever ``chunk`` asks for;
    see :func:`plan` for the meaning.
    """
    speed = faults.speed if faults.speed is not None else speed
    recorded = [(t, d) for t, d in chunks if d]
    places = _Places(recorded, framing)
    pieces: Pieces = iter(recorded)
    if faults.corrupt is not None:
        damaged = places.corrupted_byte(faults.corrupt)
        if damaged >= 0:
            pieces = _corrupted(pieces, damaged)
    if faults.chunk is not None:
        pieces = _rechunk(pieces, faults.chunk)
    ending = next((name for name in CLOSE_FAULTS if getattr(faults, name) is not None), None)
    limit = places.boundary(getattr(faults, ending)) if ending is not None else None
    if limit is not None:
        pieces = _truncate(pieces, limit)
    stall_at = -1
    if faults.stall is not None:
        stall_at = _stall_offset(places, faults, limit, ping)
    position = 0
    for time, data in pieces:
        at = time / speed if speed > 0 else 0.0
        if stall_at >= 0 and position <= stall_at < position + len(data):
            split = stall_at - position
            if split:
                yield Send(at, data[:split])
            yield Stall(faults.stall or 0.0, faults.ping_every, ping)
            stall_at = -1
            yield Send(at, data[split:])
        else:
            yield Send(at, data)
        position += len(data)
    if stall_at >= 0:
        yield Stall(faults.stall or 0.0, faults.ping_every, ping)
    yield Close(ending or recorded_close)


class _Playing(TypedDict, total=False):
    """:func:`iter_plan`'s keyword arguments, for :func:`plan` to hand on."""

    speed: Required[float]
    ping: Required[bytes | None]
    recorded_close: str
    framing: str


def plan(
    chunks: list[tuple[float, bytes]], faults: Faults, **playing: Unpack[_Playing]
) -> list[Step]:
    """The steps that play ``chunks`` with ``faults``; see the module docstring.

    ``speed`` divides recorded times (0: no delays). ``recorded_close`` is
    how the recording's own transport ended (a key of :data:`CLOSE_FAULTS`),
    used when the request asks for no other ending. ``framing`` is the
    recording's (``frame:K`` places and keep-alive boundaries are its frames);
    ``ping`` None: the framing has no keep-alive, a stall is silent. The
    server plays the same steps lazily (:func:`iter_plan`).
    """
    return list(iter_plan(chunks, faults, **playing))
