"""What an adapter tells the stream machine.

Adapters do not build contract events themselves: they translate provider
frames into these small, immutable *actions*. The machine checks each one
against the current state, assigns ``stream_id`` and ``seq``, and either turns
it into a contract event or rejects it (recording which invariant it would
have broken). Keeping the vocabulary this small is what lets every adapter
stay a table-driven mapping.

Actions are values: nothing changes one after it is built. They are plain
slotted dataclasses rather than ``frozen`` ones only for speed — a frozen
dataclass's ``__init__`` sets every field through ``object.__setattr__``, which
made building the one :class:`Delta` of nearly every frame three times as slow
(≈0.3 µs a frame, a tenth of the whole pipeline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = [
    "Action",
    "CloseBlock",
    "Delta",
    "Fail",
    "Finish",
    "Heartbeat",
    "Ignore",
    "OpenBlock",
    "Start",
]


@dataclass(slots=True)
class Start:
    """The provider's stream began; ``model`` as the provider reports it."""

    model: str | None = None


@dataclass(slots=True)
class OpenBlock:
    """Open block ``index`` (its place in the final content array)."""

    index: int
    kind: str
    provider_type: str
    name: str | None = None
    call_id: str | None = None
    #: For a ``tool_call`` whose input is not JSON: ``"text"`` or ``"item"`` (v1.1).
    input_format: str | None = None
    #: The block's choice when the stream has several (v1.1); ``index`` is then its
    #: key (:func:`~inspector.core.choices.block_key`), as in every action naming it.
    choice: int | None = None


@dataclass(slots=True)
class Delta:
    """A fragment for open block ``index``; ``kind`` is the delta kind."""

    index: int
    kind: str
    text: str
    citation: Any = None


@dataclass(slots=True)
class CloseBlock:
    """The provider says block ``index`` is complete."""

    index: int


@dataclass(slots=True)
class Finish:
    """The provider proved a normal end (an entry of the final-signal table)."""

    finish_reason: str
    provider_finish_reason: Any
    usage: dict[str, Any] | None = None
    model: str | None = None
    response_id: str | None = None
    #: With several choices (v1.1): ``[{choice, finish_reason, provider_finish_reason}]``.
    choices: list[dict[str, Any]] | None = None


@dataclass(slots=True)
class Fail:
    """The provider reported an error, or the adapter met a protocol error."""

    category: str
    provider_code: Any
    message: str
    status: str = "failed"


@dataclass(slots=True)
class Heartbeat:
    """A keep-alive (provider ping or SSE comment); never changes state."""

    source: str


@dataclass(slots=True)
class Ignore:
    """A frame the adapter does not model: counted, kept, never an error."""

    reason: str
    code: str = "unknown_event"
    #: For ``unread_field``: the field's path, array indexes collapsed (v1.1).
    path: str | None = None


Action = Start | OpenBlock | Delta | CloseBlock | Finish | Fail | Heartbeat | Ignore
