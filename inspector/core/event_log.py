"""The contract events of one stream, a plain delta stored compactly: :class:`EventLog`.

Also the :data:`Skeleton` of an event, what the invariant checker reads of it.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping
from typing import Any, Final

import orjson

from .choices import key_of
from .columns import IntColumn, Log

__all__ = ["Event", "EventLog", "Skeleton", "skeleton_of"]

Event = dict[str, Any]

# How EventLog stores an event: a shape per event, ``block index << 2 | code``,
# where code 0 (FULL) keeps the whole dict and 1-3 are block.delta events of
# that delta kind, kept as (block index, text). One int, so one append.
_FULL: Final = 0
_DELTA_KINDS: Final = ("text", "json_text", "signature")
_DELTA_CODE: Final = {kind: code for code, kind in enumerate(_DELTA_KINDS, start=1)}


#: What the invariant checker reads of an event: (type, seq, stream_id, block index).
Skeleton = tuple[Any, Any, Any, Any]


def skeleton_of(event: Mapping[str, Any]) -> Skeleton:
    """An event's :data:`Skeleton` (block index None when it has no ``block`` mapping)."""
    block = event.get("block")
    index = key_of(block) if isinstance(block, Mapping) else None
    return event.get("type"), event.get("seq"), event.get("stream_id"), index


class EventLog(Log[Event]):
    """Contract events. A plain ``block.delta`` — most of any stream — is stored
    as its kind, block index and text (the text shared with the machine's block
    buffer) and built as a dict on access; every other event is kept as given.
    """

    def __init__(self, stream_id: str) -> None:
        self.stream_id = stream_id
        self._shape = IntColumn()  # block index << 2 | code (see _FULL)
        self._payload: list[Any] = []  # the event dict, or a compact delta's text
        self._refs: dict[int, dict[str, Any]] = {}  # block index -> its shared ``block``
        self._one = array("q", (0,))  # scratch for extend_deltas

    def __len__(self) -> int:
        return len(self._shape)

    def _get(self, index: int) -> Event:
        shape = self._shape[index]
        code = shape & 3
        if code == _FULL:
            event: Event = self._payload[index]
            return event
        return {
            "stream_id": self.stream_id,
            "seq": index + 1,
            "type": "block.delta",
            "block": self._refs[shape >> 2],
            "delta": {"kind": _DELTA_KINDS[code - 1], "text": self._payload[index]},
        }

    def append(self, event: Event) -> None:
        """Record one complete event dict, kept as it is."""
        self._shape.append(_FULL)
        self._payload.append(event)

    def append_delta(self, block: dict[str, Any], kind: str, text: str) -> int:
        """Record a ``block.delta`` of ``kind`` (text, json_text or signature).

        Returns the new event's index.
        """
        # (key_of's one-choice case written out: this runs once a delta)
        index: int = block["index"] if "choice" not in block else key_of(block)
        refs = self._refs
        if index not in refs:
            refs[index] = block
        self._shape.append(index << 2 | _DELTA_CODE[kind])
        self._payload.append(text)
        return len(self._payload) - 1

    def extend_deltas(self, block: dict[str, Any], kind: str, texts: list[str]) -> int:
        """Record one ``block.delta`` of ``kind`` per text, as :meth:`append_delta` would.

        Returns the index of the first new event.
        """
        index: int = block["index"] if "choice" not in block else key_of(block)  # (as above)
        if index not in self._refs:
            self._refs[index] = block
        first = len(self._payload)
        shape = self._one  # (set and multiplied: array((value,)) builds through an iterator)
        shape[0] = index << 2 | _DELTA_CODE[kind]
        self._shape.extend(shape * len(texts))
        self._payload.extend(texts)
        return first

    def compact(self) -> Iterator[tuple[str | None, dict[str, Any], Any]]:
        """Every event in order, a plain ``block.delta`` without building its dict.

        Yields ``(None, event, None)`` for an event kept whole, and ``(kind,
        block, text)`` for a compact ``block.delta``: its delta kind, its block
        (the dict its built event's ``"block"`` is) and its delta's text — for
        a caller that reads every event of a large stream once.
        """
        refs = self._refs
        kinds = (None, *_DELTA_KINDS)
        for shape, payload in zip(self._shape, self._payload, strict=True):
            code = shape & 3
            if code == _FULL:
                yield None, payload, None
            else:
                yield kinds[code], refs[shape >> 2], payload

    def json_lines(self, batch: int = 2048) -> Iterator[bytes]:
        """Every event as ``orjson.dumps(event) + b"\\n"``, ``batch`` events joined per item.

        The same bytes as dumping each event, without building the
        ``block.delta`` dicts: a compact delta is written from a template of
        its block and kind around ``orjson.dumps`` of its text (orjson writes
        an object compactly in key order, so the pieces join to its output).
        """
        dumps = orjson.dumps
        head = b'{"stream_id":' + dumps(self.stream_id) + b',"seq":'
        templates: dict[int, bytes] = {}  # shape -> the bytes between seq and the text
        pieces: list[bytes] = []
        add = pieces.append
        for seq, (shape, payload) in enumerate(zip(self._shape, self._payload, strict=True), 1):
            if not shape & 3:
                add(dumps(payload))
                add(b"\n")
            else:
                middle = templates.get(shape)
                if middle is None:
                    block, kind = self._refs[shape >> 2], _DELTA_KINDS[(shape & 3) - 1]
                    # Kept as written (fmt: skip): the template's pieces as the JSON reads.
                    middle = templates[shape] = (
                        b',"type":"block.delta","block":' + dumps(block)
                        + b',"delta":{"kind":' + dumps(kind) + b',"text":'
                    )  # fmt: skip
                add(head)
                add(b"%d" % seq)
                add(middle)
                add(dumps(payload))
                add(b"}}\n")
            if seq % batch == 0:
                yield b"".join(pieces)
                pieces.clear()
        if pieces:
            yield b"".join(pieces)

    def skeleton(self) -> Iterator[Skeleton]:
        """Every event's :data:`Skeleton`, without building the ``block.delta`` dicts."""
        stream_id = self.stream_id
        for seq, (shape, payload) in enumerate(zip(self._shape, self._payload, strict=True), 1):
            if shape & 3:
                yield "block.delta", seq, stream_id, shape >> 2
            else:
                yield skeleton_of(payload)

    def type_of(self, index: int) -> str:
        """The ``type`` of event ``index``, without building the event."""
        if self._shape[index] & 3 == _FULL:
            kind: str = self._payload[index]["type"]
            return kind
        return "block.delta"
