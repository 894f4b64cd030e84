"""The skeleton of a normalized stream: everything anonymizing must not change.

Two captures have the same skeleton when their event sequences agree on
everything but text and ids: event types in order, block kinds and indexes,
delta kinds, tool names, whether a call id was given, the key structure of
every block's JSON arguments (and whether they parse), finish reasons, usage
numbers, the terminal state and the error category. The export compares the
original's skeleton with the anonymized capture's and refuses on any
difference (:func:`first_difference` says where).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import orjson

from ..core.choices import key_of
from ..core.trace import Trace
from .jsonlex import lex

__all__ = ["EventSummary", "argument_structure", "first_difference", "skeleton", "summarize"]

Step = tuple[Any, ...]


def argument_structure(text: str) -> tuple[Any, ...]:
    """Every key path in JSON text (maybe cut short), and whether it parses whole."""
    data = text.encode("utf-8", "surrogatepass")
    result = lex(data)
    keys = tuple(t.path for t in result.tokens if t.kind == "key")
    try:
        orjson.loads(data)
        parses = True
    except orjson.JSONDecodeError:
        parses = False
    return (keys, parses, result.error is not None)


def _usage(usage: Any) -> Any:
    if not isinstance(usage, Mapping):
        return usage
    return tuple(sorted((k, v) for k, v in usage.items() if k != "raw"))


class EventSummary(NamedTuple):
    """What an export reads from a trace's events, gathered in one pass.

    ``steps``: the skeleton; ``blocks``: each ``block.start``'s index, kind
    and tool (the report's); ``event_types``: how many events of each type,
    sorted by type; ``assembled``: each block's deltas joined (only when
    asked): the texts a reader of the transcript reassembles, so the leak scan
    sees a secret cut across fragments, frames or chunks whole again.
    """

    steps: list[Step]
    blocks: list[dict[str, Any]]
    event_types: dict[str, int]
    assembled: list[tuple[str, str]]


def skeleton(trace: Trace) -> list[Step]:
    """The skeleton of a trace, one step per event, then the final state."""
    return summarize(trace).steps


def summarize(trace: Trace, *, assemble: bool = False) -> EventSummary:
    """The skeleton, blocks, event counts and (with ``assemble``) texts of a trace.

    One pass over the events: each is built once, and a large stream has
    hundreds of thousands.
    """
    out: list[Step] = []
    blocks: list[dict[str, Any]] = []
    types: Counter[str] = Counter()
    texts: dict[int, list[str]] = {}
    arguments: dict[int, list[str]] = {}
    shared: dict[Step, Step] = {}
    deltas = 0
    # The last compact delta's block (its dict) and kind, its step, and the lists
    # its arguments and texts went to: the next delta of the same block and kind
    # (nearly every one) is filed with these. Any other event forgets them.
    last: tuple[Any, Any] | None = None
    last_step: Step = ()
    last_arguments: list[str] | None = None
    last_texts: list[str] | None = None
    # A compact block.delta (nearly every event) is read without its dict.
    for delta_kind, event, text in trace.events.compact():
        if delta_kind is not None:
            deltas += 1
            if last is not None and event is last[0] and delta_kind == last[1]:
                out.append(last_step)
                if last_arguments is not None:
                    last_arguments.append(text or "")
                if assemble and isinstance(text, str) and text:
                    if last_texts is None:
                        last_texts = texts.setdefault(key_of(event), [])
                    last_texts.append(text)
                continue
            index = key_of(event)  # the delta's block (several choices: its choice too)
            last_arguments = None
            if delta_kind == "json_text" and isinstance(index, int):
                last_arguments = arguments.setdefault(index, [])
                last_arguments.append(text or "")
            step: Step = ("block.delta", index, event["kind"], delta_kind)
            # One tuple per distinct step: a stream's deltas repeat a few (held
            # while the anonymized stream is normalized; ~12 MB on 30 MB otherwise).
            last_step = shared.setdefault(step, step)
            out.append(last_step)
            last = (event, delta_kind)
            last_texts = None
            if assemble and isinstance(text, str) and text:
                last_texts = texts.setdefault(index, [])
                last_texts.append(text)
            continue
        last = None
        kind = event["type"]
        types[kind] += 1
        block: Any = event.get("block")
        # Events are dicts: type() first, the Mapping check (an ABC: slow) only otherwise.
        is_block = type(block) is dict or isinstance(block, Mapping)
        if kind == "block.delta":  # most events: the shortest path
            delta = event.get("delta")
            if is_block:
                index = key_of(block)
                delta_kind = (delta or {}).get("kind")
                if delta_kind == "json_text" and isinstance(index, int):
                    arguments.setdefault(index, []).append((delta or {}).get("text") or "")
                step = (kind, index, block["kind"], delta_kind)
                out.append(shared.setdefault(step, step))
            else:
                out.append((kind,))
            if assemble:
                text = (delta or {}).get("text")
                if isinstance(text, str) and text:
                    texts.setdefault(key_of(event["block"]), []).append(text)
            continue
        index = key_of(block) if is_block else None
        if kind == "block.start":
            start: dict[str, Any] = {
                "index": key_of(event["block"]),
                "kind": event["block"]["kind"],
            }
            if event.get("name") is not None:
                start["tool"] = event["name"]
            blocks.append(start)
        if kind == "stream.start":
            out.append((kind, event.get("provider"), event.get("model")))
        elif kind == "block.start" and is_block:
            out.append(
                (
                    kind,
                    index,
                    block["kind"],
                    event.get("provider_type"),
                    event.get("name"),
                    event.get("call_id") is not None,
                    event.get("visibility"),
                )
            )
        elif kind == "block.stop" and is_block:
            parts = arguments.pop(index, None) if isinstance(index, int) else None
            shape = argument_structure("".join(parts)) if parts is not None else None
            out.append((kind, index, block["kind"], shape))
        elif kind == "stream.done":
            out.append(
                (
                    kind,
                    event.get("status"),
                    event.get("finish_reason"),
                    event.get("provider_finish_reason"),
                    _usage(event.get("usage")),
                )
            )
        elif kind == "stream.error":
            error = event.get("error") or {}
            out.append(
                (
                    kind,
                    event.get("status"),
                    error.get("category"),
                    error.get("retryable"),
                    error.get("provider_code"),
                )
            )
        elif kind == "stream.warning":
            out.append((kind, event.get("code")))
        else:
            out.append((kind,))
    # Arguments of blocks the stream never closed: their structure so far.
    for index, parts in sorted(arguments.items()):
        out.append(("unclosed", index, argument_structure("".join(parts))))
    if deltas:
        types["block.delta"] += deltas
    out.append(("state", trace.state))
    assembled = [(f"block {index}, assembled", "".join(p)) for index, p in sorted(texts.items())]
    return EventSummary(out, blocks, dict(sorted(types.items())), assembled)


def first_difference(original: Sequence[Step], anonymized: Sequence[Step]) -> str | None:
    """Where two skeletons differ, in words; None when they are equal."""
    for i, (a, b) in enumerate(zip(original, anonymized, strict=False)):
        if a != b:
            return f"step {i + 1}: the original has {a!r}, the anonymized capture {b!r}"
    if len(original) != len(anonymized):
        return f"the original has {len(original)} steps, the anonymized capture {len(anonymized)}"
    return None
