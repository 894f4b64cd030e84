"""Unread-field accounting (contract v1.1): nothing a provider sends is dropped silently.

The checker is tested on its own (paths, empties, once per path), then every
adapter over every bundled capture, real fixture and cassette: a real stream
warns only where it really carries a field no adapter maps, and those fields
are exactly the ones the provider docs list (``docs/providers/*.md``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from inspector.core.actions import Action, Ignore
from inspector.core.adapters.fields import IGNORED, READ, FieldAccount, unread_paths
from inspector.core.normalizer import normalize
from inspector.session import load_trace

from .conftest import ROOT

SHAPE = {"id": IGNORED, "model": READ, "choices": {"index": READ, "delta": {"content": READ}}}

#: Every field a bundled capture or real recording carries that no adapter maps,
#: with the streams that carry it. docs/providers/<provider>.md lists the same.
KNOWN_UNREAD: dict[tuple[str, str], set[str]] = {
    ("anthropic", "context_management"): {
        "clear-thinking.sse", "compaction-block.sse", "compaction.jsonl"},
    ("anthropic", "delta.container"): {
        "code-execution-bash.sse", "code-execution-prompt-cache.sse",
        "text-editor-code-execution.sse",
    },
    ("anthropic", "delta.stop_details"): {"refusal.jsonl"},
    ("gemini", "candidates[].sparkleScore"): {"unknown-part-and-field.jsonl"},  # written so
    ("openai-chat", "choices[].delta.index"): {"glm-incremental-tool-call.sse"},
    ("openai-chat", "choices[].delta.x_trace"): {"unknown-event.jsonl"},  # written so
    ("openai-chat", "sla_metrics"): {"huggingface-tgi-token-id.sse"},
    ("openai-responses", "response.moderation"): {
        "openai-responses-reasoning-text.pydantic-ai.yaml"},
    ("openai-responses", "response.tool_usage"): {
        "openai-responses-reasoning-text.pydantic-ai.yaml", "responses-phase-text-then-tool.sse",
        "text-then-tool.jsonl",
    },
}  # fmt: skip

STREAM_DIRS = ("captures", "tests/fixtures/real", "tests/fixtures/cassettes")
SUFFIXES = (".sse", ".jsonl", ".yaml", ".json")


def stream_files() -> list[Path]:
    files = []
    for folder in STREAM_DIRS:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES and not path.name.endswith(".events.jsonl"):
                files.append(path)
    return files


# -- the checker ---------------------------------------------------------------------


def test_paths_collapse_array_indexes_and_skip_read_and_ignored_fields() -> None:
    data = {
        "id": "x",
        "model": {"anything": 1},
        "choices": [{"index": 0, "delta": {"content": "a", "audio": {"id": "1"}}, "extra": 2}],
        "top": True,
    }
    assert sorted(unread_paths(SHAPE, data)) == ["choices[].delta.audio", "choices[].extra", "top"]


def test_empty_values_are_not_unread_but_zero_and_false_are() -> None:
    data = {"a": None, "b": "", "c": [], "d": {}, "e": 0, "f": False}
    assert sorted(unread_paths({}, data)) == ["e", "f"]


def test_each_path_warns_once_per_stream() -> None:
    account = FieldAccount({"chunk": SHAPE})
    out: list[Action] = []
    for frame in range(3):
        account.check("chunk", {"x": 1, "choices": [{"y": 1}, {"y": 2}]}, frame, out)
    assert [(a.code, a.path) for a in out if isinstance(a, Ignore)] == [
        ("unread_field", "x"),
        ("unread_field", "choices[].y"),
    ]
    assert "choices[].y" in out[1].reason  # the message names the path (Events pane, detail)


@given(
    key=st.from_regex(r"\A[a-z][a-z_]{0,11}\Z"),
    value=st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(min_size=1), st.booleans()),
    where=st.sampled_from(["top", "choice", "delta"]),
)
def test_any_unknown_chat_field_anywhere_warns_with_its_path(
    key: str, value: Any, where: str
) -> None:
    chunk: dict[str, Any] = {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": "a"}}],
    }
    target = {"top": chunk, "choice": chunk["choices"][0], "delta": chunk["choices"][0]["delta"]}[
        where
    ]
    if key in target or key in ("error", "object", "citations", "search_results", "usage"):
        return  # a field the adapter reads (or the chunk's own)
    target[key] = value
    body = b"data: " + orjson.dumps(chunk) + b"\n\ndata: " + orjson.dumps(chunk) + b"\n\n"
    trace = normalize(body + b"data: [DONE]\n\n", "openai-chat", "st_h")
    paths = [e.get("path") for e in trace.events if e.get("code") == "unread_field"]
    prefix = {"top": "", "choice": "choices[].", "delta": "choices[].delta."}[where]
    # One warning (or none, when a dialect row reads or ignores the field by name).
    assert paths in ([f"{prefix}{key}"], []), paths
    texts = "".join(e["delta"]["text"] for e in trace.events if e["type"] == "block.delta")
    assert texts == "aa"  # the text is never the price


# -- every adapter over every stream we have -------------------------------------------


def test_real_and_bundled_streams_warn_only_where_they_carry_an_unmapped_field() -> None:
    found: dict[tuple[str, str], set[str]] = {}
    for path in stream_files():
        trace = load_trace(path)
        for event in trace.events:
            if event.get("code") == "unread_field":
                found.setdefault((trace.provider, event["path"]), set()).add(path.name)
    assert found == KNOWN_UNREAD


#: Paths carried only by captures written to show the warning (not real streams).
WRITTEN_TO_WARN = {
    ("gemini", "candidates[].sparkleScore"),
    ("openai-chat", "choices[].delta.x_trace"),
}


def test_the_provider_docs_list_every_unread_field_of_a_real_stream() -> None:
    for provider, path in set(KNOWN_UNREAD) - WRITTEN_TO_WARN:
        doc = (ROOT / "docs" / "providers" / f"{provider}.md").read_text()
        assert f"`{path}`" in doc, (provider, path)
