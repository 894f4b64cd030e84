"""Every real OpenAI Responses stream normalizes cleanly, to the state it proves, with its meaning.

Beyond the terminal state, each completed stream is checked against the
provider's own final word: the blocks assembled from the fragments must be
exactly what the ``output`` array of ``response.completed`` lists (text of
every part, arguments of every call, every summary, every opaque item), in
that order. A few streams are also checked against literal values.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.core.sse import FrameDecoder
from inspector.session import load_trace

from .conftest import ROOT
from .golden import assert_clean

DIR = ROOT / "tests" / "fixtures" / "real" / "openai-responses"

EXPECTED: dict[str, tuple[str, str]] = {
    "azure-responses-text.sse": ("completed", "stop"),
    "azure-responses-tool-call.sse": ("completed", "tool_calls"),
    "bedrock-mantle-responses-tool.sse": ("completed", "tool_calls"),
    "deepseek-responses-function-call.sse": ("completed", "tool_calls"),
    "deepseek-responses-reasoning-text.sse": ("completed", "stop"),
    "responses-background-queued.sse": ("completed", "stop"),
    "responses-code-interpreter.sse": ("completed", "stop"),
    "responses-conversation-text.sse": ("completed", "stop"),
    # `error`, then `response.failed`: the first terminal signal wins.
    "responses-error-insufficient-quota.sse": ("failed", "quota_exceeded"),
    "responses-file-search.sse": ("completed", "stop"),
    "responses-function-call.sse": ("completed", "tool_calls"),
    "responses-image-generation.sse": ("completed", "stop"),
    "responses-logprobs.sse": ("completed", "stop"),
    # The response waits for the client's approval, but nothing is for it to run.
    "responses-mcp-approval.sse": ("completed", "stop"),
    "responses-mcp-server-tool.sse": ("completed", "stop"),
    "responses-phase-text-then-tool.sse": ("completed", "tool_calls"),
    "responses-reasoning-function-call-usage.sse": ("completed", "tool_calls"),
    "responses-reasoning-summary.sse": ("completed", "stop"),
    "responses-text.sse": ("completed", "stop"),
    "responses-tool-search.sse": ("completed", "tool_calls"),
    "responses-web-search.sse": ("completed", "stop"),
    "xai-responses-reasoning.sse": ("completed", "stop"),
}

COMPLETED = sorted(name for name, (state, _) in EXPECTED.items() if state == "completed")


def test_every_real_stream_has_an_expectation() -> None:
    assert sorted(p.name for p in DIR.glob("*.sse")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_stream_normalizes_cleanly(name: str) -> None:
    trace = assert_clean(DIR / name, EXPECTED[name])
    # Known events only in real streams: nothing skipped except after the end, and
    # the fields no contract slot holds (tests/test_unread_fields.py lists them).
    assert {i.code for i in trace.ignored} <= {"after_terminal", "unread_field"}


# -- meaning -----------------------------------------------------------------------

Block = tuple[str, str, Any, list[str]]  # kind, provider_type, content, signatures


def provider_frames(path: Path) -> list[dict[str, Any]]:
    body = path.read_bytes()
    return [orjson.loads(f.data) for f in FrameDecoder().feed(body) if f.comment is None]


def assembled_blocks(name: str) -> list[Block]:
    """Every block of the normalized stream: text joined, opaque JSON parsed."""
    blocks: dict[int, Block] = {}
    for e in load_trace(DIR / name).events:
        if e["type"] == "block.start":
            blocks[e["block"]["index"]] = (e["block"]["kind"], e["provider_type"], "", [])
        elif e["type"] == "block.delta":
            kind, provider_type, text, signatures = blocks[e["block"]["index"]]
            if e["delta"]["kind"] == "signature":
                signatures.append(e["delta"]["text"])
            elif e["delta"]["kind"] != "citation":
                text += e["delta"]["text"]
            blocks[e["block"]["index"]] = (kind, provider_type, text, signatures)
    return [
        (kind, ptype, orjson.loads(text) if kind == "opaque" else text, signatures)
        for kind, ptype, text, signatures in blocks.values()
    ]


def blocks_the_provider_reported(name: str) -> list[Block]:
    """The blocks the contract mapping derives from ``response.completed``'s output.

    ``encrypted_content`` is re-encrypted in every event that carries it, so
    the signature is compared with the item of ``output_item.done`` (the one
    the API reference says to send back).
    """
    frames = provider_frames(DIR / name)
    encrypted = {
        f["item"]["id"]: f["item"].get("encrypted_content")
        for f in frames
        if f.get("type") == "response.output_item.done"
    }
    output = frames[-1]["response"]["output"]
    out: list[Block] = []
    for item in output:
        kind = item["type"]
        if kind == "message":
            for part in item["content"]:
                text_kind = "refusal" if part["type"] == "refusal" else "text"
                out.append((text_kind, part["type"], part.get("text", part.get("refusal")), []))
        elif kind == "reasoning":
            out.extend(("reasoning", "summary_text", s["text"], []) for s in item["summary"])
            parts = item.get("content") or []
            out.extend(("reasoning", "reasoning_text", c["text"], []) for c in parts)
            if encrypted.get(item["id"]):
                out.append(("reasoning", "reasoning", "", [encrypted[item["id"]]]))
        elif kind == "function_call":
            out.append(("tool_call", "function_call", item["arguments"], []))
        else:
            out.append(("opaque", kind, item, []))
    return out


@pytest.mark.parametrize("name", COMPLETED)
def test_the_assembled_blocks_are_what_the_final_response_lists(name: str) -> None:
    assert assembled_blocks(name) == blocks_the_provider_reported(name)


def test_text_assembled_from_seven_fragments() -> None:
    assert assembled_blocks("responses-text.sse") == [
        ("text", "output_text", "The capital of France is Paris.", [])
    ]


def test_fragmented_function_arguments_parse_to_the_call() -> None:
    trace = load_trace(DIR / "responses-function-call.sse")
    start = next(e for e in trace.events if e["type"] == "block.start")
    assert (start["name"], start["call_id"]) == ("get_capital", "call_kL0PCQV7M2WMoVX8V8OtYSAL")
    [(kind, _, arguments, _)] = assembled_blocks("responses-function-call.sse")
    assert (kind, orjson.loads(arguments)) == ("tool_call", {"country": "France"})


def test_reasoning_then_call_with_usage_including_reasoning_tokens() -> None:
    trace = load_trace(DIR / "responses-reasoning-function-call-usage.sse")
    done = trace.events[-1]
    assert (done["model"], done["response_id"]) == (
        "gpt-5-2025-08-07",
        "resp_0050471a34b36ae60068c97b94a480819587a9d70cf2979b33",
    )
    usage = {k: v for k, v in done["usage"].items() if k != "raw"}
    assert usage == {
        "input_tokens": 53,
        "output_tokens": 469,
        "reasoning_tokens": 448,
        "cached_input_tokens": 0,
    }
    assert done["usage"]["raw"]["total_tokens"] == 522
    blocks = assembled_blocks("responses-reasoning-function-call-usage.sse")
    assert [(k, p) for k, p, _, _ in blocks] == [
        ("reasoning", "reasoning"),
        ("tool_call", "function_call"),
    ]
    assert blocks[0][3][0].startswith("gAAAAABoyXvx")
    assert orjson.loads(blocks[1][2]) == {"result": 6666}


def test_four_summary_parts_stay_four_reasoning_blocks() -> None:
    blocks = assembled_blocks("responses-reasoning-summary.sse")
    summaries = [text for kind, ptype, text, _ in blocks if ptype == "summary_text"]
    assert [s.split("**")[1] for s in summaries] == [
        "Providing street crossing instructions",
        "Explaining street crossing safety",
        "Sharing street crossing safety tips",
        "Providing safe crossing advice",
    ]


def test_provider_run_tools_are_opaque_and_never_tool_calls() -> None:
    kinds = {
        name: [(k, p) for k, p, _, _ in assembled_blocks(name) if k != "reasoning"]
        for name in ("responses-code-interpreter.sse", "responses-mcp-server-tool.sse")
    }
    assert kinds == {
        "responses-code-interpreter.sse": [("opaque", "code_interpreter_call")] * 3
        + [("text", "output_text")],
        "responses-mcp-server-tool.sse": [
            ("opaque", "mcp_list_tools"),
            ("opaque", "mcp_call"),
            ("text", "output_text"),
        ],
    }
    mcp_call = assembled_blocks("responses-mcp-server-tool.sse")[2][2]
    assert orjson.loads(mcp_call["arguments"]) == {
        "repoName": "pydantic/pydantic-ai",
        "question": "What is the pydantic/pydantic-ai repository about?",
    }


def test_annotations_become_citations_on_the_text_block() -> None:
    trace = load_trace(DIR / "responses-file-search.sse")
    citations = [
        (e["block"]["index"], e["delta"]["citation"])
        for e in trace.events
        if e["type"] == "block.delta" and e["delta"]["kind"] == "citation"
    ]
    assert citations == [
        (1, {"type": "file_citation", "file_id": "file-9RhPAs9YqVajpGXRfcgavJ",
             "filename": "tmp8l5_2pzy.txt", "index": 30}),
    ]  # fmt: skip


def test_the_quota_error_names_its_code_and_is_not_retryable() -> None:
    trace = load_trace(DIR / "responses-error-insufficient-quota.sse")
    error = trace.events[-1]["error"]
    assert (error["category"], error["retryable"], error["provider_code"]) == (
        "quota_exceeded",
        False,
        "insufficient_quota",
    )
    assert error["message"].startswith("You exceeded your current quota")
    assert [(i.frame, i.code) for i in trace.ignored] == [(3, "after_terminal")]
