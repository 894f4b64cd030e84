"""The fast path and the reference mode normalize every stream to the same trace.

``Normalizer(fast=False)`` runs the straightforward path only: the decoder's
``feed``, every frame through ``Adapter.feed``, every action through
``StreamMachine.apply``. The fast path (runs of plain events as columns, the
adapters' compiled plain-frame descriptions, templates, batches across
chunks) must give exactly what it gives: the same events, the same trace
(frames, chunks, transitions, violations, ignored frames, the links between
them) and the same byte spans — on every bundled capture, every real
recording, and generated streams cut and bent in every way.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from benchmarks.streams import GENERATORS, stream_of_size
from inspector.capture import Recording, load_recording
from inspector.core.adapters import ADAPTERS, adapter_for
from inspector.core.adapters.base import Adapter
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace, TransportEnd
from inspector.library import expand_paths
from inspector.session import framing_of, guess_provider, trace_recording

from .choices_support import Generated, several_choice_streams
from .conftest import CAPTURES, ROOT

FOLDERS = [
    CAPTURES,
    ROOT / "tests" / "fixtures" / "real",
    ROOT.parent / "shared" / "fixtures" / "real",
]


def _recordings() -> list[tuple[str, Path, str]]:
    found = []
    for root in FOLDERS:
        if not root.is_dir():
            continue
        for path in expand_paths([str(root)]):
            provider = guess_provider(load_recording(path))
            if provider is not None:
                found.append((f"{root.name}/{Path(path).relative_to(root)}", Path(path), provider))
    return found


RECORDINGS = _recordings()


def everything(trace: Trace) -> dict[str, Any]:
    """All a trace records, as plain values: what a view or an export can read."""
    return {
        "events": list(trace.events),
        "json lines": b"".join(trace.events.json_lines()),
        "transitions": list(trace.transitions),
        "violations": list(trace.violations),
        "ignored": list(trace.ignored),
        "event frame": list(trace.event_frame),
        "frame event start": list(trace.frame_event_start),
        "block events": {i: list(events) for i, events in trace.block_events.items()},
        "state": trace.state,
        "frames": list(trace.frames),
        "spans": [column.tolist() for column in trace.frames.span_columns()],
        "chunks": list(trace.chunks),
        "decoder error": trace.decoder_error,
        "tail": trace.tail,
        "transport end": trace.transport_end,
        "problems": list(trace.problems),
    }


def _fed(
    body_chunks: list[tuple[float, bytes]],
    provider: str,
    fast: bool,
    many: bool,
    framing: str = "sse",
    **limits: int,
) -> Trace:
    normalizer = Normalizer(provider, "st_same", fast=fast, framing=framing, **limits)
    if many:
        normalizer.feed_many(body_chunks)
    else:
        for time, data in body_chunks:
            normalizer.feed(data, time)
    return normalizer.finish(TransportEnd("eof"))


def _cut(body: bytes, sizes: list[int]) -> list[tuple[float, bytes]]:
    pieces, at, n = [], 0, 0
    while at < len(body):
        size = sizes[n % len(sizes)]
        pieces.append((at / 1000, body[at : at + size]))
        at += size
        n += 1
    return pieces


def test_every_provider_and_every_folder_is_covered() -> None:
    assert {provider for _, _, provider in RECORDINGS} == set(ADAPTERS)
    assert any(name.startswith("captures/") for name, _, _ in RECORDINGS)
    assert any(name.startswith("real/") for name, _, _ in RECORDINGS)


@pytest.mark.parametrize(
    ("name", "path", "provider"), RECORDINGS, ids=[name for name, _, _ in RECORDINGS]
)
def test_a_recording_normalizes_the_same_fast_and_in_the_reference_mode(
    name: str, path: Path, provider: str
) -> None:
    for as_received in (True, False):
        fast = trace_recording(load_recording(path), provider, as_received=as_received)
        reference = trace_recording(
            load_recording(path), provider, as_received=as_received, fast=False
        )
        assert everything(fast) == everything(reference), as_received
    rec: Recording = load_recording(path)
    if rec.status is not None and rec.status >= 400:
        return  # an error body is never decoded: nothing else to compare
    body, framing = rec.body, framing_of(rec)  # (NDJSON, the AWS event stream: not SSE)
    rng = random.Random(name)
    for sizes in ([len(body) or 1], [1], [rng.randint(1, 64) for _ in range(20)], [4096]):
        chunks = _cut(body, sizes)
        reference = everything(_fed(chunks, provider, False, False, framing))
        assert everything(_fed(chunks, provider, True, False, framing)) == reference, sizes
        assert everything(_fed(chunks, provider, True, True, framing)) == reference, sizes


# -- generated streams -------------------------------------------------------------------

#: Frames that interrupt a run of plain ones: comments, other events, bad JSON, errors.
ODD_FRAMES = [
    b": ping",
    b"data: [DONE]",
    b"data: {not json",
    b"data: ",
    b'data: {"error": {"message": "overloaded", "type": "overloaded_error"}}',
    b'event: error\ndata: {"error": {"code": 500, "message": "m"}}',
    b"id: 7\ndata: {}",
    b"retry: 10\n: c",
    b'event: ping\ndata: {"type": "ping"}',
    b'data: {"type": "message_stop"}',
]

#: Keys no plain frame has; some mean something to a protocol (a citation, an error).
UNKNOWN_KEYS = ["x_groq", "citations", "error", "finish_reason", "usage", "extra", "index"]
UNKNOWN_VALUES: list[Any] = [None, 1, "x", {"message": "m"}, [], True]


def _frames_of(body: bytes) -> tuple[list[bytes], bytes]:
    separator = b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"
    return body.split(separator)[:-1], separator


def _with_unknown_key(frame: bytes, key: str, value: Any, depth: int) -> bytes:
    """The frame with ``key`` added to one of its objects (the top one, or one inside)."""
    head, sep, data = frame.rpartition(b"data: ")
    try:
        parsed = orjson.loads(data)
    except orjson.JSONDecodeError:
        return frame
    objects = list(_objects(parsed))
    if not objects:
        return frame
    objects[min(depth, len(objects) - 1)][key] = value
    return head + sep + orjson.dumps(parsed)


def _objects(value: Any) -> Iterator[dict[str, Any]]:
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _objects(item)
    elif isinstance(value, list):
        for item in value:
            yield from _objects(item)


@st.composite
def bent_streams(draw: st.DrawFn) -> tuple[str, bytes, list[int]]:
    """A provider's stream with frames repeated, dropped, swapped, bent and interrupted,
    perhaps cut short, and how to cut it into chunks."""
    provider = draw(st.sampled_from(sorted(GENERATORS)))
    frames, separator = _frames_of(stream_of_size(provider, draw(st.integers(1_000, 6_000))))
    body = _bent(draw, frames, separator, ODD_FRAMES)
    sizes = draw(st.lists(st.integers(1, 700), min_size=1, max_size=8))
    return provider, body, sizes


def _bent(draw: st.DrawFn, frames: list[bytes], separator: bytes, odd: list[bytes]) -> bytes:
    """``frames`` repeated, dropped, swapped, bent and interrupted, perhaps cut short."""
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(frames) - 1))
        change = draw(st.integers(0, 4))
        if change == 0:
            frames.insert(at, draw(st.sampled_from(odd)))
        elif change == 1:
            frames.insert(at, frames[draw(st.integers(0, len(frames) - 1))])
        elif change == 2 and len(frames) > 1:
            del frames[at]
        elif change == 3:
            key = draw(st.sampled_from(UNKNOWN_KEYS))
            value = draw(st.sampled_from(UNKNOWN_VALUES))
            frames[at] = _with_unknown_key(frames[at], key, value, draw(st.integers(0, 4)))
        else:
            other = draw(st.integers(0, len(frames) - 1))
            frames[at], frames[other] = frames[other], frames[at]
    body = b"".join(frame + separator for frame in frames)
    if draw(st.booleans()):
        body = body[: draw(st.integers(0, len(body)))]  # truncated: mid-frame, mid-line
    return body


@settings(max_examples=150, deadline=None)
@given(bent_streams())
def test_a_bent_stream_normalizes_the_same_fast_and_in_the_reference_mode(
    stream: tuple[str, bytes, list[int]],
) -> None:
    provider, body, sizes = stream
    chunks = _cut(body, sizes)
    reference = everything(_fed(chunks, provider, fast=False, many=False))
    assert everything(_fed(chunks, provider, fast=True, many=False)) == reference
    assert everything(_fed(chunks, provider, fast=True, many=True)) == reference


#: Lines that interrupt a run of plain NDJSON ones (Ollama).
ODD_LINES = [b"{not json", b'{"error": "boom"}', b"", b"[]", b'{"done": true}', b"null"]

#: The adapters described since v1 have no generator: their bundled captures are bent.
BENT_PROVIDERS = ("openai-completions", "ollama", "cohere", "ai-sdk-ui")
CAPTURE_BODIES = [
    (provider, framing_of(rec), rec.body)
    for provider in BENT_PROVIDERS
    for path in sorted((CAPTURES / provider).glob("*.jsonl"))
    if not path.name.endswith(".events.jsonl")
    for rec in [load_recording(path)]
    if rec.status is None or rec.status < 400
]


@st.composite
def bent_captures(draw: st.DrawFn) -> tuple[str, str, bytes, list[int]]:
    """A bundled capture of a newer adapter, bent as :func:`bent_streams` bends streams."""
    provider, framing, body = draw(st.sampled_from(CAPTURE_BODIES))
    if framing == "ndjson":
        frames, separator, odd = body.split(b"\n")[:-1], b"\n", ODD_LINES
    else:
        (frames, separator), odd = _frames_of(body), ODD_FRAMES
    bent = _bent(draw, frames, separator, odd)
    return provider, framing, bent, draw(st.lists(st.integers(1, 300), min_size=1, max_size=8))


@settings(max_examples=150, deadline=None)
@given(bent_captures())
def test_a_bent_capture_of_a_newer_adapter_normalizes_the_same_fast_and_in_the_reference_mode(
    stream: tuple[str, str, bytes, list[int]],
) -> None:
    provider, framing, body, sizes = stream
    chunks = _cut(body, sizes)
    reference = everything(_fed(chunks, provider, False, False, framing))
    assert everything(_fed(chunks, provider, True, False, framing)) == reference
    assert everything(_fed(chunks, provider, True, True, framing)) == reference


@settings(max_examples=40, deadline=None)
@given(bent_streams(), st.integers(40, 400))
def test_a_size_limit_stops_both_modes_at_the_same_byte(
    stream: tuple[str, bytes, list[int]], limit: int
) -> None:
    provider, body, sizes = stream
    chunks = _cut(body, sizes)
    limits = {"max_line": limit, "max_frame": limit}
    reference = everything(_fed(chunks, provider, fast=False, many=False, **limits))
    assert everything(_fed(chunks, provider, fast=True, many=False, **limits)) == reference
    assert everything(_fed(chunks, provider, fast=True, many=True, **limits)) == reference


def test_the_reference_mode_takes_no_run_and_no_template() -> None:
    body = stream_of_size("openai-chat", 20_000)
    for fast in (True, False):
        normalizer = Normalizer("openai-chat", "st_ref", fast=fast)
        taken: list[int] = []
        feed_run = normalizer.adapter.feed_run

        def counting(*args: Any, feed_run: Any = feed_run, taken: list[int] = taken) -> Any:
            answer = feed_run(*args)
            taken.append(len(answer[2]))
            return answer

        normalizer.adapter.feed_run = counting  # type: ignore[method-assign]
        normalizer.feed(body)
        assert (sum(taken) > 0) == fast
        assert (normalizer.adapter._learners is not None) == fast


#: Adapters without a description of their plain frames yet: feed maps every frame.
#: (The models behind Bedrock invoke are fed only through its wrapper, which unwraps
#: each chunk for feed: a description of theirs would never be run.)
UNDESCRIBED = frozenset(
    {"bedrock-converse", "bedrock-llama", "bedrock-titan", "bedrock-nova", "bedrock-cohere",
     "bedrock-mistral"}
)  # fmt: skip


def test_a_new_adapter_gets_the_fast_path_from_its_description() -> None:
    # Every registered adapter but those listed describes its plain frames, and the engine
    # compiled each shape.
    for provider in ADAPTERS:
        plain = adapter_for(provider).plain_frames
        if provider in UNDESCRIBED:
            assert plain is None, f"{provider} has a description now: take it off the list"
            continue
        assert plain is not None and set(plain.runners) == set(plain.shapes), provider


#: A capture of each adapter described since v1 whose text must go through runs.
TEXT_CAPTURES = {
    "openai-completions": "openai-completions/text-with-usage.jsonl",
    "ollama": "ollama/chat-text.jsonl",
    "ollama (generate)": "ollama/generate-text.jsonl",
    "cohere": "cohere/text.jsonl",
    "ai-sdk-ui": "ai-sdk-ui/text.jsonl",
}


@pytest.mark.parametrize("capture", TEXT_CAPTURES.values(), ids=list(TEXT_CAPTURES))
def test_a_described_adapter_takes_its_text_as_runs(
    capture: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The description is not dead: the plain frames of a text capture, NDJSON lines
    # included, reach the machine as runs rather than through feed.
    taken: list[int] = []
    feed_run = Adapter.feed_run

    def counting(self: Adapter, *args: Any) -> Any:
        answer = feed_run(self, *args)
        taken.append(len(answer[2]))
        return answer

    monkeypatch.setattr(Adapter, "feed_run", counting)
    trace = trace_recording(load_recording(CAPTURES / capture))
    texts = sum(1 for event in trace.events if event.get("type") == "block.delta")
    assert sum(taken) >= texts - 1 > 0


@settings(max_examples=150, deadline=None)
@given(several_choice_streams(), st.lists(st.integers(1, 300), min_size=1, max_size=8))
def test_a_stream_of_several_choices_normalizes_the_same_fast_and_in_the_reference_mode(
    stream: Generated, sizes: list[int]
) -> None:
    # Chunks of choices other than 0 look like plain ones but for their index: the
    # descriptions' index checks must decline them, whatever the interleaving or cut.
    chunks = _cut(stream.body, sizes)
    reference = everything(_fed(chunks, stream.provider, fast=False, many=False))
    assert everything(_fed(chunks, stream.provider, fast=True, many=False)) == reference
    assert everything(_fed(chunks, stream.provider, fast=True, many=True)) == reference


#: Index fields rewritten past the interpreter's cache of small ints (the compiled
#: checks test identity first, then type and value).
LARGE_INDICES = {
    "openai-responses": (b'"output_index":0', b'"output_index":1000'),
    "anthropic": (b'"index":0', b'"index":1000'),
}


@pytest.mark.parametrize("provider", sorted(LARGE_INDICES))
def test_an_index_past_the_small_ints_is_still_plain_and_the_same(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    old, new = LARGE_INDICES[provider]
    body = stream_of_size(provider, 20_000).replace(old, new)
    assert new in body
    taken: list[int] = []
    feed_run = Adapter.feed_run

    def counting(self: Adapter, *args: Any) -> Any:
        answer = feed_run(self, *args)
        taken.append(len(answer[2]))
        return answer

    chunks = _cut(body, [4096])
    reference = everything(_fed(chunks, provider, fast=False, many=False))
    monkeypatch.setattr(Adapter, "feed_run", counting)
    assert everything(_fed(chunks, provider, fast=True, many=False)) == reference
    deltas = sum(1 for event in reference["events"] if event.get("type") == "block.delta")
    assert sum(taken) > deltas // 2
