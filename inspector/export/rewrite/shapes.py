"""What the rewriter remembers of a stream's document shapes, to read the next alike.

A stream repeats a handful of document shapes thousands of times. A
:class:`Template` says where the strings of one shape are and what each is,
learned once from a document the lexer read; a :class:`Run` is the last
document that had one text in it, kept as the bytes around that text, so
the next delta of the same text is filed without being parsed at all.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any, Final

from ..jsonlex import lex
from ..rules import Treatment, classify, discriminator_plan, key_reads_text
from .strings import Fragments

__all__ = [
    "MAX_KEYS",
    "MAX_TEMPLATES",
    "NUMBER_BYTES",
    "ROLE_ID",
    "ROLE_STREAMED",
    "ROLE_STREAMED_BY_NUMBERS",
    "STREAMED",
    "STREAMED_ROLES",
    "STRING",
    "Run",
    "Template",
    "key_getter",
    "lookup",
    "template_of",
]

# A JSON string: its content is group 1. Outside strings a JSON text has no
# quotes, so scanning from the start finds exactly its strings, in order.
STRING: Final = re.compile(rb'"([^"\\]*(?:\\.[^"\\]*)*)"', re.S)  # unrolled: one step per escape
# Outside strings a JSON document's numbers are made of these (and its
# literals of letters other than e): deleted, only the syntax is left.
NUMBER_BYTES: Final = b"0123456789.eE+-"
# Shapes remembered per body (a stream has a handful; a hostile one, many).
MAX_TEMPLATES: Final = 4096
MAX_KEYS: Final = 4096  # remembered keys per template
STREAMED: Final = frozenset({Treatment.TEXT, Treatment.JSON_TEXT, Treatment.PROMPT})
# How a template's value is filed: an id (decided once per distinct value),
# a fragment of a text (grouped by stream key), or anything else (on its own).
ROLE_ID: Final = "id"
ROLE_STREAMED: Final = "streamed"
# A fragment whose stream key reads only numbers of its document (Chat's
# ``choices[].index``): the key is remembered per template and numbers.
ROLE_STREAMED_BY_NUMBERS: Final = "streamed-by-numbers"
STREAMED_ROLES: Final = frozenset({ROLE_STREAMED, ROLE_STREAMED_BY_NUMBERS})


class Template:
    """Where the strings of one document shape are, and what each is.

    ``strings`` (keys and values, counted) in document order; ``values``:
    ``(part, path, treatment, plan, role)`` of every value not kept as is:
    ``part`` is where its content is in the document split at its strings
    (string n: part 2n+1), ``plan`` the discriminators of its stream key (for
    texts), ``role`` how the rewriter files it (:data:`ROLE_ID`,
    :data:`ROLE_STREAMED`, :data:`ROLE_STREAMED_BY_NUMBERS`, or None: a
    string decided on its own).
    """

    __slots__ = ("keys", "strings", "values")

    def __init__(
        self,
        strings: int,
        values: tuple[tuple[int, tuple[str | int, ...], Treatment, Any, str | None], ...],
        keys: dict[tuple[int, bytes], tuple[Any, ...]],
    ) -> None:
        self.strings = strings
        self.values = values
        # (part, the document's syntax with its numbers) -> stream key, for
        # values filed by ROLE_STREAMED_BY_NUMBERS
        self.keys = keys


def template_of(joined: bytes, root: Any) -> Template | None:
    """The template of one parsed document (None if the lexer and the regex disagree)."""
    result = lex(joined)
    if result.error is not None:
        return None
    strings = [t for t in result.tokens if t.kind != "number"]
    spans = [m.span(1) for m in STRING.finditer(joined)]
    if spans != [(t.start, t.end) for t in strings] or not all(t.terminated for t in strings):
        return None
    values = []
    for ordinal, token in enumerate(strings):
        if token.kind == "key":
            continue
        treatment = classify(token.path, lookup(root, token.path[:-1]), root)
        if treatment is not Treatment.KEEP:
            streamed = treatment in STREAMED
            plan = discriminator_plan(token.path, root) if streamed else None
            role = ROLE_STREAMED if streamed else ROLE_ID if treatment is Treatment.ID else None
            if plan is not None and not key_reads_text(token.path, root, plan):
                role = ROLE_STREAMED_BY_NUMBERS
            values.append((2 * ordinal + 1, token.path, treatment, plan, role))
    return Template(len(strings), tuple(values), {})


def key_getter(parts: list[bytes]) -> Callable[[list[bytes]], Any]:
    """A function from the parts of a document of this syntax to its key strings.

    A string is a key when the syntax after it starts with ``:``; documents
    whose syntax (numbers aside) is the same have their keys at the same parts.
    """
    indexes = [i for i in range(1, len(parts) - 1, 2) if parts[i + 1].lstrip()[:1] == b":"]
    if not indexes:
        return lambda parts: ()
    return operator.itemgetter(*indexes)


class Run:
    """A remembered one-text document (:meth:`.collect._Collector._remember_run`).

    ``entries``: ``(at, raw, treatment, role, after)`` of each value in order,
    ``raw`` None for the text; ``at`` where it starts, for a value ``after``
    the text as if the text were empty. ``stream``: the text's stream.
    """

    __slots__ = ("entries", "prefix", "stream", "suffix")

    def __init__(
        self,
        prefix: bytes,
        suffix: bytes,
        entries: tuple[tuple[int, bytes | None, Treatment, str | None, bool], ...],
        stream: Fragments,
    ) -> None:
        self.prefix = prefix
        self.suffix = suffix
        self.entries = entries
        self.stream = stream


def lookup(root: Any, path: tuple[str | int, ...]) -> Any:
    node = root
    for step in path:
        if isinstance(step, str) and isinstance(node, dict):
            node = node.get(step)
        elif isinstance(step, int) and isinstance(node, list) and step < len(node):
            node = node[step]
        else:
            return None
    return node
