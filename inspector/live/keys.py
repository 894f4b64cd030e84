"""API keys: where live mode finds them, and which servers may go without one.

Keys are read from the environment only (never from a flag, which would land
in shell history and ``ps``). Keeping them out of everything written is
:mod:`inspector.redact`'s job.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Final
from urllib.parse import urlsplit

__all__ = ["MissingKey", "is_loopback_url", "resolve_key"]

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
