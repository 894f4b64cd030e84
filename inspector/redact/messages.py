"""Every message printed is cleaned first: URLs' credentials and secret shapes masked.

Usage errors echo what the user typed (``--base-url``, ``--header``,
``--upstream``), banners print where the proxy forwards to, refusals name
what they refused: :func:`clean_message` is applied to each of them (through
``cli.common.error`` and the banners), so a password in a URL, a
``Bearer`` token or anything shaped like a key is shown masked
(:func:`~.masked.masked`) instead.
"""

from __future__ import annotations

import re
from typing import Final

from .http import redact_url
from .masked import masked
from .names import is_secret_header
from .shapes import replace_shapes

__all__ = ["clean_message", "clean_name"]

_URL: Final = re.compile(r"\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s'\"<>]+")
# "Authorization: Bearer sk-…" as a --header value would be written.
_HEADER: Final = re.compile(
    r"(?P<name>\b[A-Za-z0-9][A-Za-z0-9_\-]*)(?P<sep>\s*:\s*)(?P<value>[^'\"\n]+)"
)


def _url(m: re.Match[str]) -> str:
    return redact_url(m.group())


def _header(m: re.Match[str]) -> str:
    if not is_secret_header(m.group("name")):
        return m.group()
    return m.group("name") + m.group("sep") + masked(m.group("value").strip(), "credential")


def clean_message(text: str) -> str:
    """``text`` with URL credentials removed, credential headers and secret shapes masked."""
    text = _URL.sub(_url, text)
    text = _HEADER.sub(_header, text)
    return replace_shapes(text, masked)


def clean_name(name: str) -> str:
    """A file name (or a name derived from one) with every secret shape replaced by
    ``redacted``: an output named after an input named after a key names no key."""
    return replace_shapes(name, lambda _value, _rule: "redacted")
