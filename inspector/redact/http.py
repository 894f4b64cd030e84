"""URLs and headers as they are recorded and shown: credentials removed by name.

One rule (:mod:`.names`) decides: a credential header's value becomes
``[redacted]``; a ``Cookie`` keeps its cookie names but not their values; a
URL loses its userinfo and every credential-named query parameter.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .names import is_credential_name, is_secret_header
from .secretset import REDACTED

__all__ = ["REDACTED", "redact_header", "redact_headers", "redact_url", "without_userinfo"]


def redact_url(url: str) -> str:
    """``url`` without userinfo and without credential-named query parameters.

    ``https://user:pass@host/p?key=k&alt=sse`` -> ``https://host/p?alt=sse``.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED  # not a URL we could have sent to: nothing of it is kept
    netloc = parts.netloc.rpartition("@")[2]
    if not parts.query:
        return urlunsplit(parts._replace(netloc=netloc))
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not is_credential_name(k)]  # fmt: skip
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(kept)))


def without_userinfo(url: str) -> str:
    """``url`` as it is sent: without userinfo. An HTTP client would turn
    ``https://user:pass@host`` into ``Authorization: Basic …`` in place of the
    request's own; the userinfo is only a credential to keep out of captures."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def redact_header(name: str, value: str) -> str:
    """One header's value as recorded: ``[redacted]`` for a credential or a cookie."""
    return REDACTED if is_secret_header(name) else value


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers with every credential value replaced by ``[redacted]`` (names kept)."""
    return {k: redact_header(k, v) for k, v in headers.items()}
