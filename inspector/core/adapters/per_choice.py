"""The bookkeeping of an adapter whose frames name a choice, written once.

Chat Completions' ``choices[]`` and Gemini's ``candidates[]`` are one idea
(several choices, contract v1.1): each choice numbers its own blocks and has
its own end, and once the stream has several every block carries ``choice``
(the rules: :mod:`.several`). :class:`ChoiceState` is what every choice
keeps, and :class:`ChoiceAdapter` what an adapter reading them keeps: which
choice the frame being read is for, which choices have started, the key of
the next block. An adapter subclasses both, adding what its protocol needs
(Gemini's streamed calls, Chat's parallel tool calls).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar

from ..actions import Action, Ignore
from ..choices import block_key, choice_number
from ..sse import Frame
from . import several
from .base import Adapter

__all__ = ["ChoiceAdapter", "ChoiceState"]


class ChoiceState:
    """What an adapter keeps of every choice: its number, its next block's place, its end."""

    __slots__ = ("choice", "finish_reason", "next_index")

    def __init__(self, choice: int) -> None:
        self.choice = choice
        self.next_index = 0  # the next block's place within the choice
        self.finish_reason: str | None = None


State = TypeVar("State", bound=ChoiceState)


class ChoiceAdapter(Adapter, Generic[State]):
    """An adapter whose frames carry choices: one ``State`` per choice, ``c`` the current one."""

    #: What the protocol calls a choice (Gemini: ``candidate``), in warnings.
    choice_word: ClassVar[str] = "choice"

    def __init__(self, new_state: Callable[[int], State]) -> None:
        self.new_state = new_state
        self.first = new_state(0)
        self.c = self.first  # the choice the frame being read is for
        self.states: dict[int, State] = {0: self.first}
        self.seen: set[int] = set()  # choices a frame carried
        self.several = False  # blocks carry ``choice`` (the stream has several)
        self.warned: set[str] = set()

    def _enter(self, index: Any, frame: Frame, out: list[Action]) -> State | None:
        """Make the choice a frame numbers ``index`` the current one (started if new).

        None, with a warning once, when ``index`` is no choice number: the
        caller skips that choice, and the current one stays as it was.
        """
        if (index is None or (type(index) is int and index == 0)) and 0 in self.seen:
            state = self.first  # nearly every frame: choice 0, already seen
        else:
            number = choice_number(index)
            if number is None:
                word = self.choice_word
                what = f"frame {frame.index}: a {word} whose index {several.shown(index)}"
                self._warn_once(word, f"{what} is not a {word} number; skipped", out)
                return None
            self._started(number, frame, out)
            state = self.states[number]
        self.c = state
        return state

    def _started(self, number: int, frame: Frame, out: list[Action]) -> None:
        """Choice ``number`` is in a frame: it has started (once)."""
        if number not in self.seen:
            self.seen.add(number)
            if number not in self.states:
                self.states[number] = self.new_state(number)
            if number and not self.several:
                self._several(frame, out, number)

    def _several(self, frame: Frame, out: list[Action], number: int) -> None:
        """A second choice (``number``): from now on blocks carry ``choice`` (v1.1)."""
        self.several = True
        warning = several.late_choice(number, frame.index, self.first.next_index)
        if warning is not None:
            out.append(warning)

    def _ends(self) -> dict[int, str | None]:
        """Each choice a frame carried → its finish reason so far, by choice number."""
        return {n: self.states[n].finish_reason for n in sorted(self.seen)}

    def _choice_of_block(self) -> int | None:
        """The ``choice`` a block opened now carries (None: the stream has one choice)."""
        return self.c.choice if self.several else None

    def _new_index(self) -> int:
        """The current choice's next block key (:func:`~inspector.core.choices.block_key`)."""
        index = self.c.next_index
        self.c.next_index += 1
        return block_key(index, self.c.choice)

    def _warn_once(
        self, key: str, message: str, out: list[Action], code: str = "unknown_field"
    ) -> None:
        """``Ignore(message, code)``, the first time ``key`` comes up in the stream."""
        if key not in self.warned:
            self.warned.add(key)
            out.append(Ignore(message, code))
