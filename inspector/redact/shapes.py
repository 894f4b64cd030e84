"""What a secret looks like: the one rule set of secret shapes.

Why this module is long: the table of rules and the matcher that runs them fast
(literal prefilters, scan windows and automata, each keyed by rule name) stay
together, so a rule and its prefilter entries are edited in one place.

Every boundary that looks for secrets by their shape — export's rewriter and
leak scan, the live recorder's and the proxy's check of derived fields
(a ``model`` that is a key), every printed message — uses
:data:`SECRET_RULES` here and nothing else. The rules were written after
reading the rule lists of gitleaks, detect-secrets and trufflehog (none of
their code is used); ``docs/security.md`` lists what they cover.

Everything here is a table; the rewriters only look things up. A rule's
*name* is what the redaction report counts (``openai-key: 2``) — the report
never holds the values themselves.

Patterns are matched on decoded text (JSON escapes undone, fragments of one
text joined), so a key split across two stream deltas is still found. They
are ASCII-only on purpose: a secret is never spelled with other letters, and
``re.ASCII`` keeps ``\\s`` and ``\\b`` from matching inside non-Latin text.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Final

from ahocorasick_rs import MATCHKIND_LEFTMOST_FIRST, BytesAhoCorasick

from .names import is_secret_header

__all__ = [
    "ALL_RULES",
    "CLIENT_ADDRESS_HEADERS",
    "EMAIL_RULE",
    "REQUEST_ID_HEADER",
    "SECRET_RULES",
    "SecretMatch",
    "SecretRule",
    "find_secrets",
    "header_rule",
    "is_placeholder",
    "placeholder",
]


class SecretRule:
    """A named pattern; ``group`` is the part of the match that is secret.

    ``hint`` is what every match contains, as a regex; ``_LITERALS`` below is
    its lower-case, C-speed form that lets texts without it (nearly all of
    them) skip the full pattern. ``source`` is the pattern's text; it is
    compiled (ASCII-only) on first use: most texts hold no rule's literal, so
    an export of a small file compiles few of them, or none.
    """

    __slots__ = ("_compiled", "group", "hint", "name", "source")

    def __init__(self, name: str, source: str, hint: str, group: int = 0) -> None:
        self.name = name
        self.source = source
        self.hint = hint
        self.group = group
        self._compiled: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        """The compiled pattern."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.source, re.ASCII)
        return compiled

    def __repr__(self) -> str:
        return f"SecretRule({self.name!r}, {self.source!r}, {self.hint!r}, {self.group!r})"


def _rule(name: str, pattern: str, hint: str, group: int = 0) -> SecretRule:
    return SecretRule(name, pattern, hint, group)


# Order matters only for ties: among matches starting at the same place the
# longest wins, then the earlier rule (so ``sk-ant-…`` is an Anthropic key).
SECRET_RULES: Final[tuple[SecretRule, ...]] = (
    # name                  pattern                                         hint
    # PEM (PKCS#1/#8, EC, OpenSSH, encrypted) and PGP ("PRIVATE KEY BLOCK") keys…
    _rule("private-key",
          r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?"
          r"-----END [A-Z ]*PRIVATE KEY(?: BLOCK)?-----",
          "PRIVATE KEY"),
    # …and one cut before its END line: the BEGIN line and every line of the
    # body that follows (armor headers such as "Proc-Type:", base64 lines).
    _rule("private-key-cut",
          r"-----BEGIN [A-Z ]*PRIVATE KEY(?: BLOCK)?-----"
          r"(?:\s*+[A-Za-z][A-Za-z\-]*+: [^\r\n]*+)*+\s*+[A-Za-z0-9+/=]{16,}+"
          r"(?:[ \t]*+\r?\n[ \t]*+[A-Za-z0-9+/=]++)*+",
          "PRIVATE KEY"),
    _rule("anthropic-key",  r"sk-ant-[A-Za-z0-9_\-]{20,}",                  "sk-"),
    _rule("openrouter-key", r"sk-or-v1-[A-Za-z0-9]{20,}",                   "sk-"),
    _rule("openai-key",
          r"sk-(?:proj|svcacct|admin|None)-[A-Za-z0-9_\-]{20,}|sk-[A-Za-z0-9]{20,}",
          "sk-"),
    # "Incorrect API key provided: sk-proj-********abcd": not the key, but
    # its visible tail identifies it.
    _rule("masked-key",     r"sk-[A-Za-z0-9_\-]*\*{4,}[A-Za-z0-9_\-]*",     "sk-"),
    _rule("google-key",     r"AIza[0-9A-Za-z_\-]{35}",                      "AIza"),
    _rule("google-oauth-token", r"\bya29\.[0-9A-Za-z_\-]{20,}",             r"ya29\."),
    _rule("groq-key",       r"\bgsk_[A-Za-z0-9]{20,}",                      "gsk_"),
    _rule("xai-key",        r"\bxai-[A-Za-z0-9]{40,}",                      "xai-"),
    _rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,}",                    "hf_"),
    _rule("aws-access-key",
          r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA)[A-Z0-9]{16}\b",
          "A3T|A[KSBCGIRPN][A-Z]A"),
    # As STS answers (JSON "SecretAccessKey", "SessionToken"), as the SDKs'
    # ini files and the environment write them (aws_secret_access_key = …).
    _rule("aws-secret-key",
          r"(?i:(?:aws_?)?secret_?access_?key)[\"'\s:=]{1,5}"
          r"([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])",
          "(?i:secret)", 1),
    _rule("aws-session-token",
          r"(?i:(?:aws_?)?session_?token)[\"'\s:=]{1,5}([A-Za-z0-9/+=]{100,})",
          "(?i:session)", 1),
    _rule("aws-sts-token",
          r"\b(?:FwoGZXIvYXdz|IQoJb3JpZ2lu)[A-Za-z0-9/+=]{80,}",
          "FwoGZXIvYXdz|IQoJb3JpZ2lu"),
    _rule("google-service-account",
          r"\"private_key_id\"\s*:\s*\"([0-9a-f]{40})\"",
          "private_key_id", 1),
    _rule("azure-key",
          r"(?i:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{20,}={0,2})",
          "(?i:accountkey|sharedaccesskey)", 1),
    _rule("azure-ad-client-secret",
          r"(?<![A-Za-z0-9_~.\-])([A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.\-]{31,34})"
          r"(?![A-Za-z0-9_~.\-])",
          "Q~", 1),
    _rule("gitlab-token",
          r"\bgl(?:pat|ptt|dt|rt|cbt|oas|soat|ffct|agent|imt)-[0-9A-Za-z_\-]{20,}",
          "gl"),
    _rule("stripe-key",
          r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|\bwhsec_[0-9A-Za-z]{24,}",
          "_live_|_test_|whsec_"),
    _rule("npm-token",        r"\bnpm_[A-Za-z0-9]{36}",                     "npm_"),
    _rule("github-token",
          r"\bgh[pousr]_[A-Za-z0-9]{36,}|\bgithub_pat_[A-Za-z0-9_]{22,}",
          "gh[pousr]_|github_pat_"),
    _rule("slack-token",
          r"\bxox[abposr]-[A-Za-z0-9\-]{10,}|\bxapp-[0-9]-[A-Za-z0-9\-]{10,}",
          "xox|xapp-"),
    _rule("slack-webhook",
          r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]{10,}",
          r"hooks\.slack"),
    # A JWT's header and payload are base64url JSON objects: "{" then '"' or
    # whitespace (a spaced or pretty-printed header) gives one of these starts.
    _rule("jwt",
          r"\b(?:eyJ|eyA[igKJ]|ewo[giJ]|ew0K|ewk[igJ])[A-Za-z0-9_\-]{8,}"
          r"\.(?:eyJ|eyA[igKJ]|ewo[giJ]|ew0K|ewk[igJ])[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*",
          "eyJ"),
    _rule("bearer-token",   r"(?i:\bbearer)\s+([A-Za-z0-9._~+/\-]{16,}=*)", "(?i:bearer)", 1),
    # A URL with a password in it (database URLs, https://user:pass@host).
    _rule("url-password",
          r"(?<![A-Za-z0-9+.\-])[A-Za-z][A-Za-z0-9+.\-]{0,30}://[^:/@\s\"'<>]{0,256}:"
          r"([^@/\s\"'<>]{3,256})@[A-Za-z0-9.\-\[]",
          "://", 1),
    # password = …, "client_secret": "…", api_key: … in text, ini and JSON.
    _rule("password-field",
          r"(?<![A-Za-z0-9_\-])(?i:[a-z0-9_\-]{0,40}?(?:passw(?:or)?d|pwd|secret|api_?key|"
          r"access_?token|refresh_?token|"
          r"auth_?token|client_?secret|api[_\-]key))[\"']?[ \t]*[:=][ \t]*[\"']?"
          r"([^\s\"'&,;<>{}\[\]\\]{8,})",
          "(?i:passw|pwd|secret|key|token)", 1),
    _rule("query-secret",
          r"[?&](?i:[a-z0-9_\-]*(?:key|token|sig|signature|secret|passw(?:or)?d|credential|auth))"
          r"=([^&#\s\"'<>\\]{4,})",
          "[?&]", 1),
)  # fmt: skip

EMAIL_RULE: Final = _rule(
    "email", r"[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}\b", "@"
)

# Headers that say who the client is: removed too.
CLIENT_ADDRESS_HEADERS: Final = frozenset(
    {"x-forwarded-for", "x-real-ip", "cf-connecting-ip", "true-client-ip", "forwarded"}
)
# Headers that identify one request: pseudonymized (shape kept).
REQUEST_ID_HEADER: Final = re.compile(
    r"request-?id|trace-?id|correlation-?id|^cf-ray$|^traceparent$|^x-cloud-trace-context$"
)


def header_rule(name: str) -> str | None:
    """How a header is treated: ``"secret"``, ``"client-address"``, ``"request-id"`` or None."""
    lowered = name.lower()
    if is_secret_header(lowered):
        return "secret"
    if lowered in CLIENT_ADDRESS_HEADERS:
        return "client-address"
    if REQUEST_ID_HEADER.search(lowered):
        return "request-id"
    return None


@dataclass(frozen=True, slots=True)
class SecretMatch:
    """A secret found in a text: ``text[start:end]``, found by rule ``rule``."""

    start: int
    end: int
    rule: str


ALL_RULES: Final = (*SECRET_RULES, EMAIL_RULE)
_RANK: Final = {rule.name: i for i, rule in enumerate(ALL_RULES)}
# The rules as this module defines them: what is known below about where their
# matches sit holds for these patterns only (a caller may pass its own rules).
_BUILT_IN: Final = {rule.name: rule for rule in ALL_RULES}
# Lower-case substrings one of which every match of a rule contains. A text
# holding none of a rule's literals skips its pattern (one C-speed ``in``
# each), and in a long text the pattern runs only in windows around them.
_LITERALS: Final[dict[str, tuple[str, ...]]] = {
    "private-key": ("private key",), "private-key-cut": ("private key",),
    "anthropic-key": ("sk-",), "openrouter-key": ("sk-",), "openai-key": ("sk-",),
    "masked-key": ("sk-",), "google-key": ("aiza",), "google-oauth-token": ("ya29.",),
    "groq-key": ("gsk_",), "xai-key": ("xai-",), "huggingface-token": ("hf_",),
    "aws-access-key": ("a3t", "akia", "asia", "abia", "acca", "agpa", "aida", "aroa", "aipa",
                       "anpa", "anva"),
    "aws-secret-key": ("secret",),
    "aws-session-token": ("session",), "aws-sts-token": ("fwogzxivyxdz", "iqojb3jpz2lu"),
    "google-service-account": ("private_key_id",),
    "azure-key": ("accountkey=", "sharedaccesskey="),
    "azure-ad-client-secret": ("q~",),
    "gitlab-token": ("glpat-", "glptt-", "gldt-", "glrt-", "glcbt-", "gloas-", "glsoat-",
                     "glffct-", "glagent-", "glimt-"),
    "stripe-key": ("sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"),
    "npm-token": ("npm_",),
    "url-password": ("://",),
    "password-field": ("passw", "pwd", "secret", "key", "token"),
    "github-token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    "slack-token": ("xox", "xapp-"), "slack-webhook": ("hooks.slack",),
    "jwt": ("eyj", "eyai", "eyag", "eyak", "eyaj", "ewog", "ewoi", "ewoj", "ew0k", "ewki",
            "ewkg", "ewkj"),
    "bearer-token": ("bearer",), "query-secret": ("?", "&"), "email": ("@",),
}  # fmt: skip
_JWT_STARTS: Final = (
    "eyJ",
    "eyAi",
    "eyAg",
    "eyAK",
    "eyAJ",
    "ewog",
    "ewoi",
    "ewoJ",
    "ew0K",
    "ewki",
    "ewkg",
    "ewkJ",
)


def _casings(word: str) -> tuple[str, ...]:
    """Every upper/lower-case spelling of ``word`` (for a case-insensitive literal)."""
    return tuple(map("".join, itertools.product(*({c.lower(), c.upper()} for c in word))))


_BYTE_LITERALS: Final = {
    name: tuple(lit.encode() for lit in lits) for name, lits in _LITERALS.items()
}
# Substrings, as written (case kept), one of which every match of a built-in
# rule contains: its pattern is case-sensitive there, or they are every casing
# of a prefix of a case-insensitive literal. Looked for in the text before it
# is lower-cased, so that a text none of them is in (nearly every text) costs
# one copy and one pass.
_CASED: Final[dict[str, tuple[str, ...]]] = {
    "private-key": ("PRIVATE KEY",), "private-key-cut": ("PRIVATE KEY",),
    **{name: ("sk-",) for name in ("anthropic-key", "openrouter-key", "openai-key", "masked-key")},
    "google-key": ("AIza",), "google-oauth-token": ("ya29.",), "groq-key": ("gsk_",),
    "xai-key": ("xai-",), "huggingface-token": ("hf_",),
    "aws-access-key": tuple(lit.upper() for lit in _LITERALS["aws-access-key"]),
    # (Every casing of a prefix of the rule's case-insensitive literal: a short
    # prefix keeps the number of literals, and the table built from them, small.)
    "aws-secret-key": _casings("secr"),
    "aws-session-token": _casings("sess"), "aws-sts-token": ("FwoGZXIvYXdz", "IQoJb3JpZ2lu"),
    "google-service-account": ("private_key_id",),
    "azure-key": (*_casings("acco"), *_casings("shar")),
    "azure-ad-client-secret": ("Q~",),
    "gitlab-token": _LITERALS["gitlab-token"], "stripe-key": _LITERALS["stripe-key"],
    "npm-token": ("npm_",), "url-password": ("://",),
    "password-field": (*_casings("pass"), *_casings("pwd"), *_casings("secr"),
                       *_casings("key"), *_casings("toke")),
    "github-token": _LITERALS["github-token"], "slack-token": _LITERALS["slack-token"],
    "slack-webhook": ("hooks.slack",), "jwt": _JWT_STARTS,
    "bearer-token": tuple(map("".join, itertools.product("bB", "eE", "aA", "rR"))),
    "query-secret": ("?", "&"), "email": ("@",),
}  # fmt: skip
# Built-in rules whose every match starts this many characters before one of
# the rule's literals (``https://`` before ``hooks.slack``; the others start
# with it). A long text is searched for these only where a literal is: the
# literal's positions are the only places a match can start. The private-key
# and e-mail rules start an unbounded way before theirs.
_STARTS_BEFORE: Final = {
    name: 8 if name == "slack-webhook" else 0
    for name in _LITERALS
    # These start an unbounded or varying way before their literal.
    if name
    not in (
        "private-key",
        "private-key-cut",
        "email",
        "url-password",
        "password-field",
        "azure-ad-client-secret",
        "aws-secret-key",
        "aws-session-token",
        "azure-key",
        "google-service-account",
    )
}
# What those matches start with (lower-cased), where it says more than the
# rule's literals: the fewer places to try, the better. (``?`` is every
# non-ASCII character, ``aws`` is in "laws", ``xox`` in "xoxo".)
_STARTS: Final = {
    **{name: _BYTE_LITERALS[name] for name in _STARTS_BEFORE},
    "slack-token": (*(f"xox{kind}-".encode() for kind in "abposr"), b"xapp-"),
}
# Those whose pattern begins with a case-sensitive literal that the lower-cased
# one says too little of: looked for in the text as written, block by block
# ("Asia" and "Malaysia" hold the "asia" of ``ASIA``, and no match).
_CASED_STARTS: Final = {
    "aws-access-key": tuple(lit.encode() for lit in _CASED["aws-access-key"]),
    "jwt": tuple(lit.encode() for lit in _JWT_STARTS),
}
# Those of them whose pattern begins with a literal: over a whole text, the
# regex engine's own scan for it is faster than a try at each from here.
_OWN_PREFIX: Final = frozenset(
    {"anthropic-key", "openrouter-key", "openai-key", "masked-key", "google-key", "slack-webhook"}
)
# Texts longer than this are searched in windows around each literal: how far
# a match may start before its literal, and end after it.
_WINDOWED_FROM: Final = 64 * 1024
_BEFORE: Final = 1024
_AFTER: Final = 16 * 1024
# More literal hits than this and one pass over the whole text is cheaper.
_MAX_WINDOWS: Final = 2048
# Below this size a rule's pattern runs over the whole text as it is.
_TRY_WHOLE_BELOW: Final = 4096
# A pass over a whole text tries the pattern at each literal, block by block;
# a block with more literals than this is left to the regex engine's own scan.
_BLOCK: Final = 1 << 15
_DENSE: Final = _BLOCK // 16


class _Literals:
    """One rule's literals and an automaton that finds all of them in one pass."""

    __slots__ = ("automaton", "hidden", "literals", "longest")

    def __init__(self, literals: tuple[bytes, ...]) -> None:
        self.literals = literals
        self.longest = max(map(len, literals))
        # Leftmost and non-overlapping, the automaton runs its SIMD prefilter:
        # several times faster than an overlapping search (4 ms of 2 MB of
        # stream body for password-field's five). Every place a literal starts
        # is then inside a reported match; where one may start inside another
        # (``secret`` then ``token``), it is checked for there.
        self.automaton = BytesAhoCorasick(list(literals), matchkind=MATCHKIND_LEFTMOST_FIRST)
        self.hidden = tuple(
            tuple(
                (k, j)
                for j, other in enumerate(literals)
                for k in range(0 if j != i else 1, len(first))
                if first[k : k + len(other)] == other[: len(first) - k]
            )
            for i, first in enumerate(literals)
        )

    def hits(self, window: bytes | memoryview) -> list[tuple[int, int, int]]:
        """``(literal index, start, end)`` of every literal in ``window``, by start then end.

        The same as an overlapping search's, in the order its stable sort by start gives.
        """
        found = self.automaton.find_matches_as_indexes(window)
        more: list[tuple[int, int, int]] = []
        for index, start, _ in found:
            for k, j in self.hidden[index]:
                other = self.literals[j]
                at = start + k
                if window[at : at + len(other)] == other:
                    more.append((j, at, at + len(other)))
        # (Reported matches do not overlap: each place is found once.)
        found += more
        found.sort(key=lambda hit: (hit[1], hit[2]))
        return found

    def block_hits(
        self, low: bytes | bytearray, start: int, end: int
    ) -> Iterator[tuple[int, int, int]]:
        """:meth:`hits` of ``low[start:end]``, found a block at a time, in the same order.

        A long text can hold a literal in every frame (Gemini's
        ``promptTokenCount``): the hits of all of it at once would be a
        tuple each, held together — on a 30 MB stream more than the text.
        """
        view = memoryview(low)
        for at in range(start, end, _BLOCK):
            stop = min(end, at + _BLOCK)
            shift = at - start
            for index, first, last in self.hits(view[at : min(end, stop + self.longest - 1)]):
                if at + first < stop:
                    yield index, shift + first, shift + last

    def positions(self, low: bytes | bytearray, start: int, end: int) -> list[int]:
        """Where the literals start in ``low[start:end]`` (they may run past ``end``), sorted."""
        return self.found(memoryview(low)[start : end + self.longest - 1], start, end)

    def cased_positions(self, text: str, start: int, end: int) -> list[int]:
        """Where the literals start in ``text[start:end]``, as written (case kept), sorted."""
        window = text[start : end + self.longest - 1].encode("ascii", "replace")
        return self.found(window, start, end)

    def found(self, window: bytes | memoryview, start: int, end: int) -> list[int]:
        """Where the literals start in ``window``, which begins at ``start``, before ``end``."""
        found = self.hits(window)
        return sorted(start + at for _, at, _ in found if start + at < end)


_literals = functools.lru_cache(maxsize=None)(_Literals)


def _literal_positions(name: str, low: bytes | bytearray) -> list[int] | None:
    """Where the rule's literals are in ``low``; None when there are too many to window."""
    literals = _literals(_BYTE_LITERALS[name])
    found: list[int] = []
    for start in range(0, len(low), _BLOCK):
        found += literals.positions(low, start, start + _BLOCK)
        if len(found) > _MAX_WINDOWS:
            return None
    return found


def _windows(positions: list[int], size: int) -> list[tuple[int, int, list[int]]]:
    """The windows around ``positions`` (merged where they touch), each with its positions."""
    windows: list[tuple[int, int, list[int]]] = []
    for at in positions:
        start, end = max(0, at - _BEFORE), min(size, at + _AFTER)
        if windows and start <= windows[-1][1]:
            last_start, last_end, inside = windows[-1]
            inside.append(at)
            windows[-1] = (last_start, max(last_end, end), inside)
        else:
            windows.append((start, end, [at]))
    return windows


# Candidate starts of a rule's matches: (positions, up to where they are
# complete), or (None, up to where) when the regex engine should look itself.
_Starts = Iterator[tuple[list[int] | None, int]]


def _whole_text_starts(name: str, text: str, low: bytes | bytearray, before: int) -> _Starts:
    cased = _CASED_STARTS.get(name)
    literals = _literals(cased or _STARTS[name])
    for start in range(0, len(low), _BLOCK):
        found = (
            literals.cased_positions(text, start, start + _BLOCK)
            if cased
            else literals.positions(low, start, start + _BLOCK)
        )
        bound = start + _BLOCK - before
        yield (None if len(found) > _DENSE else [at - before for at in found]), bound


def _scan(
    pattern: re.Pattern[str], text: str, start: int, end: int, starts: _Starts
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, start, end)``, trying the pattern only at ``starts``.

    Each match found is the first one at or after the end of the one before
    (no built-in pattern matches an empty string), exactly as the regex
    engine's own scan finds it: a match is only ever tried at a place every
    match of the pattern must start.
    """
    cursor = start
    for candidates, complete_to in starts:
        if candidates is None:
            while cursor < complete_to:
                m = pattern.search(text, cursor, end)
                if m is None:
                    return
                yield m
                cursor = m.end()
            continue
        for at in candidates:
            if at >= cursor:
                m = pattern.match(text, at, end)
                if m is not None:
                    yield m
                    cursor = m.end()


# Built-in rules whose every match ends with the part of their pattern that
# starts with this text (read off the pattern). A private key's BEGIN line
# with no END line after it is read to the end of the text (or window) by the
# lazy body: from each of thousands of BEGIN lines, in a hostile text
# (quadratic: 366 KB of them took 20 s). No match can end past the last END
# line, so a search stops there: the same matches, each character read about once.
_ENDS_WITH: Final = {"private-key": "-----END "}


@functools.cache
def _closing(name: str) -> re.Pattern[str]:
    """The last part of built-in rule ``name``'s pattern, from :data:`_ENDS_WITH`'s text on."""
    source = _BUILT_IN[name].source
    return re.compile(source[source.rindex(_ENDS_WITH[name]) :], re.ASCII)


def _search_end(name: str, text: str, start: int, end: int) -> int:
    """Where the last possible match of built-in rule ``name`` in ``text[start:end]`` ends.

    ``end`` for a rule not in :data:`_ENDS_WITH`; ``start`` (search nothing)
    when its closing line is nowhere there.
    """
    head = _ENDS_WITH.get(name)
    if head is None:
        return end
    pattern = _closing(name)
    at = text.rfind(head, start, end)
    while at >= 0:
        found = pattern.match(text, at, end)
        if found is not None:
            return found.end()
        at = text.rfind(head, start, at)
    return start


# Built-in rules whose match, from where it can start (``first``), reads a run
# of characters and goes on with the rest of its pattern (the tail) where the
# run ends: every start in one run reads to the same end, so when the tail
# does not match there none of them can match, and the search goes on after
# the run; when it does, the first start that matches is the engine's. The
# engine's own scan would read the run again from each start: quadratic on a
# long run (60 KB of ``sk-sk-…`` took 7 s; of ``b.b.b…`` beside an ``@``,
# 4.5 s; of ``eyJ-eyJ-…``, 1.2 s). Each entry is the start and the run as the
# pattern writes it; the run's characters and the tail are read off the pattern.
_RUN_RULES: Final = {
    "masked-key": ("sk-", r"[A-Za-z0-9_\-]*"),
    "email": (r"[A-Za-z0-9._%+\-]", r"[A-Za-z0-9._%+\-]+"),
    "jwt": ("(?:eyJ|eyA[igKJ]|ewo[giJ]|ew0K|ewk[igJ])", r"[A-Za-z0-9_\-]{8,}"),
}


@functools.cache
def _run_patterns(name: str) -> tuple[re.Pattern[str], ...]:
    """A run rule's start, run (to its end, no going back) and tail, compiled as the rules are."""
    first, written = _RUN_RULES[name]
    tail = _BUILT_IN[name].source.split(written, 1)[1]
    run = written[: written.index("]") + 1] + "*+"
    return tuple(re.compile(part, re.ASCII) for part in (first, run, tail))


def _run_matches(
    pattern: re.Pattern[str],
    text: str,
    start: int,
    end: int,
    parts: tuple[re.Pattern[str], ...],
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, start, end)`` for a rule of :data:`_RUN_RULES`."""
    first, run, tail = parts
    at = start
    while (head := first.search(text, at, end)) is not None:
        stop = run.match(text, head.end(), end)
        run_end = stop.end() if stop is not None else head.end()
        at = max(run_end, head.start() + 1)
        if tail.match(text, run_end, end) is None:
            continue
        for each in first.finditer(text, head.start(), max(run_end, head.end())):
            m = pattern.match(text, each.start(), end)
            if m is not None:
                yield m
                at = m.end()
                break


# Built-in rules whose pattern begins with a case-insensitive name of unbounded
# start (slow for the engine to scan for: in 2 MB of prose, 195 ms for
# password-field), but whose every match holds one of the rule's literals,
# then a tail the engine checks at once. Found by their literals (one C pass
# over the lower-cased text), each followed by its tail; only where the tail
# matches is the pattern tried: with ``run``, where the run of those
# characters before the literal begins (the rule's look-behind makes it the
# only place); without, at each of the ``back + 1`` places before it, in order
# — as the engine's own scan would try them. The tails are read off the patterns.
_SEPARATOR: Final = r"[\"']?[ \t]*[:=]"
_ANCHORED: Final = {
    "password-field": (
        {b"passw": r"(?i:(?:or)?d)" + _SEPARATOR, b"pwd": _SEPARATOR, b"secret": _SEPARATOR,
         b"key": _SEPARATOR, b"token": _SEPARATOR},
        60, "A-Za-z0-9_\\-",
    ),
    "aws-secret-key": ({b"secret": r"(?i:_?access_?key)[\"'\s:=]"}, 4, None),
    "aws-session-token": ({b"session": r"(?i:_?token)[\"'\s:=]"}, 4, None),
}  # fmt: skip


@functools.cache
def _anchor(name: str) -> tuple[_Literals, dict[bytes, re.Pattern[str]], re.Pattern[str] | None]:
    tails, back, run = _ANCHORED[name]
    before = re.compile(f"[{run}]{{0,{back + 1}}}\\Z", re.ASCII) if run else None
    compiled = {lit: re.compile(tail, re.ASCII) for lit, tail in tails.items()}
    return _literals(tuple(tails)), compiled, before


def _anchored_matches(
    pattern: re.Pattern[str], text: str, low: bytes | bytearray, start: int, end: int, name: str
) -> Iterator[re.Match[str]]:
    """``pattern.finditer(text, start, end)`` for a rule of :data:`_ANCHORED`."""
    literals, tails, run = _anchor(name)
    back = _ANCHORED[name][1]
    at = start
    for index, offset, stop in literals.block_hits(low, start, end):
        where = start + offset
        if where < at or tails[literals.literals[index]].match(text, start + stop, end) is None:
            continue
        lowest = max(at, where - back)
        if run is not None:
            # The match starts where the run of name characters before it does.
            before = run.search(text, max(0, where - back - 1), where)
            begins = where - (len(before.group()) if before is not None else 0)
            places: Iterable[int] = (begins,) if begins >= lowest else ()
        else:
            places = range(lowest, where + 1)
        for place in places:
            found = pattern.match(text, place, end)
            if found is not None:
                yield found
                at = found.end()
                break


def _finditer(
    rule: SecretRule, built_in: bool, text: str, low: bytes | bytearray, start: int, end: int
) -> Iterator[re.Match[str]]:
    """``rule.pattern.finditer(text, start, end)``; a built-in rule reads a character ~once."""
    if not built_in:
        return rule.pattern.finditer(text, start, end)
    if rule.name in _ANCHORED:
        return _anchored_matches(rule.pattern, text, low, start, end, rule.name)
    if rule.name in _RUN_RULES:
        return _run_matches(rule.pattern, text, start, end, _run_patterns(rule.name))
    return rule.pattern.finditer(text, start, _search_end(rule.name, text, start, end))


def _matches(rule: SecretRule, text: str, low: bytes | bytearray) -> Iterator[re.Match[str]]:
    """The rule's matches in ``text``: everywhere, or in windows around its literals."""
    size = len(text)
    name = rule.name
    built_in = _BUILT_IN.get(name) is rule
    before = _STARTS_BEFORE.get(name) if built_in else None
    positions: list[int] | None = None
    if size > _WINDOWED_FROM:
        # (A rule of another name has no literals: no windows, and no match.)
        positions = _literal_positions(name, low) if name in _LITERALS else []
    # (A run rule is searched by runs: trying it at each of its starts would
    # read a long run again from each.)
    by_runs = built_in and name in _RUN_RULES
    if positions is None:
        if before is None or by_runs or name in _OWN_PREFIX or size < _TRY_WHOLE_BELOW:
            yield from _finditer(rule, built_in, text, low, 0, size)
        else:
            yield from _scan(
                rule.pattern, text, 0, size, _whole_text_starts(name, text, low, before)
            )
        return
    for start, end, inside in _windows(positions, size):
        found = (
            _finditer(rule, built_in, text, low, start, end)
            if before is None or by_runs
            else _scan(
                rule.pattern, text, start, end, iter([([at - before for at in inside], end)])
            )
        )
        for m in found:
            if m.end() == end < size:
                # The window cut it: match again from the same place, unbounded.
                whole = rule.pattern.match(text, m.start())
                if whole is None:
                    continue
                m = whole
            yield m


# Any literal of any rule: one C search turns away nearly every text.
_ALL_LITERALS: Final = tuple(sorted({lit for lits in _BYTE_LITERALS.values() for lit in lits}))
_ANY_LITERAL: Final = re.compile(b"|".join(re.escape(lit) for lit in _ALL_LITERALS))
# A long text is searched for all its longer literals at once, one
# Aho-Corasick pass (about ten times faster than one ``in`` per literal over a
# multi-MB output), window by window so that a text made of literals cannot
# make us hold a match per byte. One-byte literals (``@``, ``?``: every
# non-ASCII character lower-cases to ``?``) are one ``memchr`` each.
_SHORT_LITERALS: Final = tuple(lit for lit in _ALL_LITERALS if len(lit) == 1)
_LONG_LITERALS: Final = tuple(lit for lit in _ALL_LITERALS if len(lit) > 1)
_AUTOMATON: Final = BytesAhoCorasick(list(_LONG_LITERALS))
_PASS_WINDOW: Final = 1 << 18
_LONGEST_LITERAL: Final = max(map(len, _LONG_LITERALS))


def _present_literals(low: bytes | bytearray) -> frozenset[bytes]:
    """Which of the rules' literals occur in ``low``."""
    if len(low) < 4096:
        if _ANY_LITERAL.search(low) is None:
            return frozenset()
        return frozenset(lit for lit in _ALL_LITERALS if lit in low)
    found = {lit for lit in _SHORT_LITERALS if lit in low}
    seen: set[int] = set()
    view = memoryview(low)
    for start in range(0, len(low), _PASS_WINDOW):
        # Windows overlap by the longest literal less one byte: a literal cut
        # by one border is whole in the window before it.
        window = view[start : start + _PASS_WINDOW + _LONGEST_LITERAL - 1]
        seen.update(m[0] for m in _AUTOMATON.find_matches_as_indexes(window, overlapping=True))
        if len(seen) == len(_LONG_LITERALS):
            break
    found.update(_LONG_LITERALS[i] for i in seen)
    return frozenset(found)


def _may_hide(first: bytes, other: bytes) -> bool:
    """Whether a match of ``first`` may cover where ``other`` starts (so a
    leftmost, non-overlapping search reports ``first`` and never ``other``).

    ``other`` may start at an offset of ``first`` holding its first byte (not
    at 0 when they are the same literal) where the two agree as far as both
    go. (Only those offsets are tried: this table is built at import, where
    trying every offset cost ~10 ms of the exporter's start-up.)
    """
    head = other[:1]
    k = first.find(head, 1 if first == other else 0)
    while k >= 0:
        both = min(len(first) - k, len(other))
        if first[k : k + both] == other[:both]:
            return True
        k = first.find(head, k + 1)
    return False


_CASED_BYTES: Final = {name: tuple(lit.encode() for lit in lits) for name, lits in _CASED.items()}


def _folded(lits: tuple[bytes, ...]) -> frozenset[bytes]:
    """The lower-cased words every casing of which is among ``lits`` (ASCII literals).

    Counted, not spelled out: the distinct literals that lower to a word are
    casings of it, so all of them are there when there are 2 to the power of its
    letters (spelling out every casing of every word was most of the import).
    """
    spellings = Counter(lit.lower() for lit in set(lits) if len(lit) > 1)
    return frozenset(
        word for word, count in spellings.items() if count == 1 << sum(map(_is_lower, word))
    )


def _is_lower(byte: int) -> bool:
    """An ASCII lower-case letter: one of two casings."""
    return 0x61 <= byte <= 0x7A


# A rule's case-kept literals, as the presence pass looks for them: a word
# the rule takes in every casing (``pass``, ``toke``, ``bear``: 16 literals
# each) is one lower-case literal, looked for in the lower-cased text. Those
# ~130 casings of a few short words made the one automaton over the text as
# written slow (no SIMD prefilter past 64 literals: 7 of 13.6 ms per 2 MB of
# stream body); two automata of under 64 each run it again.
# (Found once per rule: each table below reads them.)
_FOLDED_WORDS: Final = {name: _folded(lits) for name, lits in _CASED_BYTES.items()}
_PRESENCE_KEYS: Final = {
    name: tuple(
        sorted(
            {lit for lit in lits if lit.lower() not in _FOLDED_WORDS[name]} | _FOLDED_WORDS[name],
        )
    )
    for name, lits in _CASED_BYTES.items()
}
_FOLDED_LONG: Final = tuple(sorted({word for words in _FOLDED_WORDS.values() for word in words}))
_KEPT: Final = {
    lit
    for name, lits in _CASED_BYTES.items()
    for lit in lits
    if lit.lower() not in _FOLDED_WORDS[name]
}
_CASED_SHORT: Final = tuple(sorted(lit for lit in _KEPT if len(lit) == 1))
_CASED_LONG: Final = tuple(sorted(lit for lit in _KEPT if len(lit) > 1))
# The case-kept literals in groups of at most 32: an automaton of more runs a
# slower prefilter (59 in one: 1.4 ms per 2 MB of stream body; in two: 0.9).
_CASED_GROUPS: Final = tuple(_CASED_LONG[at : at + 32] for at in range(0, len(_CASED_LONG), 32))
# Every literal, lower-cased: a short text none of which is in (nearly every
# string an export reads) is done after one lowering and one search.
_ANY_FOLDED: Final = BytesAhoCorasick(
    sorted({lit.lower() for lit in (*_KEPT, *_FOLDED_LONG)}), matchkind=MATCHKIND_LEFTMOST_FIRST
)
if _KEPT & set(_FOLDED_LONG):
    raise AssertionError("a case-kept literal is also a folded word: their presence would mix")
if any(not lit.isascii() or len(lit) != 1 or lit.isalpha() for lit in _CASED_SHORT):
    raise AssertionError("one-byte literals are looked for once, the same in either case")


@functools.cache
def _hidden_by(group: tuple[bytes, ...]) -> dict[bytes, frozenset[bytes]]:
    """Each literal of ``group`` -> those of it that may hide it (:func:`_may_hide`).

    Built on first use, by a text in which a literal was found: most texts
    hold none, and at import it cost a millisecond or two of every command's
    start-up.
    """
    return {lit: frozenset(first for first in group if _may_hide(first, lit)) for lit in group}


@functools.lru_cache(maxsize=64)
def _cased_automaton(literals: tuple[bytes, ...]) -> BytesAhoCorasick:
    # Leftmost-first and non-overlapping, the automaton runs its SIMD
    # prefilter (several times faster than an overlapping search); what a
    # reported match may hide is looked for on its own, when that match was seen.
    return BytesAhoCorasick(list(literals), matchkind=MATCHKIND_LEFTMOST_FIRST)


#: Characters of a long ASCII text encoded (copied) at a time by the presence
#: pass: small enough to come from the heap and be reused (a copy over the
#: command's fixed 128 KiB mmap threshold would be a fresh mapping each time).
_TEXT_WINDOW: Final = 1 << 16


def _view_windows(view: memoryview, overlap: int) -> Iterator[memoryview]:
    """``view`` in windows of :data:`_PASS_WINDOW` bytes, each ``overlap`` more."""
    for start in range(0, len(view), _PASS_WINDOW):
        yield view[start : start + _PASS_WINDOW + overlap]


def _text_windows(text: str, overlap: int) -> Iterator[bytes]:
    """An ASCII ``text`` as bytes, in windows of :data:`_TEXT_WINDOW`, each ``overlap`` more."""
    for start in range(0, len(text), _TEXT_WINDOW):
        yield text[start : start + _TEXT_WINDOW + overlap].encode("ascii")


_Windows = Callable[[int], Iterator[bytes | memoryview]]


def _reported(looking_for: tuple[bytes, ...], windows: _Windows) -> set[bytes]:
    """The literals a leftmost, non-overlapping search reports, window by window.

    ``windows(overlap)``: the text's bytes in windows overlapping by ``overlap``.
    """
    reported: set[bytes] = set()
    for window in windows(max(map(len, looking_for)) - 1):
        matches = _cased_automaton(looking_for).find_matches_as_indexes(window)
        seen = {looking_for[i] for i in {m[0] for m in matches}}
        if seen:
            # What is seen once is not looked for again: prose is full of
            # "aws" and "bear", and each match reported costs a tuple.
            reported |= seen
            looking_for = tuple(lit for lit in looking_for if lit not in seen)
            if not looking_for:
                break
    return reported


def _present(group: tuple[bytes, ...], windows: _Windows) -> set[bytes]:
    """Which literals of ``group`` occur in the text ``windows`` reads.

    The literals found are the same for any windows: a literal not reported
    is looked for again wherever a reported one may have hidden it.
    """
    found: set[bytes] = set()
    looking_for = group
    while looking_for:
        reported = _reported(looking_for, windows)
        if not reported:
            break  # nothing could have been hidden
        found |= reported
        # A literal not reported may only have been hidden by one that was:
        # those are looked for again, on their own.
        hidden_by = _hidden_by(group)
        looking_for = tuple(
            lit
            for lit in looking_for
            if lit not in reported and not reported.isdisjoint(hidden_by[lit])
        )
    return found


def _lowered(windows: _Windows) -> _Windows:
    """``windows``, lower-cased (ASCII)."""

    def lowered(overlap: int) -> Iterator[bytes | memoryview]:
        return (bytes(window).lower() for window in windows(overlap))

    return lowered


_Low = bytes | bytearray | Callable[[], bytes | bytearray] | None


def _present_cased(ascii_text: bytes | bytearray | str, low: _Low = None) -> set[bytes]:
    """Which of the built-in rules' presence keys (:data:`_PRESENCE_KEYS`) occur in ``ascii_text``.

    ``low`` is ``ascii_text`` lower-cased, where the caller has it, or what
    makes it once the text as written has been read (a copy lowered in
    place). A ``str`` (ASCII only) is read a window at a time, never copied whole.
    """
    windows: _Windows
    if isinstance(ascii_text, str):
        text = ascii_text
        found: set[bytes] = set()
        for window in _text_windows(text, 0):
            found.update(lit for lit in _CASED_SHORT if lit in window)

        def windows(overlap: int) -> Iterator[bytes | memoryview]:
            return _text_windows(text, overlap)

    else:
        found = {lit for lit in _CASED_SHORT if lit in ascii_text}
        view = memoryview(ascii_text)

        def windows(overlap: int) -> Iterator[bytes | memoryview]:
            return _view_windows(view, overlap)

    for group in _CASED_GROUPS:
        found |= _present(group, windows)
    if low is None:
        found |= _present(_FOLDED_LONG, _lowered(windows))
    else:
        low_view = memoryview(low() if callable(low) else low)
        found |= _present(_FOLDED_LONG, lambda overlap: _view_windows(low_view, overlap))
    return found


_LOWER_BLOCK: Final = 1 << 18


def _ascii(text: str) -> bytes | bytearray:
    """``text`` as ASCII bytes, one per character (anything else: ``?``).

    An ASCII text (or a short one) is one C copy; another long one is
    encoded block by block into one buffer, to be lower-cased in place.
    """
    if len(text) <= _LOWER_BLOCK or text.isascii():
        return text.encode("ascii", "replace")
    data = bytearray(len(text))
    for at in range(0, len(text), _LOWER_BLOCK):
        data[at : at + _LOWER_BLOCK] = text[at : at + _LOWER_BLOCK].encode("ascii", "replace")
    return data


def _lower_in_place(data: bytearray) -> bytearray:
    for at in range(0, len(data), _LOWER_BLOCK):
        data[at : at + _LOWER_BLOCK] = data[at : at + _LOWER_BLOCK].lower()
    return data


def _ascii_lower(text: str) -> bytes | bytearray:
    """``text`` as lower-case ASCII bytes, one per character (anything else: ``?``).

    str.lower() on a long non-ASCII text would allocate 13 bytes a character;
    a long text is lowered block by block into one buffer, so the encoded
    copy and its lower-cased copy are never both whole.
    """
    if len(text) <= _LOWER_BLOCK:
        return text.encode("ascii", "replace").lower()
    low = bytearray(len(text))
    for at in range(0, len(text), _LOWER_BLOCK):
        low[at : at + _LOWER_BLOCK] = (
            text[at : at + _LOWER_BLOCK].encode("ascii", "replace").lower()
        )
    return low


def _may_match(
    rules: tuple[SecretRule, ...], data: bytes | bytearray | str, low: _Low
) -> list[SecretRule]:
    """The built-in ``rules`` one of whose case-kept literals is in ``data`` (lowered: ``low``)."""
    present = _present_cased(data, low)
    return [rule for rule in rules if not present.isdisjoint(_PRESENCE_KEYS[rule.name])]


def _present_rules(rules: tuple[SecretRule, ...], low: bytes | bytearray) -> list[SecretRule]:
    """Those of ``rules`` (a caller's own among them) whose literals are in ``low``."""
    present = _present_literals(low)
    if not present and all(rule.name in _LITERALS for rule in rules):
        return []
    return [
        rule
        for rule in rules
        if rule.name not in _BYTE_LITERALS or not present.isdisjoint(_BYTE_LITERALS[rule.name])
    ]


def find_secrets(text: str, rules: Iterable[SecretRule] = ALL_RULES) -> list[SecretMatch]:
    """Every secret in ``text``, without overlaps, in order."""
    if not text:
        return []
    rules = tuple(rules)
    low: bytes | bytearray
    if all(_BUILT_IN.get(rule.name) is rule for rule in rules):
        if len(text) > _LOWER_BLOCK and text.isascii():
            # Read a window at a time, never copied whole (and lowered once).
            low = _ascii_lower(text)
            running = _may_match(rules, text, low)
        else:
            data = _ascii(text)
            if isinstance(data, bytearray):
                # (A long text not ASCII: its copy is lowered in place, once
                # the text as written is read.)
                running = _may_match(rules, data, functools.partial(_lower_in_place, data))
                low = data
            else:
                low = data.lower()
                if len(data) < _TRY_WHOLE_BELOW and not _ANY_FOLDED.find_matches_as_indexes(low):
                    return []
                running = _may_match(rules, data, low)
                del data
        if not running:
            return []
    else:
        low = _ascii_lower(text)
        running = _present_rules(rules, low)
    found: list[SecretMatch] = []
    for rule in running:
        for m in _matches(rule, text, low):
            start, end = m.span(rule.group)
            # A placeholder left by an earlier pass (``?key=[query-secret***]``)
            # is not a secret: rewriting stays idempotent, the leak scan quiet.
            if end > start and not is_placeholder(text[start:end]):
                found.append(SecretMatch(start, end, rule.name))
    if not found:
        return []
    found.sort(key=lambda s: (s.start, -(s.end - s.start), _RANK.get(s.rule, len(_RANK))))
    out: list[SecretMatch] = []
    last = -1
    for match in found:
        if match.start >= last:
            out.append(match)
            last = match.end
    return out


_PLACEHOLDER = re.compile(r"\[[a-z][a-z:\-]*\**\]|\**|\[redacted\]|\[removed\]")


def is_placeholder(value: str) -> bool:
    """Whether ``value`` is already a redaction (ours, or a recorder's ``[redacted]``)."""
    return _PLACEHOLDER.fullmatch(value.strip()) is not None


def placeholder(rule: str, width: int) -> str:
    """An ASCII placeholder of exactly ``width`` characters naming ``rule``.

    ``[openai-key*************]``; too short for the name: ``*****``. It
    contains no quote or backslash, so it is safe inside any JSON string,
    and matches no secret pattern.
    """
    label = f"[{rule}"
    if width < len(label) + 1:
        return "*" * width
    return label + "*" * (width - len(label) - 1) + "]"


def replace_shapes(text: str, replacement: Callable[[str, str], str]) -> str:
    """``text`` with each value shaped like a secret replaced by ``replacement(value, rule)``.

    E-mail addresses are kept: an address is private, not a credential (export's business).
    """
    matches = find_secrets(text)
    if not matches:
        return text
    out: list[str] = []
    at = 0
    for m in matches:
        if m.rule == "email":
            continue
        out.append(text[at : m.start])
        out.append(replacement(text[m.start : m.end], m.rule))
        at = m.end
    out.append(text[at:])
    return "".join(out)
