"""Texts the rewriter leaves as they are stay bytes and offsets: the same body, ledger, covers."""

from __future__ import annotations

from pathlib import Path

import pytest

from inspector.capture import load_recording
from inspector.export import rewrite
from inspector.export.ledger import Context
from inspector.export.pseudonyms import Pseudonymizer
from inspector.export.rewrite.strings import Fragments, String
from inspector.export.rules import Treatment

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted((ROOT / "tests" / "data" / "export").glob("*-planted.*")) + [
    path
    for path in sorted((ROOT / "captures").rglob("*.jsonl"))
    if not path.name.endswith(".events.jsonl")
]


def _rewrite(
    body: bytes, mask: bool, keep_request: bool, *, untouched: bool
) -> tuple[bytes, object, list[tuple[int, int]]]:
    """The rewrite's steps one by one: the body, the ledger and the covered ranges."""
    ctx = Context(Pseudonymizer(b"k" * 32), mask_text=mask, keep_request=keep_request)
    found = rewrite.collect(body, ctx, whole_json=body.lstrip()[:1] in (b"{", b"["))
    decided = rewrite.decide(found, ctx, untouched=untouched)
    out = bytearray(body)
    rewrite.apply_edits(decided, out)
    covered = rewrite.covered_ranges(decided)
    ranges = sorted(zip(covered.starts, covered.widths, strict=True))
    rewrite.scan_outside_strings(out, covered, ctx)
    return bytes(out), ctx.ledger, ranges


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize(("mask", "keep_request"), [(False, False), (True, False), (False, True)])
def test_untouched_texts_rewrite_as_strings_would(
    path: Path, mask: bool, keep_request: bool
) -> None:
    body = load_recording(path).body
    fast = _rewrite(body, mask, keep_request, untouched=True)
    slow = _rewrite(body, mask, keep_request, untouched=False)  # every text as strings
    assert fast[0] == slow[0]
    assert vars(fast[1]) == vars(slow[1])
    assert fast[2] == slow[2]


def test_a_text_with_escapes_and_non_ascii_reads_as_its_strings() -> None:
    stream = Fragments(Treatment.TEXT)
    for at, raw in enumerate([b"plain", b" caf\xc3\xa9", b" \\u00e9\\n", b" \xff bad", b"\\"]):
        stream.add(raw, at * 100)
    assert stream.plain()
    assert stream.text() == "".join(s.chars for s in stream.strings())
    stream.append(String(b"x", 999, Treatment.TEXT))
    assert not stream.plain()
