"""The OpenAI Responses adapter, rule by rule: hand-written frames, whole sequences.

Each test feeds a few SSE frames through the real pipeline (decoder → adapter →
machine) and compares the complete normalized sequence — envelope aside, which
``events`` checks once for every stream — with what the contract requires.
Warnings and error messages are matched on their code and a telling fragment
(:class:`Warning_`, :func:`failed`), everything else exactly.
"""

from __future__ import annotations

import itertools
from typing import Any

import orjson
import pytest

from inspector.core.adapters.openai_responses import (
    FINAL_SIGNALS,
    INCOMPLETE_REASONS,
    completed_reason,
    normalize_usage,
)
from inspector.core.invariants import check_invariants
from inspector.core.normalizer import normalize
from inspector.core.trace import Trace, TransportEnd

MODEL = "gpt-5-2025-08-07"
RESP_ID = "resp_0test"
USAGE = {
    "input_tokens": 20,
    "input_tokens_details": {"cached_tokens": 8},
    "output_tokens": 50,
    "output_tokens_details": {"reasoning_tokens": 32},
    "total_tokens": 70,
}
NORMAL_USAGE = {
    "input_tokens": 20,
    "output_tokens": 50,
    "reasoning_tokens": 32,
    "cached_input_tokens": 8,
    "raw": USAGE,
}

# -- provider frames ---------------------------------------------------------


def response(status: str, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "id": RESP_ID,
        "object": "response",
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": MODEL,
        "output": [],
        "usage": None,
    }
    body.update(extra)
    return body


def created(**extra: Any) -> dict[str, Any]:
    return {"type": "response.created", "response": response("in_progress", **extra)}


IN_PROGRESS = {"type": "response.in_progress", "response": response("in_progress")}
KEEPALIVE = {"type": "keepalive"}


def completed(*output: dict[str, Any], usage: dict[str, Any] | None = USAGE) -> dict[str, Any]:
    return {
        "type": "response.completed",
        "response": response("completed", output=list(output), usage=usage),
    }


def incomplete(reason: str | None, usage: dict[str, Any] | None = USAGE) -> dict[str, Any]:
    details = {"reason": reason} if reason is not None else None
    return {
        "type": "response.incomplete",
        "response": response("incomplete", incomplete_details=details, usage=usage),
    }


def failed(error: dict[str, Any] | None) -> dict[str, Any]:
    return {"type": "response.failed", "response": response("failed", error=error)}


def message(*content: dict[str, Any], status: str = "in_progress") -> dict[str, Any]:
    return {"id": "msg_1", "type": "message", "status": status, "role": "assistant",
            "content": list(content)}  # fmt: skip


def output_text(text: str = "", annotations: list[Any] | None = None) -> dict[str, Any]:
    return {"type": "output_text", "annotations": annotations or [], "text": text}


def function_call(call_id: str, name: str, arguments: str = "") -> dict[str, Any]:
    return {"id": f"fc_{call_id}", "type": "function_call", "status": "in_progress",
            "arguments": arguments, "call_id": call_id, "name": name}  # fmt: skip


def reasoning(summary: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    item: dict[str, Any] = {"id": "rs_1", "type": "reasoning", "summary": summary or []}
    item.update(extra)
    return item


def item_added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def part_added(index: int, content: int, part: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.content_part.added", "item_id": "msg_1", "output_index": index,
            "content_index": content, "part": part}  # fmt: skip


def part_done(index: int, content: int, part: dict[str, Any]) -> dict[str, Any]:
    return {**part_added(index, content, part), "type": "response.content_part.done"}


def text_delta(index: int, content: int, text: str) -> dict[str, Any]:
    return {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": index,
            "content_index": content, "delta": text}  # fmt: skip


def text_done(index: int, content: int, text: str) -> dict[str, Any]:
    return {"type": "response.output_text.done", "item_id": "msg_1", "output_index": index,
            "content_index": content, "text": text}  # fmt: skip


def args_delta(index: int, fragment: str) -> dict[str, Any]:
    return {"type": "response.function_call_arguments.delta", "output_index": index,
            "delta": fragment}  # fmt: skip


def args_done(index: int, arguments: str) -> dict[str, Any]:
    return {"type": "response.function_call_arguments.done", "output_index": index,
            "arguments": arguments}  # fmt: skip


def summary_event(kind: str, index: int, summary: int, **extra: Any) -> dict[str, Any]:
    return {"type": f"response.reasoning_summary_{kind}", "item_id": "rs_1",
            "output_index": index, "summary_index": summary, **extra}  # fmt: skip


def text_message(index: int, *deltas: str) -> list[dict[str, Any]]:
    """The whole frame run OpenAI sends for a one-part text message."""
    text = "".join(deltas)
    return [
        item_added(index, message()),
        part_added(index, 0, output_text()),
        *(text_delta(index, 0, d) for d in deltas),
        text_done(index, 0, text),
        part_done(index, 0, output_text(text)),
        item_done(index, message(output_text(text), status="completed")),
    ]


def tool_call_run(index: int, call_id: str, name: str, *fragments: str) -> list[dict[str, Any]]:
    """The frame run of one function call item with fragmented arguments."""
    arguments = "".join(fragments)
    return [
        item_added(index, function_call(call_id, name)),
        *(args_delta(index, f) for f in fragments),
        args_done(index, arguments),
        item_done(index, {**function_call(call_id, name, arguments), "status": "completed"}),
    ]


def sse(*frames: dict[str, Any]) -> bytes:
    """Frames as OpenAI sends them: ``event:`` naming the type, ``sequence_number`` in data."""
    counter = itertools.count()
    return b"".join(
        b"event: "
        + str(f["type"]).encode()
        + b"\ndata: "
        + orjson.dumps({**f, "sequence_number": next(counter)})
        + b"\n\n"
        for f in frames
    )


def run(*frames: dict[str, Any], end: TransportEnd | None = None, raw: bytes = b"") -> Trace:
    return normalize(sse(*frames) + raw, "openai-responses", stream_id="st_test", end=end)


def events(trace: Trace) -> list[dict[str, Any]]:
    """The events without their envelope, after checking the envelope and the invariants."""
    assert [e["seq"] for e in trace.events] == list(range(1, len(trace.events) + 1))
    assert {e["stream_id"] for e in trace.events} == {"st_test"}
    assert check_invariants(trace.events) == []
    return [{k: v for k, v in e.items() if k not in ("stream_id", "seq")} for e in trace.events]


# -- expected contract events ------------------------------------------------

START = {"type": "stream.start", "provider": "openai-responses", "model": MODEL}
HEARTBEAT = {"type": "stream.heartbeat", "source": "ping"}


def ref(index: int, kind: str) -> dict[str, Any]:
    return {"id": f"b_{index}", "index": index, "kind": kind}


def opened(index: int, kind: str, provider_type: str, **extra: Any) -> dict[str, Any]:
    event: dict[str, Any] = {"type": "block.start", "block": ref(index, kind)}
    if kind == "reasoning":
        event["visibility"] = "internal"
    event.update(extra)
    event["provider_type"] = provider_type
    return event


def delta(index: int, kind: str, text: str, delta_kind: str = "text") -> dict[str, Any]:
    return {"type": "block.delta", "block": ref(index, kind),
            "delta": {"kind": delta_kind, "text": text}}  # fmt: skip


def citation(index: int, annotation: Any) -> dict[str, Any]:
    return {"type": "block.delta", "block": ref(index, "text"),
            "delta": {"kind": "citation", "text": "", "citation": annotation}}  # fmt: skip


def stopped(index: int, kind: str) -> dict[str, Any]:
    return {"type": "block.stop", "block": ref(index, kind)}


def done(
    finish_reason: str, provider_reason: str, usage: dict[str, Any] | None = NORMAL_USAGE
) -> dict[str, Any]:
    return {"type": "stream.done", "status": "completed", "finish_reason": finish_reason,
            "provider_finish_reason": provider_reason, "usage": usage, "model": MODEL,
            "response_id": RESP_ID}  # fmt: skip


class Matches:
    """Equal to a stream.error / stream.warning whose message contains ``fragment``."""

    def __init__(self, expected: dict[str, Any], fragment: str) -> None:
        self.expected = expected
        self.fragment = fragment

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, dict):
            return NotImplemented
        holder = other.get("error", other)
        message = holder.get("message", "") if isinstance(holder, dict) else ""
        rest = {k: v for k, v in other.items() if k != "error" and k != "message"}
        if "error" in other:
            rest["error"] = {k: v for k, v in other["error"].items() if k != "message"}
        return rest == self.expected and self.fragment in message

    def __repr__(self) -> str:
        return f"Matches({self.expected!r}, {self.fragment!r})"


def error(status: str, category: str, code: Any, retryable: bool, fragment: str = "") -> Matches:
    fields = {"category": category, "retryable": retryable, "provider_code": code}
    expected = {"type": "stream.error", "status": status, "error": fields}
    return Matches(expected, fragment)


def warning(code: str, fragment: str = "") -> Matches:
    return Matches({"type": "stream.warning", "code": code}, fragment)


def json_of(item: dict[str, Any]) -> str:
    return orjson.dumps(item).decode()


# -- text, and the .done events that must not duplicate it ------------------


def test_a_text_message_is_one_text_block_and_response_completed_proves_stop() -> None:
    trace = run(created(), IN_PROGRESS, *text_message(0, "The capital", " is Paris."),
                completed(message(output_text("The capital is Paris."))))  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "The capital"),
        delta(0, "text", " is Paris."),
        stopped(0, "text"),
        done("stop", "completed"),
    ]
    assert trace.ignored == []


def test_queued_and_in_progress_produce_nothing_and_the_model_comes_from_the_first_frame() -> None:
    queued = {"type": "response.queued", "response": response("queued")}
    trace = run(created(), queued, IN_PROGRESS, completed(usage=None))
    assert events(trace) == [START, done("stop", "completed", usage=None)]


def test_a_part_sent_whole_without_fragments_is_supplied_once_by_its_done_text() -> None:
    trace = run(created(), item_added(0, message()), part_added(0, 0, output_text()),
                text_done(0, 0, "Hello"), part_done(0, 0, output_text("Hello")),
                item_done(0, message(output_text("Hello"))), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hello"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_items_without_part_events_still_give_their_parts_at_output_item_done() -> None:
    # Some compatible servers send only output_item.added / .done.
    item = message(output_text("Hi"), {"type": "refusal", "refusal": "No."})
    trace = run(created(), item_added(0, message()), item_done(0, item), completed(item))
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hi"),
        stopped(0, "text"),
        opened(1, "refusal", "refusal"),
        delta(1, "refusal", "No."),
        stopped(1, "refusal"),
        done("refusal", "completed"),
    ]


def test_a_done_text_longer_than_the_fragments_supplies_the_tail_with_a_warning() -> None:
    trace = run(created(), item_added(0, message()), part_added(0, 0, output_text()),
                text_delta(0, 0, "Hel"), text_done(0, 0, "Hello"),
                part_done(0, 0, output_text("Hello")), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hel"),
        delta(0, "text", "lo"),
        warning("done_mismatch", "only 3; the rest was taken from it"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_a_done_text_that_contradicts_the_fragments_is_reported_and_the_fragments_kept() -> None:
    trace = run(created(), item_added(0, message()), part_added(0, 0, output_text()),
                text_delta(0, 0, "Hello"), text_done(0, 0, "Goodbye"),
                part_done(0, 0, output_text("Goodbye")), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hello"),
        warning("done_mismatch", "the streamed text is kept"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_annotations_are_citation_deltas_on_their_text_block() -> None:
    cite = {"type": "url_citation", "url": "https://example.org", "start_index": 0,
            "end_index": 5, "title": "Example"}  # fmt: skip
    annotation = {"type": "response.output_text.annotation.added", "item_id": "msg_1",
                  "output_index": 0, "content_index": 0, "annotation_index": 0,
                  "annotation": cite}  # fmt: skip
    trace = run(created(), item_added(0, message()), part_added(0, 0, output_text()),
                text_delta(0, 0, "Paris"), annotation, text_done(0, 0, "Paris"),
                part_done(0, 0, output_text("Paris", [cite])), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Paris"),
        citation(0, cite),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_annotations_only_listed_in_the_done_part_still_become_citations() -> None:
    cite = {"type": "file_citation", "file_id": "file-1", "index": 5}
    trace = run(created(), item_added(0, message()), part_added(0, 0, output_text()),
                text_delta(0, 0, "Paris"), part_done(0, 0, output_text("Paris", [cite])),
                completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Paris"),
        citation(0, cite),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_a_refusal_part_is_a_refusal_block_and_the_finish_reason_is_refusal() -> None:
    part = {"type": "refusal", "refusal": ""}
    refusal_delta = {"type": "response.refusal.delta", "output_index": 0, "content_index": 0,
                     "delta": "I can't help"}  # fmt: skip
    refusal_done = {"type": "response.refusal.done", "output_index": 0, "content_index": 0,
                    "refusal": "I can't help with that."}  # fmt: skip
    whole = {"type": "refusal", "refusal": "I can't help with that."}
    trace = run(created(), item_added(0, message()), part_added(0, 0, part), refusal_delta,
                {**refusal_delta, "delta": " with that."}, refusal_done, part_done(0, 0, whole),
                item_done(0, message(whole)), completed(message(whole)))  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "refusal", "refusal"),
        delta(0, "refusal", "I can't help"),
        delta(0, "refusal", " with that."),
        stopped(0, "refusal"),
        done("refusal", "completed"),
    ]


# -- tool calls ---------------------------------------------------------------


def test_a_function_call_is_a_tool_call_with_name_call_id_and_fragmented_arguments() -> None:
    call = function_call("call_1", "get_capital", '{"country":"France"}')
    trace = run(created(), *tool_call_run(0, "call_1", "get_capital", '{"', "country", '":"',
                                          "France", '"}'), completed(call))  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "tool_call", "function_call", name="get_capital", call_id="call_1"),
        delta(0, "tool_call", '{"', "json_text"),
        delta(0, "tool_call", "country", "json_text"),
        delta(0, "tool_call", '":"', "json_text"),
        delta(0, "tool_call", "France", "json_text"),
        delta(0, "tool_call", '"}', "json_text"),
        stopped(0, "tool_call"),
        done("tool_calls", "completed"),
    ]


def test_parallel_function_calls_each_get_their_own_block_and_arguments() -> None:
    trace = run(created(), *tool_call_run(0, "call_a", "weather", '{"city":', '"Paris"}'),
                *tool_call_run(1, "call_b", "time", '{"tz":', '"CET"}'), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "tool_call", "function_call", name="weather", call_id="call_a"),
        delta(0, "tool_call", '{"city":', "json_text"),
        delta(0, "tool_call", '"Paris"}', "json_text"),
        stopped(0, "tool_call"),
        opened(1, "tool_call", "function_call", name="time", call_id="call_b"),
        delta(1, "tool_call", '{"tz":', "json_text"),
        delta(1, "tool_call", '"CET"}', "json_text"),
        stopped(1, "tool_call"),
        done("tool_calls", "completed"),
    ]


def test_text_then_a_tool_call_finishes_with_tool_calls() -> None:
    trace = run(created(), *text_message(0, "Let me look."),
                *tool_call_run(1, "call_1", "lookup", "{}"), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Let me look."),
        stopped(0, "text"),
        opened(1, "tool_call", "function_call", name="lookup", call_id="call_1"),
        delta(1, "tool_call", "{}", "json_text"),
        stopped(1, "tool_call"),
        done("tool_calls", "completed"),
    ]


def test_arguments_that_are_not_json_when_the_item_is_done_fail_the_stream() -> None:
    trace = run(created(), *tool_call_run(0, "call_1", "lookup", '{"q": "x'), completed())
    assert events(trace) == [
        START,
        opened(0, "tool_call", "function_call", name="lookup", call_id="call_1"),
        delta(0, "tool_call", '{"q": "x', "json_text"),
        error("failed", "protocol_error", None, False, "arguments are not valid JSON"),
    ]


# -- reasoning ------------------------------------------------------------------


def test_summary_parts_are_reasoning_blocks_and_encrypted_content_is_a_signature() -> None:
    part = {"type": "summary_text", "text": ""}
    summaries = [{"type": "summary_text", "text": "**Plan**"},
                 {"type": "summary_text", "text": "**Check**"}]  # fmt: skip
    trace = run(
        created(),
        item_added(0, reasoning(encrypted_content="gAAA-partial")),
        summary_event("part.added", 0, 0, part=part),
        summary_event("text.delta", 0, 0, delta="**Plan"),
        summary_event("text.delta", 0, 0, delta="**"),
        summary_event("text.done", 0, 0, text="**Plan**"),
        summary_event("part.done", 0, 0, part=summaries[0]),
        summary_event("part.added", 0, 1, part=part),
        summary_event("text.delta", 0, 1, delta="**Check**"),
        summary_event("text.done", 0, 1, text="**Check**"),
        summary_event("part.done", 0, 1, part=summaries[1]),
        item_done(0, reasoning(summaries, encrypted_content="gAAA-final")),
        *text_message(1, "Done."),
        completed(),
    )
    assert events(trace) == [
        START,
        opened(0, "reasoning", "summary_text"),
        delta(0, "reasoning", "**Plan"),
        delta(0, "reasoning", "**"),
        stopped(0, "reasoning"),
        opened(1, "reasoning", "summary_text"),
        delta(1, "reasoning", "**Check**"),
        stopped(1, "reasoning"),
        opened(2, "reasoning", "reasoning"),
        delta(2, "reasoning", "gAAA-final", "signature"),
        stopped(2, "reasoning"),
        opened(3, "text", "output_text"),
        delta(3, "text", "Done."),
        stopped(3, "text"),
        done("stop", "completed"),
    ]


def test_reasoning_text_parts_are_reasoning_blocks() -> None:
    part = {"type": "reasoning_text", "text": ""}
    reasoning_delta = {"type": "response.reasoning_text.delta", "item_id": "rs_1",
                       "output_index": 0, "content_index": 0, "delta": "Think."}  # fmt: skip
    whole = {"type": "reasoning_text", "text": "Think."}
    trace = run(
        created(),
        item_added(0, reasoning(content=[])),
        part_added(0, 0, part),
        reasoning_delta,
        {**reasoning_delta, "type": "response.reasoning_text.done", "text": "Think."},
        part_done(0, 0, whole),
        item_done(0, reasoning(content=[whole])),
        completed(),
    )
    assert events(trace) == [
        START,
        opened(0, "reasoning", "reasoning_text"),
        delta(0, "reasoning", "Think."),
        stopped(0, "reasoning"),
        done("stop", "completed"),
    ]


def test_a_reasoning_item_with_nothing_in_it_opens_no_block() -> None:
    trace = run(created(), item_added(0, reasoning()), item_done(0, reasoning()),
                *text_message(1, "Hi"), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hi"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


# -- items the provider runs, and types nobody told us about ---------------------


def test_a_provider_run_tool_is_opaque_and_carries_its_done_item_as_json() -> None:
    searching = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    finished = {"id": "ws_1", "type": "web_search_call", "status": "completed",
                "action": {"type": "search", "query": "weather Paris"}}  # fmt: skip
    progress = [{"type": f"response.web_search_call.{p}", "output_index": 0, "item_id": "ws_1"}
                for p in ("in_progress", "searching", "completed")]  # fmt: skip
    trace = run(created(), item_added(0, searching), *progress, item_done(0, finished),
                *text_message(1, "Sunny."), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "opaque", "web_search_call"),
        delta(0, "opaque", json_of(finished), "json_text"),
        stopped(0, "opaque"),
        opened(1, "text", "output_text"),
        delta(1, "text", "Sunny."),
        stopped(1, "text"),
        done("stop", "completed"),
    ]
    assert trace.ignored == []


def test_an_mcp_approval_request_is_opaque_not_a_tool_call() -> None:
    request = {"id": "mcpr_1", "type": "mcp_approval_request", "name": "shorten",
               "arguments": '{"url":"https://x.org"}', "server_label": "zip"}  # fmt: skip
    trace = run(created(), item_added(0, request), item_done(0, request), completed(request))
    assert events(trace) == [
        START,
        opened(0, "opaque", "mcp_approval_request"),
        delta(0, "opaque", json_of(request), "json_text"),
        stopped(0, "opaque"),
        done("stop", "completed"),
    ]


def test_an_unknown_item_type_is_kept_as_an_opaque_block_with_a_warning() -> None:
    item = {"id": "x_1", "type": "hologram_call", "status": "completed", "payload": [1, 2]}
    trace = run(created(), item_added(0, item), item_done(0, item), completed())
    assert events(trace) == [
        START,
        opened(0, "opaque", "hologram_call"),
        warning("unknown_block", "'hologram_call' is not modelled"),
        delta(0, "opaque", json_of(item), "json_text"),
        stopped(0, "opaque"),
        done("stop", "completed"),
    ]


def test_an_unknown_part_type_is_kept_as_an_opaque_block_with_a_warning() -> None:
    part = {"type": "output_audio", "data": "UklGR"}
    trace = run(created(), item_added(0, message()), part_added(0, 0, part),
                part_done(0, 0, part), item_done(0, message(part)), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "opaque", "output_audio"),
        warning("unknown_block", "'output_audio' is not modelled"),
        delta(0, "opaque", json_of(part), "json_text"),
        stopped(0, "opaque"),
        done("stop", "completed"),
    ]


def test_an_unknown_event_is_skipped_with_a_warning_and_the_text_goes_on() -> None:
    unknown = {"type": "response.future_feature.delta", "output_index": 0, "delta": "?"}
    frames = text_message(0, "Hel", "lo")
    trace = run(created(), *frames[:3], unknown, *frames[3:], completed())
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hel"),
        warning("unknown_event", "'response.future_feature.delta' skipped"),
        delta(0, "text", "lo"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]
    assert [(i.frame, i.code) for i in trace.ignored] == [(4, "unknown_event")]


def test_keepalive_frames_are_heartbeats_and_change_nothing() -> None:
    frames = tool_call_run(0, "call_1", "lookup", '{"q":', '"x"}')
    trace = run(KEEPALIVE, created(), frames[0], KEEPALIVE, *frames[1:], KEEPALIVE, completed())
    assert events(trace) == [
        START,  # the keepalive before response.created has nothing to attach to yet
        opened(0, "tool_call", "function_call", name="lookup", call_id="call_1"),
        HEARTBEAT,
        delta(0, "tool_call", '{"q":', "json_text"),
        delta(0, "tool_call", '"x"}', "json_text"),
        stopped(0, "tool_call"),
        HEARTBEAT,
        done("tool_calls", "completed"),
    ]


def test_an_unknown_event_before_response_created_is_kept_but_does_not_hide_the_model() -> None:
    trace = run({"type": "x_proxy_hello"}, created(), completed(usage=None))
    assert events(trace) == [START, done("stop", "completed", usage=None)]
    assert [(i.frame, i.code) for i in trace.ignored] == [(0, "unknown_event")]


def test_a_fragment_for_a_part_never_announced_opens_it_with_a_warning() -> None:
    trace = run(created(), item_added(0, message()), text_delta(0, 0, "Hi"),
                item_done(0, message(output_text("Hi"))), completed())  # fmt: skip
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        warning("implicit_block", "never announced"),
        delta(0, "text", "Hi"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_an_item_id_locates_the_part_when_output_index_is_missing() -> None:
    no_index = {k: v for k, v in text_delta(0, 0, "Hi").items() if k != "output_index"}
    frames = text_message(0, "Hi")
    trace = run(created(), *frames[:2], no_index, *frames[3:], completed())
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hi"),
        stopped(0, "text"),
        done("stop", "completed"),
    ]


def test_a_second_output_item_done_is_skipped_with_a_warning() -> None:
    frames = text_message(0, "Hi")
    trace = run(created(), *frames, frames[-1], completed())
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hi"),
        stopped(0, "text"),
        warning("duplicate_event", "a second output_item.done"),
        done("stop", "completed"),
    ]


def test_a_fragment_after_its_part_closed_is_refused_by_the_machine() -> None:
    frames = text_message(0, "Hi")
    trace = run(created(), *frames[:5], text_delta(0, 0, " late"), completed())
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Hi"),
        stopped(0, "text"),
        error("failed", "protocol_error", None, False, "already closed"),
    ]
    assert [v.rule for v in trace.violations] == [2]


def test_the_event_name_is_used_when_the_data_has_no_type() -> None:
    body = sse(created()) + b'event: keepalive\ndata: {"sequence_number": 1}\n\n'
    trace = normalize(body + sse(completed()), "openai-responses", stream_id="st_test")
    assert events(trace) == [START, HEARTBEAT, done("stop", "completed")]


# -- final signals: completed / incomplete / failed / error / interrupted --------


@pytest.mark.parametrize(
    ("reason", "finish_reason"),
    [*INCOMPLETE_REASONS.items(), ("max_messages", "other"), (None, "other")],
)
def test_response_incomplete_is_a_deliberate_end_with_the_reason_mapped(
    reason: str | None, finish_reason: str
) -> None:
    trace = run(created(), *text_message(0, "Once upon"), incomplete(reason))
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Once upon"),
        stopped(0, "text"),
        done(finish_reason, reason or "incomplete"),
    ]


def test_a_final_signal_while_a_part_is_open_is_a_protocol_error_named_by_it() -> None:
    frames = text_message(0, "Once upon")
    trace = run(created(), *frames[:3], completed())
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Once upon"),
        error("failed", "protocol_error", "completed", False, "still open (b_0 text)"),
    ]
    assert [v.rule for v in trace.violations] == [5]


def test_response_incomplete_cutting_a_tool_call_short_is_a_protocol_error() -> None:
    frames = tool_call_run(0, "call_1", "lookup", '{"q": "lo')
    trace = run(created(), *frames[:2], incomplete("max_output_tokens"))
    assert events(trace) == [
        START,
        opened(0, "tool_call", "function_call", name="lookup", call_id="call_1"),
        delta(0, "tool_call", '{"q": "lo', "json_text"),
        error("failed", "protocol_error", "max_output_tokens", False, "b_0 tool_call"),
    ]


@pytest.mark.parametrize(
    ("code", "category", "retryable"),
    [
        ("server_error", "server_error", True),
        ("rate_limit_exceeded", "rate_limited", True),
        ("invalid_prompt", "invalid_request", False),
        ("vector_store_timeout", "server_error", True),
    ],
)
def test_response_failed_after_partial_text_fails_with_the_category_of_its_code(
    code: str, category: str, retryable: bool
) -> None:
    frames = text_message(0, "Partial")
    trace = run(created(), *frames[:3], failed({"code": code, "message": "It broke."}))
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Partial"),
        error("failed", category, code, retryable, "It broke."),
    ]


def test_response_failed_without_an_error_object_still_fails() -> None:
    trace = run(created(), failed(None))
    assert events(trace) == [
        START,
        error("failed", "unknown", "failed", False, "carried no error object"),
    ]


def test_an_error_event_with_code_and_message_on_the_event_fails_the_stream() -> None:
    event = {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down.",
             "param": None}  # fmt: skip
    trace = run(created(), event)
    assert events(trace) == [START, error("failed", "rate_limited", "rate_limit_exceeded",
                                          True, "Slow down.")]  # fmt: skip


def test_error_then_response_failed_ends_at_the_error_and_ignores_the_second() -> None:
    nested = {"type": "error", "error": {"type": "insufficient_quota",
              "code": "insufficient_quota", "message": "Over quota.", "param": None}}  # fmt: skip
    trace = run(created(), IN_PROGRESS, nested,
                failed({"code": "insufficient_quota", "message": "Over quota."}))  # fmt: skip
    assert events(trace) == [
        START,
        error("failed", "quota_exceeded", "insufficient_quota", False, "Over quota."),
    ]
    assert [(i.frame, i.code) for i in trace.ignored] == [(3, "after_terminal")]


def test_bytes_ending_mid_text_are_an_interruption_and_the_draft_is_kept() -> None:
    frames = text_message(0, "Half a")
    cut = sse(text_delta(0, 0, " sentence"))[:40]
    trace = run(created(), *frames[:3], raw=cut, end=TransportEnd("reset", None, "peer reset"))
    assert events(trace) == [
        START,
        opened(0, "text", "output_text"),
        delta(0, "text", "Half a"),
        error("interrupted", "transport", None, True, "still open: b_0 text"),
    ]


def test_a_background_response_cut_short_says_how_to_resume_it() -> None:
    trace = run(created(background=True), IN_PROGRESS)
    assert events(trace) == [
        START,
        error("interrupted", "transport", None, True,
              f"GET /v1/responses/{RESP_ID}?stream=true&starting_after=1"),
    ]  # fmt: skip


def test_done_marker_before_any_final_signal_is_a_protocol_error() -> None:
    trace = run(created(), *text_message(0, "Hi"), raw=b"data: [DONE]\n\n")
    assert events(trace)[-1] == error("failed", "protocol_error", "[DONE]", False, "[DONE]")


def test_done_marker_after_response_completed_is_ignored() -> None:
    trace = run(created(), completed(usage=None), raw=b"data: [DONE]\n\n")
    assert events(trace) == [START, done("stop", "completed", usage=None)]
    assert [i.code for i in trace.ignored] == ["after_terminal"]


def test_a_frame_that_is_not_json_is_a_protocol_error() -> None:
    trace = run(created(), raw=b"event: response.in_progress\ndata: {not json\n\n")
    assert events(trace) == [
        START,
        error("failed", "protocol_error", None, False, "not valid JSON"),
    ]


FINAL_FRAMES: dict[str, dict[str, Any]] = {
    "response.completed": completed(),
    "response.incomplete": incomplete("max_output_tokens"),
    "response.failed": failed({"code": "server_error", "message": "x"}),
    "error": {"type": "error", "code": "server_error", "message": "x"},
}


@pytest.mark.parametrize("event", sorted(FINAL_SIGNALS))
def test_every_final_signal_ends_the_stream_in_the_state_its_table_names(event: str) -> None:
    trace = run(created(), FINAL_FRAMES[event])
    assert trace.state == FINAL_SIGNALS[event]
    assert check_invariants(trace.events) == []


# -- the pure helpers ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "calls", "refusals", "reason"),
    [
        ([], 0, 0, "stop"),
        ([message(output_text("x"))], 0, 0, "stop"),
        ([], 1, 0, "tool_calls"),
        ([function_call("c", "f")], 0, 0, "tool_calls"),
        ([], 0, 1, "refusal"),
        ([message({"type": "refusal", "refusal": "no"})], 0, 0, "refusal"),
        ([function_call("c", "f")], 0, 1, "tool_calls"),
        (None, 0, 0, "stop"),
    ],
)
def test_completed_reason_prefers_tool_calls_then_refusal_then_stop(
    output: Any, calls: int, refusals: int, reason: str
) -> None:
    assert completed_reason(output, calls, refusals) == reason


def test_usage_is_normalized_and_the_raw_object_kept() -> None:
    assert normalize_usage(USAGE) == NORMAL_USAGE
    assert normalize_usage({"input_tokens": 3, "output_tokens": 4}) == {
        "input_tokens": 3,
        "output_tokens": 4,
        "raw": {"input_tokens": 3, "output_tokens": 4},
    }
    assert normalize_usage(None) is None


# -- an output finished by an item of another type ---------------------------


def test_an_output_finished_by_another_items_type_keeps_the_call_and_the_item_apart() -> None:
    # Perplexity's Agent API: a server-run search_web call whose output_item.done is
    # its search_results; the answer follows as a message.
    call = {**function_call("c1", "search_web", '{"q":"ts"}'), "status": "completed"}
    results = {"type": "search_results", "queries": ["ts"], "results": [{"id": 1}]}
    answer = message(output_text("TS is typed JS."))
    trace = run(created(), item_added(0, call), item_done(0, results),
                *text_message(1, "TS is typed JS."), completed(results, answer))  # fmt: skip
    call_start = opened(0, "tool_call", "function_call", name="search_web", call_id="c1")
    assert events(trace) == [
        START,
        call_start,
        delta(0, "tool_call", '{"q":"ts"}', "json_text"),
        warning("done_mismatch", "is a 'search_results' item, but that output began as"),
        stopped(0, "tool_call"),
        opened(1, "opaque", "search_results"),
        delta(1, "opaque", json_of(results), "json_text"),
        stopped(1, "opaque"),
        opened(2, "text", "output_text"),
        delta(2, "text", "TS is typed JS."),
        stopped(2, "text"),
        done("stop", "completed"),
    ]
