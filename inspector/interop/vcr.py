"""VCR cassettes (vcrpy, pytest-recording, pydantic-ai's ``parsed_body``, Ruby's VCR): read, write.

A cassette is YAML (or JSON) ``{"version": 1, "interactions": [{"request":
{...}, "response": {...}}]}`` (Ruby's VCR: ``http_interactions``). Bodies
appear as a plain string, as ``{"string": ...}``, as ``!!binary`` base64
(bytes, often gzip with the ``Content-Encoding`` header kept; botocore's
AWS event streams), as Ruby VCR's ``{"base64_string": ...}``, or — in
pydantic-ai's cassettes — as a structured ``parsed_body`` next to
``headers``. A YAML file of several documents (``---`` between them) holds
the interactions of them all, in order. The YAML is read with
:func:`~.yamlsafe.load_yaml`: Python tags are data, never code.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlunsplit

import orjson
import yaml

from ..inputs import Recording
from .exchange import Exchange, json_bytes, recorded_exchange
from .limits import BodyError, DecodeBudget, decode_all, decode_content
from .yamlsafe import Inert, load_yaml_documents

__all__ = ["VcrError", "read_vcr", "write_vcr"]

#: Response headers that describe the wire form of a body we store decoded.
HOP_HEADERS: Final = frozenset({"content-encoding", "content-length", "transfer-encoding"})


class VcrError(ValueError):
    """The file is not a cassette we can read; the message says why."""


def _plain(value: Any) -> Any:
    # An old vcrpy stored !!python/object:vcr.request.Request: its mapping is data.
    if isinstance(value, Inert) and isinstance(value.value, Mapping):
        return value.value
    return value


def _headers(raw: Any) -> dict[str, str]:
    """``{name: [values]}`` (or ``{name: value}``) as ``{name: "v1, v2"}``; odd items skipped."""
    out: dict[str, str] = {}
    if not isinstance(raw, Mapping):
        return out
    for name, values in raw.items():
        if not isinstance(name, str):
            continue
        items = values if isinstance(values, list) else [values]
        # botocore's headers are bytes, which vcrpy writes as !!binary.
        texts = [_header_text(v) for v in items if isinstance(v, str | int | bytes)]
        out[name] = ", ".join(texts)
    return out


def _header_text(value: str | int | bytes) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value if isinstance(value, str) else str(value)


def _body_bytes(value: Any, what: str) -> bytes | None:
    if value is None:
        return None
    if isinstance(value, Mapping):
        if "string" in value:
            return _body_bytes(value.get("string"), what)
        if isinstance(value.get("base64_string"), str):  # Ruby VCR's binary bodies
            try:
                return b64decode("".join(value["base64_string"].split()), validate=True)
            except binascii.Error as exc:
                raise BodyError(f"the {what} body's base64_string is not base64 ({exc})") from None
        raise BodyError(f"the {what} body is a mapping without 'string'")
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass")
    if isinstance(value, Inert):
        tag = value.tag.replace("tag:yaml.org,2002:", "!!")
        raise BodyError(
            f"the {what} body is a YAML tag that names code ({tag}); "
            "it was not executed and cannot be imported"
        )
    raise BodyError(f"the {what} body is a {type(value).__name__}, not text or bytes")


def _uri(request: Mapping[str, Any]) -> str:
    uri = request.get("uri") or request.get("url")
    if isinstance(uri, str):
        return uri
    host = request.get("host")
    if isinstance(host, str):  # the pre-1.0 vcrpy request shape
        scheme = str(request.get("protocol") or "https")
        port = request.get("port")
        netloc = host if port in (None, 80, 443) else f"{host}:{port}"
        return urlunsplit((scheme, netloc, str(request.get("path") or "/"), "", ""))
    return ""


def _status(response: Mapping[str, Any]) -> tuple[int | None, str | None]:
    status = response.get("status")
    if isinstance(status, Mapping):
        code, message = status.get("code"), status.get("message")
    else:
        code, message = response.get("status_code", status), None
    return (code if isinstance(code, int) else None), (
        message if isinstance(message, str) else None
    )


def _exchange(index: int, item: Any, budget: DecodeBudget) -> Exchange:
    ex = Exchange("vcr", index)
    if not isinstance(item, Mapping):
        ex.problem = f"interaction {index} is not a mapping"
        return ex
    request = _plain(item.get("request"))
    response = _plain(item.get("response"))
    if not isinstance(request, Mapping) or not isinstance(response, Mapping):
        ex.problem = f"interaction {index} has no request/response mappings"
        return ex
    ex.method = str(request.get("method") or "GET")
    ex.url = _uri(request)
    ex.request_headers = _headers(request.get("headers"))
    ex.response_headers = _headers(response.get("headers"))
    ex.status, ex.reason = _status(response)
    try:
        if "parsed_body" in request:
            ex.request_body = json_bytes(request["parsed_body"])
        else:
            ex.request_body = _body_bytes(request.get("body"), "request")
        ex.body = _response_body(ex, response, budget)
    except BodyError as exc:
        ex.problem = f"interaction {index}: {exc}"
    return ex


def _response_body(ex: Exchange, response: Mapping[str, Any], budget: DecodeBudget) -> bytes | None:
    if "parsed_body" in response:
        body = json_bytes(response["parsed_body"])
        budget.take(len(body))
        return body
    raw = response.get("body", response.get("content"))
    stored_as_bytes = isinstance(raw, bytes) or (
        isinstance(raw, Mapping)
        and (isinstance(raw.get("string"), bytes) or "base64_string" in raw)
    )
    data = _body_bytes(raw, "response")
    if data is None:
        return None
    if stored_as_bytes:
        ex.decoded.append("base64")
    encodings = [e for e in ex.header("content-encoding").split(",") if e.strip()]
    # vcrpy keeps the wire bytes (and the header) unless decode_compressed_response
    # was on, which removes the header; a text body is never compressed.
    if encodings and stored_as_bytes and not _already_decoded(data, encodings):
        damage: list[str] = []
        data = decode_content(data, encodings, damage=damage)
        ex.decoded.extend(e.strip().lower() for e in encodings)
        ex.decoded.extend(damage)  # a damaged body keeps what decoded; the capture says so
    # Every body counts, decoded or not: aliases can repeat one body a thousand times.
    budget.take(len(data))
    return data


def _already_decoded(data: bytes, encodings: list[str]) -> bool:
    # A recorder hook that decoded the body but kept the header: gzip data
    # always starts with its magic number, so bytes without it are the body.
    last = encodings[-1].strip().lower()
    return last in ("gzip", "x-gzip") and not data.startswith(b"\x1f\x8b")


def _interactions(doc: Any) -> Any:
    """A cassette document's interactions (vcrpy's key, else Ruby VCR's)."""
    if not isinstance(doc, Mapping):
        return None
    found = doc.get("interactions")
    return found if found is not None else doc.get("http_interactions")


def read_vcr(data: bytes, name: str) -> list[Exchange]:
    """Every interaction of a cassette, in order (raises :class:`VcrError`)."""
    stripped = data.lstrip()
    try:
        docs = [orjson.loads(data)] if stripped[:1] == b"{" else load_yaml_documents(data)
    except (ValueError, orjson.JSONDecodeError) as exc:
        raise VcrError(f"{name}: {exc}") from None
    lists = [_interactions(doc) for doc in docs]
    if not any(isinstance(found, list) for found in lists):
        raise VcrError(f"{name}: not a VCR cassette (no 'interactions' list)")
    interactions = [item for found in lists if isinstance(found, list) for item in found]
    return decode_all(
        interactions,
        _exchange,
        lambda mib: VcrError(
            f"{name}: its bodies decode to more than {mib} MiB "
            "in all (aliases repeating one body?); not read"
        ),
    )


# -- writing ------------------------------------------------------------------


class _CassetteDumper(yaml.SafeDumper):  # type: ignore[misc]
    """Safe YAML, with multi-line text written as a literal block so a stream reads as one."""


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_CassetteDumper.add_representer(str, _str)


def _header_lists(headers: Any, *, drop: frozenset[str] = frozenset()) -> dict[str, list[str]]:
    if not isinstance(headers, Mapping):
        return {}
    return {
        str(k): [v if isinstance(v, str) else str(v)]
        for k, v in headers.items()
        if str(k).lower() not in drop
    }


def _request_body_text(body: Any) -> str | None:
    if body is None:
        return None
    if isinstance(body, str):
        return body
    return orjson.dumps(body).decode()


def cassette_interaction(rec: Recording) -> dict[str, Any]:
    """One recording as a vcrpy interaction (the body stored decoded, as one piece)."""
    request, response, status = recorded_exchange(rec)
    body = rec.body
    try:
        text: str | bytes = body.decode("utf-8")
    except UnicodeDecodeError:
        text = body  # dumped as !!binary
    return {
        "request": {
            "body": _request_body_text(request.get("body")),
            "headers": _header_lists(request.get("headers"), drop=HOP_HEADERS),
            "method": str(request.get("method") or "POST"),
            "uri": str(request.get("url") or ""),
        },
        "response": {
            "body": {"string": text},
            "headers": _header_lists(response.get("headers"), drop=HOP_HEADERS),
            "status": {"code": status, "message": _REASONS.get(status, "")},
        },
    }


_REASONS: Final = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
                   404: "Not Found", 408: "Request Timeout", 413: "Payload Too Large",
                   429: "Too Many Requests", 500: "Internal Server Error",
                   502: "Bad Gateway", 503: "Service Unavailable",
                   504: "Gateway Timeout", 529: "Site is overloaded"}  # fmt: skip


def write_vcr(recordings: list[Recording]) -> bytes:
    """A cassette vcrpy replays as is: one interaction per recording."""
    doc = {"interactions": [cassette_interaction(r) for r in recordings], "version": 1}
    text = yaml.dump(doc, Dumper=_CassetteDumper, allow_unicode=True, sort_keys=False, width=120)
    return str(text).encode("utf-8")
