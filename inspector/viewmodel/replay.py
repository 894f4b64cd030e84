"""Replaying a recorded request: the same method, path and body, sent again to a base URL.

A capture's header keeps the request as it was sent, with every secret
header value ``[redacted]``. :func:`replay_request` rebuilds a
:class:`~inspector.live.LiveRequest` from it: the recorded URL's path and
query on another base URL (its upstream, or ``inspector serve``), the
headers without the redacted ones (the provider's key from its usual
environment variable, when one is set and the target is the provider's own
API), and ``inspector serve``'s fault
parameters (``stall=3&stall_at=500``, the same syntax as its query string)
added to the query. No Textual here.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from ..live.providers import PROVIDER_SPECS, LiveRequest
from ..redact import REDACTED

__all__ = ["ReplayError", "replay_request", "replay_target"]

#: Headers httpx sets itself for the body it sends.
_TRANSPORT_HEADERS = frozenset({"content-length", "host", "transfer-encoding", "accept-encoding"})


class ReplayError(ValueError):
    """The capture's header does not describe a request that can be sent again."""


def replay_target(header: Mapping[str, Any]) -> str:
    """The base URL the request went to (``scheme://host``), the default to replay against."""
    request = header.get("request")
    url = request.get("url") if isinstance(request, Mapping) else None
    if not isinstance(url, str):
        return ""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else ""


def _faults(text: str) -> list[tuple[str, str]]:
    pairs = parse_qsl(text.strip().lstrip("?").replace(";", "&"), keep_blank_values=False)
    if text.strip() and not pairs:
        raise ReplayError(f"faults {text!r}: expected name=value pairs, e.g. stall=3&stall_at=500")
    return pairs


def replay_request(
    header: Mapping[str, Any],
    base_url: str,
    faults: str = "",
    environ: Mapping[str, str] | None = None,
) -> LiveRequest:
    """The recorded request, to send again to ``base_url`` with ``faults``. Raises ReplayError."""
    env = os.environ if environ is None else environ
    provider = header.get("provider")
    request = header.get("request")
    if not isinstance(provider, str) or provider not in PROVIDER_SPECS:
        raise ReplayError("the capture does not say which provider the request was for")
    if not isinstance(request, Mapping) or not isinstance(request.get("url"), str):
        raise ReplayError("the capture does not record the request it answered")
    body = request.get("body")
    if not isinstance(body, dict):
        raise ReplayError("the recorded request body is not JSON: it cannot be sent again")
    base = base_url.strip().rstrip("/")
    target = urlsplit(base)
    if target.scheme not in ("http", "https") or not target.netloc:
        raise ReplayError(f"{base_url!r}: expected a base URL such as http://127.0.0.1:8765")
    recorded = urlsplit(request["url"])
    query = [*parse_qsl(recorded.query), *_faults(faults)]
    url = f"{base}{recorded.path}" + (f"?{urlencode(query)}" if query else "")
    headers = {
        str(k): str(v)
        for k, v in (request.get("headers") or {}).items()
        if v != REDACTED and str(k).lower() not in _TRANSPORT_HEADERS
    }
    spec = PROVIDER_SPECS[provider]
    # The key from the environment goes only to the provider's own API: never to
    # a URL typed into a dialog (a replay server, a proxy) that has no use for it.
    if target.netloc == urlsplit(spec.base_url).netloc:
        key = next((env[name] for name in spec.key_env if env.get(name)), None)
        if key is not None:
            headers.update(spec.auth(key))
    model = header.get("model")
    return LiveRequest(
        provider=provider,
        model=model if isinstance(model, str) else "",
        method=str(request.get("method") or "POST"),
        url=url,
        headers=headers,
        body=body,
    )
