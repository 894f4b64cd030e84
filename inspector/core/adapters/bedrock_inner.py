"""Models behind Bedrock invoke whose own events are simple: Llama, Titan, Cohere, Mistral, Nova.

Each ``chunk`` of an InvokeModelWithResponseStream body carries one JSON
object of the model's own protocol (:mod:`.bedrock_invoke` unwraps it).
Four of them stream one text and end it with a reason on the last object;
Nova streams Converse's events, each object holding one event under its name.
The rows below are from the Bedrock user guide's model parameter pages
(``model-parameters-meta``, ``-titan-text``, ``-cohere-command``,
``-cohere-command-r-plus``, ``-mistral-text-completion``, Nova's
"Using the Invoke API"), and, for Titan and Nova, real recordings
(``captures/bedrock-invoke/README.md``).

Final signals
-------------
=================  ============================================  ===============================
provider           final signal (in a ``chunk``)                 outcome
=================  ============================================  ===============================
``bedrock-llama``  ``stop_reason`` not null (``stop``,           ``completed``; usage from
                   ``length``)                                   ``prompt_token_count`` /
                                                                 ``generation_token_count``
``bedrock-titan``  ``completionReason`` (``FINISH``,             ``completed``; usage from
                   ``LENGTH``, ``STOP_CRITERIA_MET``,            ``inputTextTokenCount`` /
                   ``CONTENT_FILTERED`` …)                       ``totalOutputTextTokenCount``
``bedrock-cohere``  ``is_finished: true`` with ``finish_reason``  ``completed`` for
                   (Command: in ``generations[0]``)
                   (``COMPLETE``, ``MAX_TOKENS``; ``ERROR``,     ``COMPLETE``/``MAX_TOKENS``;
                   ``ERROR_TOXIC``, ``ERROR_LIMIT``)             ``failed`` for the ``ERROR*``
``bedrock-mistral``  ``outputs[0].stop_reason`` not null          ``completed``
                   (``stop``, ``length``)
``bedrock-nova``   ``messageStop`` then ``metadata`` (Converse's  as :mod:`.bedrock_converse`;
                   own rule, events unwrapped from their key)    usage's ``cache…TokenCount``
                                                                 read as Converse's names
any                a guardrail that blocked the input (no        ``failed`` / ``content_filter``
                   reason, ``amazon-bedrock-trace`` says
                   ``BLOCKED``)
any                bytes end before the final signal             ``interrupted``
=================  ============================================  ===============================

Only choice 0 is modelled: an object of another choice (Titan's or Cohere's
``index``, a second ``outputs`` / ``generations`` element) is skipped with
one ``stream.warning`` ``several_choices``.

Bedrock adds ``amazon-bedrock-invocationMetrics`` to the last object (its own
token counts, the usage when the model gives none), and, with a guardrail,
``amazon-bedrock-guardrailAction`` and ``amazon-bedrock-trace`` to any of
them: read, or read only to be ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from dataclasses import replace as replace_frame  # (frames and actions alike)
from typing import Any, ClassVar, Final

import orjson

from ..actions import Action, CloseBlock, Delta, Fail, Finish, Ignore, OpenBlock, Start
from ..sse import Frame
from .base import Adapter, int_or_none, json_problem
from .bedrock_converse import BedrockConverseAdapter, BedrockHttpErrors
from .fields import IGNORED, READ, FieldAccount, FieldTable, Shape

__all__ = [
    "BEDROCK_FIELDS",
    "FAMILIES",
    "BedrockCohereAdapter",
    "BedrockLlamaAdapter",
    "BedrockMistralAdapter",
    "BedrockNovaAdapter",
    "BedrockTitanAdapter",
    "Family",
    "guardrail_block",
]

#: What Bedrock itself adds to an inner model's objects.
METRICS: Final = "amazon-bedrock-invocationMetrics"
GUARDRAIL_ACTION: Final = "amazon-bedrock-guardrailAction"
TRACE: Final = "amazon-bedrock-trace"
BEDROCK_FIELDS: Final[Shape] = {METRICS: READ, GUARDRAIL_ACTION: READ, TRACE: READ}


def _first_output(data: Mapping[str, Any]) -> Mapping[str, Any]:
    outputs = data.get("outputs")
    first = outputs[0] if isinstance(outputs, list) and outputs else None
    return first if isinstance(first, Mapping) else {}


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _cohere_part(data: Mapping[str, Any]) -> Mapping[str, Any]:
    # Command (generate) nests each piece in generations[0]; Command R (chat) does not.
    generations = data.get("generations")
    first = generations[0] if isinstance(generations, list) and generations else None
    return first if isinstance(first, Mapping) else data


def _cohere_reason(data: Mapping[str, Any]) -> str | None:
    part = _cohere_part(data)
    if part.get("is_finished") is not True and data.get("is_finished") is not True:
        return None
    return _str(part.get("finish_reason")) or _str(data.get("finish_reason")) or "COMPLETE"


def _cohere_text(data: Mapping[str, Any]) -> str | None:
    # Command R's chat stream names its events; only text-generation carries answer text.
    kind = data.get("event_type")
    if kind is not None and kind != "text-generation":
        return None
    part = _cohere_part(data)
    return None if part.get("is_finished") is True else _str(part.get("text"))


def _choice(value: Any) -> int:
    # Titan sends its index as a float (0.0); a missing or odd one is choice 0.
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


def _none(data: Mapping[str, Any]) -> int:
    return 0


def _no_more(data: Mapping[str, Any]) -> bool:
    return False


@dataclass(frozen=True)
class Family:
    """How one model family's objects read: its text, its final reason, its usage."""

    name: str
    text: Callable[[Mapping[str, Any]], str | None]
    reason: Callable[[Mapping[str, Any]], str | None]
    #: raw reason -> finish_reason (completed); any other reason is ``other``.
    finish: Mapping[str, str]
    #: raw reason -> error category: the reasons that end the stream ``failed``.
    fail: Mapping[str, str]
    #: (input tokens key, output tokens key) in the model's own objects.
    usage_keys: tuple[str, str]
    fields: Shape
    #: The choice (``num_generations``, ``n``) an object's text belongs to; only 0 is modelled.
    choice: Callable[[Mapping[str, Any]], int] = _none
    #: Whether an object carries more choices than the one read (warned, not modelled).
    more: Callable[[Mapping[str, Any]], bool] = _no_more


LLAMA: Final = Family(
    "bedrock-llama",
    text=lambda d: _str(d.get("generation")),
    reason=lambda d: _str(d.get("stop_reason")),
    finish={"stop": "stop", "length": "length"},
    fail={},
    usage_keys=("prompt_token_count", "generation_token_count"),
    fields={
        "generation": READ, "stop_reason": READ, "prompt_token_count": READ,
        "generation_token_count": READ, **BEDROCK_FIELDS,
    },
)  # fmt: skip
TITAN: Final = Family(
    "bedrock-titan",
    text=lambda d: _str(d.get("outputText")),
    reason=lambda d: _str(d.get("completionReason")),
    finish={
        "FINISH": "stop", "FINISHED": "stop", "STOP_CRITERIA_MET": "stop", "LENGTH": "length",
        "CONTENT_FILTERED": "content_filter",
    },
    fail={},
    usage_keys=("inputTextTokenCount", "totalOutputTextTokenCount"),
    fields={
        "outputText": READ, "completionReason": READ, "inputTextTokenCount": READ,
        "totalOutputTextTokenCount": READ, "index": READ, **BEDROCK_FIELDS,
    },
    choice=lambda d: _choice(d.get("index")),
)  # fmt: skip
COHERE: Final = Family(
    "bedrock-cohere",
    text=_cohere_text,
    reason=_cohere_reason,
    finish={"COMPLETE": "stop", "MAX_TOKENS": "length", "STOP_SEQUENCE": "stop"},
    fail={
        "ERROR": "server_error", "ERROR_TOXIC": "content_filter", "ERROR_LIMIT": "context_length",
    },
    usage_keys=("", ""),
    fields={
        "text": READ, "is_finished": READ, "finish_reason": READ, "event_type": READ,
        "generations": {
            "text": READ, "is_finished": READ, "finish_reason": READ, "index": READ,
            "id": IGNORED, "likelihood": IGNORED, "token_likelihoods": IGNORED,
        },
        # The final object repeats the whole answer; the deltas already carried it.
        "response": IGNORED, "index": READ, "generation_id": IGNORED, "id": IGNORED,
        "prompt": IGNORED, **BEDROCK_FIELDS,
    },
    choice=lambda d: _choice(_cohere_part(d).get("index")),
    more=lambda d: isinstance(d.get("generations"), list) and len(d["generations"]) > 1,
)  # fmt: skip
MISTRAL: Final = Family(
    "bedrock-mistral",
    text=lambda d: _str(_first_output(d).get("text")),
    reason=lambda d: _str(_first_output(d).get("stop_reason")),
    finish={"stop": "stop", "length": "length", "model_length": "length"},
    fail={},
    usage_keys=("", ""),
    fields={"outputs": {"text": READ, "stop_reason": READ}, **BEDROCK_FIELDS},
    more=lambda d: isinstance(d.get("outputs"), list) and len(d["outputs"]) > 1,
)

#: provider -> its family's rules (Nova is Converse's events: :class:`BedrockNovaAdapter`).
FAMILIES: Final[dict[str, Family]] = {f.name: f for f in (LLAMA, TITAN, COHERE, MISTRAL)}


def guardrail_block(data: Mapping[str, Any]) -> Fail | None:
    """The failure a guardrail that blocked the *input* means, or None.

    Bedrock then sends the guardrail's own message as the only text, with no
    final reason of the model: nothing was generated, so it is a refused
    request (contract: ``failed`` / ``content_filter``), not an answer.
    """
    if data.get(GUARDRAIL_ACTION) != "INTERVENED":
        return None
    trace = data.get(TRACE)
    guardrail = trace.get("guardrail") if isinstance(trace, Mapping) else None
    checked = guardrail.get("input") if isinstance(guardrail, Mapping) else None
    if not isinstance(checked, Mapping) or b'"BLOCKED"' not in orjson.dumps(checked):
        return None
    why = guardrail.get("actionReason") if isinstance(guardrail, Mapping) else None
    detail = f" ({why})" if isinstance(why, str) and why else ""
    message = f"a Bedrock guardrail blocked the input{detail}"
    return Fail("content_filter", "guardrail_intervened", message)


def _usage(inputs: int | None, outputs: int | None, metrics: Any) -> dict[str, Any] | None:
    if isinstance(metrics, Mapping):
        inputs = inputs if inputs is not None else int_or_none(metrics.get("inputTokenCount"))
        outputs = outputs if outputs is not None else int_or_none(metrics.get("outputTokenCount"))
    if inputs is None and outputs is None:
        return None
    raw = dict(metrics) if isinstance(metrics, Mapping) else {}
    return {"input_tokens": inputs, "output_tokens": outputs, "raw": raw}


class _OneTextAdapter(BedrockHttpErrors, Adapter):
    """One text block (index 0), opened by the first text and closed by the final reason."""

    family: ClassVar[Family]

    def __init_subclass__(cls, *, family: Family, **kwargs: Any) -> None:
        """``class X(_OneTextAdapter, family=F)``: the adapter of family ``F``, named as it is."""
        super().__init_subclass__(**kwargs)
        cls.family = family
        cls.provider = family.name

    def __init__(self) -> None:
        self.started = False
        self.open = False
        self.inputs: int | None = None
        self.outputs: int | None = None
        self.fields = FieldAccount({"chunk": self.family.fields})
        self.warned_choices = False

    def feed(self, frame: Frame) -> list[Action]:
        """One object: its text, then, when it carries one, the final reason."""
        out: list[Action] = []
        if not self.started:
            self.started = True
            out.append(Start(None))
        try:
            data = orjson.loads(frame.data)
        except orjson.JSONDecodeError as exc:
            out.append(json_problem(frame, exc))
            return out
        if not isinstance(data, dict):
            out.append(Ignore(f"frame {frame.index}: the model's event is not a JSON object"))
            return out
        self.fields.check("chunk", data, frame.index, out)
        family = self.family
        other = family.choice(data) != 0
        if (other or family.more(data)) and not self.warned_choices:
            self.warned_choices = True
            what = "choices other than 0 (num_generations, n) are not modelled yet; skipped"
            out.append(Ignore(f"frame {frame.index}: {what}", "several_choices"))
        if other:
            return out
        reason = family.reason(data)
        blocked = guardrail_block(data) if reason is None else None
        if blocked is not None:
            out.append(blocked)
            return out
        self._count(data)
        text = family.text(data)
        if text:
            if not self.open:
                self.open = True
                out.append(OpenBlock(0, "text", "text"))
            out.append(Delta(0, "text", text))
        if reason is not None:
            out.extend(self._final(reason, data))
        return out

    def _count(self, data: Mapping[str, Any]) -> None:
        in_key, out_key = self.family.usage_keys
        if in_key and int_or_none(data.get(in_key)) is not None:
            self.inputs = int_or_none(data.get(in_key))
        if out_key and int_or_none(data.get(out_key)) is not None:
            self.outputs = int_or_none(data.get(out_key))

    def _final(self, reason: str, data: Mapping[str, Any]) -> list[Action]:
        category = self.family.fail.get(reason)
        if category is not None:
            return [Fail(category, reason, f"{self.family.name}: the model ended with {reason}")]
        out: list[Action] = []
        if self.open:
            self.open = False
            out.append(CloseBlock(0))
        usage = _usage(self.inputs, self.outputs, data.get(METRICS))
        out.append(Finish(self.family.finish.get(reason, "other"), reason, usage=usage))
        return out


class BedrockLlamaAdapter(_OneTextAdapter, family=LLAMA):
    """Meta Llama on Bedrock invoke (``generation`` / ``stop_reason``)."""


class BedrockTitanAdapter(_OneTextAdapter, family=TITAN):
    """Amazon Titan Text on Bedrock invoke (``outputText`` / ``completionReason``)."""


class BedrockCohereAdapter(_OneTextAdapter, family=COHERE):
    """Cohere Command (and Command R) on Bedrock invoke (``text`` / ``is_finished``)."""


class BedrockMistralAdapter(_OneTextAdapter, family=MISTRAL):
    """Mistral text completion on Bedrock invoke (``outputs[0].text`` / ``stop_reason``)."""


#: What Nova's objects may hold besides their one Converse event.
_NOVA_EXTRA: Final = frozenset(BEDROCK_FIELDS)
#: Nova's usage names on invoke -> Converse's (a real recording has both spellings' meaning).
_NOVA_USAGE: Final = {
    "cacheReadInputTokenCount": "cacheReadInputTokens",
    "cacheWriteInputTokenCount": "cacheWriteInputTokens",
}


def _with_raw(action: Action, raw: dict[str, Any]) -> Action:
    if not isinstance(action, Finish) or action.usage is None:
        return action
    return replace_frame(action, usage={**action.usage, "raw": dict(raw)})


def _converse_usage(payload: dict[str, Any]) -> dict[str, Any]:
    """A Nova ``metadata`` payload with its usage named as Converse names it."""
    usage = payload.get("usage")
    if not isinstance(usage, dict) or not any(k in usage for k in _NOVA_USAGE):
        return payload
    renamed = {_NOVA_USAGE.get(k, k): v for k, v in usage.items()}
    return {**payload, "usage": renamed}


class BedrockNovaAdapter(BedrockHttpErrors, Adapter):
    """Amazon Nova on Bedrock invoke: each object is ``{<Converse event>: payload}``.

    The event is handed to :class:`~.bedrock_converse.BedrockConverseAdapter`
    as the frame it would be on ConverseStream, so Nova follows Converse's
    final signals exactly (``messageStop``, then ``metadata``).
    """

    provider = "bedrock-nova"

    def __init__(self) -> None:
        self.converse = BedrockConverseAdapter()

    def feed(self, frame: Frame) -> list[Action]:
        """Unwrap the one event and let Converse's adapter read it."""
        try:
            data = orjson.loads(frame.data)
        except orjson.JSONDecodeError as exc:
            return [*self._start(), json_problem(frame, exc)]
        names = [k for k in data if k not in _NOVA_EXTRA] if isinstance(data, dict) else []
        if len(names) != 1 or not isinstance(data[names[0]], dict):
            return [
                *self._start(),
                Ignore(f"frame {frame.index}: not one Converse event under its name; skipped"),
            ]
        payload = data[names[0]]
        if names[0] == "metadata":
            payload = _converse_usage(payload)
        blocked = guardrail_block(data) if names[0] != "messageStop" else None
        if blocked is not None:
            return [*self._start(), blocked]
        inner = replace_frame(frame, event=names[0], data=orjson.dumps(payload).decode())
        actions = self.converse.feed(inner)
        sent = data[names[0]].get("usage")
        if payload is data[names[0]] or not isinstance(sent, dict):
            return actions
        # The raw usage stays what Nova sent (the renaming is for reading it only).
        return [_with_raw(action, sent) for action in actions]

    def _start(self) -> list[Action]:
        if self.converse.started:
            return []
        self.converse.started = True
        return [Start(None)]

    def eof_note(self) -> str | None:
        """Converse's note (``messageStop`` without ``metadata``)."""
        return self.converse.eof_note()


#: provider -> adapter class, for the registry's rows.
ADAPTER_CLASSES: Final[dict[str, type[Adapter]]] = {
    "bedrock-llama": BedrockLlamaAdapter,
    "bedrock-titan": BedrockTitanAdapter,
    "bedrock-cohere": BedrockCohereAdapter,
    "bedrock-mistral": BedrockMistralAdapter,
    "bedrock-nova": BedrockNovaAdapter,
}

#: The field table each family's adapter checks (one frame type: ``chunk``).
FIELD_TABLES: Final[dict[str, FieldTable]] = {
    name: {"chunk": family.fields} for name, family in FAMILIES.items()
}
