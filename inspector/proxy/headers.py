"""Which headers cross the proxy, and which values are secrets.

Requests go upstream with the app's own headers except the hop-by-hop ones
(RFC 9110 §7.6.1, plus any the ``Connection`` header names), ``Host`` (httpx
sets the upstream's) and ``Content-Length`` (recomputed for the body as
read). ``Accept-Encoding`` is replaced by ``identity``: the upstream then
sends the body uncompressed, so the bytes forwarded to the app and the bytes
recorded are the same decoded stream. If an upstream compresses anyway, the
proxy forwards the decoded bytes and drops ``Content-Encoding`` and
``Content-Length`` (which described the compressed body).

:func:`request_secrets` lists every credential a request carries (secret
headers, ``Bearer``/``Basic`` tokens, cookie values, ``key=`` query
parameters); the recording scrubs each of them wherever the upstream echoes it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final
from urllib.parse import parse_qsl

from ..credentials import is_secret_header
from ..live.secrets import SECRET_QUERY

__all__ = [
    "HOP_BY_HOP",
    "RawHeaders",
    "request_headers",
    "request_secrets",
    "response_headers",
]

RawHeaders = Sequence[tuple[bytes, bytes]]

#: Headers that describe one connection, never forwarded either way.
HOP_BY_HOP: Final = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"proxy-authenticate",
     b"proxy-authorization", b"te", b"trailer", b"transfer-encoding", b"upgrade"}
)  # fmt: skip
#: Not forwarded upstream: set again for the upstream connection and body.
_REQUEST_DROPPED: Final = HOP_BY_HOP | {b"host", b"content-length", b"accept-encoding", b"expect"}
#: Dropped from a response whose body the proxy decoded.
_DECODED_DROPPED: Final = frozenset({b"content-encoding", b"content-length"})


def _connection_named(headers: RawHeaders) -> set[bytes]:
    # "Connection: keep-alive, X-Foo" makes X-Foo hop-by-hop too.
    named: set[bytes] = set()
    for name, value in headers:
        if name.lower() == b"connection":
            named |= {part.strip().lower() for part in value.split(b",") if part.strip()}
    return named


def request_headers(headers: RawHeaders) -> list[tuple[bytes, bytes]]:
    """The app's request headers as sent upstream (see the module docstring)."""
    dropped = _REQUEST_DROPPED | _connection_named(headers)
    kept = [(name, value) for name, value in headers if name.lower() not in dropped]
    kept.append((b"accept-encoding", b"identity"))
    return kept


def response_headers(headers: RawHeaders, *, decoded: bool) -> list[tuple[bytes, bytes]]:
    """The upstream's response headers as sent to the app (lower-case names)."""
    dropped = HOP_BY_HOP | _connection_named(headers) | (_DECODED_DROPPED if decoded else set())
    return [(name.lower(), value) for name, value in headers if name.lower() not in dropped]


def _header_secrets(name: str, value: str) -> Iterable[str]:
    yield value
    words = value.split()
    if len(words) > 1:
        yield words[-1]  # "Bearer sk-…" -> "sk-…"
    if name in ("cookie", "set-cookie"):
        for pair in value.split(";"):
            yield pair.partition("=")[2].strip()


def request_secrets(headers: Iterable[tuple[str, str]], query: str) -> tuple[str, ...]:
    """Every credential the request carries, longest first."""
    found: list[str] = []
    for name, value in headers:
        lowered = name.lower()
        if is_secret_header(lowered) and value:
            found.extend(_header_secrets(lowered, value))
    for name, value in parse_qsl(query, keep_blank_values=True):
        if name.lower() in SECRET_QUERY and value:
            found.append(value)
    unique = dict.fromkeys(s.strip() for s in found if s.strip())
    return tuple(sorted(unique, key=len, reverse=True))
