"""What both servers share around uvicorn: the settings that carry the front's
limits, the listening socket, and running in a background thread."""

from __future__ import annotations

import socket
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Final, Self

from .limits import FrontLimits
from .protocol import Connections, front_protocol

__all__ = ["BackgroundServer", "bind", "start_in_thread", "uvicorn_settings"]

#: How long :meth:`BackgroundServer.stop` waits for the thread, in seconds.
_STOP_WAIT: Final = 10.0


def uvicorn_settings(limits: FrontLimits, connections: Connections) -> dict[str, Any]:
    """Keyword arguments for :class:`uvicorn.Config` enforcing ``limits``.

    The header deadline is the protocol's; the idle time, the connection cap
    and the header size are uvicorn's own settings. uvicorn's access log is
    off (it would print query strings, where a Gemini key may be), and so
    are its ``Server`` header and WebSockets.
    """
    return {
        "http": front_protocol(connections, limits.header_timeout),
        "ws": "none",
        "lifespan": "off",
        "access_log": False,
        "server_header": False,
        "timeout_keep_alive": limits.idle_timeout,
        "limit_concurrency": limits.max_connections,
        "h11_max_incomplete_event_size": limits.max_header_bytes,
    }


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` (port 0: any free port). Raises OSError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, reuse_port=False)


def start_in_thread(server: Any, target: Callable[[], object], name: str) -> threading.Thread:
    """Run ``target`` (which serves ``server``, a uvicorn server) in a daemon thread.

    Returns once the server accepts connections; raises RuntimeError if the
    thread ended before it did.
    """
    thread = threading.Thread(target=target, name=name, daemon=True)
    thread.start()
    pause = threading.Event()
    while not server.started and thread.is_alive():
        pause.wait(0.005)
    if not server.started:
        raise RuntimeError(f"{name} did not start")
    return thread


class BackgroundServer(ABC):
    """A uvicorn ``server`` on its own ``socket``, run in the foreground or (``start``,
    ``stop``, or as a context manager) in a background thread.

    A subclass sets ``server``, listens (:meth:`_listen`), names its thread, and says in
    :meth:`_serve` how it serves in that thread.
    """

    server: Any
    socket: socket.socket
    #: Where it listens: ``http://host:port``, an IPv6 host in brackets.
    url: str
    port: int
    thread_name: ClassVar[str]
    _thread: threading.Thread | None = None

    def _listen(self, host: str, port: int) -> None:
        """Bind ``socket`` (port 0: any free port) and say where in ``url``, ``port``."""
        self.socket = bind(host, port)
        bound_host, bound_port = self.socket.getsockname()[:2]
        shown = f"[{bound_host}]" if ":" in bound_host else bound_host
        self.url = f"http://{shown}:{bound_port}"
        self.port = bound_port

    @abstractmethod
    def _serve(self) -> None:
        """Serve until :meth:`shutdown`: the background thread's body."""

    def shutdown(self) -> None:
        """Ask the server to return (streams still open get a moment to finish)."""
        self.server.should_exit = True

    def start(self) -> Self:
        """Serve in a background thread; returns once it accepts connections."""
        self._thread = start_in_thread(self.server, self._serve, self.thread_name)
        return self

    def stop(self) -> None:
        """Stop the background server and wait for it."""
        self.shutdown()
        if self._thread is not None:
            self._thread.join(_STOP_WAIT)
        self.socket.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
