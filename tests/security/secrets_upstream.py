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
import codecs
import gzip
import json
import re
import socket
import threading
import time
import warnings
import zlib
from collections.abc import Callable, Iterator
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, unquote_plus

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


def _mime(value: str, prefix: int = 50, width: int = 76, newline: str = "\r\n") -> str:
    # RFC 2045 wraps every 76 characters; a long prefix puts a break inside the secret.
    encoded = base64.b64encode(("x" * prefix + value).encode()).decode()
    return newline.join(encoded[i : i + width] for i in range(0, len(encoded), width))


def _mixed_case(value: str) -> str:
    return "".join(c.swapcase() if i % 3 == 0 else c for i, c in enumerate(value))


#: name -> how a server may spell a secret (every one docs/security.md claims).
SPELLINGS: dict[str, Callable[[str], str]] = {
    "raw": lambda s: s,
    "upper": str.upper,
    "lower": str.lower,
    "mixed-case": _mixed_case,
    "url-encoded": lambda s: quote(s, safe=""),
    "url-encoded-lower-hex": lambda s: "".join(f"%{b:02x}" for b in s.encode()),
    "json-escaped": lambda s: "".join(f"\\u{ord(c):04x}" for c in s),
    "json-in-json": lambda s: json.dumps(json.dumps(s))[1:-1],
    "base64": _b64,
    "base64-urlsafe": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "base64-offset-1": lambda s: _b64("u" + s),
    "base64-offset-2": lambda s: _b64("us" + s),
    "base64-upper": lambda s: _b64(s.upper()),
    "base64-basic": lambda s: _b64("user:" + s),
    "base64-mime": _mime,
    "base64-mime-lf": lambda s: _mime(s, prefix=7, width=8, newline="\n"),
    "base64-mime-crlf-short": lambda s: _mime(s, prefix=1, width=5),
    "base64-mime-json": lambda s: _mime(s, prefix=4, width=10, newline="\\r\\n"),
}

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=_-]{8,}")
_BREAKS = re.compile(r"\r?\n|(?:\\{1,2}r)?\\{1,2}n")


def _unescaped(text: str) -> str:
    data = text.encode("utf-8", "backslashreplace").replace(b"\\/", b"/")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "invalid escape sequence"
        return codecs.decode(data, "unicode_escape", "backslashreplace")


def _base64_decodings(run: str) -> Iterator[str]:
    """A base64 run decoded from each of its first 4 characters, in both alphabets."""
    for skip in range(4):
        part = run[skip:].rstrip("=")
        part = part[: len(part) - len(part) % 4] if len(part) % 4 == 1 else part
        for alt in (None, b"-_"):
            try:
                yield base64.b64decode(part + "=" * (-len(part) % 4), altchars=alt).decode(
                    "latin-1"
                )
            except ValueError:
                continue


def _views(text: str) -> list[str]:
    """``text`` and what it says once decoded (escapes, %XX, line breaks, base64)."""
    seen = [text]
    for view in seen:
        if len(seen) > 16:
            break
        for decoded in (_unescaped(view), unquote_plus(view), _BREAKS.sub("", view)):
            if decoded not in seen:
                seen.append(decoded)
    out = list(seen)
    for view in seen:
        for run in _BASE64_RUN.findall(_BREAKS.sub("", view)):
            out.extend(_base64_decodings(run))
    return out


def recovered(data: bytes | str, secret: str) -> bool:
    """Whether ``secret`` can be read back from ``data`` in any spelling, any letter case.

    The oracle of every secret test: it knows nothing of how the scrubber
    works, only how an attacker would decode what was written.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    needle = secret.casefold()
    return any(needle in view.casefold() for view in _views(text))


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
        if name.lower() in ("authorization", "x-api-key", "x-custom-token", "x-tenant"):
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


def leaks(data: bytes | str, secrets: list[str]) -> list[str]:
    """Which of ``secrets`` can still be read from ``data`` (:func:`recovered`), by prefix."""
    return [f"recoverable:{secret[:6]}" for secret in secrets if recovered(data, secret)]
