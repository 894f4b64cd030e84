"""Who may talk to a local server: the ``Host`` check and the cross-site check.

A web page in the user's browser can send requests to ``127.0.0.1``. Two
ways, two checks, both before anything else runs:

* **DNS rebinding** — the page renames its own host to resolve to
  ``127.0.0.1``; its requests then carry ``Host: evil.example``. Only a
  ``Host`` naming this machine is answered (:func:`allowed_hosts`): 421.
* **oversized headers** — more than the front's ``max_header_bytes``: 431.
* **cross-site requests** — the page simply posts to ``http://127.0.0.1:8790``
  (a "simple" request needs no CORS preflight, and its side effects — a
  proxied call with the user's upstream, a capture written — happen even
  though the page cannot read the answer). Browsers say where a request
  comes from: ``Sec-Fetch-Site: cross-site``, and an ``Origin`` naming the
  page. Either one that is not this machine is refused: 403. SDKs and
  command-line clients send neither, so they are not affected.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Final
from urllib.parse import urlsplit

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from ..terminal import escape_controls

__all__ = ["FrontGuard", "allowed_hosts", "allowed_origin", "host_name"]

Log = Callable[[str], None]

_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})
_WILDCARDS: Final = frozenset({"0.0.0.0", "::", ""})
#: ``Sec-Fetch-Site`` values a browser sends for a request this machine's pages made
#: (``none``: typed in the address bar; ``same-site``: another port of localhost).
_OWN_FETCH_SITES: Final = frozenset({"same-origin", "same-site", "none"})


def allowed_hosts(bound: str) -> Callable[[str], bool]:
    """Which host names (``Host`` without its port) this server answers to.

    Loopback names and addresses always; the name it was bound to; and, bound
    to every interface (``0.0.0.0``, ``::``), any IP address literal. A DNS
    name that merely *resolves* to this machine is refused: that is how a web
    page rebinds its own name to reach a server on loopback.
    """
    own = bound.strip("[]").lower()

    def allowed(host: str) -> bool:
        name = host.strip("[]").lower().rstrip(".")
        if name in _LOOPBACK_NAMES or name == own:
            return True
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return False
        return address.is_loopback or own in _WILDCARDS

    return allowed


def host_name(value: str) -> str | None:
    """The host of a ``Host`` header value (without the port), or None if malformed."""
    if value.startswith("["):
        end = value.find("]")
        rest = value[end + 1 :] if end > 0 else "x"
        if end < 0 or (rest and not (rest[0] == ":" and rest[1:].isdigit())):
            return None
        return value[: end + 1]
    name, _, port = value.partition(":")
    if not name or (port and not (port.isascii() and port.isdigit())):
        return None
    return name


def allowed_origin(origin: str, allowed: Callable[[str], bool]) -> bool:
    """Whether an ``Origin`` header names a page served from this machine.

    ``null`` (a sandboxed frame, a ``file:`` page, a redirect across sites)
    names no one and is refused.
    """
    try:
        parts = urlsplit(origin)
        host = parts.hostname
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and host is not None and allowed(host)


def _header(scope: Scope, name: bytes) -> list[str]:
    return [v.decode("latin-1") for k, v in scope["headers"] if k == name]


class FrontGuard:
    """ASGI middleware: 421 for a ``Host`` not naming this machine, 403 for a cross-site request."""

    def __init__(
        self,
        app: ASGIApp,
        allowed: Callable[[str], bool],
        log: Log | None = None,
        max_header_bytes: int | None = None,
    ):
        self.app = app
        self.allowed = allowed
        self.log = log
        self.max_header_bytes = max_header_bytes

    def refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        """``(status, short reason, message)`` for a request to refuse, else None."""
        if self.max_header_bytes is not None:
            # uvicorn bounds only headers that arrive in several reads; one read can hold more.
            size = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
            size += sum(len(k) + len(v) + 4 for k, v in scope["headers"])
            if size > self.max_header_bytes:
                return 431, "headers too large", (
                    f"the request line and headers are larger than {self.max_header_bytes} bytes"
                )  # fmt: skip
        hosts = _header(scope, b"host")
        raw = hosts[0] if len(hosts) == 1 else None
        name = host_name(raw) if raw else None
        if name is None or not self.allowed(name):
            shown = "missing" if raw is None else repr(raw)
            return 421, f"Host {shown}", (
                f"this server answers only to loopback host names, not Host {shown} "
                "(a page on another site cannot reach it by renaming itself)"
            )  # fmt: skip
        sites = _header(scope, b"sec-fetch-site")
        if any(site.strip().lower() not in _OWN_FETCH_SITES for site in sites):
            return 403, f"Sec-Fetch-Site {sites[0]!r}", (
                "this server does not answer requests a web page on another site "
                "makes through the browser (Sec-Fetch-Site says so)"
            )  # fmt: skip
        for origin in _header(scope, b"origin"):
            if not allowed_origin(origin.strip(), self.allowed):
                return 403, f"Origin {origin!r}", (
                    f"this server does not answer requests from the web page at {origin!r}; "
                    "only pages served from this machine may call it"
                )  # fmt: skip
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refused = self.refusal(scope)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, short, message = refused
        if self.log is not None:
            self.log(escape_controls(f"{scope['method']} {scope['path']} → {status} ({short})"))
        body = {"error": {"message": escape_controls(message), "code": status}}
        await JSONResponse(body, status_code=status)(scope, receive, send)
