"""``find_secrets`` finds exactly what the plain search finds: same spans, rules and order.

The search only skips work: it looks for the rules' literals with SIMD passes
before lower-casing, and tries a pattern only where one of its literals puts
the start of a match. :func:`reference` is the plain search it replaced
(every rule whose literal is in the lower-cased text; a long text in windows
around the literals, or whole when they are too many), written out simply.
The thresholds are shrunk here, so that short texts take every path: windows,
the whole-text pass with sparse and dense blocks, the presence pass split in
windows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from ahocorasick_rs import BytesAhoCorasick
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.export.decoded import find_encoded_secrets
from inspector.redact import shapes as secrets
from inspector.redact.shapes import ALL_RULES, SecretMatch, SecretRule, find_secrets
from inspector.redact.spellings import SecretScrubber, _base64_forms

from .security.secrets_upstream import SPELLINGS


def _reference_matches(rule: SecretRule, text: str, low: bytes) -> Iterator[re.Match[str]]:
    size = len(text)
    if size <= secrets._WINDOWED_FROM:
        yield from rule.pattern.finditer(text)
        return
    positions: list[int] | None = []
    assert positions is not None
    for literal in secrets._BYTE_LITERALS.get(rule.name, ()):
        at = low.find(literal)
        while at >= 0:
            positions.append(at)
            at = low.find(literal, at + 1)
    if len(positions) > secrets._MAX_WINDOWS:
        yield from rule.pattern.finditer(text)
        return
    windows: list[list[int]] = []
    for at in sorted(positions):
        start, end = max(0, at - secrets._BEFORE), min(size, at + secrets._AFTER)
        if windows and start <= windows[-1][1]:
            windows[-1][1] = max(windows[-1][1], end)
        else:
            windows.append([start, end])
    for start, end in windows:
        for m in rule.pattern.finditer(text, start, end):
            if m.end() == end < size:
                whole = rule.pattern.match(text, m.start())
                if whole is None:
                    continue
                m = whole
            yield m


def reference(text: str, rules: tuple[SecretRule, ...] = ALL_RULES) -> list[SecretMatch]:
    """The plain search: what ``find_secrets`` must return."""
    if not text:
        return []
    low = text.encode("ascii", "replace").lower()
    literals = secrets._BYTE_LITERALS
    present = {lit for lits in literals.values() for lit in lits if lit in low}
    if not present and all(rule.name in literals for rule in rules):
        return []
    found = []
    for rule in rules:
        if rule.name in literals and present.isdisjoint(literals[rule.name]):
            continue
        for m in _reference_matches(rule, text, low):
            start, end = m.span(rule.group)
            if end > start and not secrets.is_placeholder(text[start:end]):
                found.append(SecretMatch(start, end, rule.name))
    found.sort(key=lambda s: (s.start, -(s.end - s.start), secrets._RANK.get(s.rule, 99)))
    out: list[SecretMatch] = []
    last = -1
    for match in found:
        if match.start >= last:
            out.append(match)
            last = match.end
    return out


@pytest.fixture
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every size-dependent path of the search, on texts of a few hundred characters."""
    for name, value in (
        ("_WINDOWED_FROM", 300),
        ("_BEFORE", 24),
        ("_AFTER", 90),
        ("_MAX_WINDOWS", 6),
        ("_TRY_WHOLE_BELOW", 40),
        ("_BLOCK", 64),
        ("_DENSE", 3),
        ("_PASS_WINDOW", 50),
        ("_LOWER_BLOCK", 70),
    ):
        monkeypatch.setattr(secrets, name, value)


# Every rule's secret, its literals alone, near-misses, case variants, and what
# sits around them: word characters (for \b), separators, non-ASCII, NUL, 0xFF.
FRAGMENTS = (
    "sk-proj-" + "A1b2" * 6, "sk-ant-api03-" + "e" * 22, "sk-or-v1-" + "f" * 20, "sk-" + "d4" * 11,
    "sk-proj-****abcd", "sk-", "SK-", "Sk-abc", "sk-*****",
    "AIza" + "f" * 35, "aiza", "AIZA", "ya29." + "x" * 20, "YA29.", "gsk_" + "Q" * 20, "gsk_",
    "xai-" + "k" * 40, "XAI-", "hf_" + "a" * 30, "HF_", "AKIA" + "G" * 16, "akia", "AKIA", "Asia",
    "ASIAAIza", "AKIAIza" + "f" * 35, "AKIAIOSFODNN7EXAMPL", "awsk-proj-" + "A1b2" * 6,
    "xoxai-" + "k" * 40, "A3TX" + "B" * 16,
    "aws_secret_access_key = " + "w" * 40, "AWS_SECRET_KEY:" + "k/+=" * 10, "aws", "AwS",
    "ghp_" + "h" * 36, "github_pat_" + "i" * 22, "GHP_", "gho_", "xoxb-" + "1" * 10, "xoxox",
    "xapp-1-" + "A" * 10, "XOX", "https://hooks.slack.com/services/" + "T" * 10, "hooks.slack",
    "eyJ" + "a" * 8 + ".eyJ" + "b" * 8 + ".sig", "eyJ", "EYJ", "Bearer " + "t" * 16, "bearer",
    "BEARER  " + "x" * 20 + "==", "?key=abcd", "&TOKEN=[query-secret*]", "?sig=ab", "?", "&",
    "jane.doe+x@example.co.uk", "a@b", "@", "user@host.c", "x@y.zz",
    "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
    "-----BEGIN PRIVATE KEY-----", "-----END PRIVATE KEY-----", "PRIVATE KEY", "private key",
    "-----END CERTIFICATE-----", "-----END ", "KEY-----", "-----END RSA PRIVATE KEY",
    "sk-sk-", "****", "sk-a-b_c", "b.", ".d", "%+", "@x.io", "a@b.cc.d@e.ff", "zz9",
    "eyJ-", "xeyJ", "eyJabcdefgh.", ".eyJabcdefgh.sig",
    "-----BEGIN EC PRIVATE KEY-----END EC PRIVATE KEY-----",
    "[openai-key*****]", "[redacted]",
    # The rules found by a literal and a tail (password fields, AWS keys as STS writes them).
    "password=", "PassWord : ", "passwd=", "pwd=", 'client_secret"=', "api_key=", "Api-Key:",
    "my_api_key\t= '", "secret", "SECRET=", "token=", "TOKEN", "key:", "key", "refresh_token=",
    "x" * 41 + "_password=", "a" * 38 + "_secret=", "secret_access_key=", "AWS_SECRET_ACCESS_KEY",
    "aws_session_token: ", "SessionToken", '"SessionToken": "', "session", "x" * 12 + "w+/=" * 30,
    '"', "'", "\t", ":", "hunter2-hunter2",
    # Words taken in every casing, as a stream body holds them (found on the lowered text).
    '"completion_tokens":12', "ToKeN=abcdefghij", "kEy: 'abcdefghijk'", "BeArEr ", "SeSsIoN",
    "aCcOuNtKeY=" + "Ab+/" * 6, "sharedACCESSkey=", "PaSsWd=" + "q" * 9,
    " ", "  ", "\n", "-", "_", ".", "=", "/", "+", "*", "x", "9", "Z", "\0", "\xff", "é", "汉字",
    "\U0001f642", "\ud800", "lorem ipsum ", "K", "\u212a", "\u017f",
)  # fmt: skip

texts = st.lists(st.sampled_from(FRAGMENTS), max_size=120).map("".join)
long_texts = st.tuples(
    st.lists(st.sampled_from(FRAGMENTS), max_size=60),
    st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=8),
    st.integers(min_value=0, max_value=400),
).map(lambda t: "".join(t[0]) + "z" * t[2] + "".join(t[1]) + "y " * 90)


@pytest.mark.usefixtures("small_thresholds")
@settings(
    max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(texts, long_texts))
def test_find_secrets_matches_the_plain_search_on_any_text(text: str) -> None:
    assert find_secrets(text) == reference(text)


@pytest.mark.usefixtures("small_thresholds")
@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.one_of(texts, long_texts),
    st.lists(st.sampled_from(ALL_RULES), min_size=1, max_size=6, unique=True).map(tuple),
)
def test_a_subset_of_the_rules_finds_what_the_plain_search_finds(
    text: str, rules: tuple[SecretRule, ...]
) -> None:
    assert find_secrets(text, rules) == reference(text, rules)


@pytest.mark.usefixtures("small_thresholds")
@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(texts, long_texts))
def test_rules_of_a_callers_own_are_searched_as_before(text: str) -> None:
    # Not the built-in objects: none of what is known about where their
    # matches start applies (one reuses a built-in name with another pattern).
    own = (
        SecretRule("google-key", r"[Aa][Ii]za\w{3}", "AIza"),
        SecretRule("ticket", r"TICKET-\d+", "TICKET"),
        SecretRule("aws-access-key", r"AKIA\w*", "AKIA"),
    )
    assert find_secrets(text, own) == reference(text, own)


@pytest.mark.usefixtures("small_thresholds")
@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.one_of(texts, long_texts), st.sampled_from(["plain", "json", "json2", "percent"]))
def test_encoded_secrets_are_the_plain_searchs_finds_in_every_view(text: str, how: str) -> None:
    import json
    from urllib.parse import quote

    encoded = {
        "plain": text,
        "json": json.dumps(text)[1:-1],
        "json2": json.dumps(json.dumps(text))[1:-1],
        "percent": quote(text, safe=" ", errors="surrogatepass"),
    }[how]
    expected = find_encoded_secrets_with(encoded, reference)
    assert find_encoded_secrets(encoded) == expected


def find_encoded_secrets_with(text: str, search: object) -> object:
    """``find_encoded_secrets`` with ``search`` in place of ``find_secrets``."""
    from inspector.export import decoded

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(decoded, "find_secrets", search)
        return decoded.find_encoded_secrets(text)


def test_secrets_at_every_window_and_block_edge_are_found_as_before(
    small_thresholds: None,
) -> None:
    filler = "the bearer of news asked & a lot? "
    for secret in ("sk-proj-" + "A1b2" * 6, "AKIA" + "G" * 16, "x@y.zz", "Bearer " + "t" * 16):
        for at in range(0, 420, 7):
            text = (filler * 20)[:at] + secret + (filler * 20)[at:]
            assert find_secrets(text) == reference(text), (secret, at)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        # One literal's occurrence overlaps another's: "AKIA" / "AIza", "aws" / "sk-".
        ("key AKIAIza" + "f" * 35 + " end", "google-key"),
        ("awsk-proj-" + "A1b2" * 6, "openai-key"),
        ("AWsk-proj-" + "A1b2" * 6, "openai-key"),
    ],
)
def test_a_secret_whose_literal_overlaps_another_literal_is_found(text: str, rule: str) -> None:
    found = find_secrets(text)
    assert found == reference(text)
    assert [m.rule for m in found] == [rule]


DENSE_WORDS = "laws Asia draws the bearer of news who asked? you & me a@b sk- eyJ xox"


def test_full_size_texts_find_what_the_plain_search_finds() -> None:
    # The real thresholds: 1 MB of prose dense in literals (whole-text passes,
    # dense and sparse blocks) and a sparse one (windows), secrets planted.
    words = DENSE_WORDS.split()
    dense = " ".join(words[i * 7 % len(words)] for i in range(150_000))
    planted = " ".join(("sk-proj-" + "A1b2" * 6, "AKIA" + "G" * 16, "x@y.zz", "ghp_" + "h" * 36))
    sparse = "lorem ipsum " * 40_000
    for text in (dense, sparse, dense[:300_000] + planted + dense[300_000:], sparse + planted):
        assert find_secrets(text) == reference(text)


def test_a_private_key_search_stops_at_the_last_end_line() -> None:
    # A BEGIN line with no END line after it cannot start a match: the search
    # stops where the last END line ends (or searches nothing), so thousands of
    # BEGIN lines are not each read to the end of the text.
    end = "-----END RSA PRIVATE KEY-----"
    text = (
        "-----BEGIN RSA PRIVATE KEY-----\nabc\n"
        + end
        + "\n"
        + "-----BEGIN DSA PRIVATE KEY-----\n" * 50
    )
    assert secrets._search_end("private-key", text, 0, len(text)) == text.index(end) + len(end)
    assert secrets._search_end("private-key", text, len(end) + 40, len(text)) == len(end) + 40
    assert secrets._search_end("private-key", "-----END CERTIFICATE-----", 0, 25) == 0
    assert secrets._search_end("openai-key", text, 3, 9) == 9
    assert [m.rule for m in find_secrets(text)] == ["private-key"]
    assert find_secrets(text) == reference(text)


@pytest.mark.parametrize(
    "text",
    [
        "sk-" * 400 + "****" + "sk-" * 400,
        "sk-" * 400 + " sk-x****y",
        "a@" + "b." * 400,
        "a@b.cc.d@e.ff x@y.zz9abc@d.ee " + "q" * 300 + "@" + "w." * 200 + "com",
        "jane.doe+x@example.co.uk " * 30 + "@" * 30,
        "eyJ-" * 300 + "eyJabcdefgh.eyJabcdefgh.sig",
        "xeyJ" * 300 + "-eyJabcdefgh.eyJabcdefgh.sig " + "aeyJ" * 300 + ".",
        "b" * 500 + "@" + "c" * 300 + "@d.ee",
    ],
)
def test_long_runs_of_a_rules_characters_find_what_the_plain_search_finds(text: str) -> None:
    # The masked-key and e-mail rules go on after a run whose end cannot
    # continue a match, instead of reading the run again from each start in it.
    assert find_secrets(text) == reference(text)


def test_a_run_rules_pattern_is_its_start_its_run_and_its_tail() -> None:
    # What the search by runs assumes of each rule it searches that way.
    for name, (first, written) in secrets._RUN_RULES.items():
        pattern = secrets._BUILT_IN[name].pattern.pattern
        head, sep, tail = pattern.partition(written)
        assert sep and (head.endswith(first) or written.startswith(first)), name
        start, run, rest = (p.pattern for p in secrets._run_patterns(name))
        assert (start, rest) == (first, tail) and run.endswith("*+"), name
        assert written.startswith(run[:-2]), name


def _hides_by_definition(first: bytes, other: bytes) -> bool:
    """A match of ``first`` covers where ``other`` starts, tried at every offset."""
    return any(
        first[k:].startswith(other) or other.startswith(first[k:])
        for k in range(len(first))
        if k or first != other
    )


#: Short literals, most over two letters: overlaps are the rule, not the exception.
LITERALS = st.one_of(
    st.text(alphabet="ab", min_size=1, max_size=7).map(str.encode),
    st.binary(min_size=1, max_size=7),
)


@settings(max_examples=400, deadline=None)
@given(LITERALS, LITERALS)
def test_which_literal_may_hide_another_is_the_definitions_answer(
    first: bytes, other: bytes
) -> None:
    assert secrets._may_hide(first, other) == _hides_by_definition(first, other)
    assert secrets._may_hide(first, first) == _hides_by_definition(first, first)


LITERAL_SETS = st.lists(LITERALS, min_size=1, max_size=6, unique=True)


@settings(max_examples=400, deadline=None)
@given(LITERAL_SETS, st.data())
def test_the_literal_search_finds_every_place_an_overlapping_search_does(
    literals: list[bytes], data: st.DataObject
) -> None:
    """One leftmost pass and a look inside each match = the overlapping search, in its order."""
    pieces = st.one_of(st.sampled_from(literals), st.binary(max_size=3))
    window = b"".join(data.draw(st.lists(pieces, max_size=40)))
    found = secrets._Literals(tuple(literals))
    overlapping = BytesAhoCorasick(literals).find_matches_as_indexes(window, overlapping=True)
    assert found.hits(window) == sorted(overlapping, key=lambda hit: hit[1])


@settings(max_examples=200, deadline=None)
@given(texts)
def test_the_presence_pass_on_the_lowered_text_is_the_one_on_the_text(text: str) -> None:
    """Words taken in every casing are looked for once, lower-cased: the same rules run."""
    data = text.encode("ascii", "replace")
    assert secrets._present_cased(data, data.lower()) == secrets._present_cased(data)
    keys = secrets._present_cased(data)
    for name, cased in secrets._CASED_BYTES.items():
        wanted = any(literal in data for literal in cased)
        assert wanted == (not keys.isdisjoint(secrets._PRESENCE_KEYS[name])), name


# The streaming scrubber tries its pattern only where a match may start
# (``_Starts``): the same matches as the regex engine's own scan, on buffers
# made of the secrets in every spelling, cut anywhere, among near-misses.
SCRUB_SECRETS = st.lists(
    st.text(alphabet='aZ9-_+/=%\\" \n\té汉\U0001f642', min_size=8, max_size=14),
    min_size=1,
    max_size=3,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SCRUB_SECRETS, st.data())
def test_the_scrubbers_tries_find_what_its_patterns_scan_finds_and_scrub_replaces(
    secrets_in_use: list[str], data: st.DataObject
) -> None:
    scrubber = SecretScrubber(secrets_in_use)
    pieces: list[bytes] = [b"\\", b"\\\\", b"%", b"+", b"\r\n", b"\n", b"\\n", b"\\\\r\\\\n"]
    for secret in secrets_in_use:
        for spell in SPELLINGS.values():
            pieces.append(spell(secret).encode("utf-8", "surrogatepass"))
        # Base64 with a line break after any character (MIME wraps at any offset).
        for form in _base64_forms(secret.encode("utf-8", "surrogatepass")):
            cut = data.draw(st.integers(1, len(form) - 1))
            brk = data.draw(st.sampled_from([b"\n", b"\r\n", b"\\n", b"\\r\\n"]))
            pieces.append(form[:cut] + brk + form[cut:])
    fragments = st.one_of(st.sampled_from(pieces), st.binary(max_size=4))
    parts = data.draw(st.lists(fragments, max_size=12))
    buffer = b"".join(parts)
    # Any part of a spelling: a chunk as the stream cut it.
    start = data.draw(st.integers(0, len(buffer)))
    buffer = buffer[start:] if data.draw(st.booleans()) else buffer
    assert scrubber._pattern is not None
    expected = [m.span() for m in scrubber._pattern.finditer(buffer)]
    assert [m.span() for m in scrubber._matches(buffer, len(buffer))] == expected
    assert scrubber.spans(buffer) == expected
    assert scrubber.scrub(buffer) == scrubber._pattern.sub(scrubber.placeholder, buffer)
