"""Import's redaction: a cassette's or HAR's exchange, every credential removed.

The exchange's :class:`~.secretset.SecretSet` is built from everything the
file holds — request URL (userinfo, query), headers (Basic credentials and
cookies taken apart), credential fields of the request body, the response's
``Set-Cookie`` — and then used on all of the capture: the header's request
and response (headers redacted by name, every other string cleaned of the
known values and of secret shapes) and every body chunk (every spelling of
every value, also across chunk borders). What was removed travels with the
capture as ``header["redacted"]`` (kinds, lengths, keyed hashes: never the
values), so that a later export finds the same values again
(:mod:`.digests`).
"""

from __future__ import annotations

from typing import Any, Protocol

from .http import redact_headers, redact_url
from .secretset import SecretSet

__all__ = ["redact_recording"]


class _Exchange(Protocol):
    url: str
    request_headers: dict[str, str]
    request_body: bytes | None
    response_headers: dict[str, str]


Chunks = list[tuple[float, bytes]]


def redact_recording(
    ex: _Exchange, header: dict[str, Any], chunks: Chunks
) -> tuple[dict[str, Any], Chunks]:
    """``header`` and ``chunks`` of an imported exchange with every credential removed."""
    found = SecretSet.for_request(url=ex.url, headers=ex.request_headers, body=ex.request_body)
    found.add_response_headers(ex.response_headers)
    out = dict(header)
    request = dict(out.get("request") or {})
    request["url"] = redact_url(str(request.get("url", "")))
    request["headers"] = redact_headers(request.get("headers") or {})
    response = dict(out.get("response") or {})
    response["headers"] = redact_headers(response.get("headers") or {})
    out["request"], out["response"] = request, response
    out = {k: v if k in ("type", "format", "version") else found.clean_value(v)
           for k, v in out.items()}  # fmt: skip
    if len(found):
        out["redacted"] = found.digests()
    scrubber = found.scrubber()
    if not scrubber.active:
        return out, chunks
    cleaned = [(time, scrubber.feed(data)) for time, data in chunks]
    rest = scrubber.flush()
    if rest:
        last_time, last = cleaned[-1] if cleaned else (0.0, b"")
        cleaned[-1:] = [(last_time, last + rest)]
    # (A piece held back whole, as the start of a possible match, went out with the next.)
    return out, [(time, data) for time, data in cleaned if data]
