"""A run of documents filed a block at a time rewrites exactly as filing them one by one does."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from inspector.capture import load_recording
from inspector.export import rewrite
from inspector.export.ledger import Context
from inspector.export.pseudonyms import Pseudonymizer

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "tests" / "data" / "export").glob("*-planted.*")) + [
    path
    for path in sorted((ROOT / "captures").rglob("*.jsonl"))
    if not path.name.endswith(".events.jsonl")
]
KEY = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0" * 3


def _doc(text: str, *, ident: str = "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT", **extra: Any) -> str:
    delta = {"content": text}
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": None}
    return json.dumps(
        {"id": ident, "object": "chat.completion.chunk", "model": "gpt-4o", "choices": [choice]}
        | extra,
        separators=(",", ":"),
        ensure_ascii=False,
    )


def _body(texts: list[str], *, lead: str = "data: ", eol: str = "\n", **extra: Any) -> bytes:
    events = [lead.replace("\n", eol) + _doc(t, **extra) + eol + eol for t in texts]
    return "".join(events).encode("utf-8", "surrogatepass")


WORDS = [f" word{i}" for i in range(60)]
BODIES = {
    "plain": _body(WORDS),
    "crlf": _body(WORDS, eol="\r\n"),
    "event-lines": _body(WORDS, lead="event: chunk\ndata: "),
    "no-space": _body(WORDS, lead="data:"),
    "two-spaces": _body(WORDS, lead="data:  "),
    "non-ascii": _body([*WORDS[:30], " café", " Привет", " 日本", *WORDS[30:]]),
    "secret": _body([*WORDS[:40], " key " + KEY[:20], KEY[20:], " done", *WORDS[40:]]),
    "email": _body([*WORDS[:40], " mail bob@example.com now", *WORDS[40:]]),
    "fingerprint": _body(WORDS, system_fingerprint="fp_abc123"),
    "escape-mid": _body([*WORDS[:30], 'a "quoted" word\n', *WORDS[30:]]),
    "empty-texts": _body(["", *WORDS, "", ""]),
    "done": _body(WORDS) + b"data: [DONE]\n\n",
    "cut-short": _body(WORDS)[:-7],
    "no-final-blank": _body(WORDS)[:-1],
    "extra-blank": _body(WORDS[:20]) + b"\n" + _body(WORDS[20:]),
    "id-changes": _body(WORDS[:30])
    + _body(WORDS[30:], ident="chatcmpl-Other1234567890abcdefghijk"),
    "comment-between": _body(WORDS[:30]) + b": ping\n\n" + _body(WORDS[30:]),
    "many-runs": b"".join(_body(WORDS[:20], ident=f"chatcmpl-{i:030d}") for i in range(40)),
}
# A text that is not UTF-8 in the middle of a run, and a long one.
BODIES["bad-utf8"] = BODIES["plain"].replace(b" word33", b" wo\xff\xfe33", 1)
BODIES["split-utf8"] = (
    BODIES["plain"].replace(b" word33", b" wo\xc3", 1).replace(b" word34", b"\xa9rd34", 1)
)
BODIES["long-text"] = _body([*WORDS[:20], "x" * 100_000, *WORDS[20:]])


def _rewrite(
    body: bytes, mask: bool, *, block: bool
) -> tuple[bytes, Any, list[tuple[int, int]], int]:
    """The rewrite's steps one by one: the body, ledger, covered ranges and blocks filed."""
    ctx = Context(Pseudonymizer(b"k" * 32), mask_text=mask)
    whole_json = body.lstrip()[:1] in (b"{", b"[")
    shortcuts = rewrite.Shortcuts(blocks=block)
    found = rewrite.collect(body, ctx, whole_json=whole_json, shortcuts=shortcuts)
    blocks = found.blocks
    decided = rewrite.decide(found, ctx)
    out = bytearray(body)
    rewrite.apply_edits(decided, out)
    covered = rewrite.covered_ranges(decided)
    ranges = sorted(zip(covered.starts, covered.widths, strict=True))
    rewrite.scan_outside_strings(out, covered, ctx)
    whole = Context(Pseudonymizer(b"k" * 32), mask_text=mask)
    rewritten = rewrite.rewrite_body(body, whole, whole_json=whole_json, shortcuts=shortcuts)
    assert rewritten == out, "rewrite_body runs the same steps"
    return bytes(out), ctx.ledger, ranges, blocks


def _same(body: bytes, mask: bool) -> int:
    """Rewrite ``body`` both ways and compare; how many blocks the fast way filed."""
    fast = _rewrite(body, mask, block=True)
    slow = _rewrite(body, mask, block=False)
    assert fast[0] == slow[0]
    assert vars(fast[1]) == vars(slow[1])
    assert fast[2] == slow[2]
    assert slow[3] == 0
    return fast[3]


@pytest.mark.parametrize("name", sorted(BODIES))
@pytest.mark.parametrize("mask", [False, True])
def test_a_run_filed_in_blocks_rewrites_as_one_by_one(name: str, mask: bool) -> None:
    assert _same(BODIES[name], mask) > 0, "the fast path was not taken"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_real_streams_rewrite_the_same_with_blocks(path: Path) -> None:
    body = load_recording(path).body
    _same(body, False)
    _same(body, True)


def test_a_block_stops_where_one_by_one_filing_would_refuse() -> None:
    body = BODIES["bad-utf8"]
    found = rewrite.collect(body, Context(Pseudonymizer(b"k" * 32)))
    # Every text went in at its own offset, the bad one too (read by the lexer).
    filed = [
        (raw if isinstance(raw, bytes) else raw.raw)
        for stream in found.fragments.values()
        for raw in stream.items
    ]
    assert len(filed) == len(WORDS)
    assert b" wo\xff\xfe33" in filed
    for stream in found.fragments.values():
        for raw, base in zip(stream.items, stream.bases, strict=True):
            if isinstance(raw, bytes):
                assert body[base : base + len(raw)] == raw
