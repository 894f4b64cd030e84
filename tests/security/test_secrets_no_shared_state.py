"""Class 7 — no shared state: each exchange goes upstream with exactly the app's headers.

The upstream client keeps no cookie jar: a cookie one upstream response set
for one app is never sent along with another app's request, nor lands in its
capture; and nothing the proxy adds or drops beyond the hop-by-hop headers.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from inspector.proxy import FlowLog, ProxyServer, ProxySettings
from inspector.proxy.server import upstream_client

from .secrets_upstream import SET_COOKIE_VALUE, HostileUpstream, leaks


def test_the_upstream_client_remembers_no_cookie() -> None:
    client = upstream_client(ProxySettings(upstream="http://127.0.0.1:9"))
    request = httpx.Request("GET", "http://127.0.0.1:9/x")
    response = httpx.Response(200, headers={"set-cookie": "sid=abc123456789"}, request=request)
    client.cookies.extract_cookies(response)
    assert len(client.cookies) == 0


def test_a_cookie_set_for_one_app_never_reaches_another_apps_request_or_capture(
    tmp_path: Path,
) -> None:
    log = FlowLog(tmp_path)
    with HostileUpstream() as upstream:
        with ProxyServer(log, ProxySettings(upstream=upstream.url), port=0) as proxy:
            for app in ("first", "second"):
                with httpx.Client(timeout=10) as client:  # two apps: no shared client
                    auth = {"Authorization": f"Bearer key-of-{app}-app-123"}
                    body = {"model": "m", "stream": True}
                    client.post(f"{proxy.url}/v1/chat/completions", json=body, headers=auth)
        first, second = upstream.seen
    assert "cookie" not in first and "cookie" not in second
    sent = {k: v for k, v in second.items() if k not in ("host", "content-length")}
    assert sent["authorization"] == "Bearer key-of-second-app-123"
    for flow in log.flows:
        assert flow.capture is not None
        assert leaks(flow.capture.read_bytes(), [SET_COOKIE_VALUE]) == []
