"""The byte-level rewrite of a recorded stream body, as the steps it runs.

The body is rewritten as one byte string (all chunks joined) and cut back
into chunks at the original boundaries. That is only correct if every
change keeps its length, so **every edit replaces bytes by the same number
of bytes** (:class:`~.apply.RewriteError` otherwise) and the offset map from
the original body to the new one is the identity: a chunk that ended in the
middle of a frame, of a JSON escape or of a UTF-8 character ends at the same
byte of the rewritten one. JSON syntax is never touched: only the content of
strings (and, with ``--text mask``, the numbers of logprob ``bytes``) changes.

1. :func:`~.collect.collect`: every string of every ``data:`` value, filed;
2. :func:`~.decide.decide`: secrets, ids, masks — the edits of each string;
3. :func:`~.apply.apply_edits`: the edits written into the body's copy;
4. :func:`~.outside.scan_outside_strings`: secrets in the bytes between strings.

Each step takes what the one before returned, so they cannot run out of
order; each is a public function the tests can run and compare on its own.
"""

from __future__ import annotations

from ..ledger import Context
from .apply import RewriteError, apply_edits, covered_ranges
from .collect import FAST, Shortcuts, collect
from .decide import decide
from .outside import scan_outside_strings

__all__ = ["Handover", "rewrite_body"]


class Handover:
    """A body handed to :func:`rewrite_body` for good.

    The caller keeps no reference of its own: the rewrite then frees the
    original body as soon as every string in it is read, before its own
    copies peak (on a 30 MB stream, 30 MB less at the export's peak).
    """

    __slots__ = ("_body",)

    def __init__(self, body: bytes) -> None:
        self._body = body

    def take(self) -> bytes:
        """The body, once: the handover holds nothing after."""
        body, self._body = self._body, b""
        return body


def rewrite_body(
    body: bytes | Handover,
    ctx: Context,
    *,
    whole_json: bool = False,
    shortcuts: Shortcuts = FAST,
    untouched: bool = True,
    documents: list[tuple[int, int]] | None = None,
) -> bytes:
    """The anonymized body: the same length, the same syntax, the same offsets.

    ``whole_json`` reads the body as JSON documents rather than SSE (an HTTP
    error body); ``documents``, the spans of the JSON documents a body of
    another framing holds (:mod:`.framed`). Counts and removed secrets go to
    ``ctx.ledger``.
    ``shortcuts`` and ``untouched`` turn the fast paths of steps 1 and 2 off
    (the same output: the tests compare them).
    """
    if isinstance(body, Handover):
        body = body.take()
    size = len(body)
    out = bytearray(body)
    found = collect(body, ctx, whole_json=whole_json, shortcuts=shortcuts, documents=documents)
    del body  # every string is read: only the edited copy is needed from here on
    decided = decide(found, ctx, untouched=untouched)
    del found
    apply_edits(decided, out)
    covered = covered_ranges(decided)
    del decided  # the strings are most of the rewrite's memory: the last step needs none
    scan_outside_strings(out, covered, ctx)
    del covered
    rewritten = bytes(out)
    del out
    if len(rewritten) != size:
        raise RewriteError(f"the body changed length ({size} -> {len(rewritten)} bytes)")
    return rewritten
