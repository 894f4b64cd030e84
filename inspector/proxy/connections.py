"""Breaking the app's connection the way the upstream broke ours.

When the upstream resets the connection (or closes it mid-body), the app
must not see a clean end of the response: it gets what was forwarded, then
a TCP reset (or a close without the end of the chunked body). ASGI does not
expose the socket, so the front's protocol (:func:`inspector.net.front_protocol`)
records each connection's transport by client address in a
:class:`ClientConnections`, where :func:`break_connection` finds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
from typing import Final

from uvicorn.protocols.http.h11_impl import H11Protocol

from ..net import Connections, front_protocol, kernel_unsent

__all__ = ["ClientConnections", "break_connection", "registering_protocol", "reset_now"]

#: How long to wait for forwarded bytes to reach the app before the break.
_DRAIN_LIMIT: Final = 2.0
#: Starlette cancels the response once uvicorn sees the connection gone.
_AFTER_BREAK: Final = 5.0


#: Open connections from apps, by client address (the front's registry).
ClientConnections = Connections


def registering_protocol(
    connections: Connections, header_timeout: float = 10.0
) -> type[H11Protocol]:
    """The front's h11 protocol (registry, ``TCP_NODELAY``, header deadline)."""
    return front_protocol(connections, header_timeout)


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
