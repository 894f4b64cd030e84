"""Which headers cross the proxy, and the upstream client's (absent) cookie jar.

Requests go upstream with exactly the app's own headers except the hop-by-hop
ones (RFC 9110 §7.6.1, plus any the ``Connection`` header names), ``Host``
(httpx sets the upstream's) and ``Content-Length`` (recomputed for the body
as read); ``Accept-Encoding`` too is the app's. Responses come back with the
upstream's headers and its body bytes as sent — compressed when the app
asked for it — so body and headers always match; the recording decodes its
own copy (:mod:`inspector.encodings`).

Nothing is kept between exchanges: :func:`no_cookie_jar` gives the upstream
client a jar that never stores a cookie, so a ``Set-Cookie`` one upstream
sent to one app is never sent on behalf of another. Which values of a
request are credentials is :mod:`inspector.redact`'s business.
"""

from __future__ import annotations

import http.cookiejar
from collections.abc import Sequence
from typing import Any, Final

__all__ = ["HOP_BY_HOP", "RawHeaders", "no_cookie_jar", "request_headers", "response_headers"]

RawHeaders = Sequence[tuple[bytes, bytes]]

#: Headers that describe one connection, never forwarded either way.
HOP_BY_HOP: Final = frozenset(
    {b"connection", b"keep-alive", b"proxy-connection", b"proxy-authenticate",
     b"proxy-authorization", b"te", b"trailer", b"transfer-encoding", b"upgrade"}
)  # fmt: skip
#: Not forwarded upstream: set again for the upstream connection and body.
_REQUEST_DROPPED: Final = HOP_BY_HOP | {b"host", b"content-length", b"expect"}


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
    return [(name, value) for name, value in headers if name.lower() not in dropped]


def response_headers(headers: RawHeaders) -> list[tuple[bytes, bytes]]:
    """The upstream's response headers as sent to the app (lower-case names)."""
    dropped = HOP_BY_HOP | _connection_named(headers)
    return [(name.lower(), value) for name, value in headers if name.lower() not in dropped]


class _NoCookies(http.cookiejar.CookieJar):
    """A cookie jar that stores nothing: each exchange carries only the app's cookies."""

    def set_cookie(self, cookie: http.cookiejar.Cookie) -> None:
        return None

    def extract_cookies(self, response: Any, request: Any) -> None:
        return None


def no_cookie_jar() -> http.cookiejar.CookieJar:
    """A jar for the upstream client that never remembers a ``Set-Cookie``.

    (Given as a jar, not as ``httpx.Cookies``: httpx copies the cookies of
    one of those into a fresh, ordinary jar.)
    """
    return _NoCookies()
