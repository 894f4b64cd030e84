"""Unread-field accounting (contract v1.1): nothing a provider sends is dropped silently.

Each adapter declares, as data, the fields it reads per frame type and the
fields it reads only to ignore. A :data:`Shape` maps a field name to

* :data:`READ` — the adapter reads this value (all of it, nested fields too);
* :data:`IGNORED` — read only to be ignored (ids, ``created``, ``logprobs`` …);
* another :data:`Shape` — an object whose own fields are accounted in turn.
  Applied to an array, it is applied to each element: the path collapses the
  indexes (``choices[].delta.executed_tools``).

Any other field whose value is not empty (``None``, ``""``, ``[]``, ``{}``)
yields one ``stream.warning`` with code ``unread_field`` and its ``path``, once
per path per stream (:class:`FieldAccount`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final, Union

from ..actions import Action, Ignore

__all__ = ["IGNORED", "READ", "FieldAccount", "FieldTable", "Shape", "is_empty", "unread_paths"]

READ: Final = "read"
IGNORED: Final = "ignored"

Shape = Mapping[str, Union[str, "Shape"]]
#: frame type -> the shape of that frame's JSON object.
FieldTable = Mapping[str, Shape]

# (a set of the types: `type(v) in` is one lookup)
_EMPTY_TYPES: Final = (type(None), str, list, dict)


def is_empty(value: Any) -> bool:
    """True for the values that carry nothing: ``None``, ``""``, ``[]``, ``{}``."""
    return value is None or (type(value) in _EMPTY_TYPES and not value)


def unread_paths(shape: Shape, value: Any, prefix: str = "") -> Iterator[str]:
    """The paths under ``value`` that ``shape`` does not account for (non-empty ones only)."""
    if isinstance(value, list):
        for item in value:
            yield from unread_paths(shape, item, prefix + "[]")
        return
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        rule = shape.get(key)
        if rule is None:
            if not is_empty(item):
                yield f"{prefix}.{key}" if prefix else str(key)
        elif not isinstance(rule, str):
            yield from unread_paths(rule, item, f"{prefix}.{key}" if prefix else str(key))


class FieldAccount:
    """One stream's unread-field warnings: each path once."""

    __slots__ = ("seen", "table")

    def __init__(self, table: FieldTable) -> None:
        self.table = table
        self.seen: set[str] = set()

    def check(self, frame_type: str, data: Any, frame: int, out: list[Action]) -> None:
        """Append a warning to ``out`` for each unread path of ``data`` not warned yet.

        A frame type without a shape in the table is not accounted here (the
        adapter reports an unknown frame type itself).
        """
        shape = self.table.get(frame_type)
        if shape is None:
            return
        for path in unread_paths(shape, data):
            if path not in self.seen:
                self.seen.add(path)
                out.append(unread_warning(path, frame_type, frame))


def unread_warning(path: str, frame_type: str, frame: int) -> Ignore:
    """The ``unread_field`` warning for ``path`` (its message names the path)."""
    return Ignore(
        f"unread field {path} (frame {frame}, {frame_type}): the adapter does not map it; "
        "its value is kept in the frame",
        "unread_field",
        path,
    )
