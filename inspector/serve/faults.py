"""Faults on demand: what a request may ask the replay server to do wrong.

A request asks for faults in its query string (``?reset=1200&chunk=1``) or in
one header (``X-Inspector-Fault: reset=1200; chunk=1``); the query wins where
both name the same fault. :data:`FAULTS` is the whole vocabulary.

:func:`plan` is pure: from a recording's chunks and the faults it makes the
list of :class:`Send` / :class:`Stall` / :class:`Close` steps the server then
plays. Tests read the plan to know exactly which bytes a client must get.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Final

from ..core.sse import FrameDecoder

__all__ = [
    "CLOSE_FAULTS",
    "FAULTS",
    "FAULT_HEADER",
    "Close",
    "FaultError",
    "Faults",
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


def _count(name: str, text: str) -> int:
    if not text.isdigit():
        raise FaultError(f"fault {name}={text!r}: expected a whole number of bytes")
    return int(text)


def _positive_count(name: str, text: str) -> int:
    value = _count(name, text)
    if value == 0:
        raise FaultError(f"fault {name}=0: expected at least 1 byte")
    return value


def _seconds(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value >= 0 or value == float("inf"):
        raise FaultError(f"fault {name}={text!r}: expected seconds (a number >= 0)")
    return value


def _status(name: str, text: str) -> int:
    value = _count(name, text)
    if not 400 <= value <= 599:
        raise FaultError(f"fault {name}={text}: expected an HTTP error status (400-599)")
    return value


# name -> (parser, what it does). The docs (docs/live.md) and `GET /` repeat this table.
FAULTS: Final[dict[str, tuple[Callable[[str, str], float | int], str]]] = {
    "cut": (_count, "end the body cleanly after N bytes (HTTP-complete: the client sees EOF)"),
    "drop": (_count, "after N bytes, close the connection without ending the body"),
    "reset": (_count, "after N bytes, reset the connection (TCP RST) instead of a clean close"),
    "stall": (_seconds, "pause S seconds, sending keep-alives (see ping_every) meanwhile"),
    "stall_at": (_count, "where the stall starts: byte N, moved to the next frame boundary "
                         "when keep-alives are sent (default 0)"),
    "ping_every": (_seconds, "seconds between keep-alives during a stall; 0 stalls in silence "
                             "(default 1)"),
    "chunk": (_positive_count, "re-cut the body into pieces of N bytes"),
    "status": (_status, "answer with this HTTP status and the provider's error body instead"),
    "retry_after": (_seconds, "the retry-after header of a 429/503/529 status (default 1)"),
    "speed": (_seconds, "replay speed for this request (0: no delays); overrides --speed"),
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Faults:
    """The faults one request asked for (None: not asked)."""

    cut: int | None = None
    drop: int | None = None
    reset: int | None = None
    stall: float | None = None
    stall_at: int = 0
    ping_every: float = 1.0
    chunk: int | None = None
    status: int | None = None
    retry_after: float = 1.0
    speed: float | None = None

    def describe(self) -> str:
        """``cut=10 chunk=1``: the faults that differ from the defaults, for logs."""
        default = Faults()
        return " ".join(
            f"{name}={getattr(self, name):g}"
            for name in FAULTS
            if getattr(self, name) != getattr(default, name)
        )


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
    values: dict[str, float | int] = {}
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
    """Pause ``seconds``, sending ``ping`` every ``every`` seconds (0: silence)."""

    seconds: float
    every: float
    ping: bytes


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


def frame_ends(body: bytes) -> list[int]:
    """Byte offsets just after each complete SSE event of ``body`` (its blank line included).

    Comments are not counted: one may sit between the lines of an event, so
    the end of its line is not a place where another event can be inserted.
    """
    decoder = FrameDecoder()
    return [frame.end for frame in decoder.feed(body) if not frame.is_comment]


def _rechunk(chunks: list[tuple[float, bytes]], size: int) -> list[tuple[float, bytes]]:
    # Each piece keeps the time of the recorded chunk its first byte came in.
    out: list[tuple[float, bytes]] = []
    carry = b""
    carry_time = 0.0
    for time, data in chunks:
        if not carry:
            carry_time = time
        carry += data
        while len(carry) >= size:
            out.append((carry_time, carry[:size]))
            carry = carry[size:]
            carry_time = time
    if carry:
        out.append((carry_time, carry))
    return out


Pieces = list[tuple[float, bytes]]


def _split_at(chunks: Pieces, offset: int) -> tuple[Pieces, Pieces]:
    """Chunks before byte ``offset`` and from it on (a chunk across it is split)."""
    before: Pieces = []
    after: Pieces = []
    position = 0
    for time, data in chunks:
        if position + len(data) <= offset:
            before.append((time, data))
        elif position >= offset:
            after.append((time, data))
        else:
            cut = offset - position
            before.append((time, data[:cut]))
            after.append((time, data[cut:]))
        position += len(data)
    return before, after


def plan(
    chunks: list[tuple[float, bytes]],
    faults: Faults,
    *,
    speed: float,
    ping: bytes,
    recorded_close: str = "cut",
) -> list[Step]:
    """The steps that play ``chunks`` with ``faults``; see the module docstring.

    ``speed`` divides recorded times (0: no delays). ``recorded_close`` is
    how the recording's own transport ended (a key of :data:`CLOSE_FAULTS`),
    used when the request asks for no other ending.
    """
    speed = faults.speed if faults.speed is not None else speed
    pieces = [(t, d) for t, d in chunks if d]
    if faults.chunk is not None:
        pieces = _rechunk(pieces, faults.chunk)
    ending = next((name for name in CLOSE_FAULTS if getattr(faults, name) is not None), None)
    limit = getattr(faults, ending) if ending is not None else None
    if limit is not None:
        pieces, _ = _split_at(pieces, limit)
    body = b"".join(d for _, d in pieces)
    stall_step: Stall | None = None
    stall_at = 0
    if faults.stall is not None:
        stall_at = min(faults.stall_at, len(body))
        if faults.ping_every > 0:
            # A keep-alive inside a frame would corrupt it: move to a frame boundary.
            stall_at = next((end for end in frame_ends(body) if end >= stall_at), len(body))
        stall_step = Stall(faults.stall, faults.ping_every, ping)
    before, after = _split_at(pieces, stall_at) if stall_step else (pieces, [])

    def sends(part: list[tuple[float, bytes]]) -> list[Step]:
        return [Send(t / speed if speed > 0 else 0.0, d) for t, d in part]

    steps: list[Step] = sends(before)
    if stall_step is not None:
        steps.append(stall_step)
    steps.extend(sends(after))
    steps.append(Close(ending or recorded_close))
    return steps
