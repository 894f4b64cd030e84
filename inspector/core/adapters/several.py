"""The rules of several choices (contract v1.1) that every adapter with choices shares.

* ``stream.done`` carries ``choices: [{choice, finish_reason,
  provider_finish_reason}]`` (:func:`outcomes`); its own ``finish_reason`` is
  choice 0's (the lowest choice's when choice 0 never came).
* The stream is ``completed`` only when every choice that started has its own
  final signal; a missing one is ``failed`` / ``protocol_error`` naming it
  (:func:`missing_end`).
* Blocks carry ``choice`` once the stream has several: from the request (``n``,
  ``candidateCount`` in a capture's header, :func:`requested`) or from the first
  chunk of a choice other than 0. Blocks of choice 0 sent before that cannot
  be given it afterwards: a warning ``late_choice`` says so
  (:func:`late_choice`), and a block without ``choice`` is choice 0's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from ..actions import Fail, Ignore

__all__ = ["ends_note", "late_choice", "missing_end", "outcomes", "requested", "shown"]

#: How much of an unusable index a message quotes.
_SHOWN: Final = 40


def outcomes(ends: Mapping[int, tuple[str, Any]]) -> list[dict[str, Any]]:
    """``stream.done``'s ``choices``: each choice → (finish_reason, provider_finish_reason)."""
    return [
        {"choice": choice, "finish_reason": reason, "provider_finish_reason": raw}
        for choice, (reason, raw) in sorted(ends.items())
    ]


def missing_end(missing: Sequence[int], signal: str, field: str) -> Fail:
    """``failed`` / ``protocol_error``: ``signal`` came while these choices had no ``field``."""
    names = ", ".join(str(choice) for choice in missing)
    what = "choice" if len(missing) == 1 else "choices"
    return Fail(
        "protocol_error",
        None,
        f"{signal} arrived but {what} {names} never had a {field}: "
        f"{'its' if len(missing) == 1 else 'their'} content is incomplete",
    )


def late_choice(choice: int, frame: int, blocks_before: int) -> Ignore | None:
    """The warning for a second choice seen only after choice 0 opened blocks (else None)."""
    if not blocks_before:
        return None
    return Ignore(
        f"frame {frame}: choice {choice} began after {blocks_before} block(s) of choice 0 "
        "were sent without `choice`; a block without `choice` is choice 0's",
        "late_choice",
    )


def ends_note(ends: Mapping[int, Any]) -> str:
    """Which choices had their end, for an interrupted stream's message."""
    done = [str(c) for c, end in ends.items() if end is not None]
    waiting = [str(c) for c, end in ends.items() if end is None]
    parts = [f"choice {', '.join(done)} ended" if done else "no choice ended"]
    if waiting:
        parts.append(f"choice {', '.join(waiting)} had not")
    return ", ".join(parts)


def requested(header: Mapping[str, Any], *path: str) -> bool:
    """Whether the capture's request asked for several choices (``n``, ``candidateCount``)."""
    request = header.get("request")
    value: Any = request.get("body") if isinstance(request, Mapping) else None
    for key in path:
        value = value.get(key) if isinstance(value, Mapping) else None
    return type(value) is int and value > 1


def shown(value: Any) -> str:
    """An unusable index as a message quotes it (bounded; provider data)."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
