"""Which names hold a credential: one rule for headers, query parameters, cookies
and JSON fields.

A fixed list cannot keep up with what servers and SDKs invent
(``private-token``, ``x-goog-iam-authorization-token``, ``webhook-signature``,
``clientSecret``, ``X-Amz-Security-Token``), so a name is judged by its
*shape*:

1. The name is split into words at ``-``, ``_``, ``.``, ``:``, ``/``, spaces
   and lower-to-upper case changes (``apiKey`` -> ``api``, ``key``), and
   lower-cased.
2. A name whose *last* word describes a credential rather than being one
   (:data:`DESCRIBING_WORDS`: ``token_type``, ``key_count``,
   ``x-ratelimit-limit-tokens``…) or that speaks of rate limits is not a
   credential.
3. Otherwise it is one when any word is a credential word:
   * it **contains** one of :data:`STEMS` (``auth`` in ``authorization`` or
     ``oauth``, ``token`` in ``access_token``, ``secret``, ``passw``,
     ``credential``, ``cookie``, ``session``, ``signature``, ``csrf``…), unless
     the word is one of the look-alikes in :data:`LOOK_ALIKES` (``tokens``,
     ``author``, ``authority``, ``tokenizer``);
   * or it **ends in** ``key`` (``key``, ``apikey``, ``accesskey``; not the
     look-alikes ``monkey``, ``turkey``…);
   * or it **is** one of the short words in :data:`SHORT_WORDS` (``sig``,
     ``pwd``, ``pass``, ``otp``, ``pin``, ``sid``), which inside a longer word
     would match ordinary names.

Headers that identify the account (:data:`ACCOUNT_HEADERS`: ``openai-organization``…)
are removed as well, though they are not keys.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "ACCOUNT_HEADERS",
    "DESCRIBING_WORDS",
    "LOOK_ALIKES",
    "SHORT_WORDS",
    "STEMS",
    "is_credential_name",
    "is_secret_header",
    "name_words",
]

#: A word containing one of these is a credential word.
STEMS: Final = ("auth", "token", "secret", "passw", "passphrase", "passcode", "credential",
                "cookie", "session", "signature", "csrf", "xsrf", "jwt", "bearer", "hmac",
                "apikey", "privatekey")  # fmt: skip
#: Whole words only: as part of a longer word they are ordinary (``design``, ``passage``).
SHORT_WORDS: Final = frozenset({"sig", "pwd", "pass", "otp", "pin", "sid", "key"})
#: Words that contain a stem but name something else.
LOOK_ALIKES: Final = re.compile(
    r"tokens|tokeni[sz]\w*|author(?!i[sz])\w*|authors?|monkeys?|turkeys?|donkeys?|hockey|"
    r"whiskey|jockeys?|hotkeys?|turnkey"
)
#: A last word that says what kind of credential, or how many: the value is not one.
DESCRIBING_WORDS: Final = frozenset({"type", "types", "kind", "count", "counts", "limit",
                                     "limits", "usage", "length", "len", "size", "format",
                                     "name", "names", "expires", "expiry", "ttl", "remaining",
                                     "reset", "used", "max", "min", "details", "budget",
                                     "encoding", "hint", "url", "uri", "endpoint"})  # fmt: skip
#: Names that speak of rate limits hold counts and times.
_RATE_LIMIT: Final = re.compile(r"rate-?_?limit", re.IGNORECASE)
#: Headers that identify the account or project rather than authenticate it.
ACCOUNT_HEADERS: Final = frozenset(
    {"openai-organization", "openai-project", "anthropic-organization-id", "x-goog-user-project"}
)

_CAMEL: Final = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT: Final = re.compile(r"[^A-Za-z0-9]+")


def name_words(name: str) -> list[str]:
    """``X-Api-Key`` -> ``["x", "api", "key"]``; ``clientSecret`` -> ``["client", "secret"]``."""
    return [w for w in _SPLIT.split(_CAMEL.sub("_", name.strip()).lower()) if w]


def _credential_word(word: str) -> bool:
    if LOOK_ALIKES.fullmatch(word):
        return False
    if word in SHORT_WORDS or word.endswith("key"):
        return True
    return any(stem in word for stem in STEMS)


def is_credential_name(name: str) -> bool:
    """Whether a header, query parameter, cookie or JSON field named ``name`` holds a
    credential (the rule in the module docstring)."""
    words = name_words(name)
    if not words or words[-1] in DESCRIBING_WORDS or _RATE_LIMIT.search(name):
        return False
    return any(_credential_word(word) for word in words)


def is_secret_header(name: str) -> bool:
    """Whether a header's value must not be recorded: a credential, or the account's id."""
    return name.strip().lower() in ACCOUNT_HEADERS or is_credential_name(name)
