"""The httpx side of live mode: the client, and what each transport failure means.

Every exception httpx can raise while a stream is open is turned into a
:class:`~inspector.core.trace.TransportEnd` by one table,
:data:`TRANSPORT_FAILURES`: the reason the capture's end record gets
(``timeout`` or ``reset``) and a message a user can act on. No exception
from the transport ever reaches the user as a traceback.
"""

from __future__ import annotations

import re
from typing import Final
from urllib.parse import urlsplit

import httpx

from ..core.trace import TransportEnd

__all__ = ["TRANSPORT_FAILURES", "make_client", "transport_end"]

# (exception class, message template); the first match wins, so subclasses come
# before their bases. An httpx.TimeoutException ends the capture as ``timeout``,
# every other failure as ``reset``: the reason is the class's, not the row's.
_TIMEOUT_MESSAGES: Final[tuple[tuple[type[httpx.TimeoutException], str], ...]] = (
    (httpx.ConnectTimeout, "could not connect to {host} within {timeout:g} s"),
    (httpx.ReadTimeout, "no bytes arrived from {host} for {timeout:g} s"),
    (httpx.WriteTimeout, "could not send the request to {host} within {timeout:g} s"),
    (httpx.PoolTimeout, "no connection to {host} was free within {timeout:g} s"),
)
_RESET_MESSAGES: Final[tuple[tuple[type[httpx.RequestError], str], ...]] = (
    (httpx.ConnectError, "could not connect to {host}: {detail}"),
    # Once the response has begun, the host is already in the capture's header:
    # leaving it out keeps the event the same when the capture is replayed.
    (httpx.RemoteProtocolError, "the server broke off the response: {detail}"),
    (httpx.ReadError, "the connection broke while reading: {detail}"),
    (httpx.WriteError, "the connection to {host} broke while sending: {detail}"),
    (httpx.ProxyError, "the proxy refused the connection to {host}: {detail}"),
    (httpx.TransportError, "transport error talking to {host}: {detail}"),
    (httpx.DecodingError, "the body could not be decoded: {detail}"),
    (httpx.RequestError, "the request to {host} failed: {detail}"),
)

#: (exception class, end reason, message template), the timeouts first.
TRANSPORT_FAILURES: Final[tuple[tuple[type[httpx.RequestError], str, str], ...]] = tuple(
    (kind, "timeout", template) for kind, template in _TIMEOUT_MESSAGES
) + tuple((kind, "reset", template) for kind, template in _RESET_MESSAGES)

_ERRNO_PREFIX = re.compile(r"^\[Errno -?\d+\]\s*")


def _detail(exc: BaseException) -> str:
    # httpx wraps httpcore wraps anyio wraps the OSError whose text is the useful
    # part ("Connection reset by peer"): walk the chain to the first words.
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        text = _ERRNO_PREFIX.sub("", str(current).strip())
        if text:
            return text[0].lower() + text[1:]
        current = current.__cause__ or current.__context__
    return type(exc).__name__


def transport_end(exc: httpx.RequestError, url: str, time: float, timeout: float) -> TransportEnd:
    """The end of a stream that ``exc`` broke, with a clear message."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2] or url
    for kind, reason, template in TRANSPORT_FAILURES:
        if isinstance(exc, kind):
            message = template.format(host=host, timeout=timeout, detail=_detail(exc))
            return TransportEnd(reason, time, message)
    raise AssertionError("httpx.RequestError is the table's last row")  # pragma: no cover


def make_client(transport_timeout: float, *, loopback: bool) -> httpx.AsyncClient:
    """An async client: HTTP/2 where the server offers it, one timeout for every phase.

    The transport timeout bounds connecting and each read (is the connection
    alive?). Proxies from the environment are not used for loopback: a
    replay server or local model server is reached directly.
    """
    return httpx.AsyncClient(
        http2=True,
        timeout=httpx.Timeout(transport_timeout),
        trust_env=not loopback,
        follow_redirects=False,
    )
