"""Rewriting a body in a framing other than SSE: its JSON documents, where the framing has them.

===================  ==========================================================
framing              documents
===================  ==========================================================
``ndjson``           each line
``json-array``       each element
``aws-eventstream``  each message's payload — for a Bedrock invoke ``chunk``,
                     the model's event inside it instead (its ``bytes``, base64)
===================  ==========================================================

The documents are gathered into one text, a newline between each, and that
text is rewritten as a body is (:func:`~.body.rewrite_body`, each document
its own JSON root), so the fragments of one text are still filed together
across documents and a secret split between two events is still found. Each
document is then put back: a line or an element in place; a payload into its
message, whose total length and both CRC32s are computed again
(:func:`~inspector.core.framing.eventstream.with_payload`); an inner event
base64-encoded again into its chunk. Every edit keeps its length (base64 of
as many bytes is as long), so the body keeps its offsets and the recording's
chunks are cut back where they were.

Bytes no document covers — an event stream's message headers, a message cut
by the end of the body or past a damaged one — are searched for secrets as
they are (:func:`~.outside.scan_outside_strings`).
"""

from __future__ import annotations

import binascii
from array import array
from base64 import b64decode, b64encode
from typing import Final

import orjson

from ...core.framing import FramingError, decoder_for
from ...core.framing.eventstream import payload_span, with_payload
from ...core.sse.lines import BOM
from ..ledger import Context
from .apply import Covered, RewriteError
from .body import rewrite_body
from .collect import FAST, Shortcuts
from .outside import scan_outside_strings

__all__ = ["FRAMED", "rewrite_framed"]

#: The framings this module rewrites (SSE is :func:`~.body.rewrite_body`'s own).
FRAMED: Final = frozenset({"ndjson", "json-array", "aws-eventstream"})
_NO_LIMIT: Final = 1 << 62


class _Doc:
    """One document: where its text is, and how it goes back."""

    __slots__ = ("b64", "end", "message", "start", "text")

    def __init__(
        self,
        text: bytes,
        start: int,
        end: int,
        message: tuple[int, int] | None = None,
        b64: tuple[int, int] | None = None,
    ) -> None:
        self.text = text
        self.start = start  # its span in the body (a payload's, for an event-stream message)
        self.end = end
        self.message = message  # the message's span in the body (event stream)
        self.b64 = b64  # the base64 text's span within the payload (an invoke chunk)


def _ndjson(body: bytes) -> tuple[list[_Doc], int]:
    docs: list[_Doc] = []
    at = len(BOM) if body.startswith(BOM) else 0
    while at < len(body):
        newline = body.find(b"\n", at)
        stop = len(body) if newline < 0 else newline
        line = body[at:stop].rstrip(b"\r")
        lead = len(line) - len(line.lstrip())
        text = line.strip()
        if text:
            docs.append(_Doc(text, at + lead, at + lead + len(text)))
        at = stop + 1
    return docs, len(body)


def _json_array(body: bytes) -> tuple[list[_Doc], int]:
    decoder = decoder_for("json-array", max_line=_NO_LIMIT, max_frame=_NO_LIMIT)
    docs: list[_Doc] = []
    try:
        frames = decoder.feed(body)
    except FramingError:
        frames = []
    for frame in frames:
        element = frame.data.encode("utf-8", "surrogatepass")
        offset = body.find(element, frame.start, frame.end)
        if element.strip() and offset >= 0:
            docs.append(_Doc(element, offset, offset + len(element)))
    return docs, len(body)


def _inner_b64(payload: bytes) -> tuple[bytes, tuple[int, int]] | None:
    """A chunk payload's inner event and its base64 text's span, when it is one."""
    try:
        outer = orjson.loads(payload)
        encoded = outer["bytes"].encode("ascii")
        inner = b64decode(encoded, validate=True)
    except (orjson.JSONDecodeError, KeyError, TypeError, AttributeError, UnicodeError):
        return None
    except binascii.Error:
        return None
    where = payload.find(b'"' + encoded + b'"')
    if where < 0 or b64encode(inner) != encoded:
        return None  # not canonical base64: it could not be written back as long
    return inner, (where + 1, where + 1 + len(encoded))


def _event_stream(body: bytes) -> tuple[list[_Doc], int]:
    decoder = decoder_for("aws-eventstream", max_line=_NO_LIMIT, max_frame=_NO_LIMIT)
    frames = decoder.feed(body)
    docs: list[_Doc] = []
    covered = 0
    for frame in frames:
        message = body[frame.start : frame.end]
        start, end = payload_span(message)
        payload = message[start:end]
        covered = frame.end
        if not payload.strip():
            continue
        found = _inner_b64(payload) if frame.event == "chunk" else None
        span = (frame.start, frame.end)
        if found is None:
            docs.append(_Doc(payload, frame.start + start, frame.start + end, span))
        else:
            inner, b64 = found
            docs.append(_Doc(inner, frame.start + start, frame.start + end, span, b64))
    return docs, covered


_READERS: Final = {"ndjson": _ndjson, "json-array": _json_array, "aws-eventstream": _event_stream}


def rewrite_framed(
    body: bytes,
    framing: str,
    ctx: Context,
    *,
    shortcuts: Shortcuts = FAST,
    untouched: bool = True,
) -> bytes:
    """The anonymized body of a ``framing`` body: same length, same frames (see the module)."""
    docs, read = _READERS[framing](body)
    texts = [doc.text for doc in docs]
    joined = b"\n".join(texts)
    spans: list[tuple[int, int]] = []
    at = 0
    for text in texts:
        spans.append((at, at + len(text)))
        at += len(text) + 1
    new = rewrite_body(joined, ctx, documents=spans, shortcuts=shortcuts, untouched=untouched)
    out = bytearray(body)
    for doc, (start, end) in zip(docs, spans, strict=True):
        rewritten = new[start:end]
        if rewritten != doc.text:
            _put_back(out, doc, rewritten)
    if read < len(out):
        _scan_rest(out, read, ctx)
    if len(out) != len(body):
        raise RewriteError(f"the body changed length ({len(body)} -> {len(out)} bytes)")
    return bytes(out)


def _put_back(out: bytearray, doc: _Doc, rewritten: bytes) -> None:
    if doc.message is None:
        out[doc.start : doc.end] = rewritten
        return
    start, end = doc.message
    message = bytes(out[start:end])
    payload_start, payload_end = doc.start - start, doc.end - start
    payload = message[payload_start:payload_end]
    if doc.b64 is not None:
        b64_start, b64_end = doc.b64
        encoded = b64encode(rewritten)
        if len(encoded) != b64_end - b64_start:
            raise RewriteError(f"an inner event at byte {start} changed its base64 length")
        payload = payload[:b64_start] + encoded + payload[b64_end:]
    else:
        payload = rewritten
    out[start:end] = with_payload(message, payload)


def _scan_rest(out: bytearray, start: int, ctx: Context) -> None:
    """Secrets in the bytes after the last whole message (cut, or past a damaged one)."""
    rest = bytearray(out[start:])
    scan_outside_strings(rest, Covered(array("q"), array("q")), ctx)
    out[start:] = rest
