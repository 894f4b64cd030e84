"""Boundary: what a provider (or anything at ``--base-url``) sends back to live mode.

A server may echo the API key — in an error body, a response header, SSE
data or comments, in any encoding. Nothing ``live``/``record`` writes or
prints may contain it: the capture, stdout/stderr, and the trace the TUI
shows are built from scrubbed bytes.
"""

from __future__ import annotations

import base64
import json
import random
from urllib.parse import quote, quote_plus

import pytest

from inspector.live.scrub import MIN_SECRET, SecretScrubber

KEY = "sk-live-Q9x/+Zr7Wm2Kp4Vt8Ns6Yb3Hc1Jd5"
PLACEHOLDER = b"[redacted]"


def _hex_lower(text: str) -> str:
    """Percent-encoding with lower-case hex digits (what some encoders emit)."""
    encoded = quote(text, safe="")
    out, i = [], 0
    while i < len(encoded):
        if encoded[i] == "%":
            out.append(encoded[i : i + 3].lower())
            i += 3
        else:
            out.append(encoded[i])
            i += 1
    return "".join(out)


def _json_escaped_everywhere(text: str, upper: bool = False) -> str:
    return "".join(f"\\u{ord(c):04X}" if upper else f"\\u{ord(c):04x}" for c in text)


def _json_escaped_some(text: str) -> str:
    # An encoder may escape any character: every other one here.
    return "".join(f"\\u{ord(c):04x}" if i % 2 else c for i, c in enumerate(text))


def _base64_variants(secret: str) -> list[str]:
    found = []
    for prefix in (b"", b"u", b"us"):  # the three alignments inside a longer text
        raw = prefix + secret.encode() + b":x"
        found += [base64.b64encode(raw).decode(), base64.urlsafe_b64encode(raw).decode()]
    return found


def encodings(secret: str) -> dict[str, str]:
    """Every spelling of ``secret`` a server might echo."""
    forms = {
        "raw": secret,
        "url": quote(secret, safe=""),
        "url-lower-hex": _hex_lower(secret),
        "url-plus": quote_plus(secret),
        "json": json.dumps(secret)[1:-1],
        "json-slash": json.dumps(secret)[1:-1].replace("/", "\\/"),
        "json-u": _json_escaped_everywhere(secret),
        "json-U": _json_escaped_everywhere(secret, upper=True),
        "json-some": _json_escaped_some(secret),
    }
    for i, form in enumerate(_base64_variants(secret)):
        forms[f"base64-{i}"] = form
    return forms


def _leaks(data: bytes, secret: str = KEY) -> list[str]:
    """The spellings of ``secret`` (or of its distinctive middle) still in ``data``."""
    text = data.decode("utf-8", "replace")
    return [name for name, form in encodings(secret).items() if form in text]


# -- the scrubber ---------------------------------------------------------------


@pytest.mark.parametrize(("name", "form"), sorted(encodings(KEY).items()))
def test_every_spelling_of_the_key_is_replaced(name: str, form: str) -> None:
    scrubber = SecretScrubber([KEY])
    data = f'data: {{"echo": "before {form} after"}}\n\n'.encode()
    out = scrubber.scrub(data)
    assert PLACEHOLDER in out
    assert _leaks(out) == []
    assert out.startswith(b'data: {"echo": "before ')


def test_a_key_with_a_space_in_form_encoding_is_replaced() -> None:
    secret = "pass word with spaces 123"
    scrubber = SecretScrubber([secret])
    assert scrubber.scrub(b"q=" + quote_plus(secret).encode() + b"&x=1") == b"q=[redacted]&x=1"


def test_text_without_the_key_passes_unchanged() -> None:
    scrubber = SecretScrubber([KEY])
    data = b'data: {"choices":[{"delta":{"content":"sk-live- is a prefix, not the key"}}]}\n\n'
    assert scrubber.scrub(data) == data
    assert scrubber.feed(data) + scrubber.flush() == data


def test_short_secrets_are_refused_not_scrubbed() -> None:
    scrubber = SecretScrubber(["abc", "x" * (MIN_SECRET - 1), KEY])
    assert scrubber.refused == ("abc", "x" * (MIN_SECRET - 1))
    assert scrubber.secrets == (KEY,)
    assert scrubber.scrub(b"abc xxxxxxx") == b"abc xxxxxxx"


def test_a_longer_secret_containing_another_is_replaced_whole() -> None:
    scrubber = SecretScrubber([KEY, "Bearer " + KEY])
    assert scrubber.scrub(b"auth: Bearer " + KEY.encode()) == b"auth: [redacted]"


def test_scrub_text_keeps_other_text() -> None:
    scrubber = SecretScrubber([KEY])
    assert scrubber.scrub_text(f"échec: {KEY} ✓") == "échec: [redacted] ✓"


@pytest.mark.parametrize("name", sorted(encodings(KEY)))
def test_a_key_split_across_chunks_is_still_caught(name: str) -> None:
    form = encodings(KEY)[name]
    stream = (f'data: {{"text": "{form}"}}\n\n' * 3 + f": comment {form}\n\n").encode()
    shuffle = random.Random(name)
    for _ in range(150):
        cuts = sorted(shuffle.sample(range(1, len(stream)), 3))
        pieces = [stream[a:b] for a, b in zip([0, *cuts], [*cuts, len(stream)], strict=True)]
        scrubber = SecretScrubber([KEY])
        out = b"".join(scrubber.feed(p) for p in pieces) + scrubber.flush()
        assert out == SecretScrubber([KEY]).scrub(stream)
        assert _leaks(out) == []


def test_split_at_every_byte_is_still_caught() -> None:
    stream = b"data: " + KEY.encode() + b"\n\n"
    scrubber = SecretScrubber([KEY])
    out = b"".join(scrubber.feed(stream[i : i + 1]) for i in range(len(stream)))
    assert out + scrubber.flush() == b"data: [redacted]\n\n"


def test_the_stream_is_held_back_at_most_the_longest_form() -> None:
    scrubber = SecretScrubber([KEY])
    letters = b"a" * 10_000  # every byte could belong to a match
    released = scrubber.feed(letters)
    assert len(letters) - len(released) == scrubber.holding <= scrubber.max_hold
    assert scrubber.max_hold < 6 * len(KEY)


def test_a_chunk_ending_in_a_blank_line_is_released_whole() -> None:
    # No spelling of a key contains a line break: nothing to wait for.
    scrubber = SecretScrubber([KEY])
    chunk = b'data: {"delta": "sk-live-Q9"}\n\n'
    assert scrubber.feed(chunk) == chunk
    assert scrubber.holding == 0


def test_without_secrets_the_stream_passes_as_it_is() -> None:
    scrubber = SecretScrubber([])
    assert not scrubber.active
    assert scrubber.feed(b"abc") == b"abc"
    assert scrubber.flush() == b""
