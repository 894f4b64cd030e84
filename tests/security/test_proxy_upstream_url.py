"""Boundary: the request target of ``inspector proxy`` cannot choose where the proxy connects.

The target is attacker-controlled text and URL parsers disagree about it.
Whatever a client sends — userinfo, ``%2F``, backslashes, ``@``, encoded
dots, IPv6 literals, odd-case schemes, doubled slashes, in any mixture —
the proxy connects to the configured upstream's scheme, host and port only,
and the path it asks for stays under the ``--upstream`` path prefix; or it
answers 400 and connects to nothing.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .servers_helpers import Witness, proxy_to, raw_exchange, status_of

#: Pieces attackers put together (one target is a run of them).
PIECES = [
    "/", "//", "\\", "%2F", "%2f", "%5C", "%5c", "@", "%40", ":", "%3A", "evil.example",
    "127.0.0.2", "127.0.0.1", ":9", ":1", "[::1]", "[::ffff:7f00:2]", "[", "]", "..", ".",
    "%2e%2e", "%2E.", ".%2e", "%252e%252e", "%252F", "http:", "https:", "HTTP://", "hTtPs://",
    "http://", "//evil.example", "?", "#", ";", "&", "=", "v1", "chat", "completions",
    "api", "%", "%zz", "~", "user:pass@", "xn--", "0x7f.1", "2130706434",
    # Stand-ins for the decoy upstream's address (its port is known only at run time).
    "DECOY", "localhost:DECOYPORT", "[::1]:DECOYPORT", ":DECOYPORT",
]  # fmt: skip
PREFIX = "/api/base"

targets = st.lists(st.sampled_from(PIECES), min_size=1, max_size=10).map("".join)


@pytest.fixture(scope="module")
def upstreams() -> Iterator[tuple[Witness, Witness]]:
    """The configured upstream, and a decoy on another port that must never be reached."""
    with Witness() as upstream, Witness() as decoy:
        yield upstream, decoy


@pytest.fixture(scope="module")
def proxy(upstreams: tuple[Witness, Witness], tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[Any]:  # fmt: skip
    upstream, _ = upstreams
    with proxy_to(upstream.url + PREFIX, tmp_path_factory.mktemp("rec")) as running:
        yield running


def _send(port: int, target: str) -> int:
    body = b'{"model": "m", "stream": true}'
    request = (
        f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode("latin-1") + body
    return status_of(raw_exchange(port, request))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(targets)
def test_no_request_target_reaches_another_host_or_leaves_the_upstream_prefix(
    proxy: Any, upstreams: tuple[Witness, Witness], target: str
) -> None:
    upstream, decoy = upstreams
    target = target.replace("DECOYPORT", str(decoy.port)).replace(
        "DECOY", f"127.0.0.1:{decoy.port}"
    )
    before = len(upstream.seen)
    status = _send(proxy.port, target)
    assert not decoy.seen
    for host, path, _query in upstream.seen[before:]:
        assert host == f"127.0.0.1:{upstream.port}"
        assert path == PREFIX or path.startswith(PREFIX + "/")
        segments = path.split("/")[1:]
        assert "" not in segments[:-1] and ".." not in segments and "." not in segments
    if len(upstream.seen) == before:
        assert status in (400, 404, 405)  # refused by the proxy (or its router), never forwarded


@pytest.mark.parametrize(
    "target",
    [
        "%2F@127.0.0.2:9/v1/chat/completions",  # the path pasted after the host: userinfo
        "@DECOY/v1/chat/completions",
        "%2F@DECOY/v1/chat/completions",
        "http://DECOY/v1/chat/completions",
        "//DECOY/v1/chat/completions",
        "/\\DECOY/v1/chat/completions",
        "/%2F@127.0.0.2:9/v1/chat/completions",
        "/..%2F..%2F..%2Fv1/chat/completions",  # out of the prefix
        "/%2e%2e/%2e%2e/v1/chat/completions",
        "/v1/..\\..\\..\\x",
        "http://127.0.0.2:9/v1/chat/completions",  # absolute form, another host
        "HTTP://127.0.0.1:9/v1/chat/completions",
        "http://user@127.0.0.1:9/v1",
        "127.0.0.2:9",  # authority form
        "*",
    ],
)
def test_each_known_trick_is_refused_or_kept_on_the_upstream(
    proxy: Any, upstreams: tuple[Witness, Witness], target: str
) -> None:
    upstream, decoy = upstreams
    target = target.replace("DECOY", f"127.0.0.1:{decoy.port}")
    before = len(upstream.seen)
    status = _send(proxy.port, target)
    assert not decoy.seen
    assert all(seen[0] == f"127.0.0.1:{upstream.port}" for seen in upstream.seen[before:])
    assert all(seen[1].startswith(PREFIX + "/") for seen in upstream.seen[before:])
    if len(upstream.seen) == before:
        assert status == 400


def test_an_absolute_form_target_naming_the_upstream_is_forwarded_as_its_path(
    proxy: Any, upstreams: tuple[Witness, Witness]
) -> None:
    upstream, _ = upstreams
    before = len(upstream.seen)
    assert _send(proxy.port, f"http://127.0.0.1:{upstream.port}/v1/chat/completions") == 200
    assert upstream.seen[before:] == [
        (f"127.0.0.1:{upstream.port}", PREFIX + "/v1/chat/completions", "")
    ]


@settings(max_examples=300, deadline=None)
@given(targets, st.sampled_from(["openai", "anthropic", "google"]))
def test_without_upstream_each_providers_host_is_kept_for_any_path(
    target: str, family: str
) -> None:
    from inspector.proxy.routes import UPSTREAMS, Route, upstream_url

    try:
        url = upstream_url(Route(None, family), target, "", None)
    except ValueError:
        return  # refused (BadTarget): nothing is sent
    from urllib.parse import urlsplit

    expected = urlsplit(UPSTREAMS[family])
    got = urlsplit(url)
    assert (got.scheme, got.hostname, got.port) == (expected.scheme, expected.hostname, None)
    assert got.username is None and got.path.startswith("/")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize("target", ["/v1/chat/completions", "/%2F@127.0.0.1:22/x", "/x/../v1"])
def test_an_unreachable_upstream_is_told_in_fixed_words(tmp_path: Path, target: str) -> None:
    port = _free_port()
    with proxy_to(f"http://127.0.0.1:{port}", tmp_path) as running:
        body = b'{"model": "m"}'
        request = (
            f"POST {target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {len(body)}\r\n\r\n"
        ).encode() + body
        answer = raw_exchange(running.port, request)
    assert status_of(answer) == 502
    message = answer.split(b"\r\n\r\n", 1)[1]
    assert message == (
        b'{"error":{"type":"upstream_unreachable","message":"inspector proxy: could not connect'
        b" to 127.0.0.1:" + str(port).encode() + b'"}}'
    )
