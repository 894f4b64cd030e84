"""Random secrets × every claimed spelling × every output channel -> 0 found.

For a random credential (any of the sources, any length from the shortest
scrubbed up), spelled in each way docs/security.md claims and echoed by the
server, nothing of it may be in: the capture (live recording: the stream,
cut at a random place, and the header), the export of that capture, what is
printed (a message cleaned for stderr), a file name built from the model,
or the text the TUI shows (the exchange's description and header).
"""

from __future__ import annotations

import contextlib
import io
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording, parse_recording
from inspector.capture_writer import CaptureWriter
from inspector.cli.common import error
from inspector.export import ExportError, export_recording
from inspector.live.options import default_capture_path
from inspector.proxy.flow import Flow, FlowRequest
from inspector.proxy.log import flow_line
from inspector.proxy.recording import capture_name
from inspector.proxy.routes import Route
from inspector.redact import MIN_SECRET, SecretSet
from inspector.session import trace_recording

from .secrets_upstream import SPELLINGS, chat_frame, leaks

_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~+/"
SOURCES = ["api-key", "header:x-api-key", "cookie", "basic-password", "url-userinfo",
           "query:key", "body:client_secret", "set-cookie"]  # fmt: skip
secrets = st.text(_ALPHABET, min_size=MIN_SECRET + 4, max_size=48).filter(
    lambda s: len(set(s)) > 4  # not "aaaaaaaaaaaa": that is no credential
)


def _events(stream: bytes) -> str:
    """The events of an OpenAI Chat stream, as text (what the TUI's views show)."""
    return " ".join(
        map(str, trace_recording(parse_recording(stream, "c.sse"), "openai-chat").events)
    )


def _streamed(found: SecretSet, stream: bytes, cuts: list[int]) -> bytes:
    """``stream`` through the set's scrubber, cut into chunks at ``cuts``."""
    scrubber = found.scrubber()
    borders = sorted({c % (len(stream) + 1) for c in cuts})
    pieces = [stream[a:b] for a, b in zip([0, *borders], [*borders, len(stream)], strict=True)]
    return b"".join(scrubber.feed(piece) for piece in pieces) + scrubber.flush()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=secrets, spelling=st.sampled_from(sorted(SPELLINGS)),
       cuts=st.lists(st.integers(min_value=0, max_value=2000), min_size=1, max_size=4))  # fmt: skip
def test_every_spelling_split_at_any_bytes_across_chunks_is_scrubbed(
    secret: str, spelling: str, cuts: list[int]
) -> None:
    echoed = SPELLINGS[spelling](secret)
    # In a JSON string (its breaks escaped), in an SSE comment (its breaks real), in prose.
    stream = (chat_frame(f"hi {echoed} there") + f": {echoed}\n\n".encode()
              + f"data: x{echoed}\n".encode() + b"data: [DONE]\n\n")  # fmt: skip
    assert leaks(_streamed(SecretSet([("secret", secret)]), stream, cuts), [secret]) == []


def test_every_spelling_split_at_every_byte_is_scrubbed() -> None:
    secret = "Zq7vK2pL/mN9xR+tWb8cY3dFgH6jS"
    found = SecretSet([("secret", secret)])
    for spelling, spell in SPELLINGS.items():
        stream = chat_frame(spell(secret)) + f": {spell(secret)}\n\n".encode()
        for cut in range(len(stream) + 1):
            assert leaks(_streamed(found, stream, [cut]), [secret]) == [], (spelling, cut)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=secrets, kind=st.sampled_from(SOURCES), spelling=st.sampled_from(sorted(SPELLINGS)),
       cuts=st.lists(st.integers(min_value=0, max_value=2000), min_size=1, max_size=3))  # fmt: skip
def test_no_spelling_of_any_secret_reaches_any_channel(
    secret: str, kind: str, spelling: str, cuts: list[int]
) -> None:
    found = SecretSet([(kind, secret)])
    echoed = SPELLINGS[spelling](secret)
    stream = chat_frame(f"hi {echoed} there") + f": {echoed}\n\n".encode() + b"data: [DONE]\n\n"
    # the capture: streamed through the scrubber, cut anywhere
    recorded = _streamed(found, stream, cuts)
    assert leaks(recorded, [secret]) == []
    # what the TUI's timeline and inspector show: the events decoded from the capture
    # (a "secret" the events say anyway, such as FINISH_REASO, proves nothing)
    assume(leaks(_events(chat_frame("hi  there") + b"data: [DONE]\n\n"), [secret]) == [])
    assert leaks(_events(recorded), [secret]) == []
    # printed text (stderr as error() prints it), file names, what the TUI shows of an exchange
    printed = io.StringIO()
    with contextlib.redirect_stderr(printed):
        error(found.clean(f"the server said {echoed}"))
    assert leaks(printed.getvalue(), [secret]) == []
    assert leaks(default_capture_path("openai-chat", found.clean(echoed)).name, [secret]) == []
    flow = Flow(1, FlowRequest("POST", "/v1/chat/completions", "", [], b"{}", "http://h/x"),
                Route("openai-chat", "openai", None), echoed, secrets_seen=found,
                directory=None)  # fmt: skip
    assert leaks(f"{flow.description} {flow.model} {flow.exchange}", [secret]) == []
    # the proxy's headless line and its capture's file name
    name = capture_name(1, "openai-chat", flow.model, datetime.now(UTC))
    assert leaks(f"{flow_line(flow)} {name}", [secret]) == []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow,
          HealthCheck.function_scoped_fixture])  # fmt: skip
@given(secret=secrets, spelling=st.sampled_from(sorted(SPELLINGS)))
def test_an_export_never_writes_a_spelling_of_a_recorded_credential(
    tmp_path_factory: object, secret: str, spelling: str
) -> None:
    # (a "secret" an export says anyway, such as "verification", proves nothing)
    assume(leaks(_exported("x-api-key-value", "-"), [secret]) == [])
    written = _exported(secret, SPELLINGS[spelling](secret))
    assert leaks(written, [secret]) == []


def _exported(secret: str, echoed: str) -> str:
    """What an export writes of a capture sending ``secret`` and echoing ``echoed``
    (or its refusal, when it refuses: then nothing is written)."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        writer = CaptureWriter(root / "c.jsonl", {
            "provider": "openai-chat", "model": "m",
            "request": {"url": "https://api.openai.com/v1/chat/completions",
                        "headers": {"x-api-key": secret}},
        })  # fmt: skip
        writer.chunk(0.0, chat_frame(f"echo {echoed} ok"))
        writer.chunk(0.1, b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n')
        writer.chunk(0.2, b"data: [DONE]\n\n")
        writer.end("eof", 0.3)
        try:
            export_recording(load_recording(root / "c.jsonl"), root / "out")
        except ExportError as refused:
            assert not (root / "out").exists() or not any((root / "out").iterdir())
            return str(refused)
        files = sorted(p for p in (root / "out").rglob("*") if p.is_file())
        return "\n".join(f"{p.name}\n{p.read_text('utf-8', 'replace')}" for p in files)
