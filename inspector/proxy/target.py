"""The upstream URL of a request, built from parts: scheme, host and port are never the request's.

A request target is attacker-controlled text, and URL parsers disagree about
it (userinfo, ``%2F``, backslashes, ``@``, encoded dots, IPv6 literals,
odd-case schemes, doubled slashes). So it is never pasted into a URL string.
Instead:

1. :func:`origin_form` turns the request target into a path: an origin-form
   target (``/v1/...``) is kept; an absolute-form (``http://host/...``) or
   authority-form (``host:port``) target is accepted only when it names the
   configured upstream, and ``*`` never.
2. :func:`normalize_path` percent-decodes the path once (``%2F`` included),
   reads backslashes as slashes, drops empty and ``.`` segments, resolves
   ``..`` — and refuses a path that climbs above its root (it would leave
   the ``--upstream`` prefix), still holds a percent escape after decoding
   (double encoding), or holds control characters. Each segment is then
   percent-encoded again.
3. :func:`build_url` puts the upstream's own scheme, host and port around
   the upstream's path prefix plus that path, as components, and checks the
   result still names the upstream.

Every refusal is a :class:`BadTarget` (the proxy answers 400). Nothing here
does I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote, unquote_to_bytes, urlsplit

import httpx

__all__ = ["BadTarget", "Upstream", "build_url", "normalize_path", "origin_form"]

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}
#: Characters kept as they are when a decoded segment is encoded again: RFC 3986
#: unreserved ones, and the sub-delimiters, ``:`` and ``@`` a path segment may hold
#: (Gemini's ``models/gemini-2.0-flash:streamGenerateContent``).
_SEGMENT_SAFE: Final = "!$&'()*+,;=:@-._~"
_ESCAPE: Final = re.compile(r"%[0-9A-Fa-f]{2}")
_CONTROLS: Final = re.compile(r"[\x00-\x1f\x7f]")
#: The longest path forwarded (a real API path is a few dozen characters).
MAX_PATH: Final = 8192


class BadTarget(ValueError):
    """A request target the proxy will not forward; the message says why (safe to show)."""


@dataclass(frozen=True, slots=True)
class Upstream:
    """Where requests go: scheme, host, port and path prefix (no trailing slash)."""

    scheme: str
    host: str
    port: int
    prefix: str

    @classmethod
    def parse(cls, url: str) -> Upstream:
        """The upstream of an ``http(s)://host[:port][/prefix]`` URL (raises ValueError)."""
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.username is not None:
            raise ValueError(f"not an http(s) URL without credentials: {url!r}")
        port = parts.port or _DEFAULT_PORTS[scheme]
        return cls(scheme, parts.hostname.lower(), port, parts.path.rstrip("/"))

    def named_by(self, scheme: str, authority: str) -> bool:
        """Whether ``scheme://authority`` (from a request target) is this upstream."""
        if "@" in authority or "\\" in authority or "%" in authority:
            return False
        try:
            parts = urlsplit(f"{scheme.lower()}://{authority}")
            port = parts.port or _DEFAULT_PORTS.get(parts.scheme, -1)
        except ValueError:
            return False
        host = (parts.hostname or "").lower()
        return parts.scheme == self.scheme and host == self.host and port == self.port


def origin_form(target: str, upstreams: tuple[Upstream, ...]) -> str:
    """The path (without query) a request target asks for; :class:`BadTarget` if refused.

    ``target`` is the raw target without its query. ``upstreams`` are the
    upstreams an absolute- or authority-form target may name (empty: none may).
    """
    if target.startswith("/"):
        return target
    if target == "*":
        raise BadTarget("the target '*' is not forwarded")
    scheme, sep, rest = target.partition("://")
    if sep:
        authority, slash, path = rest.partition("/")
        if any(up.named_by(scheme, authority) for up in upstreams):
            return slash + path if slash else "/"
        raise BadTarget("an absolute-form target is forwarded only when it names the upstream")
    if any(up.named_by(up.scheme, target) for up in upstreams):
        return "/"
    raise BadTarget("the target is not a path (origin form, starting with '/')")


def normalize_path(raw: str) -> str:
    """``raw`` decoded once, its dot segments resolved, encoded again (see the module docstring)."""
    if len(raw) > MAX_PATH:
        raise BadTarget(f"the path is longer than {MAX_PATH} characters")
    try:
        decoded = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise BadTarget("the path does not decode to UTF-8") from None
    if _CONTROLS.search(decoded):
        raise BadTarget("the path holds control characters")
    if _ESCAPE.search(decoded):
        raise BadTarget("the path is percent-encoded twice")
    segments: list[str] = []
    for segment in decoded.replace("\\", "/").split("/"):
        if segment in ("", "."):
            continue
        if segment == "..":
            if not segments:
                raise BadTarget("the path climbs above the upstream's path ('..')")
            segments.pop()
            continue
        segments.append(segment)
    trailing = "/" if segments and decoded.endswith(("/", "\\")) else ""
    return "/" + "/".join(quote(s, safe=_SEGMENT_SAFE) for s in segments) + trailing


def build_url(upstream: Upstream, path: str, query: str) -> httpx.URL:
    """The upstream URL for a normalized ``path`` and the request's raw ``query``."""
    url = httpx.URL(
        scheme=upstream.scheme,
        host=upstream.host,
        port=None if _DEFAULT_PORTS[upstream.scheme] == upstream.port else upstream.port,
        path=(upstream.prefix + path) if upstream.prefix else path,
        # A query is forwarded as sent; only '#' (which would end it) is escaped.
        query=query.replace("#", "%23").encode("latin-1") or None,
    )
    if (url.scheme, url.host, url.port or _DEFAULT_PORTS[url.scheme]) != (
        upstream.scheme, upstream.host, upstream.port
    ):  # fmt: skip
        raise BadTarget("the request would leave the upstream")  # a parser gap: refuse
    return url
