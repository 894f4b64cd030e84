"""Anonymizing a recording: its header, its stream body byte for byte, its transport end.

The body is rewritten whole (:mod:`.rewrite`) and cut back into the
recording's chunks at the same places: same chunks, same timing, same frame
boundaries. The pseudonym key is a digest of the original recording, so the
same capture always anonymizes the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..core.digest import blake2b  # hashlib's BLAKE2b, without loading OpenSSL
from ..core.trace import TransportEnd
from ..inputs import Recording
from ..redact.known import remove_known_values
from ..terminal import safe_path
from .ledger import Context, Ledger
from .options import ExportError
from .pseudonyms import Pseudonymizer
from .request import anonymize_header, scrub_text
from .rewrite import Handover, RewriteError, rewrite_body
from .rewrite.framed import FRAMED, rewrite_framed

__all__ = ["Anonymized", "anonymize", "anonymize_body", "cut", "key_of"]


@dataclass
class Anonymized:
    """An anonymized recording and the ledger of what was done to it."""

    recording: Recording
    ledger: Ledger = field(default_factory=Ledger)


def key_of(rec: Recording) -> bytes:
    """The pseudonym key: a digest of the whole original recording."""
    digest = blake2b(digest_size=32)
    digest.update(orjson.dumps(rec.header, option=orjson.OPT_SORT_KEYS))
    for time, data in rec.chunks:
        digest.update(repr(time).encode())
        digest.update(data)
    return digest.digest()


def _starts_json(chunks: Iterable[tuple[float, bytes]]) -> bool:
    """Whether the body's first byte past white space opens a JSON document (an error body)."""
    for _, data in chunks:
        stripped = data.lstrip()
        if stripped:
            return stripped[:1] in (b"{", b"[")
    return False


def anonymize_body(
    rec: Recording,
    *,
    mask_text: bool,
    keep_request: bool,
    consume: bool = False,
    key: bytes | None = None,
) -> tuple[bytes, dict[str, Any] | None, TransportEnd | None, Ledger]:
    """The anonymized body (all chunks joined), header and transport end, and the ledger.

    With ``consume`` the recording's chunks are dropped once joined.
    ``key``: the pseudonym key, when it was taken before the chunks were
    joined into pieces (it reads the chunks as recorded).
    """
    from ..session import framing_of

    key = key_of(rec) if key is None else key
    ctx = Context(Pseudonymizer(key), mask_text=mask_text, keep_request=keep_request)
    framing = framing_of(rec)
    whole_json = _starts_json(rec.chunks)
    body = Handover(rec.body)
    if consume:
        rec.chunks = []  # the handover then holds the body's only copy
    # The header first: the credentials it holds are removed from the body too.
    header = anonymize_header(rec.header, ctx) if rec.header is not None else None
    known = dict(ctx.ledger.secrets)
    try:
        if framing in FRAMED:
            # NDJSON lines, array elements, event-stream payloads: each its own document.
            new_body = rewrite_framed(body.take(), framing, ctx)
        else:
            # The rewriter frees the original body once read, before its own copies peak.
            new_body = rewrite_body(body, ctx, whole_json=whole_json)
    except RewriteError as exc:
        raise ExportError(
            f"{safe_path(rec.path)}: internal error while rewriting the stream: {exc}"
        ) from exc
    end = rec.end
    error = scrub_text(end.error, ctx) if end is not None and end.error else None
    new_body, header, error = remove_known_values(new_body, header, error, ctx.ledger, known)
    if end is not None and error is not None:
        end = TransportEnd(end.reason, end.time, error)
    return new_body, header, end, ctx.ledger


def cut(body: bytes, times: Iterable[float], sizes: Iterable[int]) -> Iterator[tuple[float, bytes]]:
    """``body`` cut back into chunks of these times and sizes, one at a time."""
    at = 0
    for time, size in zip(times, sizes, strict=True):
        yield time, body[at : at + size]
        at += size


def anonymize(rec: Recording, *, mask_text: bool = False, keep_request: bool = False) -> Anonymized:
    """The anonymized copy of a recording (no I/O, no verification)."""
    body, header, end, ledger = anonymize_body(rec, mask_text=mask_text, keep_request=keep_request)
    chunks = list(cut(body, (t for t, _ in rec.chunks), (len(d) for _, d in rec.chunks)))
    out = Recording(rec.path, rec.kind, header, chunks, end, list(rec.problems))
    return Anonymized(out, ledger)
