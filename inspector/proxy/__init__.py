"""``inspector proxy``: a recording reverse proxy for the four streaming protocols.

An app points its base URL at the proxy; each request goes to the real
upstream (:mod:`.routes`) with the app's own headers, the response comes back
byte for byte as it arrives, and each streaming exchange is written to a
capture as it happens, credentials scrubbed (:mod:`.flow`). See docs/proxy.md.
"""

from .app import DEFAULT_MAX_BODY, ProxySettings, create_app
from .flow import Flow, FlowRequest
from .log import FlowLog, flow_line
from .routes import Route, resolve
from .server import ProxyServer

__all__ = [
    "DEFAULT_MAX_BODY",
    "Flow",
    "FlowLog",
    "FlowRequest",
    "ProxyServer",
    "ProxySettings",
    "Route",
    "create_app",
    "flow_line",
    "resolve",
]
