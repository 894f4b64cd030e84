"""Boundary: what ``inspector serve`` sends to a browser, whatever the capture recorded.

A capture is a file anyone may hand over. Its recorded headers must not
make the replay server a web server for someone else: no CORS, cookies,
redirects or caching instructions from the file; a content type from a
fixed set; and every response (errors and refusals too) marked
``nosniff`` with a sandboxing Content-Security-Policy. A capture whose
recorded status cannot carry a body is refused when the server starts,
with the reason — not with a traceback per request.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.serve import load_catalog

from .servers_helpers import CHAT, SMALL, replay_of, write_capture

HOSTILE = {
    "content-type": "text/html; charset=utf-8",
    "access-control-allow-origin": "*",
    "access-control-allow-credentials": "true",
    "set-cookie": "session=stolen; Path=/",
    "location": "https://evil.example/",
    "refresh": "0; url=https://evil.example/",
    "cache-control": "public, max-age=31536000",
    "expires": "Thu, 01 Dec 2094 16:00:00 GMT",
    "etag": '"abc"',
    "content-security-policy": "default-src *",
    "x-content-type-options": "sniff",
    "link": "<https://evil.example/x.js>; rel=preload",
    "retry-after": "7",
    "x-ratelimit-remaining-requests": "99",
    "request-id": "req_123",
}
SAFE_CSP = "sandbox; default-src 'none'; frame-ancestors 'none'"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    root = tmp_path_factory.mktemp("headers")
    write_capture(root / "hostile.jsonl", [SMALL], {"status": 200, "headers": HOSTILE})
    with replay_of(root) as running:
        yield running


def _assert_safe(response: httpx.Response) -> None:
    headers = response.headers
    assert headers["x-content-type-options"] == "nosniff"
    assert headers["content-security-policy"] == SAFE_CSP
    for name in ("access-control-allow-origin", "access-control-allow-credentials",
                 "set-cookie", "location", "refresh", "expires", "etag", "link"):  # fmt: skip
        assert name not in headers, name
    assert headers.get("cache-control") == "no-store"


def test_recorded_cors_cookie_redirect_and_cache_headers_are_not_replayed(served: Any) -> None:
    with httpx.Client(timeout=10) as client:
        response = client.post(served.url + CHAT, json={"model": "hostile"})
    assert response.status_code == 200 and response.content == SMALL
    _assert_safe(response)
    assert response.headers["content-type"] == "text/event-stream"  # not the recorded text/html
    # What API clients read is still replayed.
    assert response.headers["retry-after"] == "7"
    assert response.headers["x-ratelimit-remaining-requests"] == "99"
    assert response.headers["request-id"] == "req_123"


@pytest.mark.parametrize(
    ("method", "path", "headers"),
    [
        ("GET", "/", {}),
        ("POST", CHAT + "?status=429", {}),
        ("POST", CHAT + "?chunk=x", {}),
        ("POST", "/v1/nothing", {}),
        ("POST", CHAT, {"host": "evil.example"}),
        ("POST", CHAT, {"origin": "https://evil.example"}),
    ],
)
def test_every_response_carries_the_safe_headers(
    served: Any, method: str, path: str, headers: dict[str, str]
) -> None:
    with httpx.Client(timeout=10) as client:
        response = client.request(method, served.url + path, json={"model": "hostile"},
                                  headers=headers)  # fmt: skip
    _assert_safe(response)


@settings(max_examples=60, deadline=None)
@given(
    st.from_regex(r"[a-z][a-z0-9-]{0,30}", fullmatch=True),
    st.from_regex(r"[ -~]{0,60}", fullmatch=True),
)
def test_only_the_fixed_content_types_and_listed_headers_are_replayed(
    name: str, value: str
) -> None:
    from inspector.capture import Recording
    from inspector.serve.catalog import Entry
    from inspector.serve.headers import CONTENT_TYPES, REPLAYED, replayed_headers

    rec = Recording("x", "capture", header={"response": {"status": 200, "headers": {
        name: value, "content-type": value}}})  # fmt: skip
    sent = replayed_headers(Entry("x", "openai-chat", Path("x.jsonl"), rec))
    assert sent["content-type"] in CONTENT_TYPES
    for header in sent:
        assert (
            header in REPLAYED
            or header.startswith(("x-ratelimit-", "anthropic-ratelimit-", "openai-"))
            or header in ("content-type", "x-inspector-capture")
        )


@pytest.mark.parametrize("status", [100, 101, 103, 199, 204, 304])
def test_a_capture_whose_status_cannot_carry_a_body_is_refused_at_load_with_the_reason(
    tmp_path: Path, status: int
) -> None:
    write_capture(tmp_path / "bodiless.jsonl", [SMALL], {"status": status, "headers": {}})
    write_capture(tmp_path / "fine.jsonl", [SMALL])
    catalog = load_catalog([tmp_path])
    assert list(catalog.by_provider["openai-chat"]) == ["fine"]
    (reason,) = catalog.skipped
    assert "bodiless.jsonl" in reason and f"status {status}" in reason
    assert "cannot carry a body" in reason or "not an HTTP status" in reason
