"""The core's fast paths give exactly what the general paths give.

Speed work added shortcuts that skip per-event work (the invariant checker
reading a trace's compact event columns; runs of plain deltas handed from an
adapter to the machine in bulk). Each is checked here against the general path
on the same input, including inputs built to break the rules.
"""

from __future__ import annotations

import random
from itertools import accumulate
from typing import Any

import orjson
import pytest

from benchmarks.streams import GENERATORS, decoder_stream, frames_in, stream_of_size
from inspector.core import normalizer as normalizer_module
from inspector.core.adapters.base import Lane
from inspector.core.adapters.openai_chat import OpenAIChatAdapter
from inspector.core.adapters.plain import Plain, Shape
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import Normalizer, normalize
from inspector.core.sse import Frame, FrameDecoder
from inspector.core.trace import ChunkLog, EventLog, Trace


def _broken_log() -> EventLog:
    log = EventLog("st_x")
    text = {"id": "b_0", "index": 0, "kind": "text"}
    log.append({"stream_id": "st_x", "seq": 1, "type": "stream.start", "provider": "p"})
    log.append_delta(text, "text", "before the block opened")
    log.append({"stream_id": "st_x", "seq": 3, "type": "block.start", "block": text})
    log.append_delta(text, "text", "fine")
    log.append({"stream_id": "st_y", "seq": 9, "type": "block.stop", "block": text})
    log.append_delta(text, "json_text", "after its stop")
    log.append({"stream_id": "st_x", "seq": 7, "type": "stream.done", "status": "completed"})
    log.append_delta({"id": "b_4", "index": 4, "kind": "text"}, "text", "after the end")
    log.append({"stream_id": "st_x", "seq": "9", "type": "stream.error", "status": "failed"})
    return log


def test_the_checker_reads_an_event_log_as_it_reads_the_same_events_as_dicts() -> None:
    log = _broken_log()
    as_dicts: list[dict[str, Any]] = list(log)
    problems = check_invariants(log)
    assert problems == check_invariants(as_dicts)
    assert {rule for rule, _, _ in problems} == {2, 3, 4, 6}
    assert (2, 1, "delta for block 0, which is not open") in problems
    assert (4, 7, "'block.delta' follows the terminal event") in problems
    assert check_invariants(log, ended=False) == check_invariants(as_dicts, ended=False)


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_the_checker_agrees_on_every_provider_stream_whole_and_cut(provider: str) -> None:
    body = stream_of_size(provider, 20_000)
    for cut in (len(body), len(body) // 2):
        trace = normalize(body[:cut], provider)
        assert check_invariants(trace.events) == check_invariants(list(trace.events))


def _record(trace: Trace) -> tuple[Any, ...]:
    """Everything a view can read of a trace, as plain values."""
    return (
        list(trace.events),
        trace.transitions,
        trace.violations,
        trace.ignored,
        list(trace.event_frame),
        list(trace.frame_event_start),
        {index: list(events) for index, events in trace.block_events.items()},
        trace.state,
    )


def _normalized(body: bytes, provider: str, size: int, fast: bool = True) -> Trace:
    normalizer = Normalizer(provider, "st_same", fast=fast)
    for start in range(0, len(body), size):
        normalizer.feed(body[start : start + size])
    return normalizer.finish()


def _shuffled_streams(provider: str, seed: int) -> list[bytes]:
    """The provider's benchmark stream with frames repeated, dropped, moved and added."""
    body = stream_of_size(provider, 6_000)
    separator = b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"
    frames = [frame + separator for frame in body.split(separator)[:-1]]
    odd = [b": ping", b"data: [DONE]", b"data: {not json", b'data: {"error": {"message": "x"}}']
    rnd = random.Random(seed)
    streams = [body]
    for _ in range(15):
        mixed = list(frames)
        for _ in range(rnd.randint(1, 4)):
            at = rnd.randrange(len(mixed))
            change = rnd.randrange(4)
            if change == 0:
                mixed.insert(at, rnd.choice(mixed))
            elif change == 1:
                del mixed[at]
            elif change == 2:
                mixed.insert(at, rnd.choice(odd) + separator)
            else:
                other = rnd.randrange(len(mixed))
                mixed[at], mixed[other] = mixed[other], mixed[at]
        streams.append(b"".join(mixed))
    return streams


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_runs_of_plain_deltas_give_the_trace_that_frame_by_frame_feeding_gives(
    provider: str,
) -> None:
    streams = _shuffled_streams(provider, seed=len(provider))
    sizes = (1 << 20, 4096, 61)
    with_runs = [_record(_normalized(s, provider, size)) for s in streams for size in sizes]
    frame_by_frame = [
        _record(_normalized(s, provider, size, fast=False)) for s in streams for size in sizes
    ]
    assert with_runs == frame_by_frame


class _LyingAdapter(OpenAIChatAdapter):
    """Claims a text block the machine never opened: its runs must be refused."""

    plain_frames = Plain(shapes={"any": Shape(text=("text",), keys={(): frozenset({"text"})})})

    def lane(self) -> Lane | None:
        return (7, "text", "any", ()) if self.started else None


def test_a_run_the_machine_refuses_is_applied_delta_by_delta_for_the_same_refusal() -> None:
    body = b'data: {"model": "m", "choices": []}\n\n' + b'data: {"text": "x"}\n\n' * 3
    normalizer = Normalizer(_LyingAdapter(), "st_lie")
    normalizer.feed(body)
    trace = normalizer.finish()
    assert [e["type"] for e in trace.events] == ["stream.start", "stream.error"]
    assert [v.rule for v in trace.violations] == [2]
    assert trace.violations[0].frame == 1
    assert [(i.frame, i.code) for i in trace.ignored] == [
        (2, "after_terminal"),
        (3, "after_terminal"),
    ]
    assert list(trace.frame_event_start) == [0, 1, 2, 2]


def test_an_event_log_writes_the_bytes_orjson_writes_for_each_event() -> None:
    log = _broken_log()
    log.append_delta({"id": "b_0", "index": 0, "kind": "text"}, "signature", 'é "\\ \x1b\u202e')
    log.append_delta({"id": "b_9", "index": 9, "kind": "tool_call"}, "json_text", '{"a": [1, 2]}')
    expected = b"".join(orjson.dumps(event) + b"\n" for event in log)
    for batch in (1, 2, 3, 1000):
        assert b"".join(log.json_lines(batch)) == expected
    assert b"".join(EventLog("st_empty").json_lines()) == b""


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_a_trace_writes_its_events_as_json_lines_byte_for_byte(provider: str) -> None:
    for body in _shuffled_streams(provider, seed=7)[:4]:
        events = normalize(body, provider).events
        assert b"".join(events.json_lines()) == b"".join(orjson.dumps(e) + b"\n" for e in events)


def _fed(body: bytes, provider: str, size: int, many: bool, **limits: int) -> Trace:
    normalizer = Normalizer(provider, "st_same", **limits)
    pieces = [(i / 100, body[i : i + size]) for i in range(0, len(body), size)]
    if many:
        normalizer.feed_many(pieces)
    else:
        for time, data in pieces:
            normalizer.feed(data, time)
    return normalizer.finish()


def _everything(trace: Trace) -> tuple[Any, ...]:
    return (
        *_record(trace),
        list(trace.frames),
        list(trace.chunks),
        trace.decoder_error,
        trace.tail,
    )


@pytest.mark.parametrize("provider", sorted(GENERATORS))
@pytest.mark.parametrize(("batch", "part"), [(1024, 256 * 1024), (3, 256 * 1024), (5, 50)])
def test_feeding_many_chunks_at_once_builds_the_trace_that_feeding_each_builds(
    provider: str, batch: int, part: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(normalizer_module, "_BATCH_FRAMES", batch)  # batches end anywhere
    monkeypatch.setattr(normalizer_module, "_PART", part)  # chunks over 50 bytes go in parts
    for body in _shuffled_streams(provider, seed=3)[:6]:
        for size in (1 << 20, 4096, 97, 5):
            one_by_one = _everything(_fed(body, provider, size, many=False))
            assert _everything(_fed(body, provider, size, many=True)) == one_by_one


def test_feeding_many_chunks_stops_decoding_where_feeding_each_does() -> None:
    body = stream_of_size("openai-chat", 6_000)
    long_line = b"data: " + b"x" * 300 + b"\n\n"
    broken = body[:3000] + long_line + body[3000:]
    for size in (4096, 61, 1):
        many = _fed(broken, "openai-chat", size, many=True, max_line=200)
        assert many.decoder_error is not None and many.state == "failed"
        assert many.chunks.stored_bytes == len(broken)  # every byte kept
        assert _everything(many) == _everything(
            _fed(broken, "openai-chat", size, many=False, max_line=200)
        )


def test_a_crlf_split_between_chunks_ends_the_frame_after_its_lf_either_way() -> None:
    body = stream_of_size("gemini", 3_000)
    cut = body.index(b"\r\n\r\n") + 3  # the last LF of the first frame starts chunk 2
    pieces = [body[:cut], body[cut:]]
    for many in (False, True):
        normalizer = Normalizer("gemini", "st_crlf")
        if many:
            normalizer.feed_many([(0.0, piece) for piece in pieces])
        else:
            for piece in pieces:
                normalizer.feed(piece)
        assert normalizer.finish().frames.span_of(0) == (0, cut + 1)


def _decoded(body: bytes, size: int, **limits: int) -> tuple[list[tuple[Any, ...]], str]:
    """Frames as the same bytes make them whatever the chunking (no chunk links), and the error."""
    decoder = FrameDecoder(**limits)
    frames = [f for i in range(0, len(body), size) for f in decoder.feed(body[i : i + size])]
    return [(f.index, f.event, f.data, f.id, f.start, f.end) for f in frames], repr(decoder.error)


@pytest.mark.parametrize("crlf", [False, True], ids=["LF", "CRLF"])
def test_a_chunk_larger_than_the_limits_decodes_as_small_chunks_do(crlf: bool) -> None:
    body = decoder_stream(30_000, crlf)
    limits = {"max_line": 400, "max_frame": 400}  # every line fits; the chunk does not
    whole, error = _decoded(body, len(body), **limits)
    assert error == "None" and len(whole) == frames_in(body)
    assert (whole, error) == _decoded(body, 4096, **limits) == _decoded(body, 64, **limits)
    # One line too long, in the middle: the same frames before it, the same error.
    long = body[:15_000] + b"data: " + b"y" * 500 + b"\n\n" + body[15_000:]
    (before, error) = _decoded(long, len(long), **limits)
    assert "FrameTooLarge" in error and 0 < len(before) < len(whole)
    assert (before, error) == _decoded(long, 4096, **limits)


def _per_event(body: bytes) -> list[bytes]:
    """``body`` cut after every blank line: one event a chunk, as live streams arrive."""
    separator = b"\r\n\r\n" if b"\r\n\r\n" in body else b"\n\n"
    pieces = [piece + separator for piece in body.split(separator)]
    pieces[-1] = pieces[-1][: -len(separator)]
    return [piece for piece in pieces if piece]


def _frames_of(chunks: list[bytes]) -> tuple[list[Frame], str]:
    decoder = FrameDecoder(max_line=300, max_frame=300)
    frames = [frame for chunk in chunks for frame in decoder.feed(chunk, len(chunk) / 7)]
    return frames, repr(decoder.error)


@pytest.mark.parametrize("provider", sorted(GENERATORS))
def test_a_chunk_of_exactly_one_event_decodes_as_the_general_path_decodes_it(
    provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    odd = [
        b"\xef\xbb\xbfdata: bom\n\n", b"data: \xff\xfe\n\n", b"event: e\ndata: x\n\n",
        b"event:e\ndata:x\n\n", b"data: a\ndata: b\n\n", b"id: 7\ndata: x\n\n",
        b"event: e\nevent: f\n\n", b"data: " + b"z" * 400 + b"\n\n", b": c\n\n", b"\n\n",
    ]  # fmt: skip
    streams = [_per_event(body) for body in _shuffled_streams(provider, seed=11)]
    streams += [[piece, *chunks] for piece in odd for chunks in streams[:2]]
    streams += [[*chunks[:3], piece, *chunks[3:]] for piece in odd for chunks in streams[:2]]
    fast = [_frames_of(chunks) for chunks in streams]
    monkeypatch.setattr(FrameDecoder, "_single", lambda self, chunk, start, ci, time: None)
    assert fast == [_frames_of(chunks) for chunks in streams]


def test_chunks_added_together_are_the_chunks_added_one_by_one() -> None:
    pieces = [b"data: a\n\n", b"", b"x" * 70_000, b"\r\n", b"", b"tail"]
    one, many = ChunkLog(), ChunkLog()
    offset = 0
    for i, data in enumerate(pieces):
        one.add(offset, i / 10, data)
        offset += len(data)
    offsets = list(accumulate(map(len, pieces), initial=0))[:-1]
    many.add_many(offsets[:2], [0.0, 0.1], pieces[:2])
    many.add_many(offsets[2:], [0.2, 0.3, 0.4, 0.5], pieces[2:])
    assert list(many) == list(one) and many.bytes_received == one.bytes_received
    assert many.span(5, 70_012) == one.span(5, 70_012)


@pytest.mark.parametrize("crlf", [False, True], ids=["LF", "CRLF"])
def test_a_chunk_fed_in_parts_gives_the_frames_and_error_of_the_chunk_fed_whole(crlf: bool) -> None:
    body = decoder_stream(40_000, crlf)
    long = body[:15_000] + b"data: " + b"y" * 900 + b"\n\n" + body[15_000:]
    for stream in (body, long, body[:-7], b"\xef\xbb\xbf" + body, body.replace(b"\n", b"\r")):
        whole = FrameDecoder(max_line=800, max_frame=800)
        expected = whole.feed(stream, 1.5)
        for size in (1, 100, 4096, 1 << 20):
            parts = FrameDecoder(max_line=800, max_frame=800)
            got = [frame for frames in parts.feed_parts(stream, 1.5, size) for frame in frames]
            assert got == expected
            assert repr(parts.error) == repr(whole.error)
            assert parts.close() == whole.close() and parts.bytes_fed == whole.bytes_fed


@pytest.mark.parametrize("provider", ["openai-chat", "anthropic"])
def test_a_lone_cr_inside_a_crlf_run_ends_its_line_there_as_the_line_by_line_path_says(
    provider: str,
) -> None:
    body = stream_of_size(provider, 30_000).replace(b"\n", b"\r\n")
    data_at = body.index(b"data: ", 12_000) + 9
    event_at = body.index(b"event: ", 20_000) + 9 if provider == "anthropic" else len(body) - 40
    streams = [
        body[:data_at] + b"\r" + body[data_at:],  # a data line cut in two by a lone CR
        body[:event_at] + b"\r" + body[event_at:],
        body[:data_at] + b"\rx\r" + body[data_at:],
    ]

    def decoded(stream: bytes, size: int) -> list[tuple[object, ...]]:
        decoder = FrameDecoder()
        chunks = [stream[i : i + size] for i in range(0, len(stream), size)]
        frames = [frame for chunk in chunks for frame in decoder.feed(chunk)]
        return [(f.event, f.data, f.comment, f.start, f.end) for f in frames]

    for stream in streams:
        expected = decoded(stream, 1)
        assert sum(1 for frame in expected if "\r" in str(frame[1])) == 0
        for size in (len(stream), 4096, 333):
            assert decoded(stream, size) == expected


def _varying_notes(provider: str, seed: int) -> bytes:
    """Plain text chunks whose model, id and usage change, or are missing, from one to the next."""
    rnd = random.Random(seed)
    out = []
    for i in range(120):
        notes: dict[str, Any] = {}
        if provider == "gemini":
            chunk: dict[str, Any] = {
                "candidates": [{"content": {"parts": [{"text": f"w{i}"}], "role": "model"}}]
            }
            names = ("modelVersion", "responseId", "usageMetadata")
        else:
            chunk = {"choices": [{"index": 0, "delta": {"content": f"w{i}"}}]}
            names = ("model", "id", "usage")
        for name in names:
            if rnd.random() < 0.5:
                notes[name] = {"totalTokenCount": i} if name.startswith("usage") else f"{name}{i}"
        if i == 0 and provider != "gemini":
            chunk["choices"][0]["delta"] = {"role": "assistant", "content": ""}
        out.append(b"data: " + orjson.dumps({**chunk, **notes}) + b"\n\n")
    return b"".join(out)


@pytest.mark.parametrize("provider", ["openai-chat", "gemini"])
def test_a_run_notes_the_model_id_and_usage_of_the_last_chunk_that_has_each(
    provider: str,
) -> None:
    def notes(body: bytes, size: int, fast: bool = True) -> tuple[Any, ...]:
        normalizer = Normalizer(provider, "st_notes", fast=fast)
        for start in range(0, len(body), size):
            normalizer.feed(body[start : start + size])
        adapter: Any = normalizer.adapter
        return adapter.model, adapter.response_id, adapter.usage, _record(normalizer.finish())

    bodies = [_varying_notes(provider, seed) for seed in range(6)]
    sizes = (1 << 20, 4096, 333)
    with_runs = [notes(body, size) for body in bodies for size in sizes]
    assert with_runs == [notes(body, size, fast=False) for body in bodies for size in sizes]
    assert {model for model, *_ in with_runs} != {None}
