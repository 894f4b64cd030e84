"""A run of plain deltas judges every shape of event as ``feed`` judges it.

The run functions compiled from the adapters' plain-frame descriptions check
a parsed event's shape without asking each value's type on the way down (a
wrong type raises, or fails the test after it). Whatever type each field of a
plain event has, or whichever field is missing or added, the trace must be
the one the reference mode (``Normalizer(fast=False)``: no runs) gives: the
same events, problems and state.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from benchmarks.streams import GENERATORS, WORDS
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace

from .test_core_fast_paths import _record

#: One value of every JSON type, and the shapes a field is mistaken for.
ODD_VALUES: list[Any] = [
    None, True, False, 0, 1, 1.5, "", "x", " the", "content", "text",
    [], [0], ["content"], [{}], [{"text": "x"}], {}, {"0": 0}, {"text": "x"},
    {"content": "x"}, {"content": "x", "index": 0},
]  # fmt: skip


#: Fields a plain event lacks, some of which change what it means to one provider.
EXTRA_KEYS = (
    "error", "usage", "finish_reason", "finishReason", "index", "extra", "thought",
    "thoughtSignature", "functionCall", "refusal", "reasoning_content", "tool_calls",
    "annotations", "type", "role", "promptFeedback", "sequence_number", "content_index",
    "output_index", "item_id", "logprobs", "safetyRatings", "groundingMetadata",
)  # fmt: skip


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every key and index path inside a parsed JSON value (the root excluded)."""
    items = (
        value.items()
        if isinstance(value, dict)
        else enumerate(value)
        if isinstance(value, list)
        else ()
    )
    for key, item in items:
        yield (*path, key)
        yield from _paths(item, (*path, key))


def _replaced(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    """A copy of ``value`` with the item at ``path`` set to ``new`` (deleted when it is _GONE)."""
    copy = orjson.loads(orjson.dumps(value))
    parent = copy
    for key in path[:-1]:
        parent = parent[key]
    if new is _GONE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = new
    return copy


_GONE = object()


def _variants(payload: dict[str, Any]) -> Iterator[Any]:
    """The plain event's JSON with one field changed: each path, each odd value, or gone."""
    yield [payload]
    yield "not an object"
    for path in _paths(payload):
        for new in (*ODD_VALUES, _GONE):
            yield _replaced(payload, path, new)
    containers = [(), *(p for p in _paths(payload) if isinstance(_at(payload, p), dict))]
    for path in containers:
        for key in EXTRA_KEYS:
            if key not in _at(payload, path):
                for new in ({"message": "m"}, 1, "x", True):
                    yield _replaced(payload, (*path, key), new)


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


def _streams(provider: str) -> Iterator[bytes]:
    """The provider's stream with one of its plain events replaced by each variant."""
    body = GENERATORS[provider](12)
    separator = b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"
    events = body.split(separator)
    # A text delta in the middle of the text run: runs of plain events on both sides.
    marker = orjson.dumps(WORDS[5])
    at = next(i for i, event in enumerate(events) if marker in event)
    head, _, data = events[at].rpartition(b"data: ")
    for variant in _variants(orjson.loads(data)):
        changed = list(events)
        changed[at] = head + b"data: " + orjson.dumps(variant)
        yield separator.join(changed)


def _normalized(body: bytes, provider: str, size: int, fast: bool = True) -> Trace:
    normalizer = Normalizer(provider, "st_shape", fast=fast)
    for start in range(0, len(body), size):
        normalizer.feed(body[start : start + size])
    return normalizer.finish()


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_a_plain_event_with_any_field_changed_gives_what_feeding_frame_by_frame_gives(
    provider: str,
) -> None:
    streams = list(_streams(provider))
    assert len(streams) > 100
    with_runs = [_record(_normalized(body, provider, 1 << 20)) for body in streams]
    frame_by_frame = [_record(_normalized(body, provider, 1 << 20, fast=False)) for body in streams]
    for body, ran, fed in zip(streams, with_runs, frame_by_frame, strict=True):
        assert ran == fed, body
    # The variants reach both answers: some stay plain deltas, many do not.
    assert len({len(record[0]) for record in with_runs}) > 2
