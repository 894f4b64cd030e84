"""Anonymizing the capture's header record: the request, the response headers.

The header is one JSON line, not part of the timed stream, so its values may
change length. What happens to it:

* credential headers (:mod:`inspector.redact.names`) (``authorization``, ``x-api-key``,
  ``cookie``…) → ``"[redacted]"``; client addresses too; request ids →
  pseudonyms;
* the URL loses its user-info and its secret query parameters (``key=``…);
* the request body loses its prompt content — every string under
  ``messages``, ``system``, ``instructions``, ``input``, ``contents``,
  ``systemInstruction``, ``prompt`` and ``metadata`` except the structural
  ones (roles, types, tool names, media types) becomes ``"[removed]"`` —
  unless ``--keep-request``; ids in it are pseudonymized with the same table
  as the stream, so a ``tool_call_id`` still matches its call;
* every other string anywhere in the header is searched for secrets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import orjson

from ..redact.digests import DigestMatcher
from ..redact.names import is_credential_name
from ..redact.shapes import (
    header_rule,
    is_placeholder,
    placeholder,
)
from .decoded import find_encoded_secrets
from .ledger import MIN_SCANNED_SECRET, Context
from .pseudonyms import signature_placeholder
from .rules import ARGUMENT_OBJECT_KEYS, OPAQUE_KEYS, is_id_key

__all__ = [
    "PROMPT_FIELDS",
    "REDACTED",
    "REMOVED",
    "STRUCTURAL_FIELDS",
    "anonymize_header",
    "scrub_text",
    "scrub_url",
]

REDACTED: Final = "[redacted]"
REMOVED: Final = "[removed]"
# Request-body fields that hold the prompt.
# Kept as written (fmt: skip): a set of field names, several to a line.
PROMPT_FIELDS: Final = frozenset(
    {"messages", "system", "instructions", "input", "contents", "systemInstruction",
     "system_instruction", "prompt", "metadata"}
)  # fmt: skip
# Strings inside the prompt that describe its shape, not its content: kept.
# Kept as written (fmt: skip): a set of field names, several to a line.
STRUCTURAL_FIELDS: Final = frozenset(
    {"role", "type", "name", "mime_type", "mimeType", "media_type", "status", "format",
     "detail", "cache_control", "ttl"}
)  # fmt: skip


def scrub_text(text: str, ctx: Context) -> str:
    """``text`` with every secret replaced by a placeholder (same length)."""
    matches = find_encoded_secrets(text)
    if not matches:
        return text
    out = []
    at = 0
    for m in matches:
        ctx.ledger.remove_all(m.rule, m.values)
        out.append(text[at : m.start])
        out.append(placeholder(m.rule, m.end - m.start))
        at = m.end
    out.append(text[at:])
    return "".join(out)


def scrub_url(url: str, ctx: Context) -> str:
    """A URL without user-info and secret query parameters, then scrubbed."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return scrub_text(url, ctx)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, _, host = netloc.rpartition("@")
        ctx.ledger.remove("url-userinfo", userinfo)
        netloc = host
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        kept = []
        for name, value in pairs:
            if is_credential_name(name):
                ctx.ledger.remove(f"query:{name.lower()}", value)
            else:
                kept.append((name, value))
        if len(kept) != len(pairs):
            query = urlencode(kept)
    return scrub_text(urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment)), ctx)


def _headers(headers: Any, ctx: Context) -> Any:
    """Header values by rule; a dict or a list of ``[name, value]`` pairs."""
    if isinstance(headers, Mapping):
        return {name: _header(str(name), value, ctx) for name, value in headers.items()}
    if isinstance(headers, list):
        out = []
        for pair in headers:
            if isinstance(pair, list | tuple) and len(pair) == 2:
                out.append([pair[0], _header(str(pair[0]), pair[1], ctx)])
            else:
                out.append(_deep(pair, ctx, (), prompt=False))
        return out
    return _deep(headers, ctx, (), prompt=False)


def _header(name: str, value: Any, ctx: Context) -> Any:
    rule = header_rule(name)
    lowered = name.lower()
    if rule in ("secret", "client-address"):
        for one in value if isinstance(value, list) else [value]:
            ctx.ledger.remove(f"header:{lowered}", str(one))
            # "Bearer sk-…", "Basic dXNlcjpwYXNz": the token alone is the secret too.
            token = str(one).partition(" ")[2].strip()
            if len(token) >= MIN_SCANNED_SECRET and not is_placeholder(token):
                ctx.ledger.secrets.setdefault(token, f"header:{lowered}")
        return REDACTED
    if rule == "request-id" and isinstance(value, str):
        return ctx.pseudonym("request-id-header", value)
    ctx.ledger.kept_headers.add(lowered)
    return _deep(value, ctx, (), prompt=False)


def _deep(value: Any, ctx: Context, path: tuple[str | int, ...], *, prompt: bool) -> Any:
    """Walk a JSON value: ids pseudonymized, prompt text removed, secrets scrubbed."""
    if isinstance(value, Mapping):
        out = {}
        for key, item in value.items():
            inner = prompt or (not path and key in PROMPT_FIELDS and not ctx.keep_request)
            out[key] = _deep(item, ctx, (*path, str(key)), prompt=inner)
        return out
    if isinstance(value, list):
        return [_deep(item, ctx, (*path, i), prompt=prompt) for i, item in enumerate(value)]
    if not isinstance(value, str):
        return value
    key = next((step for step in reversed(path) if isinstance(step, str)), None)
    in_arguments = _in_arguments(path)
    if key is not None and not in_arguments:
        if key in OPAQUE_KEYS:
            if value:
                ctx.ledger.placeholders["signature"] += 1
            return signature_placeholder(value)
        if is_id_key(key):
            scrubbed = scrub_text(value, ctx)
            return scrubbed if scrubbed != value else ctx.pseudonym("id", value)
    if prompt:
        if not in_arguments and (key in STRUCTURAL_FIELDS or "cache_control" in path):
            return value
        if key == "arguments" and not in_arguments and value:
            return _removed_json(value, ctx)
        if value:
            ctx.ledger.removed["request-prompt"] += 1
            return REMOVED
        return value
    return scrub_text(value, ctx)


def _in_arguments(path: tuple[str | int, ...]) -> bool:
    """Whether ``path`` is inside a tool call's arguments (where no key is structural)."""
    # A top-level ``input`` is the Responses prompt, not a tool's input.
    inner = path[1:-1] if path and path[0] in PROMPT_FIELDS else path[:-1]
    return any(step in ARGUMENT_OBJECT_KEYS for step in inner)


def _removed_json(text: str, ctx: Context) -> str:
    """Tool-call arguments in the request history: keys kept, values removed."""
    try:
        parsed = orjson.loads(text)
    except orjson.JSONDecodeError:
        ctx.ledger.removed["request-prompt"] += 1
        return REMOVED
    cleaned = _deep(parsed, ctx, ("arguments", "value"), prompt=True)
    return orjson.dumps(cleaned).decode()


def _body(body: Any, ctx: Context) -> Any:
    if isinstance(body, str):
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError:
            if ctx.keep_request:
                return scrub_text(body, ctx)
            ctx.ledger.removed["request-prompt"] += 1
            return REMOVED if body else body
        return orjson.dumps(_deep(parsed, ctx, (), prompt=False)).decode()
    return _deep(body, ctx, (), prompt=False)


def anonymize_header(header: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """A new header record with nothing secret or private left in it."""
    # What import removed (kept as keyed hashes) is looked for again by the leak scan.
    earlier = DigestMatcher.from_header(header)
    if earlier is not None:
        ctx.ledger.digests.append(earlier)
    out: dict[str, Any] = {}
    for key, value in header.items():
        if key == "request" and isinstance(value, Mapping):
            out[key] = _request(value, ctx)
        elif key == "response" and isinstance(value, Mapping):
            out[key] = {
                k: _headers(v, ctx) if k == "headers" else _deep(v, ctx, (k,), prompt=False)
                for k, v in value.items()
            }
        elif isinstance(value, str) and key in ("url",):
            out[key] = scrub_url(value, ctx)
        else:
            out[key] = _deep(value, ctx, (key,), prompt=False) if key != "type" else value
    return out


def _request(request: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in request.items():
        if key == "headers":
            out[key] = _headers(value, ctx)
        elif key == "url" and isinstance(value, str):
            out[key] = scrub_url(value, ctx)
        elif key in ("body", "json", "data"):
            out[key] = _body(value, ctx)
        else:
            out[key] = _deep(value, ctx, (key,), prompt=False)
    return out
