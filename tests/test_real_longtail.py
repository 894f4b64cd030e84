"""The long-tail regression set: real streams from public test suites (PROVENANCE.md).

Each stream's outcome is pinned: its provider (or "cannot tell" with what the
body is), terminal state and finish reason, the unread fields it really
carries, and the figures the v1.1 rules change (xAI's output tokens, the
citation count of a Perplexity stream).
"""

from __future__ import annotations

from pathlib import Path
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
    "vercel-openai-completions-gpt35-instruct-length.sse": (
        "openai-completions",
        "completed (length)",
        set(),
    ),
    "vercel-mistral-small-thinking-content-array.sse": ("openai-chat", "completed (stop)", set()),
    # Moonshot sends usage inside the choice (kimi-k3 also at the top level, which wins).
    "vercel-moonshot-kimi-k3-usage-live.sse": ("openai-chat", "completed (stop)", set()),
    "vercel-moonshot-kimi-k25-choice-usage.sse": ("openai-chat", "completed (stop)", set()),
    "openai-python-n3-choices.sse": ("openai-chat", "completed (stop)", set()),
    # OpenRouter (Minimax): finish_reason length twice, then an error chunk with usage.
    "pydantic-ai-openrouter-minimax-length-then-error-chunk.yaml": (
        "openai-chat",
        "failed (invalid_request)",
        set(),
    ),
    "openllmetry-ollama-chat-llama3-stream.yaml": ("ollama", "completed (stop)", set()),
    "openllmetry-ollama-generate-llama3-stream.yaml": ("ollama", "completed (stop)", set()),
    # Writer repeats a cumulative `message` beside each `delta`, with `graph_data`.
    "openllmetry-writer-palmyra-x4-tool-call-stream.yaml": (
        "openai-chat",
        "completed (tool_calls)",
        {"choices[].message", "choices[].delta.graph_data"},
    ),
}
# file -> what "cannot tell" says the body is
CANNOT_TELL: dict[str, str] = {
    "cohere-v1-command-r.yaml": "it is NDJSON (one JSON document a line: Cohere v1 chat",
    "openinference-gemini-interactions-thinking-stream.yaml": (
        "its frames are Gemini Interactions (event_type frames)"
    ),
}
# Cohere v2: read by the `cohere` adapter once it is registered, else "cannot tell"
# naming Cohere (never another provider's adapter).
COHERE_V2: dict[str, str] = {
    "vercel-cohere-v2-text.sse": "completed (stop)",
    "vercel-cohere-v2-cached-usage.sse": "completed (length)",
    "vercel-cohere-v2-empty-tool-call.sse": "completed (tool_calls)",
    "vercel-cohere-v2-reasoning.sse": "completed (stop)",
    "openllmetry-cohere-v2-command-r-tool-calls-stream.yaml": "completed (tool_calls)",
}
# Bedrock ConverseStream cassettes (`!!binary` AWS event-stream bodies): file ->
# the outcome of the stream they hold.
BEDROCK_CASSETTES: dict[str, str] = {
    "openllmetry-bedrock-llama32-converse-stream.yaml": "completed (stop)",
    "pydantic-ai-bedrock-gpt-oss-empty-text-delta.yaml": "completed (stop)",
    "pydantic-ai-bedrock-converse-stream-invalid-model-400.yaml": "failed (invalid_request)",
    # (no response headers at all: only the /converse-stream URL says it streams)
    "openinference-bedrock-claude3-haiku-converse-stream-tool.yaml": "completed (tool_calls)",
}
# A file -> the terminal state and text it gives, where an adapter once read it wrongly.
ONCE_MISREAD: dict[str, tuple[str, str]] = {
    # Perplexity's Agent API (Responses-shaped): a server-run `search_web` function_call
    # whose output_item.done is a `search_results` item, then the answer's text.
    "vercel-perplexity-agent-web-search.sse": (
        "completed (stop)",
        "The official TypeScript website is **typescriptlang.org**; TypeScript is a strongly "
        "typed programming language that builds on JavaScript and adds syntax for types.[7]",
    ),
}
# A protocol no adapter speaks, which another provider's adapter once read (dropping
# all its text): file -> what "cannot tell" names.
NO_ADAPTER_SPEAKS: dict[str, str] = {
    # Anthropic's legacy Text Completions (/v1/complete): `event: completion` frames
    # with a `completion` string and a `stop_reason`.
    "openinference-anthropic-legacy-complete-stream.yaml": "Anthropic legacy Text Completions",
}
# A cassette whose every interaction is "cannot tell": file -> evidence per interaction.
CANNOT_TELL_EACH: dict[str, list[str]] = {
    # Replicate: a 201 JSON prediction (imported because the request says stream: true),
    # then the prediction's own SSE stream (event: output / done, plain-text data).
    "openllmetry-replicate-llama2-stream.yaml": [
        "it is a JSON document",
        "its frames are Replicate predictions (event: output with plain-text data)",
    ],
}


def test_every_file_of_the_set_has_an_expectation_and_a_provenance_row() -> None:
    files = sorted(p.name for p in DIR.iterdir() if p.name != "PROVENANCE.md")
    assert files == sorted(
        [
            *EXPECTED,
            *CANNOT_TELL,
            *COHERE_V2,
            *BEDROCK_CASSETTES,
            *ONCE_MISREAD,
            *CANNOT_TELL_EACH,
            *NO_ADAPTER_SPEAKS,
        ]
    )
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


def trace_of(name: str) -> Any:
    """The normalized trace of one stream of the set (a cassette is imported first)."""
    return load_trace(DIR / name)


def texts(trace: Any) -> list[tuple[str, str]]:
    """(kind, content) of each block, in the order the blocks started."""
    blocks: dict[str, list[str]] = {}
    for event in trace.events:
        if event["type"] == "block.start":
            blocks[event["block"]["id"]] = [event["block"]["kind"], ""]
        elif event["type"] == "block.delta":
            delta = event["delta"]
            blocks[event["block"]["id"]][1] += delta.get("text") or delta.get("json") or ""
    return [(kind, content) for kind, content in blocks.values()]


def test_legacy_completions_text_is_read_whole_not_as_chat() -> None:
    trace = trace_of("vercel-openai-completions-gpt35-instruct-length.sse")
    assert texts(trace) == [
        ("text", 'The holiday is called "Gratitude Day" and it is a day dedicated to')
    ]
    assert trace.events[-1]["usage"]["output_tokens"] == 16


def test_mistral_thinking_chunks_are_reasoning_and_the_mixed_chunk_splits() -> None:
    kinds = texts(trace_of("vercel-mistral-small-thinking-content-array.sse"))
    assert [kind for kind, _ in kinds] == ["reasoning", "text"]
    assert kinds[0][1].startswith("Okay, the user is asking for the product of 17 and 23.")
    assert kinds[0][1].endswith("So, 17 * 23 = 391.")
    assert kinds[1][1] == "391"  # "3" in the thinking chunk's array, "91" as a string


@pytest.mark.parametrize(
    ("name", "text", "usage"),
    [
        (
            "openllmetry-ollama-chat-llama3-stream.yaml",
            "Why did the OpenTelemetry agent go to therapy?",
            (17, 50),
        ),
        ("openllmetry-ollama-generate-llama3-stream.yaml", "A joke about OpenTelemetry!", (17, 71)),
    ],
)
def test_ollama_native_ndjson_text_and_counts(name: str, text: str, usage: tuple[int, int]) -> None:
    trace = trace_of(name)
    [(kind, content)] = texts(trace)
    assert (kind, content.startswith(text)) == ("text", True)
    done_usage = trace.events[-1]["usage"]
    assert (done_usage["input_tokens"], done_usage["output_tokens"]) == usage


def test_writer_tool_call_completes_without_done_marker() -> None:
    trace = trace_of("openllmetry-writer-palmyra-x4-tool-call-stream.yaml")
    assert texts(trace) == [("tool_call", '{"location": "Zakopane"}')]
    start = next(e for e in trace.events if e["type"] == "block.start")
    assert (start["name"], start["call_id"]) == (
        "get_weather",
        "chatcmpl-tool-a31f1a5690b14b7daf0e78d2a2d23da2",
    )


def test_cohere_v2_tool_plan_then_two_calls() -> None:
    trace = trace_of("openllmetry-cohere-v2-command-r-tool-calls-stream.yaml")
    starts = [e for e in trace.events if e["type"] == "block.start"]
    assert [(e["block"]["kind"], e.get("name")) for e in starts] == [
        ("reasoning", None),
        ("tool_call", "get_time"),
        ("tool_call", "get_weather"),
    ]


def test_a_choice_level_usage_duplicate_is_not_needed_when_top_level_usage_follows() -> None:
    usage = done("vercel-moonshot-kimi-k3-usage-live.sse")["usage"]
    assert (usage["input_tokens"], usage["output_tokens"], usage["reasoning_tokens"]) == (
        90,
        50,
        33,
    )


def test_moonshot_usage_inside_the_choice_is_the_streams_usage() -> None:
    usage = done("vercel-moonshot-kimi-k25-choice-usage.sse")["usage"]
    assert (usage["input_tokens"], usage["output_tokens"]) == (12, 5)


def test_first_of_several_choices_is_read_whole() -> None:
    kinds = texts(trace_of("openai-python-n3-choices.sse"))
    assert kinds[0] == ("text", '{"city":"San Francisco","temperature":63,"units":"f"}')


def test_several_choices_each_carry_their_choice_and_final_signal() -> None:
    trace = trace_of("openai-python-n3-choices.sse")
    starts = [e for e in trace.events if e["type"] == "block.start"]
    # Choice 0's block began before choice 1 showed itself, so it went out without
    # `choice` (a block without it is choice 0's), and a late_choice warning says so.
    assert any(e.get("code") == "late_choice" for e in trace.events)
    assert sorted((e["block"].get("choice", 0), e["block"]["kind"]) for e in starts) == [
        (0, "text"),
        (1, "text"),
        (2, "refusal"),
    ]
    assert [c["choice"] for c in trace.events[-1]["choices"]] == [0, 1, 2]


@pytest.mark.parametrize("name", sorted(BEDROCK_CASSETTES))
def test_a_bedrock_converse_stream_cassette_imports(name: str) -> None:
    trace = trace_of(name)
    assert (trace.provider, trace.outcome) == ("bedrock-converse", BEDROCK_CASSETTES[name])


def recorded_body(name: str, tmp_path: Any) -> Any:
    """The one response body of a cassette, as the file a capture would hold."""
    from inspector.interop.vcr import read_vcr

    [exchange] = read_vcr((DIR / name).read_bytes(), name)
    target = tmp_path / f"{Path(name).stem}.bin"
    target.write_bytes(exchange.body or b"")
    return target


@pytest.mark.parametrize(
    "name",
    [n for n, outcome in sorted(BEDROCK_CASSETTES.items()) if outcome.startswith("completed")],
)
def test_a_bedrock_cassettes_event_stream_body_normalizes(name: str, tmp_path: Any) -> None:
    trace = load_trace(recorded_body(name, tmp_path), as_received=False)
    assert check_invariants(trace.events) == []
    assert (trace.provider, trace.outcome) == ("bedrock-converse", BEDROCK_CASSETTES[name])
    assert [e for e in trace.events if e["type"] == "stream.warning"] == []


def test_bedrock_gpt_oss_reasoning_and_text_after_an_empty_text_block(tmp_path: Any) -> None:
    body = recorded_body("pydantic-ai-bedrock-gpt-oss-empty-text-delta.yaml", tmp_path)
    kinds = [(k, c) for k, c in texts(load_trace(body, as_received=False)) if c]
    assert kinds == [
        ("reasoning", 'We need to respond as ChatGPT. The user just said "Hi". Probably respond '
         "friendly and ask how can help."),
        ("text", "Hello! \N{WAVING HAND SIGN} How can I assist you today?"),
    ]  # fmt: skip


@pytest.mark.parametrize("name", sorted(ONCE_MISREAD))
def test_wrong_today_streams_still_normalize_without_a_broken_invariant(name: str) -> None:
    trace = trace_of(name)
    assert check_invariants(trace.events) == []
    assert trace.provider == "openai-responses"


@pytest.mark.parametrize("name", sorted(ONCE_MISREAD))
def test_a_server_run_call_replaced_by_its_results_item_keeps_the_answer(name: str) -> None:
    outcome, text = ONCE_MISREAD[name]
    trace = trace_of(name)
    assert trace.outcome == outcome
    assert ("text", text) in texts(trace)


@pytest.mark.parametrize("name", sorted(CANNOT_TELL_EACH))
def test_each_interaction_of_an_unknown_protocol_is_cannot_tell_with_evidence(
    name: str, tmp_path: Any
) -> None:
    from inspector.importer import import_files

    [outcome] = import_files([DIR / name], tmp_path)
    assert len(outcome.written) == len(CANNOT_TELL_EACH[name])
    for (_index, target, _rec), evidence in zip(
        outcome.written, CANNOT_TELL_EACH[name], strict=True
    ):
        with pytest.raises(ProviderUnknown) as caught:
            load_trace(target)
        assert evidence in str(caught.value)


def test_an_openrouter_error_chunk_after_the_finish_reason_is_the_streams_end() -> None:
    trace = trace_of("pydantic-ai-openrouter-minimax-length-then-error-chunk.yaml")
    error = next(e for e in trace.events if e["type"] == "stream.error")["error"]
    assert (error["provider_code"], error["message"]) == (400, "Token limit reached")
    assert texts(trace) == [("reasoning", "We need to respond to a greeting. The user")]


@pytest.mark.parametrize("name", sorted(NO_ADAPTER_SPEAKS))
def test_a_protocol_no_adapter_speaks_is_cannot_tell_not_another_adapter(name: str) -> None:
    with pytest.raises(ProviderUnknown) as caught:
        trace_of(name)
    assert NO_ADAPTER_SPEAKS[name] in str(caught.value)
    assert "which has no adapter here" in str(caught.value)


def test_a_tool_use_converse_stream_body_is_a_tool_call(tmp_path: Any) -> None:
    body = recorded_body("openinference-bedrock-claude3-haiku-converse-stream-tool.yaml", tmp_path)
    assert texts(load_trace(body, as_received=False)) == [("tool_call", '{"sign": "WZPZ"}')]
