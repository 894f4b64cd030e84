"""The long-tail regression set: real streams from public test suites (PROVENANCE.md).

Each stream's outcome is pinned: its provider (or "cannot tell" with what the
body is), terminal state and finish reason, the unread fields it really
carries, and the figures the v1.1 rules change (xAI's output tokens, the
citation count of a Perplexity stream).
"""

from __future__ import annotations

from typing import Any

import pytest

from inspector.core.adapters import ADAPTERS
from inspector.core.invariants import check_invariants
from inspector.session import ProviderUnknown, load_trace

from .conftest import ROOT

DIR = ROOT / "tests" / "fixtures" / "real-longtail"

# file -> (provider, outcome, unread paths)
EXPECTED: dict[str, tuple[str, str, set[str]]] = {
    "mistral-magistral-stream.sse": ("openai-chat", "completed (stop)", set()),
    "pydantic-ai-openai-moderation-stream.yaml": (
        "openai-chat",
        "completed (stop)",
        {"moderation"},
    ),
    "vercel-perplexity-citations.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-perplexity-usage-live.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-mistral-tool-call.sse": ("openai-chat", "completed (tool_calls)", set()),
    "vercel-mistral-text.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-groq-tool-call.sse": ("openai-chat", "completed (tool_calls)", set()),
    "vercel-xai-text-reasoning.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-azure-model-router.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-deepseek-v4-system-fingerprint.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-deepseek-v4-sampling-length.sse": ("openai-chat", "completed (length)", set()),
    "vercel-deepseek-v4-pro-thinking-length.sse": ("openai-chat", "completed (length)", set()),
    "vercel-gemini-prompt-blocked.sse": ("gemini", "failed (content_filter)", set()),
    "vercel-gemma-4-thought-usage.sse": ("gemini", "completed (stop)", set()),
    "vercel-gemini3-empty-text-signature.sse": ("gemini", "completed (stop)", set()),
    "vercel-google-429-retry-info.json": ("gemini", "failed (rate_limited)", set()),
    "vercel-anthropic-tool-no-args.sse": ("anthropic", "completed (tool_calls)", set()),
    "vercel-anthropic-message-delta-input-tokens.sse": ("anthropic", "completed (stop)", set()),
    "vercel-google-usage-only-frame.sse": ("gemini", "interrupted (transport)", set()),
    "vercel-mistral-usage-live.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-ai-gateway-xai-provider-metadata.sse": (
        "openai-chat",
        "completed (stop)",
        {"choices[].delta.provider_metadata", "generationId"},
    ),
}
# file -> what "cannot tell" says the body is
CANNOT_TELL: dict[str, str] = {
    "cohere-v1-command-r.yaml": "it is NDJSON (one JSON document a line: Cohere v1 chat",
}
# Cohere v2: read by the `cohere` adapter once it is registered, else "cannot tell"
# naming Cohere (never another provider's adapter).
COHERE_V2: dict[str, str] = {
    "vercel-cohere-v2-text.sse": "completed (stop)",
    "vercel-cohere-v2-cached-usage.sse": "completed (length)",
    "vercel-cohere-v2-empty-tool-call.sse": "completed (tool_calls)",
}


def test_every_file_of_the_set_has_an_expectation_and_a_provenance_row() -> None:
    files = sorted(p.name for p in DIR.iterdir() if p.name != "PROVENANCE.md")
    assert files == sorted([*EXPECTED, *CANNOT_TELL, *COHERE_V2])
    provenance = (DIR / "PROVENANCE.md").read_text()
    for name in files:
        assert f"| `{name}` |" in provenance, name


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_long_tail_stream_normalizes_as_pinned(name: str) -> None:
    provider, outcome, unread = EXPECTED[name]
    trace = load_trace(DIR / name)
    assert check_invariants(trace.events) == []
    assert trace.violations == []
    assert (trace.provider, trace.outcome) == (provider, outcome)
    paths = {e["path"] for e in trace.events if e.get("code") == "unread_field"}
    assert paths == unread


@pytest.mark.parametrize("name", sorted(CANNOT_TELL))
def test_a_protocol_without_an_adapter_is_cannot_tell_with_evidence(name: str) -> None:
    with pytest.raises(ProviderUnknown) as caught:
        load_trace(DIR / name)
    assert CANNOT_TELL[name] in str(caught.value)


@pytest.mark.parametrize("name", sorted(COHERE_V2))
def test_cohere_v2_is_its_adapters_or_cannot_tell_naming_it(name: str) -> None:
    if "cohere" in ADAPTERS:
        trace = load_trace(DIR / name)
        assert check_invariants(trace.events) == []
        assert (trace.provider, trace.outcome) == ("cohere", COHERE_V2[name])
        return
    with pytest.raises(ProviderUnknown, match="its frames are Cohere v2 chat"):
        load_trace(DIR / name)


def done(name: str) -> dict[str, Any]:
    event: dict[str, Any] = load_trace(DIR / name).events[-1]
    assert event["type"] == "stream.done"
    return event


def test_xai_reasoning_tokens_are_output_tokens() -> None:
    usage = done("vercel-xai-text-reasoning.sse")["usage"]
    assert (usage["output_tokens"], usage["reasoning_tokens"]) == (291, 290)


def test_perplexity_citations_are_each_one_citation_delta() -> None:
    trace = load_trace(DIR / "vercel-perplexity-citations.sse")
    cited = [e for e in trace.events if e.get("delta", {}).get("kind") == "citation"]
    assert len(cited) == 7  # seven URLs, repeated on each of the eight chunks


def test_mistral_tool_call_without_index_is_a_tool_call() -> None:
    trace = load_trace(DIR / "vercel-mistral-tool-call.sse")
    starts = [e for e in trace.events if e["type"] == "block.start"]
    assert [(e["name"], e["call_id"]) for e in starts] == [("weather", "gSIMJiOkT")]


def test_the_set_is_not_in_the_older_fixtures() -> None:
    older = {p.read_bytes() for p in (ROOT / "tests" / "fixtures").rglob("*") if p.is_file()
             and DIR not in p.parents}  # fmt: skip
    for path in DIR.iterdir():
        assert path.read_bytes() not in older, path.name


def test_azure_prompt_filter_chunk_leaves_the_model_out_of_stream_start() -> None:
    trace = load_trace(DIR / "vercel-azure-model-router.sse")
    assert "model" not in trace.events[0]
    assert trace.events[-1]["model"] == "gpt-5-nano-2025-08-07"
