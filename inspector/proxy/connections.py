"""Breaking the app's connection the way the upstream broke ours.

When the upstream resets the connection (or closes it mid-body), the app
must not see a clean end of the response: it gets what was forwarded, then
a TCP reset (or a close without the end of the chunked body). ASGI does not
expose the socket, so :func:`registering_protocol` makes uvicorn's h11
protocol record each connection's transport by client address in a
:class:`ClientConnections`, where :func:`break_connection` finds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Final

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.utils import get_remote_addr

from ..serve.app import kernel_unsent

__all__ = ["ClientConnections", "break_connection", "registering_protocol", "reset_now"]

#: How long to wait for forwarded bytes to reach the app before the break.
_DRAIN_LIMIT: Final = 2.0
#: Starlette cancels the response once uvicorn sees the connection gone.
_AFTER_BREAK: Final = 5.0


class ClientConnections(dict[tuple[str, int], asyncio.Transport]):
    """Open connections from apps, by client address."""


def registering_protocol(connections: ClientConnections) -> type[H11Protocol]:
    """uvicorn's h11 protocol, registering each connection's transport (and without Nagle)."""

    class RegisteringProtocol(H11Protocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            sock = transport.get_extra_info("socket")
            if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
                # asyncio sets TCP_NODELAY only on sockets whose proto is IPPROTO_TCP, and
                # a socket from socket.create_server has proto 0: without this, Nagle's
                # algorithm holds each small chunk until the app acknowledges the last.
                with contextlib.suppress(OSError):
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            address = get_remote_addr(transport)
            if address is not None:
                connections[address] = transport

        def connection_lost(self, exc: Exception | None) -> None:
            if self.client is not None and connections.get(self.client) is self.transport:
                del connections[self.client]
            super().connection_lost(exc)

    return RegisteringProtocol


def _reset(transport: asyncio.Transport) -> None:
    sock = transport.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            # SO_LINGER with a zero timeout: closing sends RST instead of FIN.
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    transport.abort()


def reset_now(connections: ClientConnections, client: tuple[str, int] | None) -> None:
    """Reset the app's connection at once (the user stopped the exchange)."""
    transport = connections.get(client) if client is not None else None
    if transport is not None:
        _reset(transport)


async def break_connection(
    connections: ClientConnections, client: tuple[str, int] | None, *, reset: bool
) -> None:
    """Reset (RST) or close (FIN, body unfinished) the app's connection, once drained.

    Without a registered transport (another server), raise so that the
    server aborts the response itself: still not a clean end.
    """
    transport = connections.get(client) if client is not None else None
    if transport is None:
        raise ConnectionAbortedError("the upstream connection broke")
    loop = asyncio.get_running_loop()
    sock = transport.get_extra_info("socket")
    give_up = loop.time() + _DRAIN_LIMIT
    # A reset discards whatever is still queued: let forwarded bytes leave first.
    while (transport.get_write_buffer_size() or kernel_unsent(sock)) and loop.time() < give_up:
        await asyncio.sleep(0.001)
    if reset:
        _reset(transport)
    else:
        transport.close()
    await asyncio.sleep(_AFTER_BREAK)
