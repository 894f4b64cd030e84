"""Boundary: the clients of ``inspector serve`` and the captures it is handed.

Any program (or any web page, through DNS rebinding) may talk to the replay
server, and a capture file may be crafted. The server must answer bad input
with a clear 4xx, keep serving everyone else, and print nothing a terminal
would act on.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from inspector.capture_writer import CaptureWriter
from inspector.serve import ReplayServer, load_catalog
from inspector.serve.app import allowed_hosts
from inspector.serve.faults import Faults, iter_plan

from ..conftest import ROOT

PIECE = b'data: {"choices":[{"index":0,"delta":{"content":"hello world "}}]}\n\n'
DONE = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
CHAT = "/v1/chat/completions"


def _capture(path: Path, chunks: list[bytes], response: dict | None = None) -> None:
    header = {"provider": "openai-chat", "model": path.stem,
              "response": response or {"status": 200, "headers": {}}}  # fmt: skip
    writer = CaptureWriter(path, header)
    for i, data in enumerate(chunks):
        writer.chunk(i / 1e6, data)
    writer.end("eof", len(chunks) / 1e6)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("abuse")
    _capture(root / "small.jsonl", [PIECE, PIECE, DONE])
    # About 10 MB in 150 recorded chunks.
    _capture(root / "large.jsonl", [PIECE * 1000] * 150 + [DONE])
    return root


class Logged(list[str]):
    """The server's log lines."""


@pytest.fixture(scope="module")
def logged() -> Logged:
    return Logged()


@pytest.fixture(scope="module")
def server(library: Path, logged: Logged) -> Iterator[ReplayServer]:
    running = ReplayServer(load_catalog([library]), speed=0, log=logged.append, header_timeout=1.0)
    with running:
        yield running


@pytest.fixture
def client(server: ReplayServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=20) as http:
        yield http


def _ask(client: httpx.Client, query: str = "", **kwargs: object) -> httpx.Response:
    return client.post(CHAT + query, json={"model": "small"}, **kwargs)  # type: ignore[arg-type]


# -- request bodies ------------------------------------------------------------------


def test_a_body_declared_too_large_is_refused_with_413(client: httpx.Client) -> None:
    response = client.post(CHAT, content=b"{" + b" " * (2 << 20) + b"}")
    assert response.status_code == 413
    assert "larger than 1048576 bytes" in response.json()["error"]["message"]
    assert _ask(client).status_code == 200  # and the server goes on serving


def test_a_chunked_body_is_counted_as_it_arrives(client: httpx.Client) -> None:
    def endless() -> Iterator[bytes]:
        yield b'{"model": "small", "pad": "'
        for _ in range(64):  # 4 MiB, no Content-Length: chunked transfer
            yield b"x" * 65536

    try:
        response = client.post(CHAT, content=endless())
    except httpx.TransportError:
        return  # refused before the client finished sending: also a refusal
    assert response.status_code == 413


# -- fault parameters ------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", ["\u0661\u0662", "1_0", " 5", "5 ", "+5", "1e3", "0x10", "nan", "inf", "-1", "",
              "99999999999999999999"],
)  # fmt: skip
@pytest.mark.parametrize("name", ["cut", "chunk", "stall", "speed", "ping_every", "status"])
def test_fault_parameters_must_be_ascii_decimal_numbers_in_range(
    client: httpx.Client, name: str, value: str
) -> None:
    response = client.post(CHAT, params={name: value}, json={"model": "small"})
    assert response.status_code == 400, response.text
    assert f"fault {name}=" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    "query",
    ["stall=100000", "ping_every=0.0001&stall=1", "chunk=999999999", "speed=0.0000001",
     "retry_after=1e9&status=429"],
)  # fmt: skip
def test_fault_parameters_out_of_their_sane_range_are_refused(
    client: httpx.Client, query: str
) -> None:
    assert _ask(client, "?" + query).status_code == 400


def test_faults_in_the_header_are_checked_the_same_way(client: httpx.Client) -> None:
    response = _ask(client, headers={"x-inspector-fault": "chunk=\u0661".encode()})
    assert response.status_code == 400


# -- one client must not starve the others ------------------------------------------------


def test_rechunking_is_lazy_and_linear() -> None:
    # The plan of chunk=1 over 10 MB is made as it is played: its first steps
    # cost next to nothing, however large the recording.
    chunks = [(i / 1000, PIECE * 1000) for i in range(150)]
    tracemalloc.start()
    try:
        steps = iter_plan(chunks, Faults(chunk=1), speed=0, ping=b"")
        first = [next(steps) for _ in range(1000)]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert b"".join(s.data for s in first) == (PIECE * 1000)[:1000]  # type: ignore[union-attr]
    assert peak < 1 << 20


def test_chunk_1_on_a_large_capture_does_not_freeze_other_clients(
    server: ReplayServer, client: httpx.Client
) -> None:
    with (
        httpx.Client(base_url=server.url, timeout=20) as greedy,
        greedy.stream("POST", CHAT + "?chunk=1", json={"model": "large"}) as stream,
    ):
        assert stream.status_code == 200
        next(stream.iter_raw())
        # While that one is being cut into 10 million pieces, others are served.
        for _ in range(3):
            assert _ask(client).status_code == 200
            assert client.get("/").status_code == 200


def test_a_client_that_leaves_stops_its_stream(server: ReplayServer) -> None:
    started = len(server.connections)
    with (
        httpx.Client(base_url=server.url, timeout=20) as leaving,
        leaving.stream(
            "POST", CHAT + "?stall=60&ping_every=0.01", json={"model": "small"}
        ) as stream,
    ):
        next(stream.iter_raw())
    # The connection is gone from the server's table as soon as the stream stops.
    deadline = time.monotonic() + 10
    while len(server.connections) > started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(server.connections) <= started


def test_a_slowloris_client_does_not_stop_others_and_is_cut_off(
    server: ReplayServer, client: httpx.Client
) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    slow = [socket.create_connection((host, int(port))) for _ in range(30)]
    try:
        for sock in slow:
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-a: ")
        for _ in range(3):
            assert _ask(client).status_code == 200
        # Headers never finished: the server closes them after its header timeout (1 s here).
        for sock in slow:
            sock.settimeout(10)
            assert sock.recv(1024) == b""
    finally:
        for sock in slow:
            sock.close()


# -- DNS rebinding -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host", ["127.0.0.1", "localhost:8765", "127.0.0.5:1", "[::1]:80", "LOCALHOST", "localhost."]
)
def test_loopback_host_names_are_served(client: httpx.Client, host: str) -> None:
    assert _ask(client, headers={"host": host}).status_code == 200


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8765", "127.0.0.1.nip.io", "localhost.evil.example",
             "10.0.0.1", "127.0.0.1:80:80", "[::1"],
)  # fmt: skip
def test_other_host_names_are_refused(client: httpx.Client, host: str) -> None:
    response = _ask(client, headers={"host": host})
    assert response.status_code == 421
    assert "loopback" in response.json()["error"]["message"]
    assert client.get("/", headers={"host": host}).status_code == 421


def test_a_request_without_a_host_is_refused(server: ReplayServer) -> None:
    host, port = server.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(b"GET / HTTP/1.0\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 421 ")


def test_the_bound_name_and_for_a_wildcard_any_ip_address_are_allowed() -> None:
    named = allowed_hosts("devbox.lan")
    assert named("devbox.lan") and named("localhost") and not named("evil.example")
    assert not named("192.168.1.5")
    wildcard = allowed_hosts("0.0.0.0")
    assert wildcard("192.168.1.5") and wildcard("[fe80::1]") and not wildcard("evil.example")


# -- hostile captures ------------------------------------------------------------------------

HOSTILE = {
    "crlf-name": {"status": 200, "headers": {"x-a\r\nx-b": "1"}},
    "crlf-value": {"status": 200, "headers": {"x-a": "1\r\nSet-Cookie: evil=1"}},
    "nul-value": {"status": 200, "headers": {"x-a": "a\u0000b"}},
    "space-name": {"status": 200, "headers": {"x a": "1"}},
    "status-0": {"status": 0},
    "status-99": {"status": 99},
    "status-1000": {"status": 1000},
    "status-text": {"status": "200 OK\r\nX: y"},
    "status-bool": {"status": True},
    "headers-list": {"status": 200, "headers": [["x-a", "1"]]},
}


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    for name, response in HOSTILE.items():
        _capture(root / f"{name}.jsonl", [PIECE, DONE], response)
    _capture(root / "good.jsonl", [PIECE, DONE])
    return root


def test_hostile_captures_are_refused_at_load_naming_file_and_problem(hostile: Path) -> None:
    catalog = load_catalog([hostile])
    assert catalog.names("openai-chat") == ["good"]
    skipped = "\n".join(catalog.skipped)
    for name in HOSTILE:
        assert f"{name}.jsonl: " in skipped
    assert "is not an HTTP status from 200 to 599" in skipped
    assert "is not a valid HTTP header name" in skipped
    assert "characters HTTP cannot carry" in skipped


def test_serve_starts_with_the_good_captures_and_says_which_were_skipped(hostile: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "inspector", "serve", str(hostile), "--port", "0", "--speed", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.startswith("serving 1 streams on "), first
        url = first.split(" on ")[1].split()[0]
        response = httpx.post(url + CHAT, json={"model": "anything"}, timeout=20)
        assert response.status_code == 200 and response.content.endswith(b"[DONE]\n\n")
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    for name in HOSTILE:
        assert f"skipped {hostile / name}.jsonl: " in err
    assert "\r" not in err and "\x00" not in err and "Traceback" not in err


# -- what serve prints ------------------------------------------------------------------------


def test_log_lines_escape_what_clients_send(client: httpx.Client, logged: Logged) -> None:
    logged.clear()
    client.post(CHAT + "/%1b%5b2J%0d", json={"model": "small"})
    client.post(CHAT, json={"model": "\x1b]0;owned\x07\u202e"}, params={"chunk": "\x1b"})
    client.post(CHAT, content=b"\x1b[31mnot json")
    assert _ask(client, headers={"host": "evil\x1b.example"}).status_code == 421
    text = "\n".join(logged)
    assert text, "nothing logged"
    for char in ("\x1b", "\x07", "\r", "\u202e"):
        assert char not in text


def test_serve_refuses_bad_ports_clearly() -> None:
    for port in ("70000", "-1", "\u0661\u0662", "80x"):
        result = subprocess.run(
            [sys.executable, "-m", "inspector", "serve", str(ROOT / "tests"), "--port", port],
            capture_output=True, text=True, cwd=ROOT, timeout=60,
        )  # fmt: skip
        assert result.returncode == 2, (port, result.stderr)
        assert "expected a port from 0 to 65535" in result.stderr
        assert "Traceback" not in result.stderr


def test_the_capture_name_header_cannot_be_split(tmp_path: Path) -> None:
    _capture(tmp_path / "odd name\u00e9.jsonl", [PIECE, DONE])
    with ReplayServer(load_catalog([tmp_path]), speed=0) as running:
        response = httpx.post(running.url + CHAT, json={"model": "x"}, timeout=20)
    assert response.status_code == 200
    assert response.headers["x-inspector-capture"] == "odd%20name%C3%A9"
