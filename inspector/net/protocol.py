"""uvicorn's h11 protocol as both servers run it.

Three additions to uvicorn's own:

* each connection's transport is registered by client address in a
  :class:`Connections`, because ASGI does not expose the socket and a
  server that replays (or relays) a reset must reach it;
* ``TCP_NODELAY``: asyncio sets it only on sockets whose proto is
  ``IPPROTO_TCP``, and ``socket.create_server``'s is 0 — without it Nagle's
  algorithm holds each small chunk until the client acknowledged the last;
* a deadline for request headers: uvicorn only times out *idle* kept-alive
  connections, so a client trickling a header a byte at a time would hold
  its connection for ever (slowloris). The deadline runs from the
  connection's opening and again from each response's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import socket
import struct
import termios
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

__all__ = ["Connections", "front_protocol", "kernel_unsent"]


class Connections(dict[tuple[str, int], asyncio.Transport]):
    """Open connections by client address, so a response can reset its own."""


def kernel_unsent(sock: Any) -> int:
    """Bytes the kernel still holds for this socket, not yet acknowledged (Linux, macOS)."""
    request = getattr(termios, "TIOCOUTQ", None)
    if sock is None or request is None:
        return 0
    try:
        answer = fcntl.ioctl(sock.fileno(), request, b"\0\0\0\0")
    except OSError:
        return 0
    return int(struct.unpack("i", answer)[0])


def front_protocol(connections: Connections, header_timeout: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the additions of the module docstring."""

    class FrontProtocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            address = get_remote_addr(transport)
            if address is not None:
                connections[address] = transport
            self._arm_header_timer()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm_header_timer()
            if self.client is not None and connections.get(self.client) is self.transport:
                del connections[self.client]
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            if self._in_request():
                self._disarm_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._arm_header_timer()  # the next request's headers are on the clock too

        def _in_request(self) -> bool:
            return self.cycle is not None and not self.cycle.response_complete

        def _arm_header_timer(self) -> None:
            self._disarm_header_timer()
            self._header_timer = self.loop.call_later(header_timeout, self._headers_too_slow)

        def _disarm_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self._in_request() and not self.transport.is_closing():
                self.transport.close()

    return FrontProtocol
