"""Class 3 — compressed bodies: decoded before anything is scrubbed or recorded.

Every coding a well-kept library decodes (gzip, x-gzip, deflate, br, zstd,
stacked) is undone first in live mode, the proxy and import; a key inside
the compressed bytes is then found like any other. A coding nobody can
decode is never recorded as opaque bytes: the capture says why instead.
The proxy hands the app the body exactly as its headers describe it.
"""

from __future__ import annotations

import asyncio
import base64
import gzip
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from inspector.capture import load_recording
from inspector.encodings import UndecodableEncoding, decode_body
from inspector.interop import InteropError, read_bytes
from inspector.live import LiveFeed, build_request
from inspector.proxy import FlowLog, ProxyServer, ProxySettings

from .secrets_upstream import ENCODERS, HostileUpstream, chat_frame, leaks

KEY = "sk-live-" + "Cm7Yt4" * 5


@pytest.fixture(scope="module")
def upstream() -> Iterator[HostileUpstream]:
    with HostileUpstream() as server:
        yield server


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_every_known_coding_decodes_whole_and_stacked(coding: str) -> None:
    data = chat_frame("hello " + KEY) * 50
    assert decode_body(ENCODERS[coding](data), coding) == data


def test_an_unknown_coding_is_refused_by_name() -> None:
    with pytest.raises(UndecodableEncoding, match="'compress' cannot be decoded"):
        decode_body(b"\x1f\x9d...", "compress")


def _live(url: str, capture: Path, model: str) -> LiveFeed:
    request = build_request("openai-chat", model=model, prompt="hi", base_url=url, api_key=KEY)
    feed = LiveFeed(request, capture=capture, api_key=KEY, transport_timeout=10)
    asyncio.run(feed.run(lambda: None))
    return feed


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_live_records_a_compressed_body_decoded_and_without_the_key(
    upstream: HostileUpstream, tmp_path: Path, coding: str
) -> None:
    capture = tmp_path / "c.jsonl"
    feed = _live(upstream.url + "/v1", capture, f"enc:{coding}")
    rec = load_recording(capture)
    assert b"hello" in rec.body  # decoded: the stream is readable
    assert leaks(capture.read_bytes(), [KEY]) == []
    assert feed.trace.outcome.startswith("completed")


def test_live_refuses_to_record_a_body_it_cannot_decode(
    upstream: HostileUpstream, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    _live(upstream.url + "/v1", capture, "enc:compress")
    rec = load_recording(capture)
    assert rec.body == b""  # no opaque byte recorded
    assert rec.end is not None and "cannot be decoded" in (rec.end.error or "")


@pytest.mark.parametrize("coding", ["x-gzip", "br", "zstd", "gzip, br", "compress"])
def test_the_proxy_forwards_the_body_as_its_headers_say_and_records_it_decoded(
    upstream: HostileUpstream, tmp_path: Path, coding: str
) -> None:
    log = FlowLog(tmp_path)
    with (
        ProxyServer(log, ProxySettings(upstream=upstream.url), port=0) as proxy,
        httpx.Client(timeout=10) as client,
        client.stream(
            "POST",
            f"{proxy.url}/v1/chat/completions",
            json={"model": f"enc:{coding}", "stream": True},
            headers={"Authorization": f"Bearer {KEY}", "Accept-Encoding": coding},
        ) as response,
    ):
        raw = b"".join(response.iter_raw())
    assert response.headers["content-encoding"] == coding
    if coding != "compress":
        assert b"hello" in decode_body(raw, coding)  # the body is what its headers say
    (flow,) = log.flows
    assert flow.capture is not None
    written = flow.capture.read_bytes()
    assert leaks(written, [KEY]) == []
    if coding == "compress":
        assert flow.problem is not None and "cannot be decoded" in flow.problem
        assert b"opaque" not in written and load_recording(flow.capture).body == b""
    else:
        assert b"hello" in load_recording(flow.capture).body


def _cassette(body: bytes, coding: str) -> bytes:
    encoded = base64.b64encode(body).decode()
    return (
        "interactions:\n- request: {method: POST, uri: 'https://api.openai.com/v1/chat/completions',"
        f" body: null, headers: {{Authorization: [Bearer {KEY}]}}}}\n"
        "  response:\n    status: {code: 200, message: OK}\n"
        f"    headers: {{content-type: [text/event-stream], content-encoding: ['{coding}']}}\n"
        f"    body: {{string: !!binary '{encoded}'}}\nversion: 1\n"
    ).encode()


@pytest.mark.parametrize("coding", sorted(ENCODERS))
def test_import_decodes_every_known_coding_and_then_scrubs_the_key(coding: str) -> None:
    sse = chat_frame(f"echo {KEY}") + b"data: [DONE]\n\n"
    ((_, rec),) = read_bytes(_cassette(ENCODERS[coding](sse), coding), "c.yaml").recordings
    assert b"echo" in rec.body and leaks(rec.body, [KEY]) == []


def test_import_refuses_a_body_in_a_coding_it_cannot_decode() -> None:
    data = _cassette(gzip.compress(chat_frame(KEY)), "compress")
    try:
        result = read_bytes(data, "c.yaml")
    except InteropError as exc:
        assert "cannot be decoded" in str(exc)
        return
    assert result.recordings == []
    assert any("cannot be decoded" in str(p) for p in result.problems)
