"""Every real OpenAI Chat (and compatible) stream normalizes cleanly, to the state it proves."""

from __future__ import annotations

import orjson
import pytest

from inspector.session import load_trace

from .conftest import ROOT
from .golden import assert_clean

DIR = ROOT / "tests" / "fixtures" / "real" / "openai-chat"

EXPECTED: dict[str, tuple[str, str]] = {
    "alibaba-tool-call.sse": ("completed", "tool_calls"),
    "crusoe-text.sse": ("completed", "stop"),
    "deepseek-reasoning-content.sse": ("completed", "stop"),
    "deepseek-text-length.sse": ("completed", "length"),
    "deepseek-tool-call-reasoning.sse": ("completed", "tool_calls"),
    "glm-incremental-tool-call.sse": ("completed", "tool_calls"),
    "groq-reasoning.sse": ("completed", "stop"),
    "groq-tool-call-whole-args.sse": ("completed", "tool_calls"),
    "groq-tool-use-failed-error-event.sse": ("failed", "invalid_request"),
    "huggingface-tgi-token-id.sse": ("completed", "stop"),
    "mistral-text-long.sse": ("completed", "stop"),
    "openai-content-logprobs.sse": ("completed", "stop"),
    "openai-gpt41nano-text-obfuscation.sse": ("completed", "stop"),
    "openai-gpt4o-parallel-tools-usage.sse": ("completed", "tool_calls"),
    "openai-json-object-long.sse": ("completed", "stop"),
    "openai-max-tokens-length.sse": ("completed", "length"),
    "openai-nonstrict-tool.sse": ("completed", "tool_calls"),
    "openai-parallel-tool-calls.sse": ("completed", "tool_calls"),
    "openai-refusal.sse": ("completed", "refusal"),
    "openai-strict-tool-fragmented.sse": ("completed", "tool_calls"),
    "openai-structured-json-content.sse": ("completed", "stop"),
    "openai-text-plain.sse": ("completed", "stop"),
    "openai-text-usage.sse": ("completed", "stop"),
    "openai-tool-call-fragmented.sse": ("completed", "tool_calls"),
    "openrouter-cache-bedrock.sse": ("completed", "stop"),
    "openrouter-reasoning-comments.sse": ("completed", "stop"),
    "openrouter-web-search-annotations.sse": ("completed", "stop"),
    "xai-reasoning-tool-call.sse": ("completed", "tool_calls"),
    "zai-reasoning-content.sse": ("completed", "stop"),
}


def test_every_real_stream_has_an_expectation() -> None:
    assert sorted(p.name for p in DIR.glob("*.sse")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_stream_normalizes_cleanly(name: str) -> None:
    assert_clean(DIR / name, EXPECTED[name])


def block_texts(name: str) -> dict[int, tuple[str, str]]:
    """Block index -> (kind, concatenated text deltas)."""
    out: dict[int, tuple[str, str]] = {}
    for e in load_trace(DIR / name).events:
        if e["type"] == "block.delta" and e["delta"]["kind"] in ("text", "json_text"):
            kind, text = out.get(e["block"]["index"], (e["block"]["kind"], ""))
            out[e["block"]["index"]] = (kind, text + e["delta"]["text"])
    return out


def test_parallel_tool_calls_each_get_their_own_complete_arguments() -> None:
    blocks = block_texts("openai-parallel-tool-calls.sse")
    assert {i: (k, orjson.loads(t)) for i, (k, t) in blocks.items()} == {
        0: ("tool_call", {"city": "Edinburgh", "country": "GB", "units": "c"}),
        1: ("tool_call", {"ticker": "AAPL", "exchange": "NASDAQ"}),
    }


def test_whole_arguments_in_one_chunk_parse_and_reasoning_comes_first() -> None:
    blocks = block_texts("groq-tool-call-whole-args.sse")
    assert [k for k, _ in blocks.values()] == ["reasoning", "tool_call"]
    assert isinstance(orjson.loads(blocks[1][1]), dict)


def test_usage_is_normalized_with_reasoning_and_cache_and_keeps_raw() -> None:
    done = load_trace(DIR / "openrouter-reasoning-comments.sse").events[-1]
    usage = done["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["reasoning_tokens"]) == (
        43,
        36,
        13,
    )
    assert usage["cached_input_tokens"] == 0
    assert usage["raw"]["cost"] == 0.000669
    assert done["model"] == "anthropic/claude-sonnet-4.5"


def test_refusal_text_is_a_refusal_block_and_the_finish_reason_says_so() -> None:
    blocks = block_texts("openai-refusal.sse")
    assert [k for k, _ in blocks.values()] == ["refusal"]
    assert blocks[0][1] == "I'm sorry, I can't assist with that request."


def test_mid_stream_error_event_keeps_the_reasoning_received_before_it() -> None:
    trace = load_trace(DIR / "groq-tool-use-failed-error-event.sse")
    error = trace.events[-1]["error"]
    assert (error["provider_code"], error["retryable"]) == ("tool_use_failed", False)
    assert len(block_texts("groq-tool-use-failed-error-event.sse")[0][1]) > 100
