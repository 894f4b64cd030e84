"""Export judges a header by the shape of its name: credentials go, counts stay readable.

A fixed list of header names always misses the next provider's or proxy's
credential header. Any name with a credential word in it — ``token``,
``auth…``, ``key``, ``secret``, ``signature``, ``cookie``, ``session``,
``csrf`` … — has its value removed, in the request and in the response; a
header about rate limits (``x-ratelimit-remaining-tokens``) or timing stays
readable.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from inspector.capture_writer import CaptureWriter
from inspector.export import ExportOptions, export_capture
from inspector.redact.shapes import header_rule

CREDENTIAL_HEADERS = [
    "x-api-token", "private-token", "x-access-key", "x-auth", "X-Auth",
    "x-goog-iam-authorization-token", "www-authenticate", "proxy-authenticate",
    "x-amz-security-token", "x-csrf-token", "x-xsrf-token", "x-client-secret",
    "x-hub-signature", "stripe-signature", "webhook-signature", "cookie", "set-cookie",
    "cookie2", "x-session", "x-refresh-token", "x_api_key", "authorization",
    "proxy-authorization", "x-goog-api-key", "api-key", "x-jwt-assertion", "x-password",
    "openai-organization", "openai-project", "anthropic-organization-id",
]  # fmt: skip
READABLE_HEADERS = [
    "x-ratelimit-remaining-tokens", "x-ratelimit-limit-tokens",
    "anthropic-ratelimit-output-tokens-reset", "anthropic-ratelimit-input-tokens-remaining",
    "openai-processing-ms", "content-type", "openai-version", "anthropic-version",
    "cache-control", "keep-alive", "x-envoy-upstream-service-time", "server",
]  # fmt: skip


def value_for(name: str) -> str:
    """A distinct, secret-looking-or-not value for each header (16+ chars)."""
    return "v4lue-of-" + name.lower().replace("_", "-") + "-0123456789"


def capture_with_headers(path: Path, names: list[str]) -> Path:
    headers = {name: value_for(name) for name in names}
    header = {
        "provider": "openai-chat",
        "endpoint": "/v1/chat/completions",
        "request": {"url": "https://api.example.com/v1/chat/completions", "headers": headers},
        "response": {"status": 200, "headers": [[n, v] for n, v in headers.items()]},
    }
    writer = CaptureWriter(path, header)
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "m"}
    for delta, finish in (({"role": "assistant", "content": "hi"}, None), ({}, "stop")):
        frame = {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
        writer.chunk(0.0, b"data: " + json.dumps(frame).encode() + b"\n\n")
    writer.chunk(0.0, b"data: [DONE]\n\n")
    writer.end("eof", 0.1)
    return path


@pytest.mark.parametrize("name", CREDENTIAL_HEADERS)
def test_a_header_named_like_a_credential_is_a_secret(name: str) -> None:
    assert header_rule(name) == "secret"


def test_export_removes_every_credential_header_value_and_keeps_the_others(
    tmp_path: Path,
) -> None:
    source = capture_with_headers(tmp_path / "in.jsonl", CREDENTIAL_HEADERS + READABLE_HEADERS)
    result = export_capture(source, tmp_path / "out", ExportOptions(pytest=True))
    outputs = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "out").iterdir())
    leaked = [name for name in CREDENTIAL_HEADERS if value_for(name) in outputs]
    assert leaked == []
    lost = [name for name in READABLE_HEADERS if value_for(name) not in outputs]
    assert lost == []
    header = json.loads((tmp_path / "out" / "in.jsonl").read_text().splitlines()[0])
    assert {v for n, v in header["request"]["headers"].items() if n in CREDENTIAL_HEADERS} == {
        "[redacted]"
    }
    assert result.report["removed"]["header:x-api-token"] == 2  # request and response
