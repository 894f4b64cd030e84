"""Texts the rewriter leaves as they are stay bytes and offsets: the same body, ledger, covers."""

from __future__ import annotations

from pathlib import Path

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


def _rewrite(body: bytes, mask: bool, keep_request: bool) -> tuple[bytes, object, list[tuple]]:
    ctx = Context(Pseudonymizer(b"k" * 32), mask_text=mask, keep_request=keep_request)
    covered: list[tuple] = []
    real = rewrite._BodyRewriter.note_covered

    def note(self: rewrite._BodyRewriter) -> None:
        real(self)
        covered.extend(sorted(zip(self.covered_starts, self.covered_widths, strict=True)))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rewrite._BodyRewriter, "note_covered", note)
        out = rewrite.rewrite_body(body, ctx, whole_json=body.lstrip()[:1] in (b"{", b"["))
    return out, ctx.ledger, covered


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
@pytest.mark.parametrize(("mask", "keep_request"), [(False, False), (True, False), (False, True)])
def test_untouched_texts_rewrite_as_strings_would(
    path: Path, mask: bool, keep_request: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = load_recording(path).body
    fast = _rewrite(body, mask, keep_request)
    monkeypatch.setattr(rewrite._Fragments, "plain", lambda self: False)  # every text as strings
    slow = _rewrite(body, mask, keep_request)
    assert fast[0] == slow[0]
    assert vars(fast[1]) == vars(slow[1])
    assert fast[2] == slow[2]


def test_a_text_with_escapes_and_non_ascii_reads_as_its_strings() -> None:
    stream = rewrite._Fragments(rewrite.Treatment.TEXT)
    for at, raw in enumerate([b"plain", b" caf\xc3\xa9", b" \\u00e9\\n", b" \xff bad", b"\\"]):
        stream.add(raw, at * 100)
    assert stream.plain()
    assert stream.text() == "".join(s.chars for s in stream.strings())
    stream.append(rewrite._String(b"x", 999, rewrite.Treatment.TEXT))
    assert not stream.plain()
