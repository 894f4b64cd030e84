"""HTTP error bodies that carry no ``error`` object still say what went wrong.

OpenAI, Anthropic and Google wrap an error in ``{"error": {...}}``; Ollama
sends ``{"error": "text"}``, Bedrock and Cohere ``{"message": ...}`` — Bedrock
naming its error code only in the ``x-amzn-errortype`` header (or ``__type``).
The message is the provider's own words, the code the provider's, and the
category comes from that code where it is known, else from the status.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.normalizer import Normalizer


def error_of(provider: str, status: int, body: Any, error_type: str | None = None) -> Any:
    raw = body if isinstance(body, bytes) else orjson.dumps(body)
    trace = Normalizer(provider, "st_e").fail_http(status, raw, error_type)
    (event,) = [e for e in trace.events if e["type"] == "stream.error"]
    return event["error"]


@pytest.mark.parametrize(
    ("provider", "status", "body", "error_type", "expected"),
    [
        ("ollama", 404, {"error": "model 'llama9' not found"}, None,
         ("not_found", 404, "HTTP 404: model 'llama9' not found")),
        ("cohere", 429, {"id": "x", "message": "You are using a Trial key"}, None,
         ("rate_limited", 429, "HTTP 429: You are using a Trial key")),
        ("bedrock-converse", 400, {"message": "Too many tokens per day"},
         "ServiceQuotaExceededException:http://internal.amazon.com/coral/",
         ("quota_exceeded", "ServiceQuotaExceededException", "HTTP 400: Too many tokens per day")),
        ("bedrock-converse", 429, {"message": "Too many requests"}, "ThrottlingException",
         ("rate_limited", "ThrottlingException", "HTTP 429: Too many requests")),
        ("bedrock-titan", 403, {"__type": "com.amazon.coral#AccessDeniedException",
                                "Message": "not authorized"}, None,
         ("permission", "AccessDeniedException", "HTTP 403: not authorized")),
    ],
)  # fmt: skip
def test_a_flat_error_body_gives_its_message_code_and_category(
    provider: str, status: int, body: Any, error_type: str | None, expected: tuple[Any, ...]
) -> None:
    error = error_of(provider, status, body, error_type)
    assert (error["category"], error["provider_code"], error["message"]) == expected


def test_the_capture_headers_error_type_is_read_when_none_is_given() -> None:
    header = {"response": {"status": 400, "headers": {"X-Amzn-ErrorType": "ValidationException"}}}
    normalizer = Normalizer("bedrock-converse", "st_e", header=header)
    trace = normalizer.fail_http(400, b'{"message":"The model id is invalid"}')
    error = trace.events[-1]["error"]
    assert (error["category"], error["provider_code"]) == ("invalid_request", "ValidationException")


@given(message=st.text(min_size=1, max_size=60), status=st.integers(400, 599))
def test_any_flat_message_is_kept_and_categorized_by_status(message: str, status: int) -> None:
    error = error_of("ollama", status, {"error": message})
    assert error["message"] == f"HTTP {status}: {message}"
    assert error["provider_code"] == status
    assert error["category"] != "unknown"
