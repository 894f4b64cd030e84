"""What the export does to hold less at once must not change what it finds or writes.

Each step that works on a long text a piece at a time (or keeps a digest
rather than the columns) is compared here with doing it whole: the same
result for any text, cut anywhere.
"""

from __future__ import annotations

import re
from array import array
from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

import inspector.export.rewrite.body as rewrite_body_module
from inspector.capture import load_recording
from inspector.export import leaks
from inspector.export.layout import frames_digest
from inspector.export.ledger import Context
from inspector.export.pseudonyms import Pseudonymizer
from inspector.export.rewrite import Covered, Decided, covered_ranges, rewrite_body
from inspector.export.rewrite.outside import _OutsideScan
from inspector.redact import shapes

# The characters line breaks are spelled with, and a few others.
BREAKY = st.text(alphabet="\r\n\\rnab=", max_size=200)


@given(BREAKY, st.integers(min_value=1, max_value=8))
def test_line_breaks_removed_a_window_at_a_time_as_from_the_whole_text(
    text: str, window: int
) -> None:
    whole = re.sub(r"\r\n|\n|\\r\\n|\\n", "", text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(leaks, "_JOIN_WINDOW", window)
        assert leaks._without_line_breaks([text]) == whole


def test_the_text_is_taken_out_of_its_holder() -> None:
    holder = ["a\nb" * 10]
    assert leaks._without_line_breaks(holder) == "ab" * 10
    assert holder == []


def columns(*values: list[int]) -> tuple[array[int], ...]:
    return tuple(array("q", v) for v in values)


@given(st.lists(st.lists(st.integers(0, 2**40), max_size=6), min_size=4, max_size=4))
def test_frame_columns_have_the_same_digest_exactly_when_they_are_equal(
    values: list[list[int]],
) -> None:
    one = columns(*values)
    assert frames_digest(one) == frames_digest(columns(*values))
    # Moving the border between two columns is a change.
    if values[0]:
        moved = [values[0][:-1], [values[0][-1], *values[1]], *values[2:]]
        assert frames_digest(columns(*moved)) != frames_digest(one)
    bumped = [[v + 1 for v in values[0]], *values[1:]]
    if values[0]:
        assert frames_digest(columns(*bumped)) != frames_digest(one)


# -- the outside scan keeps only the covered bytes it cannot know ---------------

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = [
    path
    for path in sorted((ROOT / "captures").rglob("*.jsonl"))
    if not path.name.endswith(".events.jsonl")
]


@st.composite
def body_and_ranges(draw: st.DrawFn) -> tuple[bytearray, Covered]:
    """A body, ranges over it (apart, in any order) and some runs of them with known bytes."""
    body = bytearray(draw(st.binary(min_size=1, max_size=200)))
    cuts = sorted(draw(st.sets(st.integers(0, len(body)), max_size=20)))
    ranges = [(a, b - a) for a, b in zip(cuts[::2], cuts[1::2], strict=False)]
    ranges = draw(st.permutations(ranges))
    starts, widths = array("q"), array("q")
    known: list[tuple[int, int, bytes]] = []
    at = 0
    while at < len(ranges):
        n = draw(st.integers(1, len(ranges) - at))
        run = ranges[at : at + n]
        width = run[0][1]
        if draw(st.booleans()) and all(w == width for _, w in run):
            value = draw(st.binary(min_size=width, max_size=width))
            for start, _ in run:
                body[start : start + width] = value  # an id written again: the same bytes
            known.append((at, at + n, value))
        for start, w in run:
            starts.append(start)
            widths.append(w)
        at += n
    return body, Covered(starts, widths, known)


@given(body_and_ranges())
def test_the_body_read_as_text_is_put_back_as_it_was(drawn: tuple[bytearray, Covered]) -> None:
    body, covered = drawn
    original = bytes(body)
    scan = _OutsideScan(body, covered, Context(Pseudonymizer(b"k" * 32)))
    text, kept = scan._blanked_text()
    blanked = bytearray(original)
    for start, width in zip(covered.starts, covered.widths, strict=True):
        blanked[start : start + width] = bytes(width)
    assert text == blanked.decode("latin-1")
    nuls = scan._put_back(text, kept)
    assert body == original
    assert nuls == {
        at
        for start, width in zip(covered.starts, covered.widths, strict=True)
        for at in range(start, start + width)
        if original[at] == 0
    }


@pytest.mark.parametrize("path", CAPTURES, ids=lambda p: p.name)
def test_known_runs_change_nothing_the_rewrite_writes(path: Path) -> None:
    body = load_recording(path).body

    def rewritten(known: bool) -> tuple[bytes, dict[str, object]]:
        ctx = Context(Pseudonymizer(b"k" * 32), mask_text=True, keep_request=False)
        with pytest.MonkeyPatch.context() as patch:
            if not known:

                def unknown(decided: Decided) -> Covered:
                    covered = covered_ranges(decided)
                    return Covered(covered.starts, covered.widths)

                patch.setattr(rewrite_body_module, "covered_ranges", unknown)
            out = rewrite_body(body, ctx, whole_json=body.lstrip()[:1] in (b"{", b"["))
        return out, vars(ctx.ledger)

    assert rewritten(True) == rewritten(False)


PERCENTY = st.lists(
    st.sampled_from(["%", "%2", "%20", "%C3", "%A9", "%e2%82", "%AC", "%zz", "a", "é", "\udcff"]),
    max_size=40,
).map("".join)


@given(PERCENTY, st.integers(min_value=4, max_value=12))
def test_percent_encoding_undone_a_window_at_a_time_as_in_the_whole_text(
    text: str, window: int
) -> None:
    whole = unquote(text, errors="surrogateescape")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(leaks, "_JOIN_WINDOW", window)
        assert leaks._percent_decoded(text) == whole


# -- the secret search finds a rule's literals a block at a time -----------------

LITERAL_PIECES = st.sampled_from(
    ["passw", "pass", "pwd", "secret", "secr", "key", "ke", "token", "tok", "en", "x", "session"]
)


@given(st.lists(LITERAL_PIECES, max_size=40).map("".join), st.integers(1, 20), st.data())
def test_literal_hits_a_block_at_a_time_are_every_literal_in_order(
    text: str, block: int, data: st.DataObject
) -> None:
    low = text.encode()
    start = data.draw(st.integers(0, len(low)))
    end = data.draw(st.integers(start, len(low)))
    for name in ("password-field", "aws-secret-key", "aws-session-token"):
        literals = shapes._anchor(name)[0]
        every = sorted(
            (index, at - start, at - start + len(literal))
            for index, literal in enumerate(literals.literals)
            for at in range(start, end - len(literal) + 1)
            if low.startswith(literal, at)
        )
        whole = sorted(literals.hits(memoryview(low)[start:end]), key=lambda hit: hit[1])
        assert sorted(whole) == every
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(shapes, "_BLOCK", block)
            assert list(literals.block_hits(low, start, end)) == whole
