"""The proxy's pure parts (routing, headers, secrets, names, the summary line) and its CLI."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from inspector.capture import load_recording
from inspector.cli import main
from inspector.proxy import FlowLog, FlowRequest, flow_line
from inspector.proxy.headers import request_headers, response_headers
from inspector.proxy.recording import capture_name, create_capture_file, rewrite_header
from inspector.proxy.routes import Route, model_of, resolve, upstream_url
from inspector.proxy.routes import recipe as recipe_lines
from inspector.redact import SecretSet

from .conftest import ROOT
from .test_live_helpers import serving
from .test_proxy_helpers import EchoUpstream

# -- routing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "headers", "route"),
    [
        ("POST", "/v1/chat/completions", {}, Route("openai-chat", "openai")),
        ("POST", "/v1/responses", {}, Route("openai-responses", "openai")),
        ("POST", "/v1/messages", {}, Route("anthropic", "anthropic")),
        ("POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent", {},
         Route("gemini", "google", "gemini-2.5-flash")),
        ("POST", "/v1alpha/models/g%20x:streamGenerateContent", {},
         Route("gemini", "google", "g x")),
        ("POST", "/v1/models/g:streamGenerateContent", {}, Route("gemini", "google", "g")),
        # Forwarded, not recorded: no adapter for these.
        ("POST", "/v1beta/models/g:generateContent", {}, Route(None, "google")),
        ("POST", "/v1/messages/count_tokens", {}, Route(None, "anthropic")),
        ("GET", "/v1/models", {}, Route(None, "openai")),
        ("GET", "/v1/models", {"anthropic-version": "2023-06-01"}, Route(None, "anthropic")),
        ("GET", "/v1/models", {"x-goog-api-key": "k"}, Route(None, "google")),
        ("GET", "/v1/chat/completions", {}, Route(None, "openai")),
        ("POST", "/v1/embeddings", {}, Route(None, "openai")),
    ],
)  # fmt: skip
def test_each_request_is_routed_by_its_path_then_its_headers(
    method: str, path: str, headers: dict[str, str], route: Route
) -> None:
    assert resolve(method, path, headers) == route


def test_the_upstream_url_keeps_the_raw_path_and_query_under_the_overrides_own_path() -> None:
    chat = Route("openai-chat", "openai")
    assert upstream_url(chat, "/v1/chat/completions", "", None) == (
        "https://api.openai.com/v1/chat/completions"
    )
    gemini = Route("gemini", "google", "g")
    assert upstream_url(gemini, "/v1beta/models/g:streamGenerateContent", "alt=sse", None) == (
        "https://generativelanguage.googleapis.com/v1beta/models/g:streamGenerateContent?alt=sse"
    )
    assert upstream_url(chat, "/v1/chat/completions", "a=1", "http://127.0.0.1:9/openai/") == (
        "http://127.0.0.1:9/openai/v1/chat/completions?a=1"
    )


def test_the_model_comes_from_the_path_for_gemini_and_from_a_json_body_otherwise() -> None:
    chat = Route("openai-chat", "openai")
    assert model_of(chat, b'{"model": "gpt-4o", "stream": true}') == "gpt-4o"
    assert model_of(chat, b"not json") is None
    assert model_of(chat, b'{"model": 5}') is None
    assert model_of(chat, b"[1]") is None
    assert model_of(Route("gemini", "google", "g"), b'{"model": "other"}') == "g"


# -- headers and secrets ----------------------------------------------------------------------


def test_hop_by_hop_host_and_length_headers_stay_behind_and_the_rest_is_the_apps_own() -> None:
    sent = request_headers(
        [(b"Host", b"127.0.0.1:8790"), (b"Connection", b"keep-alive, X-Private"),
         (b"X-Private", b"1"), (b"Keep-Alive", b"5"), (b"TE", b"trailers"),
         (b"Transfer-Encoding", b"chunked"), (b"Content-Length", b"12"),
         (b"Accept-Encoding", b"gzip, br"), (b"Authorization", b"Bearer k"),
         (b"X-Stainless-Lang", b"python")]
    )  # fmt: skip
    assert sent == [
        (b"Accept-Encoding", b"gzip, br"),
        (b"Authorization", b"Bearer k"),
        (b"X-Stainless-Lang", b"python"),
    ]


def test_a_response_keeps_its_encoding_and_length_headers_for_the_bytes_as_sent() -> None:
    raw = [(b"Content-Type", b"text/event-stream"), (b"Content-Encoding", b"gzip"),
           (b"Content-Length", b"99"), (b"Transfer-Encoding", b"chunked"),
           (b"Set-Cookie", b"a=1"), (b"Set-Cookie", b"b=2")]  # fmt: skip
    assert response_headers(raw) == [
        (b"content-type", b"text/event-stream"),
        (b"content-encoding", b"gzip"),
        (b"content-length", b"99"),
        (b"set-cookie", b"a=1"),
        (b"set-cookie", b"b=2"),
    ]


def test_every_credential_of_a_request_is_a_secret_to_scrub() -> None:
    found = SecretSet.for_request(
        headers=[("Authorization", "Bearer sk-live-123456789"), ("x-goog-api-key", "AIzaSyKey123"),
         ("Cookie", "session=abcdef123456; theme=dark"), ("x-custom-token", "tok-987654321"),
         ("content-type", "application/json")],
        url="https://h/p?alt=sse&key=AIzaQueryKey1&access_token=ya29.token",
    ).values  # fmt: skip
    for secret in ("Bearer sk-live-123456789", "sk-live-123456789", "AIzaSyKey123",
                   "abcdef123456", "tok-987654321", "AIzaQueryKey1", "ya29.token"):  # fmt: skip
        assert secret in found
    assert "application/json" not in found and "sse" not in found
    assert list(found) == sorted(found, key=len, reverse=True)


# -- names and the one-line summary ----------------------------------------------


def test_capture_names_are_made_by_the_proxy_never_taken_from_the_request(tmp_path: Path) -> None:
    when = datetime(2026, 12, 1, 3, 0, 0, tzinfo=UTC)
    name = capture_name(7, "openai-chat", "../../etc/passwd\x1b[31m\u202e", when)
    assert name == "00007-openai-chat-etc-passwd-31m-20261201-030000.jsonl"
    assert capture_name(8, "gemini", None, when) == "00008-gemini-unknown-20261201-030000.jsonl"
    assert capture_name(9, "anthropic", "...", when).startswith("00009-anthropic-unknown-")
    assert len(capture_name(1, "gemini", "m" * 500, when)) < 100
    first = create_capture_file(tmp_path, name)
    second = create_capture_file(tmp_path, name)
    assert first.parent == second.parent == tmp_path
    assert second.name == name.removesuffix(".jsonl") + "-2.jsonl"


def test_the_one_line_summary_escapes_what_the_client_controls() -> None:
    log = FlowLog(None)
    request = FlowRequest("POST", "/v1/chat/\x1b[2J", "", [], b"", "http://u/v1/chat/x")
    flow = log.begin(request, Route(None, "openai"), "gpt\u202e\r", [])
    line = flow_line(flow)
    assert "\x1b" not in line and "\u202e" not in line and "\r" not in line
    assert "/v1/chat/\\x1b[2J" in line and "model=gpt\\u202e\\r" in line


# -- the command line --------------------------------------------------------------------------


def test_bad_options_are_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["proxy", "--headless", "--upstream", "ftp://x", "-o", str(tmp_path)]) == 2
    assert "expected an http:// or https:// URL" in capsys.readouterr().err
    assert main(["proxy", "--headless", "--upstream", "http://h:99999", "-o", str(tmp_path)]) == 2
    assert "--upstream http://h:99999: Port out of range" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["proxy", "--headless", "-o", str(blocker / "sub")]) == 2
    assert "cannot create" in capsys.readouterr().err
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert main(["proxy", "--headless", "--port", str(port), "-o", str(tmp_path)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_headless_prints_one_line_per_exchange_and_ctrl_c_exits_130(tmp_path: Path) -> None:
    with serving(ROOT / "captures") as replay:
        command = [sys.executable, "-m", "inspector", "proxy", "--headless", "--port", "0",
                   "--upstream", replay.url, "-o", str(tmp_path)]  # fmt: skip
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
        ) as process:
            assert process.stdout is not None
            first = process.stdout.readline()
            url = first.split()[1]
            assert first.startswith("proxying http://127.0.0.1:")
            for _ in recipe_lines("http://x"):  # the recipe, one line per SDK
                process.stdout.readline()
            response = httpx.post(url + "/v1/messages", json={"model": "text-simple"}, timeout=10)
            assert response.status_code == 200
            line = process.stdout.readline()
            process.send_signal(signal.SIGINT)
            assert process.wait(timeout=20) == 130
    assert line.startswith("#1 POST /v1/messages model=text-simple 200 completed (stop) ")
    capture = Path(line.split("capture=")[1].strip())
    assert capture.parent == tmp_path and load_recording(capture).body == response.content


def test_sigterm_mid_stream_closes_the_capture_as_cancelled_and_exits_130(tmp_path: Path) -> None:
    with EchoUpstream() as upstream:
        command = [sys.executable, "-m", "inspector", "proxy", "--headless", "--port", "0",
                   "--upstream", upstream.url, "-o", str(tmp_path)]  # fmt: skip
        with subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        ) as process:
            assert process.stdout is not None
            url = process.stdout.readline().split()[1]
            with (
                httpx.Client(timeout=10) as client,
                client.stream("POST", url + "/v1/chat/completions", json={"model": "hold"}) as r,
            ):
                chunks = r.iter_raw()
                assert b"first" in next(chunks)
                process.send_signal(signal.SIGTERM)
                with pytest.raises(httpx.TransportError):
                    b"".join(chunks)  # the proxy stopped: not a clean end
            assert process.wait(timeout=20) == 130
    (capture,) = tmp_path.glob("*.jsonl")
    end = load_recording(capture).end
    assert end is not None and (end.reason, end.error) == ("cancelled", "the proxy stopped")


def test_scrubbers_for_the_same_key_share_the_pattern_but_not_the_stream() -> None:
    key = "sk-test-" + "Q9" * 12
    first = SecretSet([("api-key", key)]).scrubber()
    second = SecretSet([("api-key", key)]).scrubber()
    assert first is not second
    assert first.feed(b"data: " + key[:10].encode()) == b"data: "  # may be a key: held back
    assert second.feed(b"no key here\n\n") == b"no key here\n\n"
    assert first.feed(key[10:].encode() + b"\n\n") == b"[redacted]\n\n"
    assert second.flush() == b""


def test_the_final_header_rewrite_does_not_write_through_a_planted_link(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    capture.write_bytes(b'{"type":"header","status":null}\n{"type":"end"}\n')
    victim = tmp_path / "victim"
    victim.write_bytes(b"untouched")
    (tmp_path / "c.jsonl.tmp").symlink_to(victim)
    rewrite_header(capture, {"status": 200})
    assert capture.read_bytes() == (
        b'{"type":"header","format":"llm-stream-capture","version":1,"status":200}\n'
        b'{"type":"end"}\n'
    )
    assert victim.read_bytes() == b"untouched"
