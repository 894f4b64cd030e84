"""What each string in a provider's stream is, by the key it sits under.

One table for every provider: the four protocols name their fields
differently, but a field name means the same thing wherever it appears.

=================  ==========================================================
treatment          strings
=================  ==========================================================
``ID``             ids: ``id``, ``*_id``, ``*Id``, ``*_ids``, ``system_fingerprint``,
                   ``user``, ``safety_identifier``, ``prompt_cache_key`` —
                   pseudonymized, always
``OPAQUE``         signatures and encrypted blobs: ``signature``,
                   ``thoughtSignature``, ``encrypted_content``,
                   ``encrypted_index``, ``data`` of a redacted / encrypted
                   block — a same-length placeholder, always
``PROMPT``         the request echoed back (Responses ``instructions``,
                   ``metadata``) — masked unless ``--keep-request``
``JSON_TEXT``      tool arguments as JSON text: ``arguments``,
                   ``partial_json``, the ``delta`` of a ``*arguments.delta``
                   event, the ``input`` string of a Bedrock ``toolUse`` delta
                   — string values masked with ``--text mask``
``TEXT``           model text (:data:`TEXT_KEYS`) and every string inside an
                   arguments object (``args``, ``input``, ``arguments``) —
                   masked with ``--text mask``
``KEEP``           everything else: types, roles, names, finish reasons,
                   models, error codes, urls — kept
=================  ==========================================================

Every string except ids and opaque blobs is also searched for secrets
(:mod:`.secrets`). Strings of one text (the deltas of one block) share a
*stream key*, so they are searched — and, for JSON text, lexed — joined.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "ARGUMENT_OBJECT_KEYS",
    "ID_KEYS",
    "JSON_TEXT_KEYS",
    "NUMBER_MASK_KEYS",
    "OPAQUE_KEYS",
    "PROMPT_KEYS",
    "TEXT_KEYS",
    "Treatment",
    "classify",
    "discriminator_plan",
    "is_id_key",
    "key_reads_text",
    "stream_key",
]


class Treatment(enum.Enum):
    """What the rewriter does with one string of the stream."""

    KEEP = "keep"
    TEXT = "text"
    JSON_TEXT = "json-text"
    ID = "id"
    OPAQUE = "opaque"
    PROMPT = "prompt"


ID_KEYS: Final = frozenset(
    {"id", "system_fingerprint", "user", "safety_identifier", "prompt_cache_key"}
)
OPAQUE_KEYS: Final = frozenset(
    {"signature", "thoughtSignature", "thought_signature", "encrypted_content", "encrypted_index"}
)
PROMPT_KEYS: Final = frozenset({"instructions", "metadata"})
JSON_TEXT_KEYS: Final = frozenset({"arguments", "partial_json"})
ARGUMENT_OBJECT_KEYS: Final = frozenset({"args", "input", "arguments"})
# Kept as written (fmt: skip): a set of words, several to a line.
TEXT_KEYS: Final = frozenset(
    {
        "text", "content", "delta", "reasoning", "reasoning_content", "refusal", "thinking",
        "code", "output", "stdout", "stderr", "logs", "failed_generation", "revised_prompt",
        "transcript", "cited_text", "token", "query", "queries", "webSearchQueries",
        "renderedContent", "stringValue", "input", "error_message",
        "outputText", "generation",
    }
)  # fmt: skip
# Numbers that spell text: logprob ``bytes`` are the UTF-8 bytes of a token.
NUMBER_MASK_KEYS: Final = frozenset({"bytes"})
# Fields that tell one text stream from another in the same position.
_DISCRIMINATORS: Final = (
    "index", "output_index", "content_index", "summary_index", "item_id", "contentBlockIndex",
)  # fmt: skip
#: Objects whose ``input`` string is tool arguments as JSON text (Bedrock Converse / Nova).
JSON_INPUT_PARENTS: Final = frozenset({"toolUse"})
#: Bedrock's guardrail assessment beside a model's event: policy names, actions and
#: counts, kept — but for the text it quotes (the model's output, a matched span).
GUARDRAIL_TRACE: Final = "amazon-bedrock-trace"
GUARDRAIL_TEXT_KEYS: Final = frozenset({"modelOutput", "match"})


def is_id_key(key: str) -> bool:
    """Whether a string under ``key`` is an id (pseudonymized)."""
    return key in ID_KEYS or key.endswith(("_id", "Id", "_ids", "Ids"))


def _last_key(path: tuple[str | int, ...]) -> str | None:
    for step in reversed(path):
        if isinstance(step, str):
            return step
    return None


def classify(path: tuple[str | int, ...], parent: Any, root: Any) -> Treatment:
    """The treatment of the string value at ``path``.

    ``parent`` is the object or array holding it and ``root`` the whole
    document, when the document parsed (None for one cut short).
    """
    if path and path[0] == GUARDRAIL_TRACE:
        quoted = any(step in GUARDRAIL_TEXT_KEYS for step in path)
        return Treatment.TEXT if quoted else Treatment.KEEP
    # Inside an arguments object every string is an argument value.
    if any(step in ARGUMENT_OBJECT_KEYS for step in path[:-1]):
        return Treatment.TEXT
    key = _last_key(path)
    if key is None:
        return Treatment.KEEP
    if key in OPAQUE_KEYS:
        return Treatment.OPAQUE
    if key == "data" and isinstance(parent, Mapping):
        kind = parent.get("type")
        if isinstance(kind, str) and ("redacted" in kind or "encrypted" in kind):
            return Treatment.OPAQUE
    if any(step in PROMPT_KEYS for step in path):
        return Treatment.PROMPT
    if is_id_key(key):
        return Treatment.ID
    if key in JSON_TEXT_KEYS:
        return Treatment.JSON_TEXT
    if key == "input" and len(path) >= 2 and path[-2] in JSON_INPUT_PARENTS:
        return Treatment.JSON_TEXT
    if key == "delta":
        kind = root.get("type") if isinstance(root, Mapping) else None
        if isinstance(kind, str) and kind.endswith("arguments.delta"):
            return Treatment.JSON_TEXT
    if key in TEXT_KEYS:
        # An error's ``code`` is a provider code, not code the model wrote.
        if key == "code" and (
            "error" in path or (isinstance(parent, Mapping) and "message" in parent)
        ):
            return Treatment.KEEP
        return Treatment.TEXT
    return Treatment.KEEP


def discriminator_plan(path: tuple[str | int, ...], root: Any) -> tuple[tuple[str, ...], ...]:
    """For each step of ``path``, the discriminator fields its object holds.

    Documents of one shape (same keys, same value kinds) share a plan, so
    :func:`stream_key` can skip looking for the fields that are not there.
    """
    plan: list[tuple[str, ...]] = []
    node = root
    for step in path:
        if isinstance(node, Mapping):
            plan.append(tuple(f for f in _DISCRIMINATORS if f in node))
            node = node.get(step) if isinstance(step, str) else None
        else:
            plan.append(())
            node = (
                node[step]
                if isinstance(node, list) and isinstance(step, int) and step < len(node)
                else None
            )
    return tuple(plan)


def key_reads_text(
    path: tuple[str | int, ...], root: Any, plan: tuple[tuple[str, ...], ...]
) -> bool:
    """Whether :func:`stream_key` of ``path`` in ``root`` holds a string read from ``root``.

    When it does not, the key is made of the path, the document's ``type``
    and numbers (and ``true``/``false``) of the document only: documents of
    one shape with the same numbers share it.
    """
    node = root
    for i, step in enumerate(path):
        if isinstance(node, dict):
            if any(isinstance(node.get(f), str) for f in plan[i]):
                return True
            node = node.get(step) if isinstance(step, str) else None
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            node = node[step]
        else:
            node = None
    return False


def stream_key(
    path: tuple[str | int, ...], root: Any, plan: tuple[tuple[str, ...], ...] | None = None
) -> tuple[Any, ...]:
    """Which text a string belongs to: equal keys are fragments of one text.

    ``root`` is a document as :func:`orjson.loads` returns it.
    Array positions are replaced by the element's own ``index`` when it has
    one (Chat ``choices``, ``tool_calls``), and each object on the way adds
    the fields that tell parallel texts apart (``index`` of an Anthropic
    event, ``item_id`` / ``output_index`` of a Responses event…). ``plan``
    (:func:`discriminator_plan`) names the fields to look at, step by step.
    """
    # Documents come from orjson: exact ``dict`` checks, much cheaper per
    # string than the ``Mapping`` ABC's (this runs for every text fragment).
    key: list[Any] = [root.get("type") if isinstance(root, dict) else None]
    node = root
    for i, step in enumerate(path):
        if isinstance(node, dict):
            for f in _DISCRIMINATORS if plan is None else plan[i]:
                value = node.get(f)
                if isinstance(value, (int, str)):
                    key.append((f, value))
            node = node.get(step) if isinstance(step, str) else None
            key.append(step)
        elif isinstance(node, list) and isinstance(step, int) and step < len(node):
            element = node[step]
            own = element.get("index") if isinstance(element, dict) else None
            key.append(own if isinstance(own, int) else step)
            node = element
        else:
            node = None
            key.append(step)
    return tuple(key)
