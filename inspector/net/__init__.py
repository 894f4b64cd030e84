"""The hardened HTTP front both servers (``serve`` and ``proxy``) stand behind.

Every client of a local server is untrusted: another program, or a web page
in the user's browser. The front bounds what any of them can make the server
hold or wait for, and refuses what a browser sends on another site's behalf:

* :mod:`.limits` — one table of limits (:class:`FrontLimits`), each a CLI option
  (built by :mod:`inspector.cli.front_options`);
* :mod:`.protocol` — uvicorn's h11 protocol with a deadline for request headers,
  the connection registry (for resets) and ``TCP_NODELAY``;
* :mod:`.guard` — the ``Host`` check (DNS rebinding) and the ``Origin`` /
  ``Sec-Fetch-Site`` check (cross-site requests);
* :mod:`.body` — request bodies read against a per-request cap, a deadline and
  a budget shared by every connection;
* :mod:`.offload` — request JSON parsed within a size budget in a worker thread,
  so one wide body never stalls the event loop;
* :mod:`.server` — the uvicorn settings that carry the limits.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .body import BodyBudget, BodyRefused, read_body
    from .guard import FrontGuard, allowed_hosts, allowed_origin, host_name
    from .limits import FrontLimits
    from .offload import off_loop, parse_json
    from .protocol import Connections, front_protocol, kernel_unsent
    from .server import uvicorn_settings

#: name -> the submodule defining it. Loaded on first use: the CLI registers the
#: limits' options (:mod:`.limits`) without importing Starlette or uvicorn.
_WHERE = {
    "BodyBudget": "body", "BodyRefused": "body", "read_body": "body",
    "FrontGuard": "guard", "allowed_hosts": "guard", "allowed_origin": "guard",
    "host_name": "guard", "FrontLimits": "limits", "off_loop": "offload", "parse_json": "offload",
    "Connections": "protocol", "front_protocol": "protocol", "kernel_unsent": "protocol",
    "uvicorn_settings": "server",
}  # fmt: skip

__all__ = [
    "BodyBudget",
    "BodyRefused",
    "Connections",
    "FrontGuard",
    "FrontLimits",
    "allowed_hosts",
    "allowed_origin",
    "front_protocol",
    "host_name",
    "kernel_unsent",
    "off_loop",
    "parse_json",
    "read_body",
    "uvicorn_settings",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{module}", __name__), name)
