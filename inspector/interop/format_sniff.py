"""Telling another tool's recording from a capture or a raw SSE body, by its first bytes.

Kept apart and free of heavy imports: capture loading asks it about every
file that is not a capture.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["sniff_format"]

_BOM: Final = b"\xef\xbb\xbf"
# A YAML cassette's first key, after optional comments, a %YAML directive or "---".
_YAML_CASSETTE: Final = re.compile(
    rb"\A(?:\s*(?:#[^\n]*|%[^\n]*|---[ \t]*)?\n)*\s*"
    rb"(?:http_interactions|interactions|version)[ \t]*:"  # (http_: Ruby's VCR)
)
_JSON_CASSETTE: Final = re.compile(rb'\A\s*\{\s*"(?:http_interactions|interactions|version)"\s*:')
_HAR: Final = re.compile(rb'\A\s*\{\s*"log"\s*:\s*\{')


def sniff_format(head: bytes) -> str | None:
    """``"vcr"``, ``"har"`` or None for the first few KiB of a file."""
    head = head.removeprefix(_BOM)
    if _HAR.match(head):
        return "har"
    if _JSON_CASSETTE.match(head) and (b'"interactions"' in head or b'"http_interactions"' in head):
        return "vcr"
    match = _YAML_CASSETTE.match(head)
    if match is None:
        return None
    first_key = match.group(0).rstrip(b" \t:")
    if first_key.endswith(b"interactions") or b"\ninteractions:" in head:
        return "vcr"
    return None
