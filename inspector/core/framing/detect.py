"""Which framing a body uses: from a capture's header, else from its first bytes.

The header decides when it says: a ``framing`` field (what the recorder
knew), else the response's ``content-type`` (:data:`CONTENT_TYPES`). Else the
bytes (:func:`detect_framing`), in this order:

=================================================  =====================
first bytes                                        framing
=================================================  =====================
a 12-byte event-stream prelude whose CRC32 holds   ``aws-eventstream``
``[`` (after whitespace and a BOM)                 ``json-array``
a line holding a JSON object, ended by LF, that    ``ndjson``
is not one whole JSON error document
anything else                                      ``sse``
=================================================  =====================

A body that is one JSON error document (``{"error": {...}}``, as an HTTP
error returns) stays with SSE, whose adapters read it as the error it states.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from .eventstream import prelude_valid

__all__ = ["CONTENT_TYPES", "SNIFF_BYTES", "detect_framing", "framing_of_header"]

#: How many of a body's first bytes are looked at to tell its framing, or what an
#: input that is no stream is (:mod:`inspector.input_sniff`).
SNIFF_BYTES: Final = 64 * 1024

#: Media type (lower case, parameters dropped) -> framing.
CONTENT_TYPES: Final[dict[str, str]] = {
    "text/event-stream": "sse",
    "application/vnd.amazon.eventstream": "aws-eventstream",
    "application/x-ndjson": "ndjson",
    "application/ndjson": "ndjson",
    "application/jsonl": "ndjson",
    "application/x-jsonlines": "ndjson",
    "application/jsonlines": "ndjson",
}
_KNOWN: Final = ("sse", "ndjson", "aws-eventstream", "json-array")
_BOM: Final = b"\xef\xbb\xbf"


def _content_type(header: Mapping[str, Any]) -> str | None:
    response = header.get("response")
    headers = response.get("headers") if isinstance(response, Mapping) else None
    if not isinstance(headers, Mapping):
        return None
    for name, value in headers.items():
        if isinstance(name, str) and name.lower() == "content-type" and isinstance(value, str):
            return value.split(";", 1)[0].strip().lower()
    return None


def framing_of_header(header: Mapping[str, Any] | None) -> str | None:
    """The framing a capture's header states (its ``framing``, else its content type)."""
    if header is None:
        return None
    named = header.get("framing")
    if isinstance(named, str) and named in _KNOWN:
        return named
    media = _content_type(header)
    return CONTENT_TYPES.get(media) if media is not None else None


def _is_ndjson(head: bytes) -> bool:
    line, newline, _ = head.partition(b"\n")
    if not newline:
        return False
    try:
        first = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(first, dict):
        return False
    # One whole JSON error document is an HTTP error body, not a stream of lines.
    return not (isinstance(first.get("error"), dict) and not head[len(line) + 1 :].strip())


def detect_framing(head: bytes, header: Mapping[str, Any] | None = None) -> str:
    """The framing of a body that starts with ``head`` (see the module's table)."""
    named = framing_of_header(header)
    if named is not None:
        return named
    if prelude_valid(head[:12]):
        return "aws-eventstream"
    text = head.removeprefix(_BOM).lstrip()
    if text.startswith(b"["):
        return "json-array"
    if text.startswith(b"{") and _is_ndjson(text):
        return "ndjson"
    return "sse"
