"""Every real Anthropic stream in tests/fixtures/real/anthropic/ normalizes cleanly.

``EXPECTED`` names each file's terminal state as its content proves it (read
the file, not the tool's output). A file that is added without a row here
fails the table test. A few streams are also checked on meaning: assembled
text, tool arguments, usage, block kinds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pytest

from inspector.core.trace import Trace

from .golden import assert_clean

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "real" / "anthropic"

EXPECTED: dict[str, tuple[str, str | None]] = {
    "clear-thinking.sse": ("completed", "stop"),
    "code-execution-bash.sse": ("completed", "stop"),
    "code-execution-prompt-cache.sse": ("completed", "stop"),
    "compaction-block.sse": ("completed", "stop"),
    "mcp-connector.sse": ("completed", "stop"),
    "mcp-tool-use.sse": ("completed", "stop"),
    "opus46-adaptive-thinking.sse": ("completed", "stop"),
    "parallel-tool-use.sse": ("completed", "tool_calls"),
    "stop-sequence.sse": ("completed", "stop"),
    "text-basic.sse": ("completed", "stop"),
    "text-editor-code-execution.sse": ("completed", "stop"),
    "text-sonnet45.sse": ("completed", "stop"),
    "thinking-long.sse": ("completed", "stop"),
    "thinking-signature.sse": ("completed", "stop"),
    "tool-search-then-tool-use.sse": ("completed", "tool_calls"),
    "tool-use-json-fragments.sse": ("completed", "tool_calls"),
    "tool-use-many-pings.sse": ("completed", "tool_calls"),
    # Its final message_stop has no blank line after it (PROVENANCE "Known quirks").
    "tool-use-with-text.sse": ("interrupted", "transport"),
    "web-fetch.sse": ("completed", "stop"),
    "web-search-citations-2.sse": ("completed", "stop"),
    "web-search-citations.sse": ("completed", "stop"),
}


@dataclass
class Block:
    """One block as its events assemble it."""

    kind: str
    provider_type: str
    name: str | None = None
    call_id: str | None = None
    text: str = ""
    signature: str = ""
    citations: list[Any] = field(default_factory=list)

    @property
    def arguments(self) -> Any:
        return orjson.loads(self.text) if self.text else {}


def blocks_of(trace: Trace) -> list[Block]:
    """The blocks of a trace, in index order, assembled from their deltas."""
    blocks: dict[int, Block] = {}
    for event in trace.events:
        if event["type"] == "block.start":
            blocks[event["block"]["index"]] = Block(
                event["block"]["kind"], event["provider_type"], event.get("name"),
                event.get("call_id"),
            )  # fmt: skip
        elif event["type"] == "block.delta":
            block, delta = blocks[event["block"]["index"]], event["delta"]
            if delta["kind"] == "signature":
                block.signature += delta["text"]
            elif delta["kind"] == "citation":
                block.citations.append(delta["citation"])
            else:
                block.text += delta["text"]
    return [blocks[i] for i in sorted(blocks)]


def load(name: str) -> Trace:
    return assert_clean(FIXTURES / name, EXPECTED[name])


def done_event(trace: Trace) -> dict[str, Any]:
    event = trace.terminal_event
    assert event is not None and event["type"] == "stream.done"
    return event


def test_the_table_covers_every_real_anthropic_stream() -> None:
    assert sorted(p.name for p in FIXTURES.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_stream_has_no_violation_and_the_terminal_state_its_content_proves(name: str) -> None:
    load(name)


def test_text_basic_assembles_its_text_and_reports_model_id_and_usage() -> None:
    trace = load("text-basic.sse")
    (block,) = blocks_of(trace)
    assert (block.kind, block.text) == ("text", "- Captain\n- Scoop")
    done = done_event(trace)
    assert (done["model"], done["response_id"]) == (
        "claude-sonnet-4-5-20250929", "msg_017A4s3HAsrqf5d2WvBmrpLr",
    )  # fmt: skip
    assert {k: v for k, v in done["usage"].items() if k != "raw"} == {
        "input_tokens": 17,
        "output_tokens": 10,
        "cached_input_tokens": 0,
    }
    assert done["usage"]["raw"]["service_tier"] == "standard"  # from message_start, kept


def test_stop_sequence_is_a_normal_stop_and_keeps_the_raw_reason() -> None:
    done = done_event(load("stop-sequence.sse"))
    assert (done["finish_reason"], done["provider_finish_reason"]) == ("stop", "stop_sequence")


def test_parallel_tool_use_gives_two_tool_calls_without_parameters() -> None:
    calls = blocks_of(load("parallel-tool-use.sse"))
    assert [(b.kind, b.name, b.call_id, b.arguments) for b in calls] == [
        ("tool_call", "pelican_name_generator", "toolu_01LtHJmixrs9NcWQkK8hu8hj", {}),
        ("tool_call", "pelican_name_generator", "toolu_01N8a4jWyf116qKTMqKKmjyt", {}),
    ]


def test_fragmented_tool_json_assembles_into_the_arguments() -> None:
    (call,) = blocks_of(load("tool-use-json-fragments.sse"))
    assert (call.name, call.arguments) == (
        "json",
        {"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]},
    )


def test_pings_inside_a_tool_block_are_heartbeats_and_the_arguments_stay_whole() -> None:
    trace = load("tool-use-many-pings.sse")
    assert sum(e["type"] == "stream.heartbeat" for e in trace.events) == 5
    (call,) = blocks_of(trace)
    assert call.arguments == {"location": "San Francisco"}


def test_an_unterminated_final_message_stop_is_an_interruption_that_says_why() -> None:
    trace = load("tool-use-with-text.sse")
    text, call = blocks_of(trace)
    assert text.text == "I'll check the current weather in Paris for you."
    assert (call.name, call.arguments) == ("get_weather", {"location": "Paris"})
    message = trace.events[-1]["error"]["message"]
    assert "(event 'message_stop' from byte 1951) had no blank line after them" in message
    assert "so they were never dispatched" in message
    assert "stop_reason 'tool_use', but message_stop never arrived" in message


def test_thinking_is_internal_reasoning_with_a_signature_before_the_answer() -> None:
    trace = load("thinking-signature.sse")
    reasoning, answer = blocks_of(trace)
    assert reasoning.kind == "reasoning" and reasoning.provider_type == "thinking"
    assert reasoning.text.startswith("The user wants two names for a pet pelican")
    # One signature_delta carries the whole 512-character signature.
    assert (reasoning.signature[:12], len(reasoning.signature)) == ("EvoCCkYICxgC", 512)
    assert answer.text == "- Captain\n- Scoop"
    start = next(e for e in trace.events if e["type"] == "block.start")
    assert start["visibility"] == "internal"


def test_thinking_may_come_between_two_text_blocks() -> None:
    blocks = blocks_of(load("opus46-adaptive-thinking.sse"))
    assert [(b.kind, b.text) for b in blocks] == [
        ("text", "\n\n"),
        ("reasoning", "Brief answer with two pet pelican names."),
        ("text", "1. **Captain Scoop**\n2. **Gullet**"),
    ]


def test_web_search_is_opaque_and_the_answer_carries_its_citations() -> None:
    blocks = blocks_of(load("web-search-citations.sse"))
    assert [b.provider_type for b in blocks[:2]] == ["server_tool_use", "web_search_tool_result"]
    assert {b.kind for b in blocks[:2]} == {"opaque"}
    assert blocks[0].text.endswith('{"query": "San Francisco weather today"}')
    assert orjson.loads(blocks[1].text)["tool_use_id"] == "srvtoolu_01SPfvT38PDPAFnkcrMNGUrM"
    assert {b.kind for b in blocks[2:]} == {"text"}
    citations = [c for b in blocks for c in b.citations]
    assert len(citations) == 5
    assert {c["type"] for c in citations} == {"web_search_result_location"}


def test_a_client_tool_after_a_tool_search_is_the_only_tool_call() -> None:
    blocks = blocks_of(load("tool-search-then-tool-use.sse"))
    assert [(b.kind, b.provider_type) for b in blocks] == [
        ("text", "text"),
        ("opaque", "server_tool_use"),
        ("opaque", "tool_search_tool_result"),
        ("text", "text"),
        ("tool_call", "tool_use"),
    ]
    assert (blocks[4].name, blocks[4].arguments) == (
        "get_exchange_rate", {"from_currency": "USD", "to_currency": "EUR"},
    )  # fmt: skip


def test_mcp_tools_run_by_the_provider_are_never_tool_calls() -> None:
    blocks = blocks_of(load("mcp-tool-use.sse"))
    assert [(b.kind, b.provider_type) for b in blocks] == [
        ("reasoning", "thinking"),
        ("opaque", "mcp_tool_use"),
        ("opaque", "mcp_tool_result"),
        ("text", "text"),
    ]
    assert '"server_name":"deepwiki"' in blocks[1].text


def test_compaction_usage_is_billed_over_both_sampling_iterations() -> None:
    trace = load("compaction-block.sse")
    compaction, text = blocks_of(trace)
    assert (compaction.kind, compaction.provider_type) == ("opaque", "compaction")
    assert '"type":"compaction_delta"' in compaction.text
    assert text.text == "Hello! 👋"
    usage = done_event(trace)["usage"]
    assert {k: v for k, v in usage.items() if k != "raw"} == {
        "input_tokens": 100 + 55096 + 181,
        "output_tokens": 83 + 8,
        "cached_input_tokens": 55096,
    }


def test_prompt_cache_reads_and_writes_count_as_input() -> None:
    usage = done_event(load("code-execution-prompt-cache.sse"))["usage"]
    assert {k: v for k, v in usage.items() if k != "raw"} == {
        "input_tokens": 6 + 3337 + 6289,
        "output_tokens": 198,
        "reasoning_tokens": 0,
        "cached_input_tokens": 6289,
    }
