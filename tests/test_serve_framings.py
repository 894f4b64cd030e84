"""``inspector serve`` on the newer providers' own paths, in their own framings, with faults
placed on each framing's frame boundaries; checked with the clients people use (botocore,
ollama, cohere, openai) over loopback, and with our own decoder where there is none."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.capture import read_recording
from inspector.capture_writer import CaptureWriter
from inspector.core.normalizer import Normalizer
from inspector.core.trace import TransportEnd
from inspector.serve import ReplayServer, load_catalog
from inspector.serve.faults import Faults, FrameAt, Send, Stall, parse_faults, plan
from inspector.serve.framings import frame_spans, keepalive
from inspector.serve.services import SERVICES

from .conftest import CAPTURES
from .framing_support import PROTOCOL_FOLDERS, protocol_captures

ES = "aws-eventstream"
CONVERSE = CAPTURES / "bedrock-converse"
INVOKE = CAPTURES / "bedrock-invoke"
OLLAMA = CAPTURES / "ollama"
GEMINI_ARRAY = (
    b'[{"candidates": [{"content": {"parts": [{"text": "Hel"}], "role": "model"}}]}\n'
    b',\r\n{"candidates": [{"content": {"parts": [{"text": "lo"}], "role": "model"},'
    b' "finishReason": "STOP"}], "modelVersion": "gemini-2.0-flash"}\n]'
)


@pytest.fixture(scope="module")
def gemini_array(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Gemini stream without ``alt=sse``: one JSON array."""
    path = tmp_path_factory.mktemp("gemini") / "array-text.jsonl"
    header = {"provider": "gemini", "response": {"status": 200, "headers": {
        "content-type": "application/json"}}, "framing": "json-array"}  # fmt: skip
    writer = CaptureWriter(path, header)
    writer.chunk(0.1, GEMINI_ARRAY[:40])
    writer.chunk(0.2, GEMINI_ARRAY[40:])
    writer.end("eof", 0.3)
    return path


@pytest.fixture(scope="module")
def server(gemini_array: Path) -> Iterator[ReplayServer]:
    folders = [CAPTURES / folder for folder in PROTOCOL_FOLDERS]
    with ReplayServer(load_catalog([*folders, gemini_array]), speed=0) as running:
        yield running


@pytest.fixture
def http(server: ReplayServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        yield client


def bedrock(server: ReplayServer) -> Any:
    """botocore's own bedrock-runtime client, pointed at the replay server."""
    session = pytest.importorskip("botocore.session")
    from botocore.config import Config

    return session.get_session().create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=server.url,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
        config=Config(retries={"max_attempts": 1}),
    )


def url_of(capture: Path) -> str:
    """The path a client of the capture's provider posts to, and its capture name."""
    service = load_catalog([capture]).by_provider
    (name,) = service
    return SERVICES[name].path.replace("{modelId}", capture.stem).replace("{model}", capture.stem)


def sent(steps: list[Any]) -> bytes:
    """The bytes a plan sends."""
    return b"".join(s.data for s in steps if isinstance(s, Send))


def decoded(body: bytes, provider: str, framing: str) -> Any:
    normalizer = Normalizer(provider, "st_t", framing=framing)
    normalizer.feed(body)
    return normalizer.finish(TransportEnd("eof"))


# -- every capture, on its path, as recorded ----------------------------------------------------


def test_every_newer_capture_is_served_none_is_skipped(server: ReplayServer) -> None:
    catalog = load_catalog([CAPTURES / folder for folder in PROTOCOL_FOLDERS])
    assert catalog.skipped == []
    assert len(catalog) == len(protocol_captures())


@pytest.mark.parametrize("capture", protocol_captures(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_each_capture_is_replayed_byte_for_byte_on_its_path_with_its_content_type(
    http: httpx.Client, capture: Path
) -> None:
    rec = read_recording(capture)
    recorded = (rec.header or {})["response"]["headers"]["content-type"]
    got = bytearray()
    with http.stream(
        "POST", url_of(capture), params={"capture": capture.stem}, json={}
    ) as response:
        assert response.status_code == (rec.status or 200)
        assert response.headers["content-type"].split(";")[0] == recorded
        try:
            for piece in response.iter_raw():
                got += piece
        except httpx.ReadError:  # a recorded reset is replayed as one, after every byte
            assert rec.end is not None and rec.end.reason == "reset"
    assert bytes(got) == rec.body


def test_bedrock_converse_streams_to_botocores_own_client(server: ReplayServer) -> None:
    rec = read_recording(CONVERSE / "tool-use.jsonl")
    names = [f.event for f in decoded(rec.body, "bedrock-converse", "aws-eventstream").frames]
    response = bedrock(server).converse_stream(
        modelId="tool-use", messages=[{"role": "user", "content": [{"text": "hi"}]}]
    )
    got = [next(iter(event)) for event in response["stream"]]
    assert got == names


def test_bedrock_invoke_streams_chunks_to_botocore_with_the_claude_events_inside(
    server: ReplayServer,
) -> None:
    response = bedrock(server).invoke_model_with_response_stream(modelId="claude-text", body=b"{}")
    inner = [orjson.loads(event["chunk"]["bytes"])["type"] for event in response["body"]]
    assert inner[0] == "message_start" and inner[-1] == "message_stop"


def test_a_bedrock_exception_frame_reaches_botocore_as_the_named_error(
    server: ReplayServer,
) -> None:
    from botocore.exceptions import EventStreamError

    response = bedrock(server).converse_stream(
        modelId="throttling-exception", messages=[{"role": "user", "content": [{"text": "x"}]}]
    )
    with pytest.raises(EventStreamError, match=r"(?i)ThrottlingException"):
        list(response["stream"])


def test_the_status_fault_on_bedrock_is_an_error_botocore_names_by_its_code(
    server: ReplayServer,
) -> None:
    from botocore.exceptions import ClientError

    client = bedrock(server)
    client.meta.events.register(
        "before-send.bedrock-runtime.ConverseStream",
        lambda request, **_: setattr(request, "url", request.url + "?status=429") or None,
    )
    with pytest.raises(ClientError) as raised:
        client.converse_stream(modelId="tool-use", messages=[])
    assert raised.value.response["Error"]["Code"] == "ThrottlingException"


# -- faults on the event stream's own frames -----------------------------------------------------


def _messages(name: str) -> tuple[bytes, list[tuple[int, int]]]:
    body = read_recording(CONVERSE / f"{name}.jsonl").body
    return body, frame_spans(body, "aws-eventstream")


def test_a_frame_place_is_a_message_boundary_and_a_byte_place_is_exact() -> None:
    body, spans = _messages("tool-use")
    chunks = [(0.0, body)]
    for k in range(len(spans) + 2):
        cut = sent(plan(chunks, Faults(cut=FrameAt(k)), speed=0, ping=None, framing=ES))
        assert cut == body[: spans[k][0] if k < len(spans) else len(body)]
    assert len(sent(plan(chunks, Faults(cut=7), speed=0, ping=None, framing=ES))) == 7


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_a_cut_at_any_message_boundary_gives_botocore_exactly_the_messages_before_it(
    server: ReplayServer, data: st.DataObject
) -> None:
    body, spans = _messages("tool-use")
    k = data.draw(st.integers(0, len(spans) - 1))
    client = bedrock(server)
    client.meta.events.register(
        "before-send.bedrock-runtime.ConverseStream",
        lambda request, **_: setattr(request, "url", request.url + f"?cut=frame:{k}") or None,
    )
    events = list(client.converse_stream(modelId="tool-use", messages=[])["stream"])
    assert len(events) == k
    trace = decoded(body[: spans[k][0]], "bedrock-converse", "aws-eventstream")
    assert trace.outcome.startswith("interrupted")


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_corrupting_any_message_is_a_crc_mismatch_botocore_detects_there(
    server: ReplayServer, data: st.DataObject
) -> None:
    from botocore.eventstream import ChecksumMismatch
    from botocore.exceptions import EventStreamError

    body, spans = _messages("tool-use")
    k = data.draw(st.integers(0, len(spans) - 1))
    client = bedrock(server)
    client.meta.events.register(
        "before-send.bedrock-runtime.ConverseStream",
        lambda request, **_: setattr(request, "url", request.url + f"?corrupt=frame:{k}") or None,
    )
    got: list[Any] = []
    with pytest.raises((ChecksumMismatch, EventStreamError)):
        for event in client.converse_stream(modelId="tool-use", messages=[])["stream"]:
            got.append(event)
    assert len(got) == k
    damaged = sent(plan([(0.0, body)], Faults(corrupt=FrameAt(k)), speed=0, ping=None, framing=ES))
    trace = decoded(damaged, "bedrock-converse", "aws-eventstream")
    assert trace.outcome == "failed (protocol_error)"
    message = trace.terminal_event["error"]["message"]
    assert f"CRC mismatch in the message at byte {spans[k][0]}" in message


def test_a_stall_on_a_binary_stream_sends_nothing_extra_and_keeps_every_message_whole() -> None:
    body, spans = _messages("tool-use")
    assert keepalive("aws-eventstream", "bedrock-converse") is None
    steps = plan(
        [(0.0, body)], Faults(stall=2, stall_at=FrameAt(3)), speed=0, ping=None, framing=ES
    )
    assert [type(s) for s in steps] == [Send, Stall, Send, type(steps[-1])]
    assert steps[0].data == body[: spans[3][0]]
    assert sent(steps) == body


def test_rechunked_to_single_bytes_botocore_still_reads_every_event(server: ReplayServer) -> None:
    client = bedrock(server)
    client.meta.events.register(
        "before-send.bedrock-runtime.ConverseStream",
        lambda request, **_: setattr(request, "url", request.url + "?chunk=1") or None,
    )
    events = list(client.converse_stream(modelId="max-tokens", messages=[])["stream"])
    assert next(iter(events[-1])) == "metadata"


def test_frame_places_parse_from_the_query_and_the_header_and_say_so_in_logs() -> None:
    faults = parse_faults({"cut": "frame:3"}, "corrupt=frame:1; stall_at=frame:2; stall=1")
    assert faults == Faults(cut=FrameAt(3), corrupt=FrameAt(1), stall=1, stall_at=FrameAt(2))
    assert faults.describe() == "cut=frame:3 corrupt=frame:1 stall=1 stall_at=frame:2"


# -- NDJSON: Ollama --------------------------------------------------------------------------------


def test_ollamas_own_client_reads_chat_and_generate_from_their_paths(server: ReplayServer) -> None:
    ollama = pytest.importorskip("ollama")
    client = ollama.Client(host=server.url)
    chat = "".join(p.message.content for p in client.chat(model="chat-text", messages=[],
                                                          stream=True))  # fmt: skip
    generate = "".join(p.response for p in client.generate(model="generate-text", prompt="x",
                                                           stream=True))  # fmt: skip
    assert chat == generate == "The sky is blue because of Rayleigh scattering."


def test_an_ndjson_cut_at_frame_k_hands_the_client_k_whole_lines(server: ReplayServer) -> None:
    ollama = pytest.importorskip("ollama")
    body = read_recording(OLLAMA / "chat-text.jsonl").body
    lines = body.count(b"\n")
    for k in range(lines):
        with httpx.Client(base_url=server.url, timeout=10) as http:
            got = http.post("/api/chat", params={"cut": f"frame:{k}"},
                            json={"model": "chat-text"}).content  # fmt: skip
        assert got == b"".join(body.splitlines(keepends=True)[:k])
    # The client's own loop reads them one by one and sees no error.
    parts = list(ollama.Client(host=server.url).chat(model="chat-text", messages=[], stream=True))
    assert parts[-1].done


def test_the_status_fault_on_ollama_is_an_error_its_client_reads(server: ReplayServer) -> None:
    ollama = pytest.importorskip("ollama")
    with httpx.Client(base_url=server.url, timeout=10) as http:
        response = http.post("/api/generate?status=404", json={"model": "generate-text"})
    assert response.json() == {"error": "The model does not exist."}
    client = ollama.Client(host=server.url, headers={"x-inspector-fault": "status=500"})
    with pytest.raises(ollama.ResponseError):
        list(client.generate(model="generate-text", prompt="x", stream=True))


# -- SSE protocols: Cohere, Completions, AI SDK UI; Gemini's JSON array ---------------------------


def test_cohere_sdk_reads_its_stream_and_its_status_faults(server: ReplayServer) -> None:
    cohere = pytest.importorskip("cohere")
    client = cohere.ClientV2(api_key="test-key-0123456789", base_url=server.url)
    events = list(client.chat_stream(model="citations", messages=[]))
    assert events[0].type == "message-start" and events[-1].type == "message-end"
    faulty = {"additional_query_parameters": {"status": "429"}}
    with pytest.raises(cohere.TooManyRequestsError):
        list(client.chat_stream(model="citations", messages=[], request_options=faulty))


def test_openai_sdk_reads_a_legacy_completions_stream(server: ReplayServer) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(api_key="test-key-0123456789", base_url=server.url + "/v1")
    chunks = client.completions.create(model="text-with-usage", prompt="x", stream=True)
    assert "".join(c.choices[0].text for c in chunks if c.choices) == "\n\nThis is a test."


def test_api_chat_is_the_ai_sdks_without_a_model_and_ollamas_with_one(http: httpx.Client) -> None:
    ui = http.post("/api/chat", params={"capture": "text"}, json={"id": "c1", "messages": []})
    assert ui.headers["content-type"].startswith("text/event-stream")
    assert ui.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert ui.content.endswith(b"data: [DONE]\n\n")
    assert http.post("/api/chat", json={"model": "text"}).headers["x-inspector-capture"] == "text"
    ollama = http.post("/api/chat", json={"model": "chat-thinking", "messages": []})
    assert ollama.headers["content-type"] == "application/x-ndjson"
    unnamed = http.post("/api/chat", json={"messages": []})
    assert unnamed.status_code == 404 and "?capture=" in unnamed.json()["error"]


def test_an_sse_stall_sends_the_framings_keepalive_between_whole_events() -> None:
    assert keepalive("sse", "cohere") == b": ping\n\n"
    assert keepalive("ndjson", "ollama") is None


def test_gemini_without_alt_sse_is_served_as_a_json_array_cut_between_elements(
    http: httpx.Client,
) -> None:
    target = "/v1beta/models/array-text:streamGenerateContent"
    whole = http.post(target, json={})
    assert whole.headers["content-type"] == "application/json"
    assert orjson.loads(whole.content)[1]["candidates"][0]["finishReason"] == "STOP"
    first = http.post(target, params={"cut": "frame:1"}, json={}).content
    assert first == GEMINI_ARRAY[: frame_spans(GEMINI_ARRAY, "json-array")[1][0]]
    assert decoded(first, "gemini", "json-array").outcome.startswith("interrupted")


# -- the general rules, on every capture of every framing (no network) ----------------------------


def _framed_captures() -> list[tuple[bytes, str, str]]:
    out = []
    for path in [*protocol_captures()]:
        rec = read_recording(path)
        if rec.status is not None and rec.status >= 400:
            continue
        (entry,) = [e for es in load_catalog([path]).by_provider.values() for e in es.values()]
        out.append((rec.body, entry.framing, rec.provider or ""))
    return out


FRAMED = _framed_captures()


@settings(max_examples=120, deadline=None)
@given(data=st.data())
def test_a_cut_at_frame_k_is_exactly_the_first_k_frames_in_every_framing(
    data: st.DataObject,
) -> None:
    body, framing, provider = data.draw(st.sampled_from(FRAMED))
    spans = frame_spans(body, framing)
    k = data.draw(st.integers(0, len(spans)))
    size = data.draw(st.integers(1, 64))
    chunks = [(0.0, body[i : i + size]) for i in range(0, len(body), size)]
    got = sent(plan(chunks, Faults(cut=FrameAt(k)), speed=0, ping=None, framing=framing))
    end = spans[k][0] if k < len(spans) else len(body)
    assert got == body[:end]
    # Cut before the frame that proves the end, it never reads as completed.
    whole = decoded(body, provider, framing)
    if whole.state == "completed":
        terminal = whole.terminal_event
        assert terminal is not None
        proving = whole.frames[whole.frame_of_event(terminal["seq"] - 1)]
        if end < proving.end:
            assert decoded(got, provider, framing).state != "completed"


EVENT_STREAMS = [c for c in FRAMED if c[1] == "aws-eventstream"]


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_corrupting_any_message_of_any_event_stream_fails_it_there_keeping_the_ones_before(
    data: st.DataObject,
) -> None:
    body, framing, provider = data.draw(st.sampled_from(EVENT_STREAMS))
    spans = frame_spans(body, framing)
    k = data.draw(st.integers(0, len(spans) - 1))
    damaged = sent(plan([(0.0, body)], Faults(corrupt=FrameAt(k)), speed=0, ping=None,
                        framing=framing))  # fmt: skip
    assert len(damaged) == len(body)
    assert sum(a != b for a, b in zip(damaged, body, strict=True)) == 1
    trace = decoded(damaged, provider, framing)
    assert trace.outcome == "failed (protocol_error)"
    assert f"at byte {spans[k][0]}" in trace.terminal_event["error"]["message"]
    assert len(trace.frames) == k


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_a_stall_anywhere_on_a_framing_without_keepalives_sends_the_body_unchanged(
    data: st.DataObject,
) -> None:
    body, framing, provider = data.draw(st.sampled_from(FRAMED))
    where = data.draw(st.integers(0, len(body)))
    ping = keepalive(framing, provider)
    steps = plan([(0.0, body)], Faults(stall=1, stall_at=where, ping_every=0.5), speed=0,
                 ping=ping, framing=framing)  # fmt: skip
    assert sent(steps) == body
    (stall,) = [s for s in steps if isinstance(s, Stall)]
    assert (stall.ping is None) == (framing != "sse")


def test_get_root_lists_the_new_endpoints_with_each_captures_framing(http: httpx.Client) -> None:
    endpoints = http.get("/").json()["endpoints"]
    converse = endpoints["/model/{modelId}/converse-stream"]["captures"]["tool-use"]
    assert converse["framing"] == "aws-eventstream"
    assert endpoints["/api/chat"]["provider"] == "ollama"
    assert endpoints["/api/chat (ai-sdk-ui)"]["captures"]["text"]["framing"] == "sse"
    assert "array-text" in endpoints["/v1beta/models/{model}:streamGenerateContent"]["captures"]
