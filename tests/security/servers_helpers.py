"""Helpers for the servers' security tests (no tests here).

:class:`Witness` is an upstream on loopback that records what reached it
(the ``Host`` header, the path, the query) and answers by the request's
``model``: a small stream, a large one, a gzip bomb, a damaged gzip body.
:func:`raw_exchange` sends bytes no HTTP client would and returns what came back.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from inspector.capture_writer import CaptureWriter

CHAT = "/v1/chat/completions"


def chat_frame(text: str) -> bytes:
    """One OpenAI Chat delta frame carrying ``text``."""
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    body = {"object": "chat.completion.chunk", "model": "w", "choices": [choice]}
    return b"data: " + orjson.dumps(body) + b"\n\n"


CHAT_END = (
    b'data: {"object":"chat.completion.chunk","model":"w","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)
SMALL = chat_frame("hello ") + chat_frame("world") + CHAT_END


def write_capture(path: Path, chunks: list[bytes], response: dict[str, Any] | None = None) -> Path:
    """A small OpenAI Chat capture at ``path``."""
    header = {"provider": "openai-chat", "model": path.stem,
              "response": response or {"status": 200, "headers": {}}}  # fmt: skip
    writer = CaptureWriter(path, header)
    for i, data in enumerate(chunks):
        writer.chunk(i / 1000, data)
    writer.end("eof", len(chunks) / 1000)
    return path


def gzip_bomb(decoded: int) -> bytes:
    """A gzip body of ``decoded`` bytes of one SSE comment line repeated (tiny compressed)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    line = b": " + b"x" * 1021 + b"\n"
    out = [packer.compress(line * (decoded // len(line)))]
    out.append(packer.flush())
    return b"".join(out)


def damaged_gzip(whole: bytes) -> bytes:
    """A gzip body whose first half decodes and whose second half is damaged data."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    half = len(whole) // 2
    # A full flush ends the first half on a byte boundary; 0xFF then starts a
    # block of the reserved type 3, which every inflater refuses.
    return packer.compress(whole[:half]) + packer.flush(zlib.Z_FULL_FLUSH) + b"\xff" * 64


class Witness:
    """The recording upstream of the module docstring."""

    def __init__(self, big: int = 4 * 1024 * 1024) -> None:
        self.seen: list[tuple[str, str, str]] = []
        self.big = big
        routes = [Route("/{path:path}", self._any, methods=["GET", "POST", "PUT", "DELETE"])]
        config = uvicorn.Config(
            Starlette(routes=routes), log_level="warning", access_log=False, lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.port = self.socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"

    async def _any(self, request: Request) -> Response:
        host = request.headers.get("host", "")
        query = request.scope.get("query_string", b"").decode("latin-1")
        self.seen.append((host, request.scope.get("raw_path", b"").decode("latin-1"), query))
        raw = await request.body()
        try:
            model = orjson.loads(raw).get("model") if raw else None
        except (orjson.JSONDecodeError, AttributeError):
            model = None
        sse = {"content-type": "text/event-stream"}
        if model == "bomb":
            return Response(
                gzip_bomb(64 * 1024 * 1024), headers={**sse, "content-encoding": "gzip"}
            )
        if model == "damaged":
            damaged = damaged_gzip(SMALL * 200)
            return Response(damaged, headers={**sse, "content-encoding": "gzip"})
        if model == "big":

            async def stream() -> AsyncIterator[bytes]:
                piece = chat_frame("x" * 4000)
                for _ in range(self.big // len(piece) + 1):
                    yield piece
                    await asyncio.sleep(0)
                yield CHAT_END

            return StreamingResponse(stream(), headers=sse)
        return Response(SMALL, headers=sse)

    def __enter__(self) -> Witness:
        thread = threading.Thread(
            target=lambda: self.server.run(sockets=[self.socket]), daemon=True
        )
        thread.start()
        pause = threading.Event()
        while not self.server.started:
            pause.wait(0.005)
        self._thread = thread
        return self

    def __exit__(self, *exc: Any) -> None:
        self.server.should_exit = True
        self._thread.join(10)
        self.socket.close()


def raw_exchange(
    port: int, data: bytes, *, timeout: float = 15.0, wait_close: bool = False
) -> bytes:
    """Send ``data`` on a fresh connection; what came back (until closed, with ``wait_close``)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        received = b""
        while True:
            try:
                piece = sock.recv(65536)
            except (ConnectionResetError, TimeoutError):
                break
            if not piece:
                break
            received += piece
            if not wait_close and b"\r\n\r\n" in received:
                head, _, rest = received.partition(b"\r\n\r\n")
                length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), None)  # fmt: skip
                if length is not None and len(rest) >= length:
                    break
        return received


def status_of(answer: bytes) -> int:
    """The status code of a raw HTTP answer (0: none)."""
    line = answer.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[1].isdigit() else 0


def request_bytes(method: str, target: str, body: bytes = b"", **headers: str) -> bytes:
    """A raw HTTP/1.1 request."""
    lines = [f"{method} {target} HTTP/1.1", "Host: 127.0.0.1"]
    lines += [f"{k.replace('_', '-')}: {v}" for k, v in headers.items()]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@contextmanager
def replay_of(folder: Path, **options: Any) -> Iterator[Any]:
    """``inspector serve`` of ``folder`` on a free port, in a thread."""
    from inspector.serve import ReplayServer, load_catalog

    with ReplayServer(load_catalog([folder]), speed=0, **options) as server:
        yield server


@contextmanager
def proxy_to(upstream: str | None, directory: Path | None, **settings: Any) -> Iterator[Any]:
    """``inspector proxy`` to ``upstream`` recording into ``directory``, in a thread."""
    from inspector.proxy import FlowLog, ProxyServer, ProxySettings

    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
    with ProxyServer(FlowLog(directory), ProxySettings(upstream=upstream, **settings)) as server:
        yield server
