"""Several choices (``n > 1``, ``candidateCount > 1``; contract v1.1): how blocks are told apart.

When a stream has more than one choice, every block carries ``choice`` and its
``index`` is its place *within* that choice, so ``index`` alone no longer
names a block. Inside the core a block is named by one integer, its *key*:
the index itself for choice 0 (so a stream of one choice keys its blocks
exactly as before), and ``choice << CHOICE_SHIFT | index`` for the others.
Adapters allocate keys with :func:`block_key`; the machine, the trace's
compact event log, the invariant checker and any view read a block's key
from its ``block`` object with :func:`key_of`.

A choice number comes from the provider, so it is untrusted: only
:func:`choice_number` turns it into one, bounded by :data:`MAX_CHOICES`
(the APIs allow 128 at most), which also bounds every key to 64 bits.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "CHOICE_SHIFT",
    "MAX_CHOICES",
    "block_id",
    "block_key",
    "choice_number",
    "key_name",
    "key_of",
    "place_of",
]

#: Bits of a key that hold the block's place within its choice.
CHOICE_SHIFT: Final = 32
_PLACE_MASK: Final = (1 << CHOICE_SHIFT) - 1
#: Choice numbers taken (0 … MAX_CHOICES - 1); OpenAI allows ``n`` up to 128, Gemini 8.
MAX_CHOICES: Final = 1024


def block_key(index: int, choice: int | None) -> int:
    """The key of block ``index`` of ``choice`` (None or 0: the index itself)."""
    return index if not choice else choice << CHOICE_SHIFT | index


def place_of(key: int) -> int:
    """The block's place within its choice (its contract ``index``)."""
    return key & _PLACE_MASK


def block_id(index: int, choice: int | None) -> str:
    """The contract's stable block id: ``b_<index>``, or ``c<choice>.b_<index>`` with choices."""
    return f"b_{index}" if choice is None else f"c{choice}.b_{index}"


def key_name(key: int) -> str:
    """A block's id from its key alone (choice 0's blocks read ``b_<index>``)."""
    choice = key >> CHOICE_SHIFT
    return block_id(place_of(key), choice) if 0 < choice < MAX_CHOICES else f"b_{key}"


def key_of(block: Mapping[str, Any]) -> Any:
    """The key of an emitted event's ``block`` object (its ``index`` without ``choice``).

    For events read back from a file anything may be there: a ``choice`` or
    ``index`` that is not a valid number gives ``(choice, index)``, which is
    no int, so the invariant checker counts the block as malformed.
    """
    index = block.get("index")
    if "choice" not in block:
        return index
    choice = block["choice"]
    if choice_number(choice) is None or type(index) is not int or not 0 <= index <= _PLACE_MASK:
        return (choice, index)
    return block_key(index, choice)


def choice_number(value: Any, default: int = 0) -> int | None:
    """A provider's choice/candidate index as a choice number; None when it is not one.

    Absent or null is ``default`` (Gemini leaves index 0 out, proto3 JSON);
    a bool, a float, a negative or an index of :data:`MAX_CHOICES` or more is
    not a choice number.
    """
    if value is None:
        return default
    if type(value) is not int or not 0 <= value < MAX_CHOICES:
        return None
    return value
