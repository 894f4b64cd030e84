"""Several choices (contract v1.1): OpenAI Chat ``n > 1``, Gemini ``candidateCount > 1``,
legacy Completions ``n > 1``.

The rules: every block carries ``choice`` when the stream has more than one;
``index`` is the block's place within its choice; ``stream.done`` carries
``choices: [{choice, finish_reason, provider_finish_reason}]`` and its own
``finish_reason`` is choice 0's; the stream is ``completed`` only when every
choice that started has its own final signal, else ``failed`` /
``protocol_error`` naming the choice. A stream of one choice is what it was.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording
from inspector.core.choices import (
    MAX_CHOICES,
    block_key,
    choice_number,
    key_name,
    key_of,
    place_of,
)
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import Normalizer, normalize
from inspector.core.trace import Trace, TransportEnd
from inspector.session import load_trace

from .choices_support import PROVIDERS, Generated, by_choice, several_choice_streams, sse
from .conftest import CAPTURES

# -- frames --------------------------------------------------------------------


def chat(index: Any, delta: dict[str, Any], finish: str | None = None) -> bytes:
    return sse(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "gpt-4o",
            "choices": [
                {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
            ],
        }
    )


def completion(index: int, text: str, finish: str | None = None) -> bytes:
    return sse(
        {
            "id": "cmpl-1",
            "object": "text_completion",
            "created": 1,
            "model": "m",
            "choices": [{"text": text, "index": index, "finish_reason": finish}],
        }
    )


def gemini(*candidates: dict[str, Any]) -> bytes:
    return sse({"candidates": list(candidates), "modelVersion": "gemini-2.5-flash"})


def cand(index: int | None, text: str | None = None, finish: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if text is not None:
        out["content"] = {"parts": [{"text": text}], "role": "model"}
    if finish is not None:
        out["finishReason"] = finish
    if index is not None:
        out["index"] = index
    return out


DONE = sse("[DONE]")


def run(provider: str, *frames: bytes, end: str = "eof", n: int | None = None) -> Trace:
    """Normalize the frames; ``n``: the capture's request asked for that many choices."""
    header = None if n is None else {"request": {"body": {"n": n}}}
    normalizer = Normalizer(provider, "st_t", header=header)
    normalizer.feed(b"".join(frames), 0.0)
    return normalizer.finish(TransportEnd(end))


def shape(trace: Trace) -> list[tuple[Any, ...]]:
    """Each event as (type, block id, choice, index, what) — the whole sequence."""
    out: list[tuple[Any, ...]] = []
    for e in trace.events:
        block = e.get("block")
        if block is not None:
            what = e["delta"]["text"] if e["type"] == "block.delta" else block["kind"]
            out.append((e["type"], block["id"], block.get("choice"), block["index"], what))
        elif e["type"] == "stream.done":
            ends = [
                (c["choice"], c["finish_reason"], c["provider_finish_reason"])
                for c in e.get("choices", [])
            ]
            out.append(("done", e["finish_reason"], e["provider_finish_reason"], ends))
        elif e["type"] == "stream.error":
            out.append(("error", e["status"], e["error"]["category"]))
        elif e["type"] == "stream.warning":
            out.append(("warning", e["code"]))
        else:
            out.append((e["type"],))
    return out


def message(trace: Trace) -> str:
    return str(trace.events[-1]["error"]["message"])


# -- interleaving --------------------------------------------------------------


def test_chat_choices_that_interleave_are_blocks_of_their_own_choice() -> None:
    trace = run(
        "openai-chat",
        chat(0, {"role": "assistant", "content": ""}),
        chat(1, {"role": "assistant", "content": ""}),
        chat(0, {"content": "A"}),
        chat(1, {"content": "B"}),
        chat(0, {"content": "a"}),
        chat(1, {"content": "b"}),
        chat(0, {}, "stop"),
        chat(1, {}, "stop"),
        DONE,
    )
    assert shape(trace) == [
        ("stream.start",),
        ("block.start", "c0.b_0", 0, 0, "text"),
        ("block.delta", "c0.b_0", 0, 0, "A"),
        ("block.start", "c1.b_0", 1, 0, "text"),
        ("block.delta", "c1.b_0", 1, 0, "B"),
        ("block.delta", "c0.b_0", 0, 0, "a"),
        ("block.delta", "c1.b_0", 1, 0, "b"),
        ("block.stop", "c0.b_0", 0, 0, "text"),
        ("block.stop", "c1.b_0", 1, 0, "text"),
        ("done", "stop", "stop", [(0, "stop", "stop"), (1, "stop", "stop")]),
    ]
    assert check_invariants(trace.events) == []


def test_gemini_candidates_in_one_response_are_blocks_of_their_own_choice() -> None:
    trace = run(
        "gemini",
        gemini(cand(None, "Pa"), cand(1, "Ro")),  # candidate 0 may leave its index out
        gemini(cand(0, "ris"), cand(1, "me")),
        gemini(cand(0, "", "STOP"), cand(1, "", "STOP")),
    )
    assert shape(trace) == [
        ("stream.start",),
        ("block.start", "c0.b_0", 0, 0, "text"),
        ("block.delta", "c0.b_0", 0, 0, "Pa"),
        ("block.start", "c1.b_0", 1, 0, "text"),
        ("block.delta", "c1.b_0", 1, 0, "Ro"),
        ("block.delta", "c0.b_0", 0, 0, "ris"),
        ("block.delta", "c1.b_0", 1, 0, "me"),
        ("block.stop", "c0.b_0", 0, 0, "text"),
        ("block.stop", "c1.b_0", 1, 0, "text"),
        ("done", "stop", "STOP", [(0, "stop", "STOP"), (1, "stop", "STOP")]),
    ]


def test_completions_choices_that_interleave_are_blocks_of_their_own_choice() -> None:
    trace = run(
        "openai-completions",
        completion(0, "x"),
        completion(1, "y"),
        completion(1, "z", "length"),
        completion(0, "", "stop"),
        DONE,
        n=2,  # legacy Completions has no role chunk: only the request names choice 0 in time
    )
    assert shape(trace) == [
        ("stream.start",),
        ("block.start", "c0.b_0", 0, 0, "text"),
        ("block.delta", "c0.b_0", 0, 0, "x"),
        ("block.start", "c1.b_0", 1, 0, "text"),
        ("block.delta", "c1.b_0", 1, 0, "y"),
        ("block.delta", "c1.b_0", 1, 0, "z"),
        ("block.stop", "c1.b_0", 1, 0, "text"),
        ("block.stop", "c0.b_0", 0, 0, "text"),
        ("done", "stop", "stop", [(0, "stop", "stop"), (1, "length", "length")]),
    ]


# -- one choice ending early ---------------------------------------------------


def test_a_choice_that_ends_early_closes_only_its_own_blocks() -> None:
    trace = run(
        "openai-chat",
        chat(0, {"content": "long"}),
        chat(1, {"content": "short"}),
        chat(1, {}, "length"),
        chat(0, {"content": " answer"}),
        chat(0, {}, "stop"),
        DONE,
        n=2,
    )
    assert shape(trace)[4:] == [
        ("block.delta", "c1.b_0", 1, 0, "short"),
        ("block.stop", "c1.b_0", 1, 0, "text"),
        ("block.delta", "c0.b_0", 0, 0, " answer"),
        ("block.stop", "c0.b_0", 0, 0, "text"),
        ("done", "stop", "stop", [(0, "stop", "stop"), (1, "length", "length")]),
    ]


def test_a_gemini_candidate_that_ends_early_leaves_the_stream_open_for_the_others() -> None:
    trace = run(
        "gemini",
        gemini(cand(0, "a"), cand(1, "b")),
        gemini(cand(1, "", "MAX_TOKENS")),
        gemini(cand(0, "c")),
        gemini(cand(0, "", "STOP")),
    )
    assert [s for s in shape(trace) if s[0] in ("block.stop", "done")] == [
        ("block.stop", "c1.b_0", 1, 0, "text"),
        ("block.stop", "c0.b_0", 0, 0, "text"),
        ("done", "stop", "STOP", [(0, "stop", "STOP"), (1, "length", "MAX_TOKENS")]),
    ]
    assert trace.events[-1]["seq"] == len(trace.events)


# -- one choice calls a tool, another answers in text ----------------------------


def test_each_choice_has_its_own_finish_reason_and_the_stream_takes_choice_0s() -> None:
    call = {
        "index": 0,
        "id": "call_1",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
    }
    trace = run(
        "openai-chat",
        chat(0, {"content": "text"}),
        chat(1, {"tool_calls": [call]}),
        chat(0, {}, "stop"),
        chat(1, {}, "stop"),  # a forced tool says stop: v1.1 makes it tool_calls, per choice
        DONE,
        n=2,
    )
    done = trace.events[-1]
    assert done["finish_reason"] == "stop"
    assert done["choices"] == [
        {"choice": 0, "finish_reason": "stop", "provider_finish_reason": "stop"},
        {"choice": 1, "finish_reason": "tool_calls", "provider_finish_reason": "stop"},
    ]
    starts = [e for e in trace.events if e["type"] == "block.start"]
    assert [(e["block"]["choice"], e["block"]["kind"], e.get("call_id")) for e in starts] == [
        (0, "text", None),
        (1, "tool_call", "call_1"),
    ]


def test_a_gemini_candidate_with_a_call_is_tool_calls_and_the_other_stop() -> None:
    call = {"content": {"parts": [{"functionCall": {"name": "f", "args": {"x": 1}}}]}, "index": 0}
    trace = run(
        "gemini", gemini(call, cand(1, "no")), gemini(cand(0, None, "STOP"), cand(1, "", "STOP"))
    )
    assert shape(trace)[-1] == (
        "done",
        "tool_calls",
        "STOP",
        [(0, "tool_calls", "STOP"), (1, "stop", "STOP")],
    )


def test_tool_calls_of_two_choices_with_the_same_tool_index_stay_apart() -> None:
    def call(n: int, args: str) -> dict[str, Any]:
        return {
            "index": 0,
            "id": f"call_{n}",
            "type": "function",
            "function": {"name": "f", "arguments": args},
        }

    def more(args: str) -> dict[str, Any]:
        return {"index": 0, "function": {"arguments": args}}

    trace = run(
        "openai-chat",
        chat(0, {"tool_calls": [call(0, '{"a":')]}),
        chat(1, {"tool_calls": [call(1, '{"b":')]}),
        chat(1, {"tool_calls": [more("2}")]}),
        chat(0, {"tool_calls": [more("1}")]}),
        chat(0, {}, "tool_calls"),
        chat(1, {}, "tool_calls"),
        DONE,
    )
    got = by_choice(list(trace.events))
    assert (got[0]["args"], got[1]["args"]) == ('{"a":1}', '{"b":2}')
    assert trace.state == "completed"


# -- a cut before the last choice finishes -------------------------------------


@pytest.mark.parametrize(
    ("provider", "frames"),
    [
        (
            "openai-chat",
            [chat(0, {"content": "a"}), chat(1, {"content": "b"}), chat(0, {}, "stop")],
        ),
        (
            "openai-chat",
            [
                chat(0, {"content": "a"}),
                chat(1, {"content": "b"}),
                chat(0, {}, "stop"),
                chat(1, {}, "stop"),
            ],
        ),  # both ended, [DONE] never came
        ("gemini", [gemini(cand(0, "a"), cand(1, "b")), gemini(cand(0, "", "STOP"))]),
        ("openai-completions", [completion(0, "a"), completion(1, "b"), completion(0, "", "stop")]),
    ],
)
def test_a_cut_before_the_last_choice_proved_its_end_is_interrupted(
    provider: str, frames: list[bytes]
) -> None:
    trace = run(provider, *frames, end="reset")
    assert shape(trace)[-1] == ("error", "interrupted", "transport")


def test_done_while_a_choice_has_no_finish_reason_fails_naming_it() -> None:
    for provider, frames in [
        (
            "openai-chat",
            [chat(0, {"content": "a"}), chat(1, {"content": "b"}), chat(0, {}, "stop")],
        ),
        ("openai-completions", [completion(0, "a"), completion(1, "b"), completion(0, "", "stop")]),
    ]:
        trace = run(provider, *frames, DONE)
        assert shape(trace)[-1] == ("error", "failed", "protocol_error")
        assert "choice 1 never had a finish_reason" in message(trace)


def test_done_without_any_finish_reason_completes_every_choice_as_other() -> None:
    trace = run("openai-chat", chat(0, {"content": "a"}), chat(1, {"content": "b"}), DONE)
    assert shape(trace)[-2:] == [
        ("warning", "no_finish_reason"),
        ("done", "other", None, [(0, "other", None), (1, "other", None)]),
    ]


# -- an error mid-stream -------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "frames", "category"),
    [
        (
            "openai-chat",
            [
                chat(0, {"content": "a"}),
                chat(1, {"content": "b"}),
                sse({"error": {"message": "boom", "type": "server_error"}}),
            ],
            "server_error",
        ),
        (
            "gemini",
            [
                gemini(cand(0, "a"), cand(1, "b")),
                sse(
                    {"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}}
                ),
            ],
            "rate_limited",
        ),
        (
            "openai-completions",
            [
                completion(0, "a"),
                completion(1, "b"),
                sse({"error": {"message": "boom", "type": "server_error"}}),
            ],
            "server_error",
        ),
    ],
)
def test_an_error_in_the_middle_of_several_choices_fails_the_stream(
    provider: str, frames: list[bytes], category: str
) -> None:
    trace = run(provider, *frames)
    assert shape(trace)[-1] == ("error", "failed", category)
    assert [e["type"] for e in trace.events].count("block.stop") == 0  # no fake stops


def test_a_failing_gemini_candidate_fails_the_stream_and_names_itself() -> None:
    trace = run(
        "gemini",
        gemini(cand(0, "a"), cand(1, "b")),
        gemini(cand(1, None, "MALFORMED_FUNCTION_CALL")),
    )
    assert shape(trace)[-1] == ("error", "failed", "protocol_error")
    assert message(trace).startswith("candidate 1: finishReason MALFORMED_FUNCTION_CALL")


# -- when the stream is known to have several -----------------------------------


def test_the_request_asking_for_several_choices_names_them_from_the_first_block() -> None:
    trace = load_trace(CAPTURES / "openai-chat" / "several-choices-interleaved.jsonl")
    assert (
        load_recording(CAPTURES / "openai-chat" / "several-choices-interleaved.jsonl").header[
            "request"
        ]["body"]["n"]
        == 2
    )
    blocks = [e["block"] for e in trace.events if "block" in e]
    assert blocks and all("choice" in b for b in blocks)


def test_a_second_choice_after_choice_0_opened_blocks_warns_late_choice() -> None:
    trace = run(
        "openai-chat",
        chat(0, {"content": "early"}),
        chat(1, {"content": "late"}),
        chat(0, {"content": "!"}, "stop"),
        chat(1, {}, "stop"),
        DONE,
    )
    assert shape(trace)[:5] == [
        ("stream.start",),
        ("block.start", "b_0", None, 0, "text"),  # sent before a second choice was seen
        ("block.delta", "b_0", None, 0, "early"),
        ("warning", "late_choice"),
        ("block.start", "c1.b_0", 1, 0, "text"),
    ]
    assert check_invariants(trace.events) == []
    assert trace.state == "completed"


@pytest.mark.parametrize("index", [-1, 1.0, True, "1", MAX_CHOICES, 2**63 - 1, "10**30"])
def test_an_index_that_is_no_choice_number_is_skipped_with_a_warning(index: Any) -> None:
    odd = chat(index, {"content": "b"})
    if index == "10**30":  # beyond what orjson writes: the number put in by hand
        odd = odd.replace(b'"10**30"', b"1" + b"0" * 30)
    trace = run("openai-chat", chat(0, {"content": "a"}), odd, chat(0, {}, "stop"), DONE)
    assert ("warning", "unknown_field") in shape(trace)
    assert [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"] == ["a"]
    assert trace.state == "completed"


@pytest.mark.parametrize("index", [-1, 1.0, True, "1", MAX_CHOICES])
def test_completions_skip_an_index_that_is_no_choice_number_as_chat_does(index: Any) -> None:
    """One rule and one warning for a bad choice index, whichever adapter reads it."""
    trace = run(
        "openai-completions",
        completion(0, "a"),
        completion(index, "b"),
        completion(0, "", "stop"),
        DONE,
    )
    assert ("warning", "unknown_field") in shape(trace)
    assert [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"] == ["a"]
    assert trace.state == "completed"


def test_a_single_choice_stream_carries_no_choice_anywhere() -> None:
    for folder in ("openai-chat", "gemini", "openai-completions"):
        for path in sorted((CAPTURES / folder).glob("*.events.jsonl")):
            if path.name.startswith(("several-choices-", "several-candidates-")):
                continue
            for line in path.read_bytes().splitlines():
                event = orjson.loads(line)
                assert "choice" not in event.get("block", {}), path
                assert "choices" not in event, path


# -- generated streams: whatever the interleaving ---------------------------------


@settings(max_examples=120, deadline=None)
@given(several_choice_streams())
def test_every_choice_reads_back_whole_whatever_the_interleaving(stream: Generated) -> None:
    trace = normalize(stream.body, stream.provider, "st_g", TransportEnd("eof"))
    assert check_invariants(trace.events) == []
    assert trace.state == "completed", trace.events[-1]
    got = by_choice(list(trace.events))
    for choice in stream.choices:
        assert got[choice.number]["text"] == "".join(choice.pieces)
        assert orjson.loads(got[choice.number]["args"] or "null") == (
            orjson.loads("".join(choice.call)) if choice.call else None
        )
    done = trace.events[-1]
    assert [(c["choice"], c["finish_reason"]) for c in done["choices"]] == [
        (c.number, c.finish) for c in stream.choices
    ]
    assert done["finish_reason"] == stream.choices[0].finish
    ids = [e["block"]["id"] for e in trace.events if e["type"] == "block.start"]
    assert len(ids) == len(set(ids))


@settings(max_examples=80, deadline=None)
@given(several_choice_streams(), st.data())
def test_a_cut_anywhere_before_the_final_signal_is_never_completed(
    stream: Generated, data: st.DataObject
) -> None:
    cut = data.draw(st.integers(0, stream.final_at))
    trace = normalize(stream.body[:cut], stream.provider, "st_g", TransportEnd("eof"))
    assert trace.state != "completed"
    assert check_invariants(trace.events) == []


@settings(max_examples=40, deadline=None)
@given(several_choice_streams())
def test_a_bounded_summary_checks_several_choices_as_the_trace_does(stream: Generated) -> None:
    normalizer = Normalizer(stream.provider, "st_g", keep_history=False)
    normalizer.feed(stream.body, 0.0)
    summary = normalizer.finish(TransportEnd("eof"))
    assert summary.state == "completed"
    assert summary.invariant_problems() == []


# -- the block key -------------------------------------------------------------


@given(st.integers(0, 2**32 - 1), st.integers(0, MAX_CHOICES - 1))
def test_a_block_key_names_one_choice_and_place_and_choice_0_keys_as_its_index(
    index: int, choice: int
) -> None:
    key = block_key(index, choice)
    assert place_of(key) == index
    assert key_of({"index": index, "choice": choice}) == key
    assert block_key(index, 0) == block_key(index, None) == key_of({"index": index}) == index


@pytest.mark.parametrize("value", [-1, 1.5, True, "0", MAX_CHOICES, [0]])
def test_only_a_bounded_int_is_a_choice_number(value: Any) -> None:
    assert choice_number(value) is None
    assert choice_number(None) == 0 and choice_number(3) == 3


def test_every_several_choices_capture_holds_the_invariants_and_lists_its_choices() -> None:
    paths = [
        p
        for p in sorted(Path(CAPTURES).glob("*/several-c*.jsonl"))
        if not p.name.endswith(".events.jsonl")
    ]
    assert {p.parent.name for p in paths} == set(PROVIDERS)
    for path in paths:
        trace = load_trace(path)
        assert check_invariants(trace.events) == [], path
        blocks = [e["block"] for e in trace.events if "block" in e]
        assert blocks and all(isinstance(b["choice"], int) for b in blocks), path
        if trace.state == "completed":
            assert len(trace.events[-1]["choices"]) >= 2, path


def test_gemini_content_after_a_candidates_own_end_is_skipped_with_a_warning() -> None:
    trace = run(
        "gemini",
        gemini(cand(0, "a"), cand(1, "b", "STOP")),
        gemini(cand(0, "c"), cand(1, "late")),
        gemini(cand(0, "", "STOP")),
    )
    assert ("warning", "after_choice_end") in shape(trace)
    assert by_choice(list(trace.events))[1]["text"] == "b"
    assert trace.state == "completed"


def test_the_request_for_several_candidates_names_them_from_the_first_response() -> None:
    header = {"request": {"body": {"generationConfig": {"candidateCount": 2}}}}
    normalizer = Normalizer("gemini", "st_t", header=header)
    normalizer.feed(gemini(cand(0, "a")) + gemini(cand(1, "b")), 0.0)
    trace = normalizer.finish(TransportEnd("eof"))
    assert shape(trace)[1:3] == [
        ("block.start", "c0.b_0", 0, 0, "text"),
        ("block.delta", "c0.b_0", 0, 0, "a"),
    ]
    assert ("warning", "late_choice") not in shape(trace)


def test_a_stream_whose_only_choice_is_not_0_names_it_and_takes_its_end() -> None:
    trace = run("openai-chat", chat(1, {"content": "x"}), chat(1, {}, "length"), DONE)
    assert shape(trace)[1] == ("block.start", "c1.b_0", 1, 0, "text")
    assert shape(trace)[-1] == ("done", "length", "length", [(1, "length", "length")])


def test_diff_keeps_the_blocks_of_each_choice_apart() -> None:
    from inspector.stream_diff import blocks_of

    trace = load_trace(CAPTURES / "openai-chat" / "several-choices-tool-and-text.jsonl")
    blocks = blocks_of(list(trace.events))
    assert [b.label for b in blocks.values()] == ["b_0 text", "c1.b_0 tool_call get_weather"]
    assert "".join(blocks[block_key(0, 1)].arguments) == '{"city": "Paris"}'


@given(st.integers(-(2**70), 2**70))
def test_a_key_names_a_block_whatever_the_number(key: int) -> None:
    name = key_name(key)
    assert name.startswith(("b_", "c"))
    if 0 <= key < 2**32:
        assert name == f"b_{key}"


def test_a_choice_whose_tool_call_length_cut_short_fails_the_stream_with_its_reason() -> None:
    call = {
        "index": 0,
        "id": "c",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a'},
    }
    trace = run(
        "openai-chat",
        chat(0, {"content": "a"}),
        chat(1, {"tool_calls": [call]}),
        chat(1, {}, "length"),
        chat(0, {}, "stop"),
        DONE,
    )
    error = trace.events[-1]["error"]
    assert (error["category"], error["provider_code"]) == ("protocol_error", "length")
    assert "c1.b_0 tool_call" in error["message"]
    assert [v.rule for v in trace.violations] == [5]


def test_a_candidate_that_starts_in_the_response_that_ends_another_keeps_the_stream_open() -> None:
    trace = run(
        "gemini",
        gemini(cand(0, "a", "STOP"), cand(1, "b")),  # candidate 1 starts as 0 ends
        gemini(cand(1, "", "STOP")),
    )
    assert shape(trace)[-1] == ("done", "stop", "STOP", [(0, "stop", "STOP"), (1, "stop", "STOP")])
    assert by_choice(list(trace.events))[1]["text"] == "b"
    assert not trace.ignored
