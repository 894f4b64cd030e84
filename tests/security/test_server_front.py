"""Boundary: the front both servers stand behind (``inspector serve`` and ``inspector proxy``).

Any program on the machine, and any web page in the user's browser, can
reach a server on loopback. Each test runs against both servers: what one
refuses, the other refuses the same way (one front, :mod:`inspector.net`).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .servers_helpers import (
    CHAT,
    SMALL,
    raw_exchange,
    replay_of,
    request_bytes,
    status_of,
    write_capture,
)

#: Low limits, so a test reaches each quickly.
LOW = {
    "header_timeout": 1.0,
    "idle_timeout": 1.0,
    "body_timeout": 1.0,
    "max_connections": 8,
    "max_header_bytes": 16 * 1024,
    "max_body": 4096,
    "max_pending": 6000,
    "max_json": 4096,
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("front")
    write_capture(root / "small.jsonl", [SMALL])
    return root


@pytest.fixture(scope="module", params=["serve", "proxy"])
def server(request: pytest.FixtureRequest, library: Path, tmp_path_factory: pytest.TempPathFactory
           ) -> Iterator[Any]:  # fmt: skip
    try:
        from inspector.net import FrontLimits
    except ImportError:  # a tree without the front: its own options, so the tests show the gaps
        serve_options: dict[str, Any] = {k: LOW[k] for k in ("header_timeout", "max_body",
                                                             "max_connections")}  # fmt: skip
        proxy_options: dict[str, Any] = {"max_body": LOW["max_body"]}
    else:
        serve_options = proxy_options = {"limits": FrontLimits(**LOW)}
    if request.param == "serve":
        with replay_of(library, **serve_options) as running:
            yield running
        return
    from .servers_helpers import proxy_to

    recorded = tmp_path_factory.mktemp("rec")
    with (
        replay_of(library) as upstream,
        proxy_to(upstream.url, recorded, **proxy_options) as running,
    ):
        yield running


def _post(server: Any, **headers: str) -> httpx.Response:
    with httpx.Client(timeout=15) as client:
        return client.post(server.url + CHAT, json={"model": "small"}, headers=headers)


# -- who may call -----------------------------------------------------------------------


def test_a_client_that_is_not_a_browser_is_served(server: Any) -> None:
    response = _post(server)
    assert response.status_code == 200 and response.content == SMALL


@pytest.mark.parametrize("site", ["cross-site", "CROSS-SITE", "unknown-value"])
def test_a_browser_request_made_on_another_sites_behalf_is_refused(server: Any, site: str) -> None:
    response = _post(server, **{"sec-fetch-site": site})
    assert response.status_code == 403
    assert "another site" in response.json()["error"]["message"]


@pytest.mark.parametrize("site", ["same-origin", "same-site", "none"])
def test_a_browser_request_from_this_machine_is_served(server: Any, site: str) -> None:
    assert _post(server, **{"sec-fetch-site": site}).status_code == 200


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(["http", "https", "HTTP", "ftp", "chrome-extension"]),
    st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z]{2,6}){1,2}", fullmatch=True),
    st.sampled_from(["", ":80", ":8765", ":3000"]),
)
def test_an_origin_that_is_not_this_machine_is_refused(
    server: Any, scheme: str, name: str, port: str
) -> None:
    if name in ("localhost", "localhost.localdomain"):
        return
    response = _post(server, origin=f"{scheme}://{name}{port}")
    assert response.status_code == 403


@pytest.mark.parametrize(
    "origin", ["null", "http://127.0.0.1.evil.example", "http://localhost@evil.example",
               "http://evil.example#@localhost", "file://", "http://[::1"]
)  # fmt: skip
def test_an_origin_that_only_looks_local_is_refused(server: Any, origin: str) -> None:
    assert _post(server, origin=origin).status_code == 403


@pytest.mark.parametrize(
    "origin", ["http://localhost:3000", "http://127.0.0.1:8080", "http://[::1]:5173"]
)
def test_a_page_served_from_this_machine_may_call(server: Any, origin: str) -> None:
    assert _post(server, origin=origin).status_code == 200


# -- slow and greedy clients ------------------------------------------------------------


def _closed_within_deadline(port: int, first: bytes) -> bool:
    """Whether the server closes a connection that sent ``first`` and then nothing."""
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        sock.sendall(first)
        try:
            while sock.recv(4096):
                pass
        except (TimeoutError, ConnectionResetError):
            return False
    return True


def test_a_client_trickling_its_headers_is_cut_off(server: Any) -> None:
    assert _closed_within_deadline(server.port, b"POST /v1/chat/completions HTTP/1.1\r\nHost: 1")


def test_a_body_that_does_not_arrive_in_time_is_a_408(server: Any) -> None:
    start = request_bytes("POST", CHAT, content_type="application/json", content_length="100")
    answer = raw_exchange(server.port, start + b'{"model": ')
    assert status_of(answer) == 408


def test_headers_over_the_cap_are_refused(server: Any) -> None:
    request = request_bytes("POST", CHAT, b"{}", x_filler="a" * 20_000)
    assert status_of(raw_exchange(server.port, request, wait_close=True)) in (0, 431)


def test_a_body_over_the_cap_is_a_413_before_it_is_read(server: Any) -> None:
    start = request_bytes("POST", CHAT, content_type="application/json", content_length="5000")
    assert status_of(raw_exchange(server.port, start)) == 413


def test_bodies_held_at_once_over_all_connections_are_bounded(server: Any) -> None:
    # Two clients each hold 3,500 body bytes (under the 4,096 cap each, over the
    # 6,000 budget together): the second is told to come back, the first is served.
    body = b'{"model": "small", "pad": "' + b"x" * 3500 + b'"}'
    head = request_bytes("POST", CHAT, content_type="application/json",
                         content_length=str(len(body)))  # fmt: skip
    with socket.create_connection(("127.0.0.1", server.port), timeout=15) as first:
        first.sendall(head + body[:3500])
        time.sleep(0.3)  # let the server take the first part in (ordering only, not asserted)
        second = raw_exchange(server.port, head + body)
        first.sendall(body[3500:])
        answer = b""
        while b"[DONE]" not in answer and (piece := first.recv(65536)):
            answer += piece
    assert status_of(second) == 503 and b"retry-after: 1" in second.lower()
    assert status_of(answer) == 200


def test_connections_over_the_cap_are_refused_and_the_rest_still_served(server: Any) -> None:
    # Twelve clients start a request and never send its body: at most eight (the cap)
    # are taken in (and time out, 408); the others are told the server is full (503).
    held = [socket.create_connection(("127.0.0.1", server.port), timeout=15) for _ in range(12)]
    statuses = []
    try:
        for sock in held:
            sock.sendall(request_bytes("POST", CHAT, content_type="application/json",
                                       content_length="100"))  # fmt: skip
        for sock in held:
            statuses.append(status_of(sock.recv(4096)))
    finally:
        for sock in held:
            sock.close()
    assert set(statuses) <= {408, 503}
    assert statuses.count(408) <= LOW["max_connections"] and statuses.count(503) >= 4
    assert _post(server).status_code == 200


def test_request_json_is_parsed_off_the_event_loop(
    server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import types

    import orjson

    from inspector.net import offload
    from inspector.proxy import flow

    threads: list[str] = []

    def watched(data: Any) -> Any:
        threads.append(threading.current_thread().name)
        return orjson.loads(data)

    fake = types.SimpleNamespace(**{n: getattr(orjson, n) for n in dir(orjson) if n[0] != "_"})
    fake.loads = watched
    for module in (offload, flow):
        monkeypatch.setattr(module, "orjson", fake)
    body = {"model": "small", "messages": [{"role": "user", "content": "x"}] * 100}
    with httpx.Client(timeout=15) as client:
        assert client.post(server.url + CHAT, json=body).status_code == 200
    loop_threads = {"inspector-serve", "inspector-proxy"}
    assert threads and not loop_threads & set(threads)
