"""Error responses shaped the way each provider shapes them.

Used for the ``status=`` fault and for the server's own refusals (no such
capture, a request body that is not JSON), so a client under test parses
them exactly as it would parse the real provider's.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["RETRY_AFTER_STATUSES", "error_body"]

# status -> (Anthropic error type, OpenAI error type, OpenAI code, Google RPC status)
ERROR_SHAPES: Final[dict[int, tuple[str, str, str | None, str]]] = {
    400: ("invalid_request_error", "invalid_request_error", None, "INVALID_ARGUMENT"),
    401: ("authentication_error", "invalid_request_error", "invalid_api_key", "UNAUTHENTICATED"),
    403: ("permission_error", "invalid_request_error", "unsupported_country_region_territory",
          "PERMISSION_DENIED"),
    404: ("not_found_error", "invalid_request_error", "model_not_found", "NOT_FOUND"),
    413: ("request_too_large", "invalid_request_error", "request_too_large", "INVALID_ARGUMENT"),
    429: ("rate_limit_error", "requests", "rate_limit_exceeded", "RESOURCE_EXHAUSTED"),
    500: ("api_error", "server_error", "server_error", "INTERNAL"),
    503: ("overloaded_error", "server_error", "server_is_overloaded", "UNAVAILABLE"),
    529: ("overloaded_error", "server_error", "server_is_overloaded", "UNAVAILABLE"),
}  # fmt: skip

#: Statuses whose response carries a ``retry-after`` header.
RETRY_AFTER_STATUSES: Final = frozenset({429, 503, 529})

_DEFAULT_MESSAGES: Final[dict[int, str]] = {
    400: "Invalid request.",
    401: "Invalid API key.",
    403: "Not allowed.",
    404: "The model does not exist.",
    413: "Request exceeds the maximum size.",
    429: "Rate limit reached. Please try again later.",
    500: "Internal server error.",
    503: "The service is temporarily unavailable.",
    529: "Overloaded",
}


def _shape(status: int) -> tuple[str, str, str | None, str]:
    if status in ERROR_SHAPES:
        return ERROR_SHAPES[status]
    return ERROR_SHAPES[500] if status >= 500 else ERROR_SHAPES[400]


def error_body(provider: str, status: int, message: str | None = None) -> dict[str, Any]:
    """The JSON error body ``provider`` sends with HTTP ``status``."""
    anthropic_type, openai_type, openai_code, google_status = _shape(status)
    text = message or _DEFAULT_MESSAGES.get(status, f"HTTP {status}")
    if provider == "anthropic":
        return {"type": "error", "error": {"type": anthropic_type, "message": text}}
    if provider == "gemini":
        return {"error": {"code": status, "message": text, "status": google_status}}
    return {"error": {"message": text, "type": openai_type, "param": None, "code": openai_code}}
