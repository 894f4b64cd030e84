"""What every provider adapter is, and the small helpers they share.

An adapter is a pure mapping from decoded SSE frames to actions
(:mod:`inspector.core.actions`). It keeps only protocol bookkeeping (which
provider index is which block, which final signal was seen); the stream's
state belongs to the machine. Each adapter module opens with its table of
final signals — what proves ``completed``, what means ``failed``, what is an
interruption — and ``docs/providers.md`` repeats it for users.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from typing import Any, ClassVar, Final

import orjson

from ..actions import Action, Fail, Ignore, OpenBlock
from ..errors import category_for, detail_category
from ..sse import Frame
from .plain import NOT_PARSED, Plain
from .template import Learner

__all__ = [
    "NOT_PARSED",
    "NO_RUN",
    "Adapter",
    "Lane",
    "bare_error",
    "error_document",
    "error_from_body",
    "event_type",
    "fail_from_error_object",
    "frame_json",
    "int_or_none",
    "json_problem",
    "last_value",
]


#: What :meth:`Adapter.feed_run` returns when no frame starts a run.
NO_RUN: Final[tuple[int, str, list[str]]] = (-1, "", [])

#: What :meth:`Adapter.lane` names: ``(block index, delta kind, shape key, params)`` —
#: the block a plain frame extends now, with which delta kind, the key of its
#: :class:`~.plain.Shape` in the adapter's description and the values of that
#: shape's :class:`~.plain.Param` (in order).
Lane = tuple[int, str, Hashable, tuple[Any, ...]]


class Adapter(ABC):
    """Turns one provider's frames into actions. One instance per stream.

    Runs of plain deltas
    --------------------
    Most frames of a stream carry one more fragment for the block being
    written, and nothing else. Besides :meth:`feed`, an adapter may take such
    frames in bulk: it describes what a *plain* frame is in
    :attr:`plain_frames` (a :class:`~.plain.Plain`, see :mod:`.plain`) and
    says in :meth:`lane` which of its shapes may come now and for which
    block. :meth:`feed_run` then runs the description's compiled loop over
    the frames and returns their texts, which the normalizer hands to the
    machine at once instead of one :class:`~inspector.core.actions.Delta`
    per frame. The first frame that is not plain is left to :meth:`feed`,
    which reuses its parsed JSON (:meth:`_json`) rather than parsing it again.
    That is all an adapter writes for the fast path: its rules stay in
    ``feed``, and a description that accepts only what ``feed`` maps to
    ``[Delta(block, kind, text)]`` (plus the fields it names) cannot change
    what a stream normalizes to.
    """

    provider: ClassVar[str]
    #: What a plain frame of this protocol is; None: every frame goes through feed.
    plain_frames: ClassVar[Plain | None] = None
    #: The index of the frame a run parsed last and stopped at, with its JSON.
    _parsed: tuple[int, Any] | None = None
    #: Templates of the shapes that use them, by shape key (made on first use).
    _learners: dict[Hashable, Learner | None] | None = None
    #: Whether the class has a :meth:`took_plain` to call (most keep nothing).
    _takes_plain: ClassVar[bool] = False
    #: The contract's index of the next block :meth:`_open_block` opens.
    next_index: int = 0

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._takes_plain = cls.took_plain is not Adapter.took_plain

    @abstractmethod
    def feed(self, frame: Frame) -> list[Action]:
        """Actions for one data frame (comments never reach an adapter)."""

    def lane(self) -> Lane | None:
        """The block a plain frame extends now and how (see :data:`Lane`); None: no runs now."""
        return None

    def took_plain(self, texts: list[str]) -> None:  # noqa: B027 (most adapters keep nothing)
        """Bookkeeping ``feed`` would do for these plain frames beyond the description's fields."""

    def feed_run(
        self, events: Sequence[str], payloads: Sequence[str | bytes], start: int, index: int
    ) -> tuple[int, str, list[str]]:
        """``(block, delta kind, texts)`` of the plain frames from ``start`` on.

        ``events`` and ``payloads`` are the event types and data of consecutive
        frames, the first of which is frame ``index`` (data as text, or the
        undecoded bytes of a decoder's run, which ``orjson`` parses alike; a
        comment's data is empty, which is not JSON, so a comment ends a run).
        The texts are empty when frame ``index + start`` is not plain, or the
        adapter has no lane now.
        """
        lane = self.lane()
        parsed = self._parsed
        if lane is None or (parsed is not None and parsed[0] == index + start):
            return NO_RUN  # known not to be plain: it stopped the previous run
        block, kind, key, params = lane
        plain = self.plain_frames
        assert plain is not None  # (a lane names one of its shapes)
        learners = self._learners
        if learners is None:
            learners = self._learners = {}
        try:
            learner = learners[key]  # (None for a shape without templates)
        except KeyError:
            shape = plain.shapes[key]
            learner = learners[key] = Learner(shape.text) if shape.templates else None
        texts, stopped = plain.runners[key](self, events, payloads, start, params, learner)
        if stopped is not NOT_PARSED:
            self._parsed = (index + start + len(texts), stopped)
        if texts and self._takes_plain:
            self.took_plain(texts)
        return block, kind, texts

    def _json(self, frame: Frame) -> Any:
        """``orjson.loads(frame.data)``, or what a run already parsed of it."""
        parsed = self._parsed
        if parsed is not None and parsed[0] == frame.index:
            self._parsed = None
            return parsed[1]
        return orjson.loads(frame.data)

    def _open_block(
        self,
        kind: str,
        provider_type: str,
        out: list[Action],
        *,
        name: str | None = None,
        call_id: str | None = None,
    ) -> int:
        """Open the next block (blocks are numbered in the order they open); its index.

        ``name`` and ``call_id`` (a tool call's) are given by name: two optional strings
        side by side are too easily swapped."""
        index = self.next_index
        self.next_index += 1
        out.append(OpenBlock(index, kind, provider_type, name=name, call_id=call_id))
        return index

    def _object(self, frame: Frame, what: str = "data") -> dict[str, Any] | Fail | Ignore:
        """The frame's data as a JSON object (:meth:`_json`), or the action that says why
        it is not one: a protocol error for data that is not JSON, a skipped frame for
        JSON that is not an object (``what`` names the frame's data: an NDJSON line)."""
        try:
            data = self._json(frame)
        except orjson.JSONDecodeError as exc:
            return json_problem(frame, exc)
        if not isinstance(data, dict):
            return Ignore(f"frame {frame.index}: {what} is JSON but not an object")
        return data

    def eof_note(self) -> str | None:
        """Something worth saying when the bytes end without a final signal."""
        return None

    def origin(self, header: Mapping[str, Any]) -> None:  # noqa: B027 (optional hook)
        """Told the capture header before any frame (the request's URL, for dialects)."""

    def at_eof(self) -> list[Action]:
        """Actions for a clean end of the bytes, before it is called an interruption.

        Empty for every protocol whose end must be proved by a frame; a dialect
        that never sends its final frame (v1.1) finishes here.
        """
        return []

    def http_error(self, status: int, body: bytes, error_type: str | None = None) -> Fail:
        """The stream's end when the HTTP response was an error status.

        ``error_type``: the error code a response header names (AWS's
        ``x-amzn-errortype``), for bodies that carry only a message.
        """
        return error_from_body(status, body, error_type)


def frame_json(frame: Frame) -> tuple[Any, Fail | None]:
    """Parse a frame's data as JSON; a failure is a protocol error."""
    try:
        return orjson.loads(frame.data), None
    except orjson.JSONDecodeError as exc:
        return None, json_problem(frame, exc)


def event_type(data: Mapping[str, Any], frame: Frame) -> str:
    """The event's ``type`` field, else its SSE event name (which says the same)."""
    kind = data.get("type")
    return kind if isinstance(kind, str) else frame.event


def json_problem(frame: Frame, exc: Exception) -> Fail:
    """The protocol error for a frame whose data is not JSON.

    For an adapter's hot path that calls ``orjson.loads`` itself rather than
    :func:`frame_json` (which saves a call and a tuple per frame).
    """
    # No preview of the data: an error message must be safe to show and to log,
    # and the frame itself (with its bytes) is one keystroke away in the trace.
    return Fail(
        "protocol_error",
        None,
        f"frame {frame.index} ({frame.event}): data is not valid JSON ({exc})",
    )


def last_value(documents: Sequence[Mapping[str, Any]], key: str, kind: type) -> Any:
    """``key``'s value in the last of ``documents`` where it is a ``kind``; None if none."""
    for document in reversed(documents):
        value = document.get(key)
        if isinstance(value, kind):
            return value
    return None


def int_or_none(value: Any) -> int | None:
    """An integer token count, or None (bools and strings are not counts)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def fail_from_error_object(error: Mapping[str, Any], status: int | None = None) -> Fail:
    """A :class:`Fail` from a provider error object (OpenAI, Anthropic, Google shapes).

    OpenAI: ``{type, code, message}``; Anthropic: ``{type, message}``; Google:
    ``{code: 429, status: "RESOURCE_EXHAUSTED", message}``.
    """
    code: Any = error.get("code")
    kind = error.get("type")
    google_status = error.get("status")
    if isinstance(google_status, str):
        provider_code: Any = google_status
        http = code if isinstance(code, int) else status
    else:
        provider_code = code if code not in (None, "") else kind
        http = status if status is not None else int_or_none(error.get("status_code"))
    category = category_for(provider_code, http)
    if category == "unknown" and isinstance(kind, str):
        category = category_for(kind, http)
    category = detail_category(error.get("details")) or category
    message = error.get("message")
    if not isinstance(message, str) or not message:
        message = f"provider error {provider_code!r}"
    return Fail(category, provider_code, message)


def error_document(body: bytes, limit: int | None = None) -> Mapping[str, Any] | None:
    """The JSON document a body is when it is only ``{"error": {...}}`` (with any other
    keys; also alone in a one-element array), else None. ``limit``: longer bodies are not
    read."""
    stripped = body.strip()
    if not stripped.startswith((b"{", b"[")) or (limit is not None and len(stripped) > limit):
        return None
    try:
        parsed = orjson.loads(stripped)
    except orjson.JSONDecodeError:
        return None
    if isinstance(parsed, list) and len(parsed) == 1:
        parsed = parsed[0]
    if not isinstance(parsed, Mapping) or not isinstance(parsed.get("error"), Mapping):
        return None
    return parsed


def bare_error(body: bytes) -> Fail | None:
    """The error a body states when it is only a JSON error document (v1.1), else None.

    No SSE and no HTTP status: ``{"error": {...}}`` (OpenAI, Google; also
    wrapped in a one-element array), or Anthropic's ``{"type": "error",
    "error": {...}}``. The category comes from its code, type or status.
    """
    parsed = error_document(body)
    if parsed is None:
        return None
    fail = fail_from_error_object(parsed["error"])
    return Fail(fail.category, fail.provider_code, f"a JSON error body, no stream: {fail.message}")


def _aws_code(name: Any) -> str | None:
    """``ThrottlingException`` from ``ThrottlingException:http://…`` or ``com.x#Throttling…``."""
    if not isinstance(name, str) or not name:
        return None
    return name.split(":", 1)[0].rsplit("#", 1)[-1][:80] or None


def _flat_error(parsed: Mapping[str, Any], status: int, error_type: str | None) -> Fail | None:
    """An error body without an ``error`` object: ``{"error": "text"}`` (Ollama) or
    ``{"message": …}`` (Bedrock, whose code is in a header or ``__type``; Cohere)."""
    error = parsed.get("error")
    message = error if isinstance(error, str) else parsed.get("message", parsed.get("Message"))
    if not isinstance(message, str) or not message:
        return None
    code = _aws_code(error_type) or _aws_code(parsed.get("__type"))
    # A code the table does not know falls back to the status (category_for's rule).
    return Fail(category_for(code, status), code or status, f"HTTP {status}: {message}")


def error_from_body(status: int, body: bytes, error_type: str | None = None) -> Fail:
    """Classify an HTTP error response from its status, JSON body and header-named code."""
    try:
        parsed = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        parsed = None
    if isinstance(parsed, list) and parsed and isinstance(parsed[0], Mapping):
        parsed = parsed[0]  # Gemini wraps errors in a one-element array at times
    if isinstance(parsed, Mapping) and isinstance(parsed.get("error"), Mapping):
        fail = fail_from_error_object(parsed["error"], status)
        if fail.provider_code is None:
            fail = Fail(fail.category, status, fail.message)
        return Fail(fail.category, fail.provider_code, f"HTTP {status}: {fail.message}")
    flat = _flat_error(parsed, status, error_type) if isinstance(parsed, Mapping) else None
    if flat is not None:
        return flat
    text = body[:200].decode("utf-8", "replace").strip()
    message = f"HTTP {status}" + (f": {text}" if text else "")
    return Fail(category_for(None, status), status, message)
