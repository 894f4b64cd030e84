"""Which HTTP headers carry credentials, judged by the shape of their names.

One rule for every place that writes or shows headers — live recording, the
proxy, the exporter — so a header removed by one is never kept by another.
A fixed list cannot keep up with what servers invent (``private-token``,
``x-goog-iam-authorization-token``, ``webhook-signature``), so a name is
split into words and each word is matched against credential stems; a few
words that only look like one (``tokens`` in a rate-limit header, HTTP/2's
``:authority``) are kept readable.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "COUNTING_HEADER",
    "NOT_SECRET_WORDS",
    "SECRET_HEADERS",
    "SECRET_HEADER_WORDS",
    "is_secret_header",
]

#: Headers whose whole value is a secret, whatever their name looks like.
SECRET_HEADERS: Final = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "x-goog-api-key", "api-key",
     "cookie", "set-cookie", "openai-organization", "openai-project",
     "anthropic-organization-id", "x-goog-user-project"}
)  # fmt: skip
#: A header is a credential when any word of its name (between ``-``, ``_``,
#: ``.`` or ``:``) contains one of these stems: ``x-api-key``,
#: ``private-token``, ``www-authenticate``, ``x-csrf-token``,
#: ``x-amz-security-token``, ``webhook-signature``, ``cookie2``…
SECRET_HEADER_WORDS: Final = re.compile(
    r"auth|token|key$|secret|passw|passphrase|cookie|session|credential|signature|"
    r"^sig$|csrf|xsrf|jwt|bearer|private|hmac|otp$"
)
#: Words that look like a stem above but name a count, a limit or a host:
#: ``x-ratelimit-remaining-tokens``, ``anthropic-ratelimit-output-tokens-reset``,
#: the HTTP/2 ``:authority``.
NOT_SECRET_WORDS: Final = re.compile(r"tokens|authority|author|keys?-?count|monkey|turkey")
#: A header about rate limits holds counts and times, never a credential.
COUNTING_HEADER: Final = re.compile(r"rate-?limit")
_HEADER_WORD_SPLIT: Final = re.compile(r"[-_.:\s]+")


def is_secret_header(name: str) -> bool:
    """Whether a header's value is a credential, judged by the shape of its name."""
    lowered = name.strip().lower()
    if lowered in SECRET_HEADERS:
        return True
    if COUNTING_HEADER.search(lowered):
        return False
    return any(
        SECRET_HEADER_WORDS.search(word) and not NOT_SECRET_WORDS.fullmatch(word)
        for word in _HEADER_WORD_SPLIT.split(lowered)
    )
