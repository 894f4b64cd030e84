"""Class 2 — every source: each credential that enters a request, in every spelling.

A hostile upstream (:mod:`.secrets_upstream`) echoes back every credential
the request carried — the key, header values, each cookie's value, Basic
user and password, URL userinfo, query values, body fields, and a cookie it
set itself — in every spelling docs/security.md claims. Nothing of them may
reach the capture, in live mode or through the proxy.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from inspector.live import LiveFeed, build_request
from inspector.proxy import FlowLog, ProxyServer, ProxySettings
from inspector.redact import SecretSet
from inspector.redact.sources import NOT_SECRET_HEADERS

from .secrets_upstream import SET_COOKIE_VALUE, HostileUpstream, leaks

KEY = "sk-live-" + "Hq8Zr2" * 5
COOKIE = "CookieValue-" + "m4Pq" * 4
TOKEN = "custom-token-" + "Wz5" * 5
USER, PASSWORD = "basic-user-name", "basic-pass-" + "Xy7" * 4
URL_PASSWORD = "url-pass-" + "Lk3" * 4
QUERY = "query-key-" + "Rt6" * 4
BODY = "body-api-key-" + "Np2" * 4


@pytest.fixture(scope="module")
def upstream() -> Iterator[HostileUpstream]:
    with HostileUpstream() as server:
        yield server


def _live(url: str, capture: Path, *, headers: list[tuple[str, str]], key: str | None,
          body: dict[str, object] | None = None) -> LiveFeed:  # fmt: skip
    request = build_request("openai-chat", model="m", prompt=None if body else "hi",
                            base_url=url, headers=headers, api_key=key, body=body)  # fmt: skip
    feed = LiveFeed(request, capture=capture, api_key=key, transport_timeout=10)
    asyncio.run(feed.run(lambda: None))
    return feed


def _everything_shown(feed: LiveFeed, capture: Path) -> str:
    texts = [capture.read_text("utf-8", "replace"), feed.description, str(feed.trace.header)]
    texts += [str(event) for event in feed.trace.events]
    return "\n".join(texts)


def test_live_keeps_every_request_credential_out_in_every_spelling(
    upstream: HostileUpstream, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    headers = [("Cookie", f"sess={COOKIE}; theme=dark"), ("X-Custom-Token", TOKEN)]
    feed = _live(
        f"{upstream.url}/v1?key={QUERY}",
        capture,
        headers=headers,
        key=KEY,
        body={"api_key": BODY, "messages": [{"role": "user", "content": "hi"}]},
    )
    shown = _everything_shown(feed, capture)
    assert "hello" in shown  # the stream itself was recorded
    assert leaks(shown, [KEY, COOKIE, TOKEN, QUERY, BODY, SET_COOKIE_VALUE]) == []


def test_live_keeps_basic_credentials_and_url_userinfo_out(
    upstream: HostileUpstream, tmp_path: Path
) -> None:
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    capture = tmp_path / "basic.jsonl"
    feed = _live(upstream.url + "/v1", capture, headers=[("Authorization", f"Basic {basic}")],
                 key=None)  # fmt: skip
    assert leaks(_everything_shown(feed, capture), [basic, USER, PASSWORD]) == []
    capture = tmp_path / "userinfo.jsonl"
    url = upstream.url.replace("http://", f"http://urluser123:{URL_PASSWORD}@") + "/v1"
    feed = _live(url, capture, headers=[], key=None)
    assert leaks(_everything_shown(feed, capture), [URL_PASSWORD, "urluser123"]) == []


def test_the_proxy_keeps_every_credential_out_in_every_spelling(
    upstream: HostileUpstream, tmp_path: Path
) -> None:
    log = FlowLog(tmp_path)
    with ProxyServer(log, ProxySettings(upstream=upstream.url), port=0) as proxy:
        response = httpx.post(
            f"{proxy.url}/v1/chat/completions?key={QUERY}",
            json={"model": "m", "stream": True, "api_key": BODY},
            headers={"Authorization": f"Bearer {KEY}", "Cookie": f"sess={COOKIE}",
                     "X-Custom-Token": TOKEN},
            timeout=10,
        )  # fmt: skip
    assert KEY.encode() in response.content  # the app gets what the upstream sent
    (flow,) = log.flows
    assert flow.capture is not None
    written = flow.capture.read_text("utf-8", "replace")
    assert "hello" in written
    assert leaks(written, [KEY, COOKIE, TOKEN, QUERY, BODY, SET_COOKIE_VALUE]) == []


TENANT = "tenant-" + "Qv9Ls" * 3  # a header no name rule calls a credential


def test_every_value_the_user_types_as_a_header_is_a_secret_but_how_to_talk() -> None:
    typed = [("X-Tenant", TENANT), ("Accept", "application/json"),
             ("Content-Type", "application/json; charset=utf-8"),
             ("Anthropic-Version", "2023-06-01"), ("X-Trace", "trace-id-77")]  # fmt: skip
    found = SecretSet.for_request(headers=typed, typed=True)
    assert TENANT in found and "trace-id-77" in found
    assert all(v not in found for _, v in typed[1:4])  # how to talk: kept
    # Headers not typed by the user (an app's, through the proxy): by name only.
    assert TENANT not in SecretSet.for_request(headers=typed)
    assert {"accept", "content-type", "user-agent"} <= NOT_SECRET_HEADERS


def test_live_keeps_a_custom_header_value_out_and_records_how_to_talk(
    upstream: HostileUpstream, tmp_path: Path
) -> None:
    capture = tmp_path / "tenant.jsonl"
    headers = [("X-Tenant", TENANT), ("Accept-Language", "en-GB,en;q=0.8")]
    feed = _live(upstream.url + "/v1", capture, headers=headers, key=KEY)
    shown = _everything_shown(feed, capture)
    assert "hello" in shown and leaks(shown, [TENANT, KEY]) == []
    header = orjson.loads(capture.read_bytes().splitlines()[0])["request"]["headers"]
    recorded = {name.lower(): value for name, value in header.items()}
    assert recorded["x-tenant"] == "[redacted]"
    assert recorded["accept-language"] == "en-GB,en;q=0.8"


def test_url_userinfo_never_replaces_the_requests_own_authorization(
    upstream: HostileUpstream, tmp_path: Path
) -> None:
    url = upstream.url.replace("http://", f"http://urluser123:{URL_PASSWORD}@") + "/v1"
    before = len(upstream.seen)
    feed = _live(url, tmp_path / "auth.jsonl", headers=[], key=KEY)
    (seen,) = upstream.seen[before:]
    assert seen["authorization"] == f"Bearer {KEY}"  # ours, exactly: no Basic from the URL
    assert leaks(_everything_shown(feed, tmp_path / "auth.jsonl"), [URL_PASSWORD, KEY]) == []


def test_the_command_line_refuses_base_url_userinfo_and_never_prints_it() -> None:
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "inspector", "record", "--provider", "openai-chat",
         "--model", "m", "--prompt", "hi", "--api-key-env", "NOPE_KEY",
         "--base-url", f"http://me:{URL_PASSWORD}@127.0.0.1:9/v1"],
        capture_output=True, text=True, timeout=60, env={"NOPE_KEY": KEY, "PATH": ""},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "credentials in the URL are not allowed" in result.stderr
    assert URL_PASSWORD not in result.stdout + result.stderr


# -- a value shaped like a secret, in any field of the request -----------------------

SHAPED_KEYS = [
    "AIzaSyD3x4mPl9QwErTy1uIoPaSdFgHjKlZxCvB",  # Google API key
    "sk-proj-T3stOnlyAbCdEfGhIjKlMnOpQrStUvWxYz0123456789",  # OpenAI project key
    "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5",  # GitHub token
]


@pytest.mark.parametrize("key", SHAPED_KEYS)
def test_a_key_sent_as_the_model_is_scrubbed_where_the_server_echoes_it(key: str) -> None:
    # A key pasted into --model reaches the server, whose error names the model.
    body = {"model": key, "messages": [{"role": "user", "content": "hi"}]}
    secrets = SecretSet.for_request(url="https://api.example.com/v1/chat", body=body)
    echo = f'{{"error": {{"message": "The model `{key}` does not exist"}}}}'
    assert key not in secrets.scrubber().scrub_text(echo)


@pytest.mark.parametrize("key", SHAPED_KEYS)
def test_a_key_in_the_url_path_is_scrubbed_where_the_server_echoes_it(key: str) -> None:
    url = f"https://generativelanguage.googleapis.com/v1beta/models/{key}:streamGenerateContent"
    secrets = SecretSet.for_request(url=url)
    assert key not in secrets.scrubber().scrub_text(f"models/{key} is not found")


def test_ordinary_field_values_are_not_secrets() -> None:
    body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hi"}]}
    assert (
        len(SecretSet.for_request(url="https://api.openai.com/v1/chat/completions", body=body)) == 0
    )
