"""HAR 1.2 (browser DevTools "Save all as HAR", proxies): read and write.

A HAR entry keeps the response body already decoded (``content.text``, or
base64 with ``content.encoding: "base64"``) and one set of ``timings`` for
the whole exchange: when the first byte came and when the last did, not the
pieces in between. Chrome also records the messages of an ``EventSource``
request, each with its arrival time, in ``_eventSourceMessages``; when those
are there and the body is not, the stream is rebuilt from them with real
per-event times. Chromium stores a ``text/*`` body that declares no charset
decoded as windows-1252; that is undone (:mod:`.charset`).
"""

from __future__ import annotations

import base64
import datetime as dt
from collections.abc import Mapping
from typing import Any, Final

import orjson

from ..inputs import Recording
from ..version import __version__
from .charset import browser_decodes_as_windows_1252, undo_windows_1252
from .exchange import Exchange, recorded_exchange, section
from .limits import BodyError, DecodeBudget, b64decode_bounded, decode_all
from .vcr import HOP_HEADERS

__all__ = ["HarError", "read_har", "write_har"]

_PRE_BODY: Final = ("blocked", "dns", "connect", "send", "wait")  # ssl is inside connect


class HarError(ValueError):
    """The file is not a HAR log we can read; the message says why."""


def _pairs(raw: Any) -> dict[str, str]:
    """HAR ``[{"name", "value"}]`` as a dict (repeated names joined with ``, ``)."""
    out: dict[str, str] = {}
    if not isinstance(raw, list):
        return out
    for item in raw:
        if isinstance(item, Mapping) and isinstance(item.get("name"), str):
            name, value = item["name"], item.get("value")
            text = value if isinstance(value, str) else "" if value is None else str(value)
            out[name] = f"{out[name]}, {text}" if name in out else text
    return out


def _parse_time(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        when = dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def _ms(timings: Mapping[str, Any], name: str) -> float:
    value = timings.get(name)
    return float(value) if isinstance(value, int | float) and value > 0 else 0.0


def _timings(entry: Mapping[str, Any]) -> dict[str, float]:
    timings = entry.get("timings")
    if not isinstance(timings, Mapping):
        return {}
    first = sum(_ms(timings, name) for name in _PRE_BODY) / 1000
    total = entry.get("time")
    last = float(total) / 1000 if isinstance(total, int | float) and total > 0 else None
    out = {"first_byte": round(first, 6)}
    if last is not None:
        out["last_byte"] = round(max(last, first), 6)
    return out


def _event_source_chunks(
    messages: Any, started: dt.datetime | None
) -> list[tuple[float, bytes]] | None:
    """Chrome's ``_eventSourceMessages`` as SSE chunks timed from the request start."""
    if not isinstance(messages, list) or not messages or started is None:
        return None
    origin = started.timestamp()
    chunks: list[tuple[float, bytes]] = []
    for message in messages:
        if not isinstance(message, Mapping) or not isinstance(message.get("data"), str):
            continue
        lines = []
        name = message.get("eventName") or message.get("type")
        if isinstance(name, str) and name and name != "message":
            lines.append(f"event: {name}")
        event_id = message.get("eventId")
        if isinstance(event_id, str) and event_id:
            lines.append(f"id: {event_id}")
        lines.extend(f"data: {line}" for line in message["data"].split("\n"))
        when = message.get("time")
        offset = float(when) - origin if isinstance(when, int | float) else 0.0
        chunks.append((round(max(offset, 0.0), 6), ("\n".join(lines) + "\n\n").encode()))
    return chunks or None


def _content_type(content: Any, headers: Mapping[str, str]) -> str:
    """The response's ``Content-Type`` header, else the HAR's ``content.mimeType``."""
    for name, value in headers.items():
        if name.lower() == "content-type":
            return value
    mime = content.get("mimeType") if isinstance(content, Mapping) else None
    return mime if isinstance(mime, str) else ""


def _text_body(text: str, content_type: str) -> tuple[bytes, list[str]]:
    """The bytes of ``content.text`` and what was undone to get them.

    Chromium stores a ``text/*`` body that declares no charset decoded as
    windows-1252; that is undone when it gives valid UTF-8 (see :mod:`.charset`).
    """
    if browser_decodes_as_windows_1252(content_type):
        original = undo_windows_1252(text)
        if original is not None:
            return original, ["windows-1252"]
    return text.encode("utf-8", "replace"), []


def _exchange(index: int, entry: Any, budget: DecodeBudget) -> Exchange:
    ex = Exchange("har", index)
    if not isinstance(entry, Mapping):
        ex.problem = f"entry {index} is not an object"
        return ex
    request = entry.get("request")
    response = entry.get("response")
    if not isinstance(request, Mapping) or not isinstance(response, Mapping):
        ex.problem = f"entry {index} has no request/response objects"
        return ex
    ex.method = str(request.get("method") or "GET")
    ex.url = str(request.get("url") or "")
    ex.request_headers = _pairs(request.get("headers"))
    ex.response_headers = _pairs(response.get("headers"))
    status = response.get("status")
    ex.status = status if isinstance(status, int) else None
    reason = response.get("statusText")
    ex.reason = reason if isinstance(reason, str) else None
    started = _parse_time(entry.get("startedDateTime"))
    ex.started = started.strftime("%Y-%m-%dT%H:%M:%S.%fZ")[:-4] + "Z" if started else None
    ex.timings = _timings(entry)
    post = request.get("postData")
    if isinstance(post, Mapping) and isinstance(post.get("text"), str):
        ex.request_body = post["text"].encode("utf-8", "replace")
    content = response.get("content")
    text = content.get("text") if isinstance(content, Mapping) else None
    try:
        if isinstance(text, str) and text:
            if isinstance(content, Mapping) and content.get("encoding") == "base64":
                ex.body = b64decode_bounded(text, budget=budget)
                ex.decoded.append("base64")
            else:
                ex.body, undone = _text_body(text, _content_type(content, ex.response_headers))
                ex.decoded.extend(undone)
    except BodyError as exc:
        ex.problem = f"entry {index}: {exc}"
    if not ex.body:
        ex.chunks = _event_source_chunks(entry.get("_eventSourceMessages"), started)
        if ex.chunks:
            ex.body = b"".join(data for _, data in ex.chunks)
    return ex


def read_har(data: bytes, name: str) -> list[Exchange]:
    """Every entry of a HAR log, in order (raises :class:`HarError`)."""
    try:
        doc = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        raise HarError(f"{name}: not valid JSON ({exc})") from None
    log = doc.get("log") if isinstance(doc, Mapping) else None
    entries = log.get("entries") if isinstance(log, Mapping) else None
    if not isinstance(entries, list):
        raise HarError(f"{name}: not a HAR file (no log.entries list)")
    return decode_all(
        entries,
        _exchange,
        lambda mib: HarError(
            f"{name}: its base64 bodies decode to more than {mib} MiB in all; not read"
        ),
    )


# -- writing ------------------------------------------------------------------


def _har_pairs(headers: Any, *, drop: frozenset[str] = frozenset()) -> list[dict[str, str]]:
    if not isinstance(headers, Mapping):
        return []
    return [
        {"name": str(k), "value": v if isinstance(v, str) else str(v)}
        for k, v in headers.items()
        if str(k).lower() not in drop
    ]


def _started(header: Mapping[str, Any]) -> str:
    when = _parse_time(header.get("recorded_at"))
    when = when or dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def har_entry(rec: Recording) -> dict[str, Any]:
    """One recording as a HAR 1.2 entry (the body decoded, timings from the chunks)."""
    header = rec.header or {}
    request, response, status = recorded_exchange(rec)
    resp_headers = section(response, "headers")
    mime = next((str(v) for k, v in resp_headers.items() if str(k).lower() == "content-type"),
                "text/event-stream")  # fmt: skip
    body = rec.body
    content: dict[str, Any] = {"size": len(body), "mimeType": mime}
    try:
        content["text"] = body.decode("utf-8")
    except UnicodeDecodeError:
        content["text"] = base64.b64encode(body).decode()
        content["encoding"] = "base64"
    first = rec.chunks[0][0] if rec.chunks else 0.0
    last = rec.end.time if rec.end is not None and rec.end.time is not None else first
    last = max(last, rec.chunks[-1][0] if rec.chunks else first)
    body_field = request.get("body")
    post_text = (
        None
        if body_field is None
        else (body_field if isinstance(body_field, str) else orjson.dumps(body_field).decode())
    )
    har_request: dict[str, Any] = {
        "method": str(request.get("method") or "POST"),
        "url": str(request.get("url") or ""),
        "httpVersion": "HTTP/1.1",
        "headers": _har_pairs(request.get("headers"), drop=HOP_HEADERS),
        "queryString": [],
        "cookies": [],
        "headersSize": -1,
        "bodySize": len(post_text.encode()) if post_text is not None else 0,
    }
    if post_text is not None:
        har_request["postData"] = {"mimeType": "application/json", "text": post_text}
    return {
        "startedDateTime": _started(header),
        "time": round(last * 1000, 3),
        "request": har_request,
        "response": {
            "status": status,
            "statusText": "",
            "httpVersion": "HTTP/1.1",
            "headers": _har_pairs(resp_headers, drop=HOP_HEADERS),
            "cookies": [],
            "content": content,
            "redirectURL": "",
            "headersSize": -1,
            "bodySize": len(body),
        },
        "cache": {},
        "timings": {
            "send": 0,
            "wait": round(first * 1000, 3),
            "receive": round((last - first) * 1000, 3),
        },
    }


def write_har(recordings: list[Recording]) -> bytes:
    """A HAR 1.2 log with one entry per recording."""
    doc = {
        "log": {
            "version": "1.2",
            "creator": {"name": "llm-stream-inspector", "version": __version__},
            "entries": [har_entry(r) for r in recordings],
        }
    }
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2) + b"\n"
