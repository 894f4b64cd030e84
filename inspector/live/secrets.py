"""API keys: where they come from, and how they are kept out of everything written.

Keys are read from the environment only (never from a flag, which would land
in shell history and ``ps``). Whatever live mode writes — the capture header,
the exchange a view shows, an error message — is cleaned first: secret header
values become ``[redacted]``, secret query parameters (Gemini's ``key=``) are
removed from URLs, and every spelling of the key is replaced wherever else it
appears (:class:`~inspector.live.scrub.SecretScrubber`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from ..credentials import is_secret_header

__all__ = [
    "REDACTED",
    "MissingKey",
    "is_loopback_url",
    "is_secret_query",
    "redact_headers",
    "redact_url",
    "resolve_key",
    "url_secrets",
]

REDACTED: Final = "[redacted]"

#: Query parameters removed from every recorded URL, by name: any name with
#: one of these words (``api_key``, ``apiKey``, ``X-Amz-Credential``) ...
_SECRET_QUERY_WORDS: Final = frozenset({"key", "apikey", "sig", "signature", "auth", "token",
                                        "secret", "password", "passwd", "pwd", "credential",
                                        "credentials", "session", "sessionid", "jwt"})  # fmt: skip
#: ... or containing one of these (``access_token``, ``client_secret``, ``accesskey``).
_SECRET_QUERY_PARTS: Final = ("secret", "passw", "signature", "credential", "apikey",
                              "accesskey", "privatekey", "sessionid", "accesstoken",
                              "authtoken", "apitoken", "refreshtoken", "idtoken")  # fmt: skip
#: The names the old recorder removed (kept for importers; a subset of the rule above).
SECRET_QUERY: Final = frozenset({"key", "api_key", "apikey", "access_token", "token"})
_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_NOT_ALNUM: Final = re.compile(r"[^a-z0-9]+")

_LOOPBACK_NAMES: Final = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class MissingKey(LookupError):
    """No API key where the provider's key is expected; the message names the variable."""


def is_loopback_url(url: str) -> bool:
    """True when ``url`` points at this machine (127.0.0.0/8, ::1, localhost)."""
    host = urlsplit(url).hostname or ""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_key(
    provider: str,
    key_env: tuple[str, ...],
    environ: Mapping[str, str],
    *,
    explicit_env: str | None = None,
    url: str,
) -> str | None:
    """The API key for a request to ``url``, or None when none is needed.

    ``explicit_env`` (``--api-key-env NAME``) must be set when given. Else the
    provider's usual variables are tried in order. A server on loopback (a
    local model server, ``inspector serve``) may be key-less, so there a
    missing key is not an error: the request simply goes without one.
    """
    if explicit_env:
        value = environ.get(explicit_env, "")
        if not value:
            raise MissingKey(
                f"--api-key-env {explicit_env}: the variable {explicit_env} is not set"
            )
        return value
    for name in key_env:
        value = environ.get(name, "")
        if value:
            return value
    if is_loopback_url(url):
        return None
    names = " or ".join(key_env)
    raise MissingKey(
        f"no API key for {provider}: set {names} (or name another variable with --api-key-env)"
    )


def is_secret_query(name: str) -> bool:
    """Whether a query parameter's value is a credential, judged by its name.

    Whole words for the short, ambiguous ones (``key``, ``sig``, ``auth``) so
    ``monkey`` and ``author`` stay; substrings for the unambiguous ones.
    """
    lowered = name.lower()
    words = set(_NOT_ALNUM.split(_CAMEL.sub("_", name).lower()))
    return not _SECRET_QUERY_WORDS.isdisjoint(words) or any(
        part in lowered for part in _SECRET_QUERY_PARTS
    )


def url_secrets(url: str) -> list[str]:
    """The credentials a URL carries: userinfo, and credential-like query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return []
    # The password; or, alone (``https://TOKEN@host``), the user name is the credential.
    userinfo = parts.password or parts.username
    found = [userinfo, unquote(userinfo)] if userinfo else []
    found += [v for k, v in parse_qsl(parts.query, keep_blank_values=True) if is_secret_query(k)]
    return [v for v in dict.fromkeys(found) if v]


def redact_url(url: str) -> str:
    """``url`` without userinfo and without credential-like query parameters.

    ``https://user:pass@host/p?key=k&alt=sse`` -> ``https://host/p?alt=sse``.
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return REDACTED  # not a URL we could have sent to: nothing of it is kept
    netloc = parts.netloc.rpartition("@")[2]
    if not parts.query:
        return urlunsplit(parts._replace(netloc=netloc))
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
            if not is_secret_query(k)]  # fmt: skip
    return urlunsplit(parts._replace(netloc=netloc, query=urlencode(kept)))


def redact_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """Headers with every secret value replaced by ``[redacted]`` (names kept)."""
    return {k: REDACTED if is_secret_header(k) else v for k, v in headers.items()}
