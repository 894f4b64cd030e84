"""Helpers for the proxy tests (no tests here): a proxy in a thread, and an echoing upstream.

The echo upstream is a tiny Starlette app on loopback that does what a real
provider might and ``inspector serve`` cannot: echo the caller's key back
(in a header, in SSE data in several spellings, split across chunks), show
the headers it received, compress its body, and hold a stream open until
the test lets it go on.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
import socket
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from inspector.proxy import FlowLog, ProxyServer, ProxySettings

#: Every chunk of a small, valid OpenAI Chat stream ends with these frames.
CHAT_END = (
    b'data: {"object":"chat.completion.chunk","model":"echo","choices":[{"index":0,'
    b'"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def chat_frame(text: str) -> bytes:
    """One OpenAI Chat delta frame carrying ``text``."""
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    body = {"object": "chat.completion.chunk", "model": "echo", "choices": [choice]}
    return b"data: " + orjson.dumps(body) + b"\n\n"


def json_unicode_escaped(text: str) -> str:
    """``text`` with every character as a ``\\uXXXX`` escape (what some encoders do)."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


class EchoUpstream:
    """The echoing upstream (see the module docstring); ``gate`` releases a held stream."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.seen_headers: list[dict[str, str]] = []
        routes = [Route("/v1/chat/completions", self._chat, methods=["POST"])]
        config = uvicorn.Config(
            Starlette(routes=routes), log_level="warning", access_log=False, lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self._thread: threading.Thread | None = None

    async def _chat(self, request: Request) -> Response:
        body = orjson.loads(await request.body())
        headers = {k.lower(): v for k, v in request.headers.items()}
        self.seen_headers.append(headers)
        key = headers.get("authorization", "").removeprefix("Bearer ") or request.query_params.get(
            "key", ""
        )
        return await getattr(self, "_" + body["model"])(key, headers)

    async def _echo(self, key: str, headers: dict[str, str]) -> Response:
        half = len(key) // 2
        spellings = [
            chat_frame(f"your key is {key}"),
            f": debug key={quote(key, safe='')}\n\n".encode(),
            b'data: {"object":"chat.completion.chunk","model":"echo","choices":[{"index":0,'
            b'"delta":{"content":"' + json_unicode_escaped(key).encode() + b'"}}]}\n\n',
            chat_frame("basic " + base64.b64encode(f"user:{key}".encode()).decode()),
        ]
        split = chat_frame(key)
        cut = split.index(key.encode()) + half

        async def stream() -> AsyncIterator[bytes]:
            for piece in spellings:
                yield piece
            yield split[:cut]
            await asyncio.sleep(0.02)  # the key arrives in two chunks
            yield split[cut:]
            yield CHAT_END

        return StreamingResponse(
            stream(), media_type="text/event-stream", headers={"x-echo-key": key}
        )

    async def _headers(self, key: str, headers: dict[str, str]) -> Response:
        return Response(chat_frame("ok") + CHAT_END, media_type="text/event-stream")

    async def _gzip(self, key: str, headers: dict[str, str]) -> Response:
        return Response(
            gzip.compress(chat_frame("squeezed") + CHAT_END),
            media_type="text/event-stream",
            headers={"content-encoding": "gzip"},
        )

    async def _hold(self, key: str, headers: dict[str, str]) -> Response:
        async def stream() -> AsyncIterator[bytes]:
            yield chat_frame("first")
            while not self.gate.is_set():
                await asyncio.sleep(0.005)
            yield chat_frame(" second") + CHAT_END

        return StreamingResponse(stream(), media_type="text/event-stream")

    async def _unauthorized(self, key: str, headers: dict[str, str]) -> Response:
        error = {"message": f"Incorrect API key provided: {key}.", "type": "invalid_request_error",
                 "code": "invalid_api_key"}  # fmt: skip
        return Response(orjson.dumps({"error": error}), status_code=401,
                        media_type="application/json")  # fmt: skip

    async def _json(self, key: str, headers: dict[str, str]) -> Response:
        return Response(b'{"id":"chatcmpl-1","choices":[]}', media_type="application/json")

    def __enter__(self) -> EchoUpstream:
        self._thread = threading.Thread(
            target=lambda: self.server.run(sockets=[self.socket]), daemon=True
        )
        self._thread.start()
        pause = threading.Event()
        while not self.server.started and self._thread.is_alive():
            pause.wait(0.005)
        return self

    def __exit__(self, *exc: Any) -> None:
        self.gate.set()
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.socket.close()


@contextmanager
def proxying(
    upstream: str | None, directory: Path | None, **settings: Any
) -> Iterator[ProxyServer]:
    """A proxy on a free loopback port in a background thread, recording into ``directory``."""
    if directory is not None:
        directory.mkdir(parents=True, exist_ok=True)
    server = ProxyServer(FlowLog(directory), ProxySettings(upstream=upstream, **settings))
    with server:
        yield server


def captures_in(directory: Path) -> list[Path]:
    """The capture files written, in order."""
    return sorted(directory.glob("*.jsonl"))
