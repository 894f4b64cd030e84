"""Class 1 — one owner: every boundary asks ``inspector.redact`` what a secret is.

The old per-boundary lists (live mode's, export's, the proxy's, the header
list) are gone; one name rule judges headers, query parameters, cookies and
JSON fields alike, whatever the spelling of the name.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import inspector
from inspector.export.ledger import Context, Ledger
from inspector.export.pseudonyms import Pseudonymizer
from inspector.export.request import anonymize_header
from inspector.redact import REDACTED, SecretSet, is_credential_name, redact_headers, redact_url

#: Credential words as the brief and real APIs write them.
CREDENTIAL_WORDS = ["api_key", "apikey", "x-api-key", "client_secret", "password", "passwd",
                    "token", "access_token", "refresh_token", "secret", "sig", "signature", "key",
                    "auth", "authorization", "x-auth-token", "private-token", "session_id",
                    "X-Amz-Security-Token", "X-Goog-Signature", "csrf_token", "id_token",
                    "pwd", "subscription-key", "Ocp-Apim-Subscription-Key",
                    "webhook-signature"]  # fmt: skip
#: Names that look like one but hold counts, kinds or ordinary words.
ORDINARY_NAMES = ["max_tokens", "prompt_tokens", "completion_tokens", "token_type", "author",
                  ":authority", "x-ratelimit-remaining-tokens", "monkey", "keys", "design",
                  "passage", "content-type", "model", "stream", "temperature", "key_count",
                  "tokenizer", "anthropic-ratelimit-output-tokens-reset"]  # fmt: skip


@pytest.mark.parametrize(
    "module", ["live/secrets.py", "export/secrets.py", "credentials.py", "live/scrub.py"]
)
def test_the_separate_lists_are_gone(module: str) -> None:
    # (Looked for as files: an editable install may still map an old module name.)
    assert not (Path(inspector.__file__).parent / module).exists()


def test_the_proxy_keeps_no_list_of_its_own() -> None:
    headers = importlib.import_module("inspector.proxy.headers")
    assert not hasattr(headers, "request_secrets") and not hasattr(headers, "SECRET_QUERY")


def _styles(words: list[str]) -> list[str]:
    camel = words[0] + "".join(w.capitalize() for w in words[1:])
    return ["_".join(words), "-".join(words), camel, "_".join(words).upper(), ".".join(words)]


@given(
    prefix=st.lists(st.sampled_from(["x", "my", "client", "api", "upstream", "goog"]), max_size=2),
    stem=st.sampled_from(["key", "token", "secret", "password", "signature", "credential",
                          "apikey", "auth", "passwd", "sig", "cookie", "session"]),
)  # fmt: skip
def test_a_credential_word_in_any_spelling_of_a_name_is_a_credential(
    prefix: list[str], stem: str
) -> None:
    for name in _styles([*prefix, stem]):
        assert is_credential_name(name), name


@pytest.mark.parametrize("name", CREDENTIAL_WORDS)
def test_every_boundary_removes_a_credential_name_alike(name: str) -> None:
    value = "Vv9-credential-value-77"
    # as a header (live, proxy, import), a query parameter, a JSON field, a cookie
    assert redact_headers({name: value})[name] == REDACTED
    assert value not in redact_url(f"https://h/p?{name}={value}&alt=sse")
    assert value in SecretSet.for_request(body={"nested": {name: value}}).values
    assert value in SecretSet.for_request(headers=[("Cookie", f"{name}={value}")]).values
    # and export, on a capture header that still holds it
    ctx = Context(Pseudonymizer(b"k" * 16))
    out = anonymize_header({"request": {"headers": {name: value},
                                        "url": f"https://h/?{name}={value}"}}, ctx)  # fmt: skip
    assert value not in str(out)
    assert Ledger is type(ctx.ledger)


@pytest.mark.parametrize("name", ORDINARY_NAMES)
def test_names_about_counts_kinds_and_words_stay_readable(name: str) -> None:
    assert not is_credential_name(name)
