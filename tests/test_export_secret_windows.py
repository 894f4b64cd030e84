"""A long ASCII text's presence pass reads it window by window: the same literals as a copy."""

from __future__ import annotations

import random

import pytest

from inspector.redact import shapes as secrets
from inspector.redact.shapes import find_secrets

LITERALS = sorted(lit.decode() for lit in {*secrets._CASED_LONG, *secrets._CASED_SHORT})
WINDOW = secrets._TEXT_WINDOW
KEYS = [
    "sk-proj-" + "Ab3" * 16,
    "AKIA" + "ABCDEFGHIJKLMNOP",
    "AIza" + "B" * 35,
    "ghp_" + "a1" * 18,
    "xoxb-1234567890-abcdefghij",
    "jane.doe@example.com",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
]


def _text(rng: random.Random, size: int, planted: list[str]) -> str:
    filler = [" the", " stream", " arrives", " in", " small", ",", "\n", " 42"]
    out = []
    length = 0
    while length < size:
        word = rng.choice(filler)
        out.append(word)
        length += len(word)
    text = "".join(out)[:size]
    for piece in planted:
        # Across a window border, just before or after one, or anywhere.
        border = WINDOW * rng.randint(1, max(1, size // WINDOW - 1))
        at = rng.choice(
            [border - len(piece) // 2, border - len(piece), border, rng.randrange(size)]
        )
        at = max(0, min(size - len(piece), at))
        text = text[:at] + piece + text[at + len(piece) :]
    return text


@pytest.mark.parametrize("seed", range(12))
def test_the_windowed_presence_pass_finds_what_a_copy_does(seed: int) -> None:
    rng = random.Random(seed)
    size = rng.choice([secrets._LOWER_BLOCK + 1, 5 * WINDOW + 17, 700_000])
    planted = rng.sample(LITERALS, rng.randint(0, 6)) + rng.sample(KEYS, rng.randint(0, 3))
    text = _text(rng, size, planted)
    assert text.isascii() and len(text) > secrets._LOWER_BLOCK
    assert secrets._present_cased(text) == secrets._present_cased(text.encode("ascii"))


@pytest.mark.parametrize("seed", range(6))
def test_a_long_ascii_text_gives_the_same_secrets_as_when_read_whole(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(100 + seed)
    text = _text(rng, 600_000, rng.sample(KEYS, rng.randint(1, 4)))
    windowed = find_secrets(text)
    # The copy-whole path, as every long text took before.
    monkeypatch.setattr(secrets, "_LOWER_BLOCK", len(text) + 1)
    assert windowed == find_secrets(text)
    assert windowed  # something was planted to be found


def test_a_text_of_literals_at_every_border() -> None:
    """A literal cut by every window border, and literals hiding others."""
    unit = "xoxb-AKIAASIAaws_sk-ant-sk-bearer " * 7
    text = (unit * (4 * WINDOW // len(unit) + 3))[: 4 * WINDOW + 5]
    assert secrets._present_cased(text) == secrets._present_cased(text.encode("ascii"))
