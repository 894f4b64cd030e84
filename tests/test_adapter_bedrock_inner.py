"""Bedrock invoke for Llama, Titan, Nova, Cohere and Mistral: each model's own events, unwrapped.

Whole normalized sequences per family, from the fields the Bedrock user guide
documents; the Titan guardrail rows are real recordings (captures/bedrock-invoke).
"""

from __future__ import annotations

import base64
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector.core.adapters import detect_provider
from inspector.core.adapters.bedrock_invoke import inner_for_model, inner_of_event
from inspector.core.framing import decoder_for

from .framing_support import compact, invoke_chunk, run

METRICS = {"amazon-bedrock-invocationMetrics": {"inputTokenCount": 11, "outputTokenCount": 4}}


def body(events: list[dict[str, Any]]) -> list[bytes]:
    return [invoke_chunk(e) for e in events]


LLAMA = [
    {"generation": "Hi", "prompt_token_count": 11, "generation_token_count": 1,
     "stop_reason": None},
    {"generation": " there", "prompt_token_count": None, "generation_token_count": 2,
     "stop_reason": None},
    {"generation": "", "prompt_token_count": None, "generation_token_count": 3,
     "stop_reason": "stop", **METRICS},
]  # fmt: skip
TITAN = [
    {"outputText": "Hi", "index": 0, "inputTextTokenCount": 5},
    {"outputText": " there", "index": 0, "totalOutputTextTokenCount": 2,
     "completionReason": "FINISH", **METRICS},
]  # fmt: skip
COHERE = [
    {"text": "Hi", "is_finished": False},
    {"text": " there", "is_finished": False},
    {"is_finished": True, "finish_reason": "COMPLETE", "response": {"id": "x"}, **METRICS},
]
MISTRAL = [
    {"outputs": [{"text": "Hi", "stop_reason": None}]},
    {"outputs": [{"text": " there", "stop_reason": "stop"}], **METRICS},
]
NOVA = [
    {"messageStart": {"role": "assistant"}},
    {"contentBlockDelta": {"delta": {"text": "Hi"}, "contentBlockIndex": 0}},
    {"contentBlockDelta": {"delta": {"text": " there"}, "contentBlockIndex": 0}},
    {"contentBlockStop": {"contentBlockIndex": 0}},
    {"messageStop": {"stopReason": "end_turn"}},
    {"metadata": {"usage": {"inputTokens": 7, "outputTokens": 2}, "metrics": {}}, **METRICS},
]
FAMILIES = [
    ("bedrock-llama", LLAMA, "stop", "stop", (11, 3)),
    ("bedrock-titan", TITAN, "stop", "FINISH", (5, 2)),
    ("bedrock-cohere", COHERE, "stop", "COMPLETE", (11, 4)),
    ("bedrock-mistral", MISTRAL, "stop", "stop", (11, 4)),
    ("bedrock-nova", NOVA, "stop", "end_turn", (7, 2)),
]


@pytest.mark.parametrize(("provider", "events", "finish", "raw", "tokens"), FAMILIES)
def test_each_family_streams_one_text_block_and_ends_at_its_final_signal(
    provider: str, events: list[dict[str, Any]], finish: str, raw: str, tokens: tuple[int, int]
) -> None:
    text_type = "text"
    assert compact(run(body(events), provider, "aws-eventstream")) == [
        ("stream.start", provider, "aws-eventstream", None),
        ("block.start", 0, "text", text_type),
        ("block.delta", 0, "text", "Hi"),
        ("block.delta", 0, "text", " there"),
        ("block.stop", 0),
        ("stream.done", finish, raw, tokens),
    ]


@pytest.mark.parametrize(("provider", "events", "finish", "raw", "tokens"), FAMILIES)
def test_each_familys_frames_alone_name_it(
    provider: str, events: list[dict[str, Any]], finish: str, raw: str, tokens: tuple[int, int]
) -> None:
    frames = decoder_for("aws-eventstream").feed(b"".join(body(events)))
    assert detect_provider(frames) == provider
    assert {inner_of_event(e) for e in events} <= {provider, None}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FAMILIES), st.data())
def test_a_cut_before_the_final_signal_is_interrupted_never_completed(
    family: tuple[str, list[dict[str, Any]], str, str, tuple[int, int]], data: st.DataObject
) -> None:
    provider, events = family[0], family[1]
    whole = b"".join(body(events))
    last = len(whole) - len(invoke_chunk(events[-1]))
    cut = data.draw(st.integers(0, last + len(invoke_chunk(events[-1])) - 1))
    trace = run([whole[:cut]], provider, "aws-eventstream")
    end = trace.events[-1]
    assert end["type"] == "stream.error"
    assert (end["status"], end["error"]["category"]) == ("interrupted", "transport")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FAMILIES), st.lists(st.integers(1, 400), max_size=12))
def test_any_chunking_gives_the_same_events(
    family: tuple[str, list[dict[str, Any]], str, str, tuple[int, int]], sizes: list[int]
) -> None:
    provider, events = family[0], family[1]
    whole = b"".join(body(events))
    pieces, at = [], 0
    for size in sizes:
        pieces.append(whole[at : at + size])
        at += size
    pieces.append(whole[at:])
    expected = compact(run([whole], provider, "aws-eventstream"))
    assert compact(run(pieces, provider, "aws-eventstream")) == expected


@pytest.mark.parametrize(
    ("reason", "finish"),
    [("LENGTH", "length"), ("STOP_CRITERIA_MET", "stop"), ("CONTENT_FILTERED", "content_filter"),
     ("SOMETHING_NEW", "other")],
)  # fmt: skip
def test_titan_completion_reasons_map_through_their_table(reason: str, finish: str) -> None:
    events = [TITAN[0], {**TITAN[1], "completionReason": reason}]
    assert compact(run(body(events), "bedrock-titan", "aws-eventstream"))[-1][1:3] == (
        finish,
        reason,
    )


def test_cohere_error_reasons_fail_with_their_category() -> None:
    for reason, category in (("ERROR_TOXIC", "content_filter"), ("ERROR", "server_error")):
        events = [COHERE[0], {"is_finished": True, "finish_reason": reason}]
        assert compact(run(body(events), "bedrock-cohere", "aws-eventstream"))[-1] == (
            "stream.error",
            "failed",
            category,
            reason,
        )


def test_command_r_reads_only_text_generation_events() -> None:
    events = [
        {"is_finished": False, "event_type": "stream-start", "generation_id": "g"},
        {"is_finished": False, "event_type": "text-generation", "text": "Hi"},
        {"is_finished": True, "event_type": "stream-end", "finish_reason": "MAX_TOKENS",
         "response": {"text": "Hi"}},
    ]  # fmt: skip
    assert compact(run(body(events), "bedrock-cohere", "aws-eventstream")) == [
        ("stream.start", "bedrock-cohere", "aws-eventstream", None),
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Hi"),
        ("block.stop", 0),
        ("stream.done", "length", "MAX_TOKENS", (None, None)),
    ]


GUARDRAIL_TEXT = {
    "bedrock-titan": {"outputText": "Sorry, I can't answer that.", "index": 0},
    "bedrock-llama": {"generation": "Sorry, I can't answer that.", "stop_reason": None},
    "bedrock-mistral": {"outputs": [{"text": "Sorry, I can't answer that.", "stop_reason": None}]},
    "bedrock-cohere": {"text": "Sorry, I can't answer that.", "is_finished": False},
}


@pytest.mark.parametrize("provider", sorted(GUARDRAIL_TEXT))
def test_a_guardrail_that_blocked_the_input_is_a_refused_request(provider: str) -> None:
    blocked = {
        **GUARDRAIL_TEXT[provider],
        "amazon-bedrock-guardrailAction": "INTERVENED",
        "amazon-bedrock-trace": {
            "guardrail": {
                "input": {"g1": {"topicPolicy": {"topics": [{"action": "BLOCKED"}]}}},
                "actionReason": "Guardrail blocked.",
            }
        },
    }
    assert compact(run(body([blocked]), provider, "aws-eventstream")) == [
        ("stream.start", provider, "aws-eventstream", None),
        ("stream.error", "failed", "content_filter", "guardrail_intervened"),
    ]


def test_an_unknown_field_of_a_models_event_is_reported_once() -> None:
    events = [{**TITAN[0], "newThing": 1}, {**TITAN[1], "newThing": 2}]
    warnings = [
        e for e in run(body(events), "bedrock-titan", "aws-eventstream").events
        if e["type"] == "stream.warning"
    ]  # fmt: skip
    assert [(w["code"], w["path"]) for w in warnings] == [("unread_field", "newThing")]


def test_nova_tool_use_follows_converse_and_the_content_rule() -> None:
    events = [
        NOVA[0],
        {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "t1", "name": "f"}},
                               "contentBlockIndex": 0}},
        {"contentBlockDelta": {"delta": {"toolUse": {"input": "{}"}}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "tool_use"}},
        NOVA[-1],
    ]  # fmt: skip
    assert compact(run(body(events), "bedrock-nova", "aws-eventstream")) == [
        ("stream.start", "bedrock-nova", "aws-eventstream", None),
        ("block.start", 0, "tool_call", "toolUse", "f", "t1"),
        ("block.delta", 0, "json_text", "{}"),
        ("block.stop", 0),
        ("stream.done", "tool_calls", "tool_use", (7, 2)),
    ]


@pytest.mark.parametrize(
    ("model", "provider"),
    [
        ("anthropic.claude-3-haiku-20240307-v1:0", "anthropic"),
        ("us.anthropic.claude-sonnet-4-20250514-v1:0", "anthropic"),
        ("meta.llama3-70b-instruct-v1%3A0", "bedrock-llama"),
        ("eu.meta.llama3-2-3b-instruct-v1:0", "bedrock-llama"),
        ("amazon.titan-text-premier-v1:0", "bedrock-titan"),
        ("arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0",
         "bedrock-nova"),
        ("cohere.command-r-plus-v1:0", "bedrock-cohere"),
        ("mistral.mixtral-8x7b-instruct-v0:1", "bedrock-mistral"),
        ("amazon.titan-embed-text-v2:0", None),
        ("ai21.jamba-1-5-large-v1:0", None),
        ("", None),
    ],
)  # fmt: skip
def test_the_model_id_names_the_inner_model_or_says_it_cannot_tell(
    model: str, provider: str | None
) -> None:
    assert inner_for_model(model) == provider


def test_an_inner_event_no_row_names_is_cannot_tell() -> None:
    frames = decoder_for("aws-eventstream").feed(invoke_chunk({"someField": "text"}))
    assert detect_provider(frames) is None


def test_command_nests_each_piece_in_generations_as_aws_example_reads_it() -> None:
    events = [
        {"generations": [{"text": "Hi", "is_finished": False, "index": 0}]},
        {"generations": [{"text": "", "is_finished": True, "finish_reason": "MAX_TOKENS"}],
         **METRICS},
    ]  # fmt: skip
    frames = decoder_for("aws-eventstream").feed(b"".join(body(events)))
    assert detect_provider(frames) == "bedrock-cohere"
    assert compact(run(body(events), "bedrock-cohere", "aws-eventstream")) == [
        ("stream.start", "bedrock-cohere", "aws-eventstream", None),
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Hi"),
        ("block.stop", 0),
        ("stream.done", "length", "MAX_TOKENS", (11, 4)),
    ]


def test_a_choice_other_than_0_is_skipped_with_one_warning_never_silently() -> None:
    events = [
        {"generations": [{"text": "Hi", "is_finished": False, "index": 0}]},
        {"generations": [{"text": "Yo", "is_finished": False, "index": 1}]},
        {"generations": [{"text": "!", "is_finished": False, "index": 1}]},
        {"generations": [{"text": "", "is_finished": True, "finish_reason": "COMPLETE",
                          "index": 0}]},
    ]  # fmt: skip
    assert compact(run(body(events), "bedrock-cohere", "aws-eventstream")) == [
        ("stream.start", "bedrock-cohere", "aws-eventstream", None),
        ("block.start", 0, "text", "text"),
        ("block.delta", 0, "text", "Hi"),
        ("stream.warning", "several_choices"),
        ("block.stop", 0),
        ("stream.done", "stop", "COMPLETE", (None, None)),
    ]
    pair = [{"text": "Hi", "stop_reason": "stop"}, {"text": "Yo", "stop_reason": None}]
    two = [{"outputs": pair}]
    assert ("stream.warning", "several_choices") in compact(
        run(body(two), "bedrock-mistral", "aws-eventstream")
    )


def test_the_real_nova_recording_reads_by_its_frames_alone() -> None:
    from pathlib import Path

    data = Path(__file__).parent / "data" / "cassette_bodies"
    whole = base64.b64decode(
        "".join((data / "openllmetry-nova-invoke-stream-guardrail.b64").read_text().split())
    )
    frames = decoder_for("aws-eventstream").feed(whole)
    assert len(frames) == 115
    assert detect_provider(frames) == "bedrock-nova"
    trace = run([whole], "bedrock-nova", "aws-eventstream")
    done = trace.events[-1]
    assert (done["type"], done["finish_reason"], done["provider_finish_reason"]) == (
        "stream.done",
        "stop",
        "end_turn",
    )
    assert (done["usage"]["input_tokens"], done["usage"]["output_tokens"]) == (30, 55)
    # Nova's invoke names for cached tokens, read as Converse's.
    assert done["usage"]["cached_input_tokens"] == 0
    texts = "".join(e["delta"]["text"] for e in trace.events if e["type"] == "block.delta")
    assert texts.startswith("On their first night in the wilderness")
    assert "{Account Number}" in texts  # the guardrail anonymized the planted number
    assert not [e for e in trace.events if e["type"] == "stream.warning"]
