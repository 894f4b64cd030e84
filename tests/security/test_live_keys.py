"""Boundary: what a provider (or anything at ``--base-url``) sends back to live mode.

A server may echo the API key — in an error body, a response header, SSE
data or comments, in any encoding. Nothing ``live``/``record`` writes or
prints may contain it: the capture, stdout/stderr, and the trace the TUI
shows are built from scrubbed bytes.
"""

from __future__ import annotations

import base64
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, quote_plus

import orjson
import pytest

from inspector.capture import load_recording
from inspector.capture_writer import CaptureWriter
from inspector.live import LiveFeed, build_request
from inspector.redact import redact_url
from inspector.redact.spellings import MIN_SECRET, SecretScrubber
from inspector.serve import ReplayServer, load_catalog
from inspector.session import load_trace

from ..conftest import ROOT

KEY = "sk-live-Q9x/+Zr7Wm2Kp4Vt8Ns6Yb3Hc1Jd5"
PLACEHOLDER = b"[redacted]"


def _hex_lower(text: str) -> str:
    """Percent-encoding with lower-case hex digits (what some encoders emit)."""
    encoded = quote(text, safe="")
    out, i = [], 0
    while i < len(encoded):
        if encoded[i] == "%":
            out.append(encoded[i : i + 3].lower())
            i += 3
        else:
            out.append(encoded[i])
            i += 1
    return "".join(out)


def _json_escaped_everywhere(text: str, upper: bool = False) -> str:
    return "".join(f"\\u{ord(c):04X}" if upper else f"\\u{ord(c):04x}" for c in text)


def _json_escaped_some(text: str) -> str:
    # An encoder may escape any character: every other one here.
    return "".join(f"\\u{ord(c):04x}" if i % 2 else c for i, c in enumerate(text))


def _base64_variants(secret: str) -> list[str]:
    found = []
    for prefix in (b"", b"u", b"us"):  # the three alignments inside a longer text
        raw = prefix + secret.encode() + b":x"
        found += [base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()]
    return found


def encodings(secret: str) -> dict[str, str]:
    """Every spelling of ``secret`` a server might echo."""
    forms = {
        "raw": secret,
        "url": quote(secret, safe=""),
        "url-lower-hex": _hex_lower(secret),
        "url-plus": quote_plus(secret),
        "json": json.dumps(secret)[1:-1],
        "json-slash": json.dumps(secret)[1:-1].replace("/", "\\/"),
        "json-u": _json_escaped_everywhere(secret),
        "json-U": _json_escaped_everywhere(secret, upper=True),
        "json-some": _json_escaped_some(secret),
    }
    for i, form in enumerate(_base64_variants(secret)):
        forms[f"base64-{i}"] = form
    return forms


def _leaks(data: bytes, secret: str = KEY) -> list[str]:
    """The spellings of ``secret`` (or of its distinctive middle) still in ``data``."""
    text = data.decode("utf-8", "replace")
    return [name for name, form in encodings(secret).items() if form in text]


# -- the scrubber ---------------------------------------------------------------


@pytest.mark.parametrize(("name", "form"), sorted(encodings(KEY).items()))
def test_every_spelling_of_the_key_is_replaced(name: str, form: str) -> None:
    scrubber = SecretScrubber([KEY])
    data = f'data: {{"echo": "before {form} after"}}\n\n'.encode()
    out = scrubber.scrub(data)
    assert PLACEHOLDER in out
    assert _leaks(out) == []
    assert out.startswith(b'data: {"echo": "before ')


def test_a_key_with_a_space_in_form_encoding_is_replaced() -> None:
    secret = "pass word with spaces 123"
    scrubber = SecretScrubber([secret])
    assert scrubber.scrub(b"q=" + quote_plus(secret).encode() + b"&x=1") == b"q=[redacted]&x=1"


def test_text_without_the_key_passes_unchanged() -> None:
    scrubber = SecretScrubber([KEY])
    data = b'data: {"choices":[{"delta":{"content":"sk-live- is a prefix, not the key"}}]}\n\n'
    assert scrubber.scrub(data) == data
    assert scrubber.feed(data) + scrubber.flush() == data


def test_short_secrets_are_refused_not_scrubbed() -> None:
    scrubber = SecretScrubber(["abc", "x" * (MIN_SECRET - 1), KEY])
    assert scrubber.refused == ("abc", "x" * (MIN_SECRET - 1))
    assert scrubber.secrets == (KEY,)
    assert scrubber.scrub(b"abc xxxxxxx") == b"abc xxxxxxx"


def test_a_longer_secret_containing_another_is_replaced_whole() -> None:
    scrubber = SecretScrubber([KEY, "Bearer " + KEY])
    assert scrubber.scrub(b"auth: Bearer " + KEY.encode()) == b"auth: [redacted]"


def test_scrub_text_keeps_other_text() -> None:
    scrubber = SecretScrubber([KEY])
    assert scrubber.scrub_text(f"échec: {KEY} ✓") == "échec: [redacted] ✓"


@pytest.mark.parametrize("name", sorted(encodings(KEY)))
def test_a_key_split_across_chunks_is_still_caught(name: str) -> None:
    form = encodings(KEY)[name]
    stream = (f'data: {{"text": "{form}"}}\n\n' * 3 + f": comment {form}\n\n").encode()
    shuffle = random.Random(name)
    for _ in range(150):
        cuts = sorted(shuffle.sample(range(1, len(stream)), 3))
        pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
        scrubber = SecretScrubber([KEY])
        out = b"".join(scrubber.feed(p) for p in pieces) + scrubber.flush()
        assert out == SecretScrubber([KEY]).scrub(stream)
        assert _leaks(out) == []


def test_split_at_every_byte_is_still_caught() -> None:
    stream = b"data: " + KEY.encode() + b"\n\n"
    scrubber = SecretScrubber([KEY])
    out = b"".join(scrubber.feed(stream[i : i + 1]) for i in range(len(stream)))
    assert out + scrubber.flush() == b"data: [redacted]\n\n"


def test_the_stream_is_held_back_at_most_the_longest_form() -> None:
    scrubber = SecretScrubber([KEY])
    letters = b"a" * 10_000  # every byte could belong to a match
    released = scrubber.feed(letters)
    assert len(letters) - len(released) == scrubber.holding <= scrubber.max_hold
    assert scrubber.max_hold < 14 * len(KEY)  # at most 13 bytes a character (\\\\\\\\u0041)


def test_a_chunk_ending_in_a_blank_line_is_released_whole() -> None:
    # No spelling of a key contains a line break: nothing to wait for.
    scrubber = SecretScrubber([KEY])
    chunk = b'data: {"delta": "sk-live-Q9"}\n\n'
    assert scrubber.feed(chunk) == chunk
    assert scrubber.holding == 0


def test_without_secrets_the_stream_passes_as_it_is() -> None:
    scrubber = SecretScrubber([])
    assert not scrubber.active
    assert scrubber.feed(b"abc") == b"abc"
    assert scrubber.flush() == b""


# -- live / record end to end ------------------------------------------------------

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def _frame(text: str) -> bytes:
    delta = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    return b"data: " + orjson.dumps(delta) + b"\n\n"


def _echoing_stream() -> list[bytes]:
    """A chat stream whose server echoes the key in every spelling, in data and comments."""
    first = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    chunks = [b"data: " + orjson.dumps(first) + b"\n\n"]
    for name, form in encodings(KEY).items():
        # As a JSON string's content (each spelling is valid there), that content
        # JSON-encoded once more, and in a comment.
        content = f'{{"choices":[{{"index":0,"delta":{{"content":"{name}: {form}"}}}}]}}'
        chunks.append(f"data: {content}\n\n".encode())
        chunks.append(_frame(f"{name}: {form} ok"))
        chunks.append(f": debug {name} {form}\n\n".encode())
    stop = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
    chunks.append(b"data: " + orjson.dumps(stop) + b"\n\ndata: [DONE]\n\n")
    return chunks


def _write_capture(path: Path, status: int, headers: dict[str, str], chunks: list[bytes]) -> None:
    writer = CaptureWriter(path, {"provider": "openai-chat", "model": path.stem,
                                  "response": {"status": status, "headers": headers}})  # fmt: skip
    for i, data in enumerate(chunks):
        writer.chunk(i / 1000, data)
    writer.end("eof", len(chunks) / 1000)


@pytest.fixture(scope="module")
def echo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ReplayServer]:
    """`inspector serve` replaying a server that echoes the key everywhere."""
    root = tmp_path_factory.mktemp("echo")
    headers = {
        "content-type": "text/event-stream",
        "openai-debug": KEY,  # a header serve replays (an openai- one)
        "openai-debug-url": quote(KEY, safe=""),
        "openai-debug-b64": base64.b64encode(KEY.encode()).decode(),
    }
    _write_capture(root / "echo.jsonl", 200, headers, _echoing_stream())
    message = f"Incorrect API key provided: {KEY}. And {quote(KEY, safe='')} \u001b[31m"
    body = orjson.dumps({"error": {"message": message, "type": "invalid"}})
    _write_capture(root / "unauthorized.jsonl", 401, {"content-type": "application/json",
                                                       "openai-echo": KEY}, [body])  # fmt: skip
    server = ReplayServer(load_catalog([root]), speed=0)
    with server:
        yield server


def _record(
    url: str, model: str, output: Path, *extra: str, key: str = KEY
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env["OPENAI_API_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "inspector", "record", "--provider", "openai-chat",
         "--model", model, "--prompt", "hi", "--base-url", url, "-o", str(output), *extra],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=60,
    )  # fmt: skip


def _assert_no_key_in(*texts: bytes | str) -> None:
    for text in texts:
        data = text.encode() if isinstance(text, str) else text
        assert _leaks(data) == [], data[:300]


@pytest.mark.parametrize("rechunk", ["", "?chunk=1", "?chunk=7", "?chunk=100"])
def test_a_key_echoed_in_headers_data_and_comments_is_never_written_or_printed(
    echo_server: ReplayServer, tmp_path: Path, rechunk: str
) -> None:
    capture = tmp_path / "c.jsonl"
    result = _record(echo_server.url + rechunk, "echo", capture)
    assert result.returncode == 0, result.stderr
    _assert_no_key_in(capture.read_bytes(), result.stdout, result.stderr)
    rec = load_recording(capture)
    assert rec.header is not None
    assert rec.header["response"]["headers"]["openai-debug"] == "[redacted]"
    # Base64's last character also holds bits of what follows: it may stay.
    assert rec.header["response"]["headers"]["openai-debug-b64"].startswith("[redacted]")
    body = rec.body
    _assert_no_key_in(body)
    # Every spelling was replaced in place, the rest of the stream is intact.
    assert body.count(PLACEHOLDER) == 3 * len(encodings(KEY))
    assert body.endswith(b"data: [DONE]\n\n")
    # What the TUI would show: the trace built from the same bytes.
    trace = load_trace(capture)
    assert trace.state == "completed"
    _assert_no_key_in(orjson.dumps(list(trace.events)))


async def test_the_live_feed_trace_never_holds_the_key(echo_server: ReplayServer) -> None:
    request = build_request(
        "openai-chat", model="echo", prompt="hi", base_url=echo_server.url + "?chunk=3",
        api_key=KEY,
    )  # fmt: skip
    feed = LiveFeed(request, capture=None, api_key=KEY)
    await feed.run(lambda: None)
    trace = feed.trace
    assert trace.state == "completed"
    _assert_no_key_in(
        trace.chunks.span(0, trace.bytes_received),
        orjson.dumps(list(trace.events)),
        orjson.dumps(feed.exchange),
        feed.description,
    )


def test_a_key_echoed_in_an_error_body_is_replaced_and_the_message_escaped(
    echo_server: ReplayServer, tmp_path: Path
) -> None:
    capture = tmp_path / "c.jsonl"
    result = _record(echo_server.url + "?chunk=5", "unauthorized", capture)
    assert result.returncode == 1
    assert "Incorrect API key provided: [redacted]" in result.stderr
    assert "\x1b" not in result.stderr and "\\x1b[31m" in result.stderr
    assert "Traceback" not in result.stderr
    _assert_no_key_in(capture.read_bytes(), result.stdout, result.stderr)
    assert load_recording(capture).header["response"]["headers"]["openai-echo"] == "[redacted]"


def test_credentials_in_the_base_url_are_not_recorded_or_printed(
    echo_server: ReplayServer, tmp_path: Path
) -> None:
    password = "pw-Hunter2-Hunter2"
    signature = "sig-8f3a9c0d1e2b4f"
    host = echo_server.url.split("://", 1)[1]
    # Userinfo would go out as Basic auth in place of the request's own: refused, unprinted.
    refused = _record(f"http://alice:{password}@{host}/?alt=sse", "echo", tmp_path / "no.jsonl")
    assert refused.returncode == 2 and "credentials in the URL are not allowed" in refused.stderr
    assert password not in refused.stdout + refused.stderr and not (tmp_path / "no.jsonl").exists()
    url = f"http://{host}/?api_key=qk-0123456789abcdef&X-Amz-Signature={signature}&alt=sse&chunk=4"
    capture = tmp_path / "c.jsonl"
    result = _record(url, "echo", capture)
    assert result.returncode == 0, result.stderr
    written = capture.read_bytes().decode() + result.stdout + result.stderr
    for secret in (signature, "qk-0123456789abcdef"):
        assert secret not in written
    header = load_recording(capture).header
    assert header is not None
    recorded = header["request"]["url"]
    assert "@" not in recorded and "alt=sse" in recorded and "chunk=4" in recorded


def test_redact_url_removes_userinfo_and_credential_like_parameters() -> None:
    url = (
        "https://u:p@h.example:8443/v1/x?key=1&apiKey=2&access_token=3&sig=4&signature=5"
        "&password=6&client_secret=7&X-Amz-Credential=8&alt=sse&monkey=9&max_tokens=10"
    )
    assert redact_url(url) == "https://h.example:8443/v1/x?alt=sse&monkey=9&max_tokens=10"


def test_a_key_too_short_to_scrub_is_warned_about(
    echo_server: ReplayServer, tmp_path: Path
) -> None:
    result = _record(echo_server.url, "echo", tmp_path / "c.jsonl", key="abc123")
    assert result.returncode == 0, result.stderr
    assert "too short to scrub" in result.stderr
    assert "abc123" not in result.stderr
