"""Class 4 — handed across boundaries: what import removed, export still finds and removes.

Import writes into the capture header what it redacted — kinds, lengths and
keyed hashes (of the value and of it lower-cased), never the values — and a
later export reads it back: a value import removed that turns up again in
the capture (a spelling nobody undid, an edit by hand) is recovered by its
hash and removed in every spelling, like a value the export removed itself;
the leak scan then finds none. Exporting a cassette or HAR directly, or
after import, leaves none of the credentials it carried, in any spelling.
"""

from __future__ import annotations

import base64
import functools
import tempfile
from pathlib import Path

import orjson
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording
from inspector.capture_writer import CaptureWriter
from inspector.export import export_paths, export_recording
from inspector.interop import read_bytes
from inspector.redact import MIN_SECRET

from .secrets_upstream import SPELLINGS, chat_frame, leaks

TOKEN = "ghp_" + "Tq4Wn8Vb" * 5
COOKIE = "cookie-value-" + "Hj6" * 5
# Held-out style: any credential characters, no shape any rule knows.
_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/!$*"
secrets = st.text(_CHARS, min_size=MIN_SECRET + 2, max_size=40).filter(lambda s: len(set(s)) > 5)
SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _sse(*texts: str) -> bytes:
    return b"".join(chat_frame(t) for t in texts) + b"data: [DONE]\n\n"


def _cassette(sse: bytes, headers: dict[str, str], url: str = "") -> bytes:
    interaction = {
        "request": {"method": "POST",
                    "uri": url or "https://api.openai.com/v1/chat/completions",
                    "body": '{"model": "gpt-4o", "stream": true}',
                    "headers": {k: [v] for k, v in headers.items()}},
        "response": {"status": {"code": 200, "message": "OK"},
                     "headers": {"content-type": ["text/event-stream"]},
                     "body": {"string": sse.decode()}},
    }  # fmt: skip
    return orjson.dumps({"interactions": [interaction], "version": 1})


def _har(sse: bytes, headers: dict[str, str], url: str = "") -> bytes:
    entry = {
        "startedDateTime": "2026-12-01T00:00:00.000Z", "time": 10,
        "request": {"method": "POST", "url": url or "https://api.openai.com/v1/chat/completions",
                    "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [],
                    "headers": [{"name": k, "value": v} for k, v in headers.items()],
                    "postData": {"mimeType": "application/json",
                                 "text": '{"model": "gpt-4o", "stream": true}'},
                    "headersSize": -1, "bodySize": -1},
        "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                     "cookies": [], "headers": [{"name": "content-type",
                                                 "value": "text/event-stream"}],
                     "content": {"size": len(sse), "mimeType": "text/event-stream",
                                 "encoding": "base64", "text": base64.b64encode(sse).decode()},
                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"send": 0, "wait": 5, "receive": 5},
    }  # fmt: skip
    return orjson.dumps({"log": {"version": "1.2", "creator": {"name": "t", "version": "1"},
                                 "entries": [entry]}})  # fmt: skip


@functools.cache
def _protocol_text() -> str:
    """What every export writes whatever the secrets: format names, field names, events."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        capture = _imported_capture(root, "Zq7vK2pLmN9xR4tW", _sse("your session is - ok"))
        export_recording(load_recording(capture), root / "out")
        return _written(root / "out").decode("utf-8", "replace")


def _not_protocol_text(secret: str) -> None:
    # A "secret" the file format itself says (hypothesis mines "llm-stream" from the code)
    # cannot be removed from it: the export refuses it, which proves nothing here.
    assume(leaks(_protocol_text(), [secret]) == [])


def _written(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def _imported_capture(folder: Path, secret: str, body: bytes) -> Path:
    """A capture as import writes it for a cassette sending ``secret``, with ``body``
    then put back in place of the scrubbed one (a hand edit, a spelling import missed)."""
    cassette = _cassette(_sse("hello"), {"Authorization": f"Bearer {secret}"})
    ((_, rec),) = read_bytes(cassette, "c.json").recordings
    assert rec.header is not None
    header = {k: v for k, v in rec.header.items() if k not in ("type", "format", "version")}
    writer = CaptureWriter(folder / "imported.jsonl", header)
    for at in range(0, len(body), 37):  # the value cut across chunks too
        writer.chunk(at / 1000, body[at : at + 37])
    writer.end("eof", 1.0)
    return folder / "imported.jsonl"


def test_import_writes_kinds_and_keyed_hashes_never_the_values() -> None:
    sse = _sse(f"token {TOKEN} cookie {COOKIE}")
    cassette = _cassette(sse, {"Authorization": f"Bearer {TOKEN}", "Cookie": f"sess={COOKIE}"})
    ((_, rec),) = read_bytes(cassette, "c.json").recordings
    assert rec.header is not None
    record = rec.header["redacted"]
    kinds = {item["kind"] for item in record["secrets"]}
    assert {"header:authorization", "cookie"} <= kinds
    text = orjson.dumps(rec.header).decode() + rec.body.decode()
    assert leaks(text, [TOKEN, COOKIE]) == []
    assert all(set(item) == {"kind", "length", "digest", "folded"} for item in record["secrets"])


@SLOW
@given(secret=secrets, spelling=st.sampled_from(sorted(SPELLINGS)))
def test_an_export_after_import_removes_a_value_import_removed_in_any_spelling(
    secret: str, spelling: str
) -> None:
    _not_protocol_text(secret)
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        # The value comes back where no rule can see it: plain prose, no shape.
        echoed = SPELLINGS[spelling](secret)
        body = _sse(f"your session is {echoed} ok") + f": {echoed}\n\n".encode()
        capture = _imported_capture(root, secret, body)
        result = export_recording(load_recording(capture), root / "out")
        written = _written(root / "out")
        assert leaks(written, [secret]) == []
        assert b'"redacted":{"scheme"' not in written  # the hashes are not published
        scan = result.report["verification"]["leak_scan"]
        assert scan["found"] == 0 and scan["secrets"] >= 1


@SLOW
@given(secret=secrets, spelling=st.sampled_from(sorted(SPELLINGS)),
       source=st.sampled_from(["bearer", "x-api-key", "cookie", "basic", "custom"]),
       container=st.sampled_from(["vcr", "har"]))  # fmt: skip
def test_exporting_a_cassette_or_har_directly_removes_every_credential_in_any_spelling(
    secret: str, spelling: str, source: str, container: str
) -> None:
    _not_protocol_text(secret)
    headers = {
        "bearer": {"Authorization": f"Bearer {secret}"},
        "x-api-key": {"X-Api-Key": secret},
        "cookie": {"Cookie": f"theme=dark; sid={secret}"},
        "basic": {"Authorization": "Basic " + base64.b64encode(f"me:{secret}".encode()).decode()},
        "custom": {"X-Tenant-Credential": secret},
    }[source]
    echoed = SPELLINGS[spelling](secret)
    sse = _sse(f"echo {echoed} end", "tail") + f": {echoed}\n\n".encode()
    make, suffix = (_cassette, ".json") if container == "vcr" else (_har, ".har")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / f"c{suffix}").write_bytes(make(sse, headers))
        (outcome,) = export_paths([root / f"c{suffix}"], root / "out")
        assert outcome.error is None and outcome.result is not None, outcome.error
        assert leaks(_written(root / "out"), [secret]) == []
        scan = outcome.result.report["verification"]["leak_scan"]
        assert scan["secrets"] >= 1 and scan["found"] == 0


def test_an_export_of_an_old_style_record_without_folded_hashes_still_removes(
    tmp_path: Path,
) -> None:
    capture = _imported_capture(tmp_path, COOKIE, _sse(f"the value {COOKIE} again"))
    lines = capture.read_bytes().splitlines()
    header = orjson.loads(lines[0])
    for item in header["redacted"]["secrets"]:
        item.pop("folded")
    capture.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]) + b"\n")
    export_recording(load_recording(capture), tmp_path / "out")
    assert leaks(_written(tmp_path / "out"), [COOKIE]) == []


@SLOW
@given(sid=secrets, password=secrets, spelling=st.sampled_from(sorted(SPELLINGS)))
def test_a_captures_own_header_credentials_taken_apart_are_removed_from_its_body(
    sid: str, password: str, spelling: str
) -> None:
    _not_protocol_text(sid)
    _not_protocol_text(password)
    # A capture some other tool wrote, credentials still in its header: each cookie's
    # value and the Basic password, echoed in any spelling, go as a live recording's would.
    basic = base64.b64encode(f"me:{password}".encode()).decode()
    headers = {"Cookie": f"theme=dark; sid={sid}", "Authorization": f"Basic {basic}"}
    spell = SPELLINGS[spelling]
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        writer = CaptureWriter(root / "c.jsonl", {"provider": "openai-chat", "model": "m",
            "request": {"url": "https://api.openai.com/v1/chat/completions",
                        "headers": headers}})  # fmt: skip
        writer.chunk(0.0, _sse(f"sid {spell(sid)} pw {spell(password)} ok"))
        writer.chunk(0.1, f": {spell(sid)} {spell(password)}\n\n".encode())
        writer.end("eof", 0.2)
        result = export_recording(load_recording(root / "c.jsonl"), root / "out")
        assert leaks(_written(root / "out"), [sid, password]) == []
        assert result.report["verification"]["leak_scan"]["found"] == 0
