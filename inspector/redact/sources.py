"""Where credentials enter: every value of a request (or a response) that is one.

Each function reads one kind of place and yields ``(kind, value)`` pairs;
:class:`~inspector.redact.secretset.SecretSet` collects them. The kinds name
the source (``header:authorization``, ``basic-password``, ``cookie``,
``query:key``, ``body:api_key``, ``url-userinfo``, ``set-cookie``, ``env:NAME``),
never the value. Which names are credentials is :mod:`.names`' one rule.

* **headers**: the whole value of a credential header; its token after the
  scheme (``Bearer sk-…``); for ``Basic``, the base64 text, the decoded
  ``user:password``, the user and the password; every cookie's value in
  ``Cookie`` (whatever the cookie is called) and the value ``Set-Cookie`` sets;
* **headers the user typed** (``--header``): every value, whatever the header
  is called, except the few that only say how to talk
  (:data:`NOT_SECRET_HEADERS`: ``Accept``, ``Content-Type``, ``User-Agent``…);
* **URLs**: the userinfo (user and password, raw and percent-decoded) and the
  value of every credential-named query parameter;
* **bodies**: the string value of every credential-named field of a JSON body
  (at any depth), and of every credential-named pair of a form body;
* **the environment**: the value of every variable whose name is a credential
  name (``OPENAI_API_KEY``, ``AWS_SECRET_ACCESS_KEY``…).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final
from urllib.parse import parse_qsl, unquote, urlsplit

import orjson

from .names import is_credential_name, is_secret_header, name_words
from .shapes import SECRET_RULES, find_secrets

__all__ = [
    "NOT_SECRET_HEADERS",
    "Found",
    "body_secrets",
    "environ_secrets",
    "header_secrets",
    "typed_header_secrets",
    "url_secrets",
    "value_secrets",
]

Found = Iterator[tuple[str, str]]

#: Fields walked in one JSON body at most (a body is the app's or a file's: bounded).
_MAX_NODES: Final = 200_000
#: Bodies longer than this are not parsed for credential fields.
_MAX_BODY: Final = 32 * 1024 * 1024


def _basic(kind: str, token: str) -> Found:
    """``Basic <base64>``: the base64, and what it decodes to, whole and in parts."""
    try:
        decoded = base64.b64decode(token.strip(), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return
    yield kind, decoded
    user, colon, password = decoded.partition(":")
    if colon:
        yield "basic-user", user
        yield "basic-password", password


def _cookies(kind: str, value: str) -> Found:
    """Each cookie's value in a ``Cookie`` header (``a=1; b=2``)."""
    for pair in value.split(";"):
        _, eq, cookie = pair.partition("=")
        if eq:
            yield kind, cookie.strip().strip('"')
            yield kind, unquote(cookie.strip().strip('"'))


def value_secrets(name: str, value: str) -> Found:
    """The credentials one header of this name and value carries (see the module docstring)."""
    lowered = name.strip().lower()
    if not value.strip():
        return
    if lowered == "set-cookie":
        # "name=value; Path=/; HttpOnly": only the value is the credential.
        first = value.split(";", 1)[0]
        yield from _cookies("set-cookie", first)
        return
    if lowered in ("cookie", "cookie2"):
        yield from _cookies("cookie", value)
        return
    if not is_secret_header(lowered):
        return
    kind = f"header:{lowered}"
    yield kind, value.strip()
    scheme, _, token = value.strip().partition(" ")
    if token.strip():
        yield kind, token.strip()
        if scheme.lower() == "basic":
            yield from _basic(kind, token)


def header_secrets(headers: Iterable[tuple[str, str]] | Mapping[str, str]) -> Found:
    """Every credential in a list (or mapping) of headers."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers
    for name, value in pairs:
        if isinstance(name, str) and isinstance(value, str):
            yield from value_secrets(name, value)


#: Headers whose values say how to talk, never who is talking: a header the user
#: types (``--header``) is a secret unless it is one of these. Kept short on purpose.
NOT_SECRET_HEADERS: Final = frozenset({
    "accept", "accept-charset", "accept-encoding", "accept-language", "cache-control",
    "connection", "content-encoding", "content-length", "content-type", "host", "pragma",
    "user-agent", "anthropic-version", "anthropic-beta", "openai-beta",
})  # fmt: skip


def typed_header_secrets(headers: Iterable[tuple[str, str]] | Mapping[str, str]) -> Found:
    """Every value of headers the user typed (``--header``), whatever the name says,
    except :data:`NOT_SECRET_HEADERS`; credential headers and cookies taken apart as
    :func:`header_secrets` does."""
    pairs = list(headers.items() if isinstance(headers, Mapping) else headers)
    yield from header_secrets(pairs)
    for name, value in pairs:
        if isinstance(name, str) and isinstance(value, str):
            lowered = name.strip().lower()
            if lowered not in NOT_SECRET_HEADERS and value.strip():
                yield f"header:{lowered}", value.strip()


def _query_pairs(query: str) -> Found:
    for name, value in parse_qsl(query, keep_blank_values=True):
        if value and is_credential_name(name):
            yield f"query:{name.lower()}", value


def url_secrets(url: str) -> Found:
    """The userinfo of ``url`` (user, password; raw and percent-decoded) and its
    credential query values."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    userinfo, at, _ = parts.netloc.rpartition("@")
    if at and userinfo:
        user, _, password = userinfo.partition(":")
        for value in (userinfo, user, password):
            if value:
                yield "url-userinfo", value
                yield "url-userinfo", unquote(value)
    yield from _query_pairs(parts.query)
    yield from _shaped(unquote(parts.path))  # a key sent as the model in the path


def _json_fields(value: Any) -> Found:
    """Credential-named string fields anywhere in a parsed JSON value (bounded walk)."""
    stack = [value]
    seen = 0
    while stack and seen < _MAX_NODES:
        item = stack.pop()
        seen += 1
        if isinstance(item, Mapping):
            for key, inner in item.items():
                if isinstance(inner, str) and isinstance(key, str) and is_credential_name(key):
                    yield f"body:{key.lower()}", inner
                elif isinstance(inner, str):
                    yield from _shaped(inner)
                elif isinstance(inner, Mapping | list):
                    stack.append(inner)
        elif isinstance(item, list):
            for inner in item:
                if isinstance(inner, str):
                    yield from _shaped(inner)
                else:
                    stack.append(inner)


def _shaped(value: str) -> Found:
    """The secrets a value of any field holds by their shape (a key sent as ``model``
    is echoed in the server's error about that model)."""
    for match in find_secrets(value, SECRET_RULES):
        yield f"body-shape:{match.rule}", value[match.start : match.end]


def body_secrets(body: Any) -> Found:
    """Credential fields of a request body: JSON (bytes, text or parsed) or a form."""
    if isinstance(body, bytes | bytearray | memoryview):
        data = bytes(body)
        if len(data) > _MAX_BODY:
            return
        try:
            parsed = orjson.loads(data)
        except orjson.JSONDecodeError:
            text = data.decode("utf-8", "replace")
            if "=" in text and "\n" not in text.strip():
                yield from _query_pairs(text)  # application/x-www-form-urlencoded
            return
        yield from _json_fields(parsed)
    elif isinstance(body, str):
        yield from body_secrets(body.encode("utf-8", "surrogatepass"))
    else:
        yield from _json_fields(body)


#: An environment variable is a key when its name ends in one of these words
#: (``OPENAI_API_KEY``, ``GITHUB_TOKEN``, ``AWS_SECRET_ACCESS_KEY``) — not merely
#: when a word says "session" or "auth" (``XDG_SESSION_ID``, ``SSH_AUTH_SOCK``).
_ENV_LAST_WORDS: Final = frozenset({"key", "token", "secret", "password", "passwd", "pass",
                                    "pwd", "credentials", "credential", "apikey"})  # fmt: skip


#: Credential variables whose name ends in another word: Bedrock's API key.
_ENV_NAMES: Final = frozenset({"AWS_BEARER_TOKEN_BEDROCK"})


def environ_secrets(environ: Mapping[str, str]) -> Found:
    """Values of environment variables named like keys (see :data:`_ENV_LAST_WORDS`),
    and of :data:`_ENV_NAMES`."""
    for name, value in environ.items():
        if value and name in _ENV_NAMES:
            yield f"env:{name}", value
            continue
        words = name_words(name)
        if value and words and words[-1] in _ENV_LAST_WORDS and is_credential_name(name):
            yield f"env:{name}", value
