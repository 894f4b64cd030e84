"""Properties of an export over random text, random tool arguments and random chunking.

Whatever the text (any script, quotes, backslashes, escapes, emoji) and
wherever the chunks split it (inside a frame, a JSON escape or a UTF-8
character), an export keeps the chunking and the skeleton; ``--text keep``
keeps every text exactly; ``--text mask`` replaces it character for
character; and a key planted anywhere never survives.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.capture import Recording, parse_recording
from inspector.core.trace import TransportEnd
from inspector.export import ExportOptions, prepare_export
from inspector.export.mask import mask_char
from inspector.redact.shapes import find_secrets

PROPERTY = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text from every plane a model writes in, without surrogates (not UTF-8).
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="@"),
    max_size=24,
)
KEY = "sk-ant-api03-" + "R" * 40


def frame(delta: dict[str, Any], ascii_only: bool, finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    chunk = {"id": "chatcmpl-0123456789abcdef", "model": "m", "choices": [choice]}
    return b"data: " + json.dumps(chunk, ensure_ascii=ascii_only).encode() + b"\n\n"


@st.composite
def streams(draw: st.DrawFn) -> tuple[Recording, list[str], dict[str, str]]:
    """A Chat stream of random text deltas and one tool call, cut at random bytes."""
    ascii_only = draw(st.booleans())
    texts = draw(st.lists(TEXT, min_size=1, max_size=6))
    if draw(st.booleans()):  # plant a key somewhere in the text
        at = draw(st.integers(0, len(texts) - 1))
        texts[at] += f" {KEY} "
    arguments = draw(
        st.dictionaries(st.from_regex(r"[a-z]{1,6}", fullmatch=True), TEXT, max_size=3)
    )
    raw_args = json.dumps(arguments, ensure_ascii=ascii_only)
    splits = sorted(draw(st.lists(st.integers(0, len(raw_args)), max_size=4)))
    pieces = [raw_args[a:b] for a, b in zip([0, *splits], [*splits, len(raw_args)], strict=True)]
    body = b"".join(frame({"content": t}, ascii_only) for t in texts)
    call = {"index": 0, "id": "call_0123456789", "function": {"name": "tool", "arguments": ""}}
    body += frame({"tool_calls": [call]}, ascii_only)
    for piece in pieces:
        body += frame({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}, ascii_only)
    body += frame({}, ascii_only, "tool_calls") + b"data: [DONE]\n\n"
    cuts = sorted(set(draw(st.lists(st.integers(1, len(body) - 1), max_size=8))))
    chunks = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    header = {"type": "header", "format": "llm-stream-capture", "version": 1,
              "provider": "openai-chat"}  # fmt: skip
    rec = Recording(
        "random.jsonl",
        "capture",
        header,
        [(i / 8, c) for i, c in enumerate(chunks)],
        TransportEnd("eof", 2.0),
    )
    return rec, texts, arguments


def delta_texts(events: list[dict[str, Any]], kind: str) -> list[str]:
    return [
        e["delta"]["text"]
        for e in events
        if e["type"] == "block.delta" and e["block"]["kind"] == kind
    ]


def exported(rec: Recording, text: str) -> tuple[Any, Recording]:
    prepared = prepare_export(rec, ExportOptions(text=text))
    out = parse_recording(prepared.files[prepared.names["capture"]])
    return prepared, out


@PROPERTY
@given(streams())
def test_chunking_timing_and_skeleton_survive_any_text_and_any_cut(
    stream: tuple[Recording, list[str], dict[str, str]],
) -> None:
    rec = stream[0]
    for text in ("keep", "mask"):
        _, out = exported(rec, text)  # verifies the skeleton, or raises
        assert [(t, len(d)) for t, d in out.chunks] == [(t, len(d)) for t, d in rec.chunks]
        assert out.end == rec.end
        for (_, before), (_, after) in zip(rec.chunks, out.chunks, strict=True):
            # A chunk that split a character still does; a whole one stays whole.
            assert _valid_utf8(before) == _valid_utf8(after)


def _valid_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


@PROPERTY
@given(streams())
def test_keep_mode_keeps_every_text_exactly_unless_it_holds_a_key(
    stream: tuple[Recording, list[str], dict[str, str]],
) -> None:
    rec, texts, arguments = stream
    prepared, _ = exported(rec, "keep")
    events = prepared.exported.events
    joined = "".join(delta_texts(events, "text"))
    if KEY in "".join(texts):
        assert KEY not in joined
        assert prepared.report["removed"] == {"anthropic-key": 1}
    elif not find_secrets("".join(texts)):
        assert joined == "".join(texts)
        assert json.loads("".join(delta_texts(events, "tool_call"))) == arguments


@PROPERTY
@given(streams())
def test_mask_mode_masks_character_for_character_and_keeps_argument_keys(
    stream: tuple[Recording, list[str], dict[str, str]],
) -> None:
    rec, texts, arguments = stream
    prepared, _ = exported(rec, "mask")
    events = prepared.exported.events
    original = delta_texts(prepared.original.events, "text")
    masked = delta_texts(events, "text")
    assert [len(t) for t in masked] == [len(t) for t in original]
    assert [len(t.encode()) for t in masked] == [len(t.encode()) for t in original]
    if not find_secrets("".join(texts)):
        assert masked == ["".join(mask_char(c) for c in t) for t in original]
    result = json.loads("".join(delta_texts(events, "tool_call")))
    assert list(result) == list(arguments)
    for key, value in arguments.items():
        assert result[key] == "".join(mask_char(c) for c in value)
    assert KEY not in json.dumps(list(events))
