"""Error categories of the contract, and the tables that map provider codes to them.

Every non-successful end of a stream carries ``error: {category, retryable,
provider_code, message}``. The category is ours; ``provider_code`` is the
provider's own word for it. The tables here are shared by every adapter and
by live mode, so that an ``overloaded_error`` event, an HTTP 529 and a Gemini
``UNAVAILABLE`` all land in the same category.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = [
    "CATEGORIES",
    "DETAIL_REASON_CATEGORY",
    "HTTP_STATUS_CATEGORY",
    "PROVIDER_CODE_CATEGORY",
    "RETRYABLE",
    "category_for",
    "detail_category",
    "error_object",
]

CATEGORIES: Final = (
    "upstream_overloaded",
    "rate_limited",
    "quota_exceeded",
    "authentication",
    "permission",
    "invalid_request",
    "not_found",
    "context_length",
    "content_filter",
    "server_error",
    "protocol_error",
    "transport",
    "progress_timeout",
    "cancelled",
    "unknown",
)

RETRYABLE: Final = frozenset(
    {"upstream_overloaded", "rate_limited", "server_error", "transport", "progress_timeout"}
)

# The provider's own error codes / types / statuses, lower-cased.
PROVIDER_CODE_CATEGORY: Final[dict[str, str]] = {
    # Anthropic error types
    "overloaded_error": "upstream_overloaded",
    "rate_limit_error": "rate_limited",
    "api_error": "server_error",
    "authentication_error": "authentication",
    "permission_error": "permission",
    "not_found_error": "not_found",
    "invalid_request_error": "invalid_request",
    "request_too_large": "invalid_request",
    "billing_error": "quota_exceeded",
    "timeout_error": "server_error",
    # OpenAI codes and types
    "insufficient_quota": "quota_exceeded",
    "rate_limit_exceeded": "rate_limited",
    "context_length_exceeded": "context_length",
    "string_above_max_length": "context_length",
    "server_error": "server_error",
    "server_is_overloaded": "upstream_overloaded",
    "slow_down": "upstream_overloaded",
    "invalid_api_key": "authentication",
    "invalid_prompt": "invalid_request",
    "content_filter": "content_filter",
    "content_policy_violation": "content_filter",
    "model_not_found": "not_found",
    "vector_store_timeout": "server_error",
    "tool_use_failed": "invalid_request",
    # OpenAI Responses `response.error.code` values
    "image_content_policy_violation": "content_filter",
    "bio_policy": "content_filter",
    "misalignment_policy_violation": "content_filter",
    "data_residency_mismatch": "invalid_request",
    "invalid_image": "invalid_request",
    "invalid_image_format": "invalid_request",
    "invalid_base64_image": "invalid_request",
    "invalid_image_url": "invalid_request",
    "image_too_large": "invalid_request",
    "image_too_small": "invalid_request",
    "image_parse_error": "invalid_request",
    "invalid_image_mode": "invalid_request",
    "image_file_too_large": "invalid_request",
    "unsupported_image_media_type": "invalid_request",
    "empty_image_file": "invalid_request",
    "failed_to_download_image": "invalid_request",
    "image_file_not_found": "invalid_request",
    # Google RPC statuses
    "resource_exhausted": "rate_limited",
    "unavailable": "upstream_overloaded",
    "internal": "server_error",
    "invalid_argument": "invalid_request",
    "failed_precondition": "invalid_request",
    "permission_denied": "permission",
    "unauthenticated": "authentication",
    "not_found": "not_found",
    "deadline_exceeded": "server_error",
}

HTTP_STATUS_CATEGORY: Final[dict[int, str]] = {
    400: "invalid_request",
    401: "authentication",
    402: "quota_exceeded",
    403: "permission",
    404: "not_found",
    408: "server_error",
    409: "invalid_request",
    413: "invalid_request",
    422: "invalid_request",
    429: "rate_limited",
    500: "server_error",
    502: "server_error",
    503: "upstream_overloaded",
    504: "server_error",
    529: "upstream_overloaded",
}


# A provider's detailed reason, which refines the category of its code (v1.1).
# Google: ``error.details[].reason`` of an ``ErrorInfo`` (a 400 INVALID_ARGUMENT
# whose reason is API_KEY_INVALID is a bad key, not a bad request);
# https://cloud.google.com/apis/design/errors#error_info
DETAIL_REASON_CATEGORY: Final[dict[str, str]] = {
    "api_key_invalid": "authentication",
    "api_key_expired": "authentication",
    "access_token_expired": "authentication",
    "access_token_scope_insufficient": "permission",
    "api_key_service_blocked": "permission",
    "api_key_http_referrer_blocked": "permission",
    "api_key_ip_address_blocked": "permission",
    "service_disabled": "permission",
    "consumer_suspended": "permission",
    "billing_disabled": "quota_exceeded",
    "rate_limit_exceeded": "rate_limited",
    "resource_exhausted": "rate_limited",
    "location_not_supported": "permission",
    "user_location_invalid": "permission",
}


def detail_category(details: object) -> str | None:
    """The category a Google ``details[]`` list's ``reason`` names, if any."""
    if not isinstance(details, list):
        return None
    for detail in details:
        reason = detail.get("reason") if isinstance(detail, dict) else None
        if isinstance(reason, str):
            found = DETAIL_REASON_CATEGORY.get(reason.lower())
            if found is not None:
                return found
    return None


def category_for(code: object = None, status: int | None = None) -> str:
    """The contract category for a provider code and/or an HTTP status.

    The code wins when it is known (a 429 with ``insufficient_quota`` is a
    quota problem, not a rate limit); then the status; else ``unknown``.
    """
    if isinstance(code, str):
        found = PROVIDER_CODE_CATEGORY.get(code.lower())
        if found is not None:
            return found
    if isinstance(code, int) and status is None:
        status = code
    if status is not None:
        if status in HTTP_STATUS_CATEGORY:
            return HTTP_STATUS_CATEGORY[status]
        if 500 <= status < 600:
            return "server_error"
        if 400 <= status < 500:
            return "invalid_request"
    return "unknown"


def error_object(category: str, provider_code: Any, message: str) -> dict[str, Any]:
    """The ``error`` field of a ``stream.error`` event."""
    return {
        "category": category,
        "retryable": category in RETRYABLE,
        "provider_code": provider_code,
        "message": message,
    }
