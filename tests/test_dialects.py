"""The dialect table of OpenAI-compatible servers (contract v1.1), row by row.

Each row is recognized the way the table says (host, model prefix, a field
seen in the stream), has its evidence and a capture, and changes exactly what
its row says: where usage is and what it means, which extra fields are read
or ignored, which final signal ends the stream.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from inspector.core.adapters.dialects import DIALECTS, by_field, by_host, by_model, named
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace

from .conftest import CAPTURES
from .golden import golden_for, read_jsonl


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> bytes:
    choice: dict[str, Any] = {"index": 0, "delta": delta or {}, "finish_reason": finish}
    choice.update(top.pop("choice", {}))
    body: dict[str, Any] = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "model": top.pop("model", "m"),
    }
    body["choices"] = top.pop("choices", [choice])
    body.update(top)
    return b"data: " + orjson.dumps(body) + b"\n\n"


DONE = b"data: [DONE]\n\n"


def run(*frames: bytes, url: str | None = None, model: str | None = None) -> Trace:
    header: dict[str, Any] | None = None
    if url is not None or model is not None:
        header = {"provider": "openai-chat", "model": model, "request": {"url": url}}
    normalizer = Normalizer("openai-chat", "st_dialect", header=header)
    normalizer.feed(b"".join(frames))
    trace = normalizer.finish()
    assert check_invariants(trace.events) == []
    return trace


def warnings(trace: Trace) -> list[str | None]:
    return [e.get("path") or e["code"] for e in trace.events if e["type"] == "stream.warning"]


def done(trace: Trace) -> dict[str, Any]:
    assert trace.events[-1]["type"] == "stream.done", trace.events[-1]
    return trace.events[-1]


# -- the table itself ------------------------------------------------------------


@pytest.mark.parametrize("dialect", DIALECTS, ids=[d.name for d in DIALECTS])
def test_every_row_has_evidence_and_a_capture_with_its_golden(dialect: Any) -> None:
    assert dialect.evidence
    named_captures = [
        word.strip("();,") for word in dialect.evidence.split() if "captures/openai-chat/" in word
    ]
    assert named_captures, f"{dialect.name}: no capture named in its evidence"
    for relative in named_captures:
        capture = CAPTURES.parent / relative
        assert capture.exists(), relative
        assert golden_for(capture).exists(), relative
        # The capture of a row reads without unread fields: the row accounts for them.
        events = read_jsonl(golden_for(capture))
        assert not [e for e in events if e.get("code") == "unread_field"], relative


def test_rows_are_found_by_host_model_and_field() -> None:
    assert by_host("https://api.groq.com/openai/v1/chat/completions") == named("groq")
    assert by_host("https://contoso.openai.azure.com/openai/deployments/x") == named("azure")
    assert by_host("http://localhost:11434/v1/chat/completions") == named("ollama-openai")
    assert by_host("http://localhost:1234/v1/chat/completions") == named("lmstudio")
    assert by_host("https://api.openai.com/v1/chat/completions") is None
    assert by_host("not a url::") is None
    assert by_model("grok-4-fast") == named("xai")
    assert by_model("magistral-medium-latest") == named("mistral")
    assert by_model("x-ai/grok-4") is None  # a router's name: the router shaped the chunks
    assert by_field(["x_groq"]) == named("groq")
    assert by_field(["choices[].delta.token_id"]) == named("together")
    assert by_field(["choices[].stop_reason"]) == named("vllm")
    assert by_field(["something_else"]) is None


# -- one test per row ---------------------------------------------------------------


def test_mistral_content_arrays_become_reasoning_and_text_blocks() -> None:
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "hmm"}]}
    trace = run(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": [thinking]}),
        chunk(
            {"content": [{"type": "text", "text": "Hi"}, {"type": "image_url", "image_url": "x"}]}
        ),
        chunk(finish="stop"),
        DONE,
        model="magistral-small-2509",
    )
    blocks = [
        (e["block"]["kind"], e["provider_type"]) for e in trace.events if e["type"] == "block.start"
    ]
    assert blocks == [("reasoning", "thinking"), ("text", "content")]
    texts = [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"]
    assert texts == ["hmm", "Hi"]
    # A chunk type the adapter does not model is named, not dropped.
    assert warnings(trace) == ["choices[].delta.content[].image_url"]


def test_mistral_tool_calls_without_index_are_told_apart_by_id() -> None:
    call = {"function": {"name": "f", "arguments": "{}"}}
    trace = run(
        chunk({"tool_calls": [{"id": "a", **call}]}),
        chunk({"tool_calls": [{"id": "b", **call}]}),
        chunk(finish="tool_calls"),
        DONE,
        url="https://api.mistral.ai/v1/chat/completions",
    )
    starts = [e["call_id"] for e in trace.events if e["type"] == "block.start"]
    assert starts == ["a", "b"]
    assert done(trace)["finish_reason"] == "tool_calls"


def test_openrouter_fields_are_accounted_and_an_error_chunk_fails() -> None:
    trace = run(
        b": OPENROUTER PROCESSING\n\n",
        chunk({"content": "part"}, provider="Anthropic", choice={"native_finish_reason": None}),
        chunk(
            {},
            "error",
            provider="Anthropic",
            error={"code": 502, "message": "Provider returned error"},
            choice={"native_finish_reason": "error"},
        ),
    )
    assert warnings(trace) == []
    assert trace.events[-1]["error"]["category"] == "server_error"


def test_groq_usage_is_read_from_x_groq_and_executed_tools_are_opaque() -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
    tool = {"index": 0, "type": "search", "arguments": "{}", "output": "found"}
    trace = run(
        chunk({"executed_tools": [tool]}, x_groq={"id": "req_1"}),
        chunk({"content": "Sunny."}),
        chunk(finish="stop", x_groq={"id": "req_1", "usage": usage, "seed": 7}),
        DONE,
    )
    opened = [
        (e["block"]["kind"], e["provider_type"]) for e in trace.events if e["type"] == "block.start"
    ]
    assert opened == [("opaque", "executed_tools"), ("text", "content")]
    assert done(trace)["usage"]["output_tokens"] == 4
    assert warnings(trace) == []


def test_groq_event_error_is_the_error_it_states() -> None:
    error = {"error": {"message": "slow down", "code": "rate_limit_exceeded"}}
    trace = run(chunk({"content": "a"}), b"event: error\ndata: " + orjson.dumps(error) + b"\n\n")
    assert trace.events[-1]["error"]["category"] == "rate_limited"


def test_xai_output_tokens_add_the_reasoning_tokens() -> None:
    usage = {
        "prompt_tokens": 5,
        "completion_tokens": 10,
        "completion_tokens_details": {"reasoning_tokens": 90},
    }
    frames = (chunk({"content": "x"}, model="grok-4"), chunk(finish="stop", usage=usage), DONE)
    assert done(run(*frames))["usage"]["output_tokens"] == 100
    # The same chunks from OpenAI: completion_tokens already include reasoning.
    openai = (chunk({"content": "x"}, model="o4-mini"), chunk(finish="stop", usage=usage), DONE)
    assert done(run(*openai))["usage"]["output_tokens"] == 10


def test_deepseek_reasoning_content_and_cache_hits() -> None:
    usage = {"prompt_tokens": 9, "completion_tokens": 3, "prompt_cache_hit_tokens": 8}
    trace = run(
        chunk({"reasoning_content": "think", "content": None}, model="deepseek-reasoner"),
        chunk({"content": "4"}),
        chunk(finish="stop", usage=usage),
        DONE,
    )
    kinds = [e["block"]["kind"] for e in trace.events if e["type"] == "block.start"]
    assert kinds == ["reasoning", "text"]
    assert done(trace)["usage"]["cached_input_tokens"] == 8


def test_perplexity_citations_are_citation_deltas_each_once() -> None:
    top = {"citations": ["https://a"], "search_results": [{"url": "https://a", "title": "A"}]}
    trace = run(
        chunk({"content": "Paris"}, choice={"message": {"content": "Paris"}}, **top),
        chunk({"content": "."}, choice={"message": {"content": "Paris."}}, **top),
        chunk(finish="stop", **top),
        DONE,
        url="https://api.perplexity.ai/chat/completions",
    )
    cited = [
        e["delta"]["citation"] for e in trace.events if e.get("delta", {}).get("kind") == "citation"
    ]
    assert cited == [
        {"type": "citations", "value": "https://a"},
        {"type": "search_results", "value": {"url": "https://a", "title": "A"}},
    ]
    assert warnings(trace) == []


def test_snowflake_cortex_repeats_are_ignored_by_field() -> None:
    delta = {"content": "hi", "text": "hi", "content_list": [{"type": "text", "text": "hi"}]}
    trace = run(chunk(delta), chunk(finish="stop"), DONE)
    assert warnings(trace) == []
    assert [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"] == ["hi"]


def test_azure_prompt_filter_chunk_has_no_model_and_no_warning() -> None:
    filters = [{"prompt_index": 0, "content_filter_results": {"hate": {"filtered": False}}}]
    first = {
        "choices": [],
        "created": 0,
        "id": "",
        "model": "",
        "object": "",
        "prompt_filter_results": filters,
    }
    trace = run(
        b"data: " + orjson.dumps(first) + b"\n\n",
        chunk({"content": "Hi"}, choice={"content_filter_results": {"hate": {"filtered": False}}}),
        chunk(finish="stop"),
        DONE,
    )
    assert "model" not in trace.events[0]
    assert warnings(trace) == []


def test_together_choice_text_beside_delta_is_chat_not_completions() -> None:
    trace = run(
        chunk({"content": "Hi", "token_id": 9}, choice={"text": "Hi", "seed": None}),
        chunk(finish="stop", choice={"text": "", "seed": 42}),
        DONE,
    )
    assert warnings(trace) == []
    assert [e["delta"]["text"] for e in trace.events if e["type"] == "block.delta"] == ["Hi"]


def test_fireworks_perf_metrics_are_ignored() -> None:
    trace = run(chunk({"content": "Hi"}), chunk(finish="stop", perf_metrics={"x": 1}), DONE)
    assert warnings(trace) == []


def test_vllm_error_object_fails_and_stop_reason_is_ignored() -> None:
    error = {"object": "error", "message": "too long", "type": "BadRequestError", "code": 400}
    trace = run(
        chunk({"content": "a"}, choice={"stop_reason": None}),
        b"data: " + orjson.dumps(error) + b"\n\n",
    )
    assert trace.events[-1]["error"]["category"] == "invalid_request"
    assert trace.events[-1]["error"]["message"] == "too long"


def test_lmstudio_and_ollama_openai_read_as_plain_chat_by_host() -> None:
    for url in (
        "http://localhost:1234/v1/chat/completions",
        "http://localhost:11434/v1/chat/completions",
    ):
        trace = run(chunk({"content": "Hi", "reasoning": "r"}), chunk(finish="stop"), DONE, url=url)
        assert done(trace)["finish_reason"] == "stop"
        assert warnings(trace) == []


def test_writer_ends_without_done_and_other_servers_do_not() -> None:
    frames = (chunk({"content": "Hi"}), chunk(finish="stop"))
    writer = run(*frames, url="https://api.writer.com/v1/chat")
    assert done(writer)["finish_reason"] == "stop"
    assert run(*frames).events[-1]["status"] == "interrupted"
    # Writer's end must still be clean: bytes cut inside a frame stay interrupted.
    cut = run(*frames, b'data: {"id"', url="https://api.writer.com/v1/chat")
    assert cut.events[-1]["status"] == "interrupted"


def test_every_dialect_capture_reads_as_its_readme_says() -> None:
    readme = (CAPTURES / "openai-chat" / "README.md").read_text()
    for path in sorted((CAPTURES / "openai-chat").glob("dialect-*")):
        if path.name.endswith(".events.jsonl"):
            continue
        assert f"`{path.name.rsplit('.', 1)[0]}`" in readme, path.name
        events = read_jsonl(golden_for(path))
        assert events[-1]["type"] in ("stream.done", "stream.error")
