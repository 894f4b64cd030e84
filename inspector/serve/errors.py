"""Error responses shaped the way each provider shapes them.

Used for the ``status=`` fault and for the server's own refusals (no such
capture, a request body that is not JSON), so a client under test parses
them exactly as it would parse the real provider's.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["RETRY_AFTER_STATUSES", "error_body", "error_headers"]

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


#: status -> the exception name Bedrock puts in ``x-amzn-errortype`` (botocore's error code).
BEDROCK_ERRORS: Final[dict[int, str]] = {
    400: "ValidationException",
    401: "UnrecognizedClientException",  # a key or signature it does not know
    403: "AccessDeniedException",
    404: "ResourceNotFoundException",
    408: "ModelTimeoutException",
    424: "ModelErrorException",
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
    529: "ServiceUnavailableException",  # (Anthropic's "overloaded": Bedrock's own word)
}
_BEDROCK: Final = frozenset({"bedrock-converse", "bedrock-invoke"})
#: Providers whose error body is ``{"message": ...}`` (Bedrock, Cohere v2).
_MESSAGE_ONLY: Final = _BEDROCK | {"cohere"}
#: Providers whose error body is ``{"error": "text"}`` (Ollama; an AI SDK route's own).
_ERROR_TEXT: Final = frozenset({"ollama", "ai-sdk-ui"})


def _bedrock_error(status: int) -> str:
    if status in BEDROCK_ERRORS:
        return BEDROCK_ERRORS[status]
    return BEDROCK_ERRORS[500] if status >= 500 else BEDROCK_ERRORS[400]


def error_headers(provider: str, status: int) -> dict[str, str]:
    """Headers a client reads its error from (Bedrock's ``x-amzn-errortype``), if any."""
    if provider in _BEDROCK:
        return {"x-amzn-errortype": f"{_bedrock_error(status)}:http://internal.amazon.com/"}
    return {}


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
    if provider in _MESSAGE_ONLY:
        return {"message": text}
    if provider in _ERROR_TEXT:
        return {"error": text}
    return {"error": {"message": text, "type": openai_type, "param": None, "code": openai_code}}
