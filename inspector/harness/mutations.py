"""The mutation matrix: every way the harness changes a capture before serving it.

A mutation is a pure function from a :class:`~.scenario.Base` to a
:class:`~.scenario.Scenario`, or None where it does not apply (no tool call
to break, no multi-byte character to split). :data:`MUTATIONS` is the whole
table, in the matrix's order; ``group`` says whether a correct client should
still succeed (``wire``: the bytes mean the same) or the oracle decides from
the mutated bytes (``semantic``). Positions come from the oracle's trace of
the original, so "mid-tool-arguments" is where the normalizer saw the first
argument fragment, whatever the provider.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Final

from .scenario import Base, Scenario

__all__ = ["MUTATIONS", "Mutation", "applicable", "mutation_names", "positions"]

Make = Callable[[Base, str], Scenario | None]


@dataclass(frozen=True, slots=True)
class Mutation:
    """One column of the matrix."""

    name: str
    group: str  # "wire" or "semantic"
    help: str
    make: Make


# -- where things are, from the oracle's trace of the original ---------------


def _frame_spans(base: Base) -> list[tuple[int, int]]:
    frames = base.trace.frames
    return [frames.span_of(i) for i in range(len(frames))]


def _first_frame(base: Base, block_kind: str, delta_kind: str) -> int | None:
    """The frame of the first delta of ``delta_kind`` in a block of ``block_kind``."""
    kinds: dict[str, str] = {}
    for index, event in enumerate(base.trace.events):
        if event["type"] == "block.start":
            kinds[event["block"]["id"]] = event["block"]["kind"]
        elif (
            event["type"] == "block.delta"
            and event["delta"]["kind"] == delta_kind
            and kinds.get(event["block"]["id"]) == block_kind
        ):
            frame = base.trace.frame_of_event(index)
            return frame if frame >= 0 else None
    return None


def _proof_frame(base: Base) -> int | None:
    """The frame whose event completed the stream (-1: the end of the bytes proved it)."""
    terminal = base.trace.terminal_event
    if base.trace.state != "completed" or terminal is None:
        return None
    return base.trace.frame_of_event(len(base.trace.events) - 1)


def positions(base: Base) -> dict[str, int]:
    """Byte offsets of each class of position in ``base`` that exists before its proof.

    ``start`` (before the first byte), ``mid-text`` (just after the first text
    fragment), ``mid-tool-args`` (just after the first argument fragment),
    ``after-finish`` (everything but the final signal).
    """
    spans = _frame_spans(base)
    proof = _proof_frame(base)
    limit = len(base.body) if proof is None or proof < 0 else spans[proof][0]
    found: dict[str, int] = {"start": 0}
    for name, block, delta in (
        ("mid-text", "text", "text"),
        ("mid-tool-args", "tool_call", "json_text"),
    ):
        frame = _first_frame(base, block, delta)
        if frame is not None and spans[frame][1] <= limit and frame != proof:
            found[name] = spans[frame][1]
    if proof is not None:
        found["after-finish"] = limit
    return found


def _newline(base: Base) -> bytes:
    return b"\r\n" if b"\r\n" in base.body[:4096] else b"\n"


def _event(base: Base, text: bytes) -> bytes:
    """An SSE event written with the capture's own line ends."""
    nl = _newline(base)
    return text.replace(b"\n", nl)


def _split(body: bytes, cuts: Iterable[int]) -> tuple[bytes, ...]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    edges = [0, *points, len(body)]
    return tuple(body[a:b] for a, b in itertools.pairwise(edges))


def _insert(body: bytes, inserts: dict[int, bytes]) -> bytes:
    out, last = [], 0
    for at in sorted(inserts):
        out += [body[last:at], inserts[at]]
        last = at
    out.append(body[last:])
    return b"".join(out)


# -- wire mutations: the same stream, other bytes on the wire ----------------


def _as_recorded(base: Base, name: str) -> Scenario:
    return base.scenario(name, base.chunks)


def _cuts_mutation(cuts_of: Callable[[bytes], list[int]]) -> Make:
    def make(base: Base, name: str) -> Scenario | None:
        if base.status >= 400:
            return None
        cuts = cuts_of(base.body)
        return base.scenario(name, _split(base.body, cuts)) if cuts else None

    return make


_UTF8_LEAD: Final = re.compile(rb"[\xc2-\xf4]")
_FIELD: Final = re.compile(rb"(?:^|(?<=[\r\n]))[a-z]{2}")


def _utf8_cuts(body: bytes) -> list[int]:
    return [m.start() + 1 for m in _UTF8_LEAD.finditer(body)]


def _field_cuts(body: bytes) -> list[int]:
    return [m.start() + 1 for m in _FIELD.finditer(body)]


def _byte_cuts(body: bytes) -> list[int]:
    return list(range(1, len(body))) if len(body) <= _BYTEWISE_LIMIT else []


#: One byte per piece up to this size (the bundled captures are all smaller).
_BYTEWISE_LIMIT: Final = 256 * 1024
_EVENTS_PER_CHUNK: Final = 3


def _coalesce(base: Base, name: str) -> Scenario | None:
    if base.status >= 400:
        return None
    ends = [end for _, end in _frame_spans(base)]
    cuts = ends[_EVENTS_PER_CHUNK - 1 :: _EVENTS_PER_CHUNK]
    return base.scenario(name, _split(base.body, cuts))


_LINE_END: Final = re.compile(rb"\r\n|\r|\n")


def _line_ends(new: bytes, split_crlf: bool = False) -> Make:
    def make(base: Base, name: str) -> Scenario | None:
        if base.status >= 400:
            return None
        body = _LINE_END.sub(new, base.body)
        if body == base.body and not split_crlf:
            return None
        cuts = [m.start() + 1 for m in re.finditer(rb"\r\n", body)] if split_crlf else []
        return base.scenario(name, _split(body, cuts) if cuts else (body,))

    return make


#: Keep-alives a provider documents, besides the SSE comment every provider may get.
_PINGS: Final[dict[str, bytes]] = {
    "anthropic": b'event: ping\ndata: {"type": "ping"}\n\n',
    "openai-responses": b'event: keepalive\ndata: {"type":"keepalive","sequence_number":0}\n\n',
}


def _tool_frames(base: Base) -> list[int]:
    """Frames inside the first tool-call block: from its start to its last fragment."""
    first = _first_frame(base, "tool_call", "json_text")
    if first is None:
        return []
    kinds: dict[str, str] = {}
    last = first
    for index, event in enumerate(base.trace.events):
        if event["type"] == "block.start":
            kinds[event["block"]["id"]] = event["block"]["kind"]
        elif event["type"] == "block.delta" and kinds.get(event["block"]["id"]) == "tool_call":
            last = max(last, base.trace.frame_of_event(index))
    return list(range(first, last + 1))


def _pings_in_tool(base: Base, name: str) -> Scenario | None:
    frames = _tool_frames(base)
    if not frames:
        return None
    ping = _event(base, b": ping\n\n" + _PINGS.get(base.provider, b""))
    spans = _frame_spans(base)
    body = _insert(base.body, {spans[f][1]: ping for f in frames})
    return base.scenario(name, (body,))


def _proven_by_eof(base: Base) -> bool:
    """Whether the end of the bytes itself is the proof (a dialect whose finish reason
    is final without ``[DONE]``): there is then no final signal to cut before or to
    hold the connection open after."""
    proof = _proof_frame(base)
    return proof is not None and proof < 0


def _hold_open(base: Base, name: str) -> Scenario | None:
    if base.trace.state != "completed" or _proven_by_eof(base):
        return None
    return base.scenario(name, base.chunks, "stall")


# -- semantic mutations: the oracle decides from what is left ----------------


def _truncate(position: str, ending: str) -> Make:
    def make(base: Base, name: str) -> Scenario | None:
        at = positions(base).get(position)
        if base.status >= 400 or at is None:
            return None
        if at == len(base.body) and ending == "eof":
            return None  # (EOF after every byte is the capture as recorded)
        return base.scenario(name, _split(base.body[:at], _chunk_ends(base, at)), ending)

    return make


def _chunk_ends(base: Base, limit: int) -> list[int]:
    ends, at = [], 0
    for chunk in base.chunks:
        at += len(chunk)
        if at < limit:
            ends.append(at)
    return ends


def _drop_frames(pick: Callable[[Base], list[int]]) -> Make:
    def make(base: Base, name: str) -> Scenario | None:
        frames = pick(base)
        if base.status >= 400 or not frames:
            return None
        spans = _frame_spans(base)
        body, last = [], 0
        for f in sorted(frames):
            body.append(base.body[last : spans[f][0]])
            last = spans[f][1]
        body.append(base.body[last:])
        return base.scenario(name, (b"".join(body),))

    return make


def _final_signal(base: Base) -> list[int]:
    proof = _proof_frame(base)
    return [proof] if proof is not None and proof >= 0 else []


def _usage_frames(base: Base) -> list[int]:
    """Frames that carry only usage (OpenAI Chat's ``choices: []`` chunk with ``usage``)."""
    found = []
    for index, frame in enumerate(base.trace.frames):
        data = frame.data
        if '"usage"' in data and '"choices":[]' in data.replace(" ", ""):
            found.append(index)
    return found


#: Each provider's documented mid-stream error shapes (from the bundled captures:
#: openai-chat error-after-partial-text and compatible-error-chunk, anthropic
#: overloaded-after-text, openai-responses error-then-failed, gemini error-after-partial-text).
ERROR_SHAPES: Final[dict[str, dict[str, bytes]]] = {
    "openai-chat": {
        "error-data": b'data: {"error":{"message":"The server had an error while processing your '
        b'request.","type":"server_error","param":null,"code":null}}\n\n',
        "error-event": b'event: error\ndata: {"error":{"message":"Tool call validation failed",'
        b'"type":"invalid_request_error","code":"tool_use_failed","status_code":400}}\n\n',
    },
    "openai-responses": {
        "error-event": b'event: error\ndata: {"type":"error","code":"server_error","message":'
        b'"An error occurred while processing your request.","param":null,'
        b'"sequence_number":9000}\n\n',
        "response-failed": b'event: response.failed\ndata: {"type":"response.failed",'
        b'"sequence_number":9001,"response":{"id":"resp_harness","object":"response",'
        b'"created_at":0,"status":"failed","error":{"code":"server_error","message":'
        b'"An error occurred while processing your request."},"model":"m","output":[],'
        b'"parallel_tool_calls":true,"tool_choice":"auto","tools":[]}}\n\n',
    },
    "anthropic": {
        "error-event": b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error",'
        b'"message":"Overloaded"}}\n\n',
    },
    "gemini": {
        "error-data": b'data: {"error": {"code": 500, "message": "An internal error has occurred.",'
        b' "status": "INTERNAL"}}\n\n',
    },
}


def _mid(base: Base) -> int | None:
    found = positions(base)
    return found.get("mid-text", found.get("mid-tool-args"))


def _error_shape(shape: str) -> Make:
    def make(base: Base, name: str) -> Scenario | None:
        at = _mid(base)
        error = ERROR_SHAPES.get(base.provider, {}).get(shape)
        if base.status >= 400 or at is None or error is None:
            return None
        return base.scenario(name, (base.body[:at], _event(base, error)), "eof")

    return make


#: A final signal that says ``stop`` (or its provider's word) while a tool call is open.
_LYING_FINISH: Final[dict[str, bytes]] = {
    "openai-chat": b'data: {"id":"chatcmpl-harness","object":"chat.completion.chunk","created":0,'
    b'"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
    "anthropic": b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":'
    b'"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    "gemini": b'data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},'
    b'"finishReason":"STOP","index":0}]}\n\n',
}


def _lying_finish(base: Base, name: str) -> Scenario | None:
    at = positions(base).get("mid-tool-args")
    if base.status >= 400 or at is None:
        return None
    finish = _LYING_FINISH.get(base.provider)
    if finish is None:  # Responses: its own response.completed, while the call is open
        proof = _final_signal(base)
        if not proof:
            return None
        start, end = _frame_spans(base)[proof[0]]
        return base.scenario(name, (base.body[:at], base.body[start:end]), "eof")
    return base.scenario(name, (base.body[:at], _event(base, finish)), "eof")


def _duplicate(base: Base, name: str) -> Scenario | None:
    frame = _first_frame(base, "text", "text")
    if frame is None:
        frame = _first_frame(base, "tool_call", "json_text")
    if base.status >= 400 or frame is None or frame == _proof_frame(base):
        return None
    start, end = _frame_spans(base)[frame]
    return base.scenario(name, (_insert(base.body, {end: base.body[start:end]}),))


_UNKNOWN: Final = (
    b'event: inspector.unknown\ndata: {"type":"inspector.unknown","note":"harness"}\n\n'
)


def _unknown(base: Base, name: str) -> Scenario | None:
    spans = _frame_spans(base)
    if base.status >= 400 or len(spans) < 2:
        return None
    return base.scenario(name, (_insert(base.body, {spans[0][1]: _event(base, _UNKNOWN)}),))


_POSITIONS: Final = {
    "start": "before the first byte",
    "mid-text": "just after the first text fragment",
    "mid-tool-args": "just after the first tool-argument fragment",
    "after-finish": "after the finish reason, before the final signal",
}


def _table() -> list[Mutation]:
    table = [
        Mutation("as-recorded", "wire", "the capture as recorded", _as_recorded),
        Mutation("split-utf8", "wire", "a piece boundary inside every multi-byte UTF-8 character",
                 _cuts_mutation(_utf8_cuts)),
        Mutation("split-field", "wire", "a piece boundary inside every field name (da|ta:)",
                 _cuts_mutation(_field_cuts)),
        Mutation("split-cr-lf", "wire", "CRLF line ends, a piece boundary between every CR and LF",
                 _line_ends(b"\r\n", split_crlf=True)),
        Mutation("one-byte", "wire", "one byte per piece", _cuts_mutation(_byte_cuts)),
        Mutation("coalesced", "wire", f"{_EVENTS_PER_CHUNK} events per piece", _coalesce),
        Mutation("lines-lf", "wire", "LF line ends", _line_ends(b"\n")),
        Mutation("lines-crlf", "wire", "CRLF line ends", _line_ends(b"\r\n")),
        Mutation("lines-cr", "wire", "CR line ends", _line_ends(b"\r")),
        Mutation("pings-in-tool", "wire", "comments and provider pings after every frame of a "
                 "tool call", _pings_in_tool),
        Mutation("hold-open", "wire", "the connection held open after the final signal",
                 _hold_open),
    ]  # fmt: skip
    for position, where in _POSITIONS.items():
        for ending, what in (("eof", "EOF"), ("reset", "a reset"), ("stall", "a silent stall")):
            table.append(
                Mutation(f"{ending}@{position}", "semantic", f"{what} {where}",
                         _truncate(position, ending))
            )  # fmt: skip
    table += [
        Mutation("no-final-signal", "semantic", "the final signal dropped",
                 _drop_frames(_final_signal)),
        Mutation("no-usage", "semantic", "the usage chunk dropped", _drop_frames(_usage_frames)),
    ]  # fmt: skip
    shapes = sorted({shape for shapes in ERROR_SHAPES.values() for shape in shapes})
    table += [
        Mutation(shape, "semantic", f"the provider's {shape} shape mid-stream, then EOF",
                 _error_shape(shape))
        for shape in shapes
    ]  # fmt: skip
    table += [
        Mutation("lying-finish", "semantic", "a stop while a tool call is open", _lying_finish),
        Mutation("duplicate-event", "semantic", "the first content event sent twice", _duplicate),
        Mutation("unknown-event", "semantic", "an unknown event after the first", _unknown),
    ]  # fmt: skip
    return table


MUTATIONS: Final[dict[str, Mutation]] = {m.name: m for m in _table()}


def mutation_names(group: str | None = None) -> list[str]:
    """Every mutation's name, in the matrix's order (``group``: only ``wire`` or ``semantic``)."""
    return [m.name for m in MUTATIONS.values() if group is None or m.group == group]


def applicable(base: Base, names: Iterable[str] | None = None) -> list[Scenario]:
    """The scenarios of ``base`` under each mutation named (default: all) that applies."""
    out = []
    for name in names if names is not None else MUTATIONS:
        scenario = MUTATIONS[name].make(base, name)
        if scenario is not None:
            out.append(scenario)
    return out
