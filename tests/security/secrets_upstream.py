"""A hostile upstream for the secret tests, and every spelling a secret is claimed to be caught in.

:class:`HostileUpstream` answers ``POST /v1/chat/completions`` with an OpenAI
Chat stream that echoes back every credential the request carried — header
values, cookie values, Basic credentials decoded, query values, body fields —
in every spelling of :data:`SPELLINGS`, sets a cookie of its own and echoes
that too, and compresses the body when the model says so
(``"model": "enc:x-gzip"``). ``seen`` keeps each request's headers (the
proxy's cookie-jar test reads them).
"""

from __future__ import annotations

import base64
import gzip
import json
import socket
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, quote, unquote

import brotli
import orjson
import uvicorn
import zstandard
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def _b64(value: str) -> str:
    return base64.b64encode(value.encode()).decode()


def _mime(value: str) -> str:
    # RFC 2045 wraps every 76 characters; a long prefix puts a break inside the secret.
    encoded = base64.b64encode(("x" * 50 + value).encode()).decode()
    return "\r\n".join(encoded[i : i + 76] for i in range(0, len(encoded), 76))


#: name -> how a server may spell a secret (every one docs/security.md claims).
SPELLINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "upper": str.upper,
    "lower": str.lower,
    "url-encoded": lambda s: quote(s, safe=""),
    "url-encoded-lower-hex": lambda s: "".join(f"%{b:02x}" for b in s.encode()),
    "json-escaped": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "json-in-json": lambda s: json.dumps(json.dumps(s))[1:-1],
    "base64": _b64,
    "base64-urlsafe": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "base64-mime": _mime,
}

#: Content-Encoding -> how to produce it.
ENCODERS: dict[str, Callable[[bytes], bytes]] = {
    "gzip": gzip.compress,
    "x-gzip": gzip.compress,
    "deflate": zlib.compress,
    "br": brotli.compress,
    "zstd": lambda data: zstandard.ZstdCompressor().compress(data),
    "gzip, br": lambda data: brotli.compress(gzip.compress(data)),
}

SET_COOKIE_VALUE = "upstream-session-" + "Kq3vT9" * 4


def chat_frame(text: str) -> bytes:
    """One OpenAI Chat delta frame carrying ``text`` (as a JSON string)."""
    choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
    body = {"object": "chat.completion.chunk", "model": "x", "choices": [choice]}
    return b"data: " + orjson.dumps(body) + b"\n\n"


def _credentials(request: Request, body: dict[str, Any]) -> list[str]:
    """Every credential value the request carried, as a hostile server sees it."""
    found = []
    for name, value in request.headers.items():
        if name.lower() in ("authorization", "x-api-key", "x-custom-token"):
            found.append(value)
            scheme, _, token = value.partition(" ")
            found.append(token)
            if scheme.lower() == "basic":
                decoded = base64.b64decode(token).decode()
                found += [decoded, *decoded.split(":", 1)]
        if name.lower() == "cookie":
            found += [pair.partition("=")[2] for pair in value.split(";")]
    found += [v for _, v in parse_qsl(request.url.query)]
    found += [v for k, v in body.items() if isinstance(v, str) and k != "model"]
    return [unquote(v.strip()) for v in found if v.strip()]


class HostileUpstream:
    """See the module docstring; a context manager that serves on 127.0.0.1."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        routes = [Route("/v1/chat/completions", self._chat, methods=["POST"])]
        config = uvicorn.Config(
            Starlette(routes=routes), log_level="warning", access_log=False, lifespan="off"
        )
        self.server = uvicorn.Server(config)
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.socket.getsockname()[1]}"
        self._thread: threading.Thread | None = None

    async def _chat(self, request: Request) -> Response:
        raw = await request.body()
        body = orjson.loads(raw) if raw else {}
        self.seen.append({k.lower(): v for k, v in request.headers.items()})
        frames = [chat_frame("hello")]
        for secret in [*_credentials(request, body), SET_COOKIE_VALUE]:
            for name, spell in SPELLINGS.items():
                frames.append(chat_frame(f"{name}: {spell(secret)} ok"))
                frames.append(f": debug {spell(secret)}\n\n".encode())
        frames.append(b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n')
        frames.append(b"data: [DONE]\n\n")
        data = b"".join(frames)
        headers = {"content-type": "text/event-stream", "set-cookie": f"sid={SET_COOKIE_VALUE}"}
        model = str(body.get("model", ""))
        if model.startswith("enc:"):
            coding = model.removeprefix("enc:")
            data = ENCODERS[coding](data) if coding in ENCODERS else b"\x00opaque" + data
            headers["content-encoding"] = coding
        return Response(data, headers=headers)

    def __enter__(self) -> HostileUpstream:
        self._thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.socket]}, daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)


def spelled(secret: str) -> Iterator[tuple[str, str]]:
    """``(spelling, text)`` for every spelling of ``secret`` a leak would be in."""
    for name, spell in SPELLINGS.items():
        if name == "base64-mime":
            # What of a wrapped spelling depends on the secret alone, breaks removed.
            yield name, _b64("x" * 50 + secret)[68:-4]
        else:
            yield name, spell(secret)


def leaks(data: bytes | str, secrets: list[str]) -> list[str]:
    """Which ``spelling:secret-prefix`` of ``secrets`` are still in ``data``."""
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    flat = text.replace("\r\n", "").replace("\n", "")
    out = []
    for secret in secrets:
        for name, form in spelled(secret):
            if len(form) >= 8 and (form in text or form in flat):
                out.append(f"{name}:{secret[:6]}")
    return out
