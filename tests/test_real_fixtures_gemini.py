"""Every real Gemini stream normalizes cleanly, to the state its content proves.

Gemini has no end marker: the frame carrying ``finishReason`` proves the end.
Every stream below carries one, with no streamed call left open, so every one
is ``completed``. ``vertex-partial-args-no-args.sse`` is the one PROVENANCE.md
means by a call that "never sends that closing chunk": ``read_theme`` arrives
as ``functionCall {name}`` with neither ``args`` nor ``willContinue``, so it
is complete as it stands (a call without arguments) and needs no closing
``functionCall {}`` — unlike the three streamed ``read_screen`` calls, which
get theirs.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from inspector.core.trace import Trace
from inspector.session import load_trace

from .conftest import ROOT
from .golden import assert_clean

DIR = ROOT / "tests" / "fixtures" / "real" / "gemini"

EXPECTED: dict[str, tuple[str, str]] = {
    "code-execution.sse": ("completed", "stop"),
    "file-search-toolcall-toolresponse.sse": ("completed", "stop"),
    "function-call-whole.sse": ("completed", "tool_calls"),
    "gemini-reasoning.sse": ("completed", "stop"),
    "gemini-tool-call.sse": ("completed", "tool_calls"),
    "gemini3-text-signature-empty-part.sse": ("completed", "stop"),
    "gemini3-tool-call.sse": ("completed", "tool_calls"),
    "single-chunk-text.sse": ("completed", "stop"),
    "text-3-chunks.sse": ("completed", "stop"),
    "text-after-tool.sse": ("completed", "stop"),
    "thinking-thought-parts.sse": ("completed", "stop"),
    "thought-signature-function-call.sse": ("completed", "tool_calls"),
    "thought-summaries-json-array.sse": ("completed", "stop"),
    "usage-live-mid-stream.sse": ("completed", "stop"),
    "vertex-flex-tier.sse": ("completed", "stop"),
    "vertex-partial-args-no-args.sse": ("completed", "tool_calls"),
    "vertex-partial-args.sse": ("completed", "tool_calls"),
    "web-search-grounding.sse": ("completed", "stop"),
}


def test_every_real_stream_has_an_expectation() -> None:
    assert sorted(p.name for p in DIR.glob("*.sse")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_stream_normalizes_cleanly(name: str) -> None:
    trace = assert_clean(DIR / name, EXPECTED[name])
    # Every field of these recordings is known: nothing was skipped.
    assert trace.ignored == []


def blocks(trace: Trace) -> list[dict[str, Any]]:
    """Each block in content order: kind, provider_type, name, content, signature, citations."""
    out: dict[int, dict[str, Any]] = {}
    for e in trace.events:
        if e["type"] == "block.start":
            out[e["block"]["index"]] = {
                "kind": e["block"]["kind"],
                "type": e["provider_type"],
                "name": e.get("name"),
                "content": "",
                "signed": False,
                "citations": 0,
            }
        elif e["type"] == "block.delta":
            block = out[e["block"]["index"]]
            delta = e["delta"]
            if delta["kind"] == "signature":
                block["signed"] = True
            elif delta["kind"] == "citation":
                block["citations"] += 1
            else:
                block["content"] += delta["text"]
    return [out[i] for i in sorted(out)]


def done(trace: Trace) -> dict[str, Any]:
    event = trace.events[-1]
    assert event["type"] == "stream.done"
    return event


def usage(trace: Trace) -> tuple[Any, ...]:
    u = done(trace)["usage"]
    return (u["input_tokens"], u["output_tokens"], u.get("reasoning_tokens"))


def test_text_over_three_objects_is_one_text_with_the_final_frames_usage() -> None:
    trace = load_trace(DIR / "text-3-chunks.sse")
    (block,) = blocks(trace)
    assert (block["kind"], block["content"]) == ("text", "The capital of France is Paris.\n")
    # The early frames report 15 prompt tokens; the finishReason frame's 13 is final.
    assert usage(trace) == (13, 8, None)
    assert (done(trace)["model"], done(trace)["response_id"]) == (
        "gemini-2.0-flash-exp",
        "w1peaMz6INOvnvgPgYfPiQY",
    )


def test_a_whole_function_call_carries_its_arguments() -> None:
    (block,) = blocks(load_trace(DIR / "function-call-whole.sse"))
    assert (block["kind"], block["name"], orjson.loads(block["content"])) == (
        "tool_call",
        "get_capital",
        {"country": "France"},
    )


def test_streamed_vertex_arguments_assemble_into_each_calls_json() -> None:
    calls = blocks(load_trace(DIR / "vertex-partial-args.sse"))
    assert [(b["name"], orjson.loads(b["content"]), b["signed"]) for b in calls] == [
        ("getWeather", {"location": "Boston"}, True),
        ("getWeather", {"location": "San Francisco"}, False),
    ]


def test_a_call_with_no_arguments_and_no_closing_chunk_is_complete_as_it_stands() -> None:
    trace = load_trace(DIR / "vertex-partial-args-no-args.sse")
    found = [(b["kind"], b["name"], b["content"]) for b in blocks(trace)]
    assert found[0][0] == "reasoning"
    assert found[1:] == [
        ("tool_call", "read_theme", ""),  # no arguments: parses as {} at block.stop
        ("tool_call", "read_screen", '{"id":"A"}'),
        ("tool_call", "read_screen", '{"id":"B"}'),
        ("tool_call", "read_screen", '{"id":"C"}'),
    ]
    assert usage(trace) == (249, 58 + 183, 183)


def test_thought_parts_are_reasoning_and_the_signature_signs_the_answer_text() -> None:
    trace = load_trace(DIR / "thinking-thought-parts.sse")
    reasoning, answer = blocks(trace)
    assert (reasoning["kind"], reasoning["type"], reasoning["signed"]) == (
        "reasoning",
        "thought",
        False,
    )
    assert reasoning["content"].startswith("**Clarifying User Goals**")
    assert (answer["kind"], answer["signed"]) == ("text", True)
    assert answer["content"].startswith("This is a great question! Safe")
    # Output as billed: 469 answer tokens + 787 thought tokens.
    assert usage(trace) == (34, 469 + 787, 787)


def test_the_empty_final_part_carrying_only_a_signature_signs_the_open_text() -> None:
    trace = load_trace(DIR / "gemini3-text-signature-empty-part.sse")
    (block,) = blocks(trace)
    assert block["content"] == 'There are **3** "r"s in strawberry.\n\nst**r**awbe**rr**y'
    assert block["signed"]


def test_code_execution_parts_are_opaque_and_tool_use_prompt_counts_as_input() -> None:
    trace = load_trace(DIR / "code-execution.sse")
    code, result, answer = blocks(trace)
    assert (code["kind"], code["type"], code["signed"]) == ("opaque", "executableCode", True)
    assert orjson.loads(code["content"])["language"] == "PYTHON"
    assert (result["kind"], orjson.loads(result["content"])["output"]) == (
        "opaque",
        "-428330955.97745\n",
    )
    assert answer["content"].endswith("is **-428,330,955.97745**.")
    # 147 prompt + 360 tool-use prompt in; 108 candidates + 168 thoughts out; total 783.
    assert usage(trace) == (507, 276, 168)
    assert done(trace)["finish_reason"] == "stop"  # the provider ran the code, not the client


def test_server_side_file_search_is_opaque_and_grounding_is_a_citation() -> None:
    trace = load_trace(DIR / "file-search-toolcall-toolresponse.sse")
    found = [(b["kind"], b["type"], b["citations"]) for b in blocks(trace)]
    assert found == [("opaque", "toolCall", 0), ("opaque", "toolResponse", 0), ("text", "text", 1)]


def test_web_search_grounding_metadata_arrives_as_one_citation_on_the_answer() -> None:
    trace = load_trace(DIR / "web-search-grounding.sse")
    (block,) = blocks(trace)
    assert block["citations"] == 1
    citation = next(
        e["delta"]["citation"]
        for e in trace.events
        if e["type"] == "block.delta" and e["delta"]["kind"] == "citation"
    )
    assert citation["webSearchQueries"] == ["weather in San Francisco today"]
    assert usage(trace) == (17 + 102, 241 + 412, 412)


def test_usage_that_grows_chunk_by_chunk_is_taken_from_the_finish_frame() -> None:
    trace = load_trace(DIR / "usage-live-mid-stream.sse")
    (block,) = blocks(trace)
    assert block["content"] == "".join(f"{n}\n" for n in range(1, 30)) + "30"
    assert usage(trace) == (18, 80 + 35, 35)
    assert done(trace)["usage"]["raw"]["totalTokenCount"] == 133


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_normalized_input_and_output_add_up_to_googles_total(name: str) -> None:
    # Thoughts count as output and the tool-use prompt as input, as billed; the
    # two sides must then cover exactly what Google calls the total.
    u = done(load_trace(DIR / name))["usage"]
    assert u["input_tokens"] + u["output_tokens"] == u["raw"]["totalTokenCount"]
