"""The export's secret search (``find_secrets``, ``find_encoded_secrets``): old vs new.

    python -m benchmarks.bench_secrets --old ../old-checkout          # 30 MB texts
    python -m benchmarks.bench_secrets --old ../old-checkout --mb 5 --repeats 3
    python -m benchmarks.bench_secrets --old ../old-checkout --check   # same finds? no timing

Both implementations run in this process, on the same texts, round-robin
(:func:`benchmarks.timing.compare`: one run of each, then the next round;
medians of CPU time). The old one is the ``inspector/export`` of another
checkout, loaded by path under another package name, so neither sees the
other's module state. Every text is also checked to give the same matches
under both (a benchmark of a wrong answer is no benchmark).

The texts (:func:`corpus`) are what the export's leak scan reads — the body
of an OpenAI-Chat stream, its events file — and what makes a search work
hardest: model prose with and without planted secrets, prose in other
scripts, NULs and ``0xFF``, dense near-misses of every rule's literal
(``sk-``, ``AKIA``, ``Bearer ``, ``eyJ``, ``@``…), and JSON-escaped and
percent-encoded text (the decoded views of ``find_encoded_secrets``).
"""

from __future__ import annotations

import argparse
import functools
import importlib
import itertools
import random
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from .streams import stream_of_size
from .timing import compare, paired_ratio

__all__ = ["PLANTED", "corpus", "load_old", "main"]

MB = 1_000_000

# One secret of every rule (and the shapes a rule has), as a leak scan meets them.
PLANTED: tuple[str, ...] = (
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7d\n-----END RSA PRIVATE KEY-----",
    "sk-ant-api03-" + "Ab9_-" * 8,
    "sk-or-v1-" + "f00d" * 8,
    "sk-proj-" + "A1b2C3d4" * 5,
    "sk-" + "Zz09" * 12,
    "sk-proj-********abcd",
    "AIza" + "SyD-9tSrke72PouQMnMX_7Gi1bXwYHpLr3w"[:35],
    "ya29." + "a0AfH6SMB" * 4,
    "gsk_" + "Q7" * 16,
    "xai-" + "k3Y" * 16,
    "hf_" + "abcDEF123" * 4,
    "AKIA" + "IOSFODNN7EXAMPLE",
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "ghp_" + "x" * 36,
    "github_pat_" + "11ABCDEFG" * 3,
    "xoxb-" + "1234567890-abcdefghij",
    "xapp-1-" + "A0B1C2D3E4F5",
    "https://hooks.slack.com/services/T000/B000/XXXXXXXXXX",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl",
    "Bearer abcdefghijklmnop1234",
    "https://api.example.com/v1?alt=sse&key=AIzaShortButSecret",
    "jane.doe+test@example.co.uk",
)

_PROSE = (
    "the stream arrives in small pieces and each one carries a delta of text "
    "laws draws paws Asia Malaysia task-based desk-top risk-free the bearer of news "
    "who asked? you & me, mail me at home later; aida arena acca aroa xoxo hf gh "
    "eyes skill sketch kiosk json api key token signature private keys"
)
_WORDS = tuple(_PROSE.split())
_NEAR_MISSES = (
    "sk-", "sk-ant-", "sk-proj-", "sk-abc", "sk-****", "AIza", "ya29.", "gsk_", "xai-", "hf_",
    "AKIA", "ASIA12", "aws_secret_key", "AWS ", "ghp_", "github_pat_", "xoxb-", "xapp-1-",
    "hooks.slack.com", "eyJ", "eyJabc.eyJ", "Bearer ", "bearer x", "?key=", "&token=ab",
    "a@b", "user@host", "@@", "PRIVATE KEY", "-----END PRIVATE KEY-----",
)  # fmt: skip
_SCRIPTS = "汉字文本流式传输 текст потока نص البث 🙂🚀 ελληνικά ñandú "


def _prose(size: int, seed: int, extra: tuple[str, ...] = ()) -> str:
    rng = random.Random(seed)
    words = _WORDS + extra
    out: list[str] = []
    total = 0
    while total < size:
        line = " ".join(rng.choice(words) for _ in range(12)) + rng.choice((". ", "? ", "\n"))
        out.append(line)
        total += len(line)
    return "".join(out)[:size]


def _planted(text: str, every: int) -> str:
    """``text`` with a secret of each kind in turn every ``every`` characters."""
    out: list[str] = []
    for n, at in enumerate(range(0, len(text), every)):
        out.append(text[at : at + every])
        out.append(f" {PLANTED[n % len(PLANTED)]} ")
    return "".join(out)


def _stream_body(size: int) -> str:
    return stream_of_size("openai-chat", size).decode()


def _events(size: int) -> str:
    body = _stream_body(size)
    lines = []
    for n, line in enumerate(body.splitlines()):
        if line.startswith("data: {"):
            text = orjson.loads(line[6:]).get("choices", [{}])
            lines.append(orjson.dumps({"seq": n, "type": "block.delta", "data": text}).decode())
    return "\n".join(lines)[:size]


def _nul_ff(size: int) -> str:
    rng = random.Random(7)
    return "".join(
        rng.choice(("\0" * 64, "\xff" * 64, "\0\xff" * 16, "text ")) for _ in range(size // 20)
    )[:size]


def _escaped(size: int) -> str:
    """Prose with secrets, as a JSON string inside a JSON string, some of it %-encoded."""
    inner = _planted(_prose(size // 3, 5), 200_000)
    once = orjson.dumps(inner).decode()
    twice = orjson.dumps(once).decode()
    return twice.replace("sk-", "sk%2D")[:size]


# name -> how to make a text of about ``size`` characters
TEXTS: dict[str, Callable[[int], str]] = {
    "stream body": _stream_body,
    "events file": _events,
    "prose": lambda size: _prose(size, 1),
    "prose+secrets": lambda size: _planted(_prose(size, 2), 100_000),
    "other scripts": lambda size: _planted(_prose(size, 3, tuple(_SCRIPTS.split())), 250_000),
    "NUL/0xFF": _nul_ff,
    "near misses": lambda size: _prose(size, 4, _NEAR_MISSES),
    "escaped+%": _escaped,
}


def corpus(size: int) -> Iterator[tuple[str, str]]:
    """``(name, text)`` for each kind of text, about ``size`` characters each."""
    for name, make in TEXTS.items():
        yield name, make(size)


def adversarial(seed: int = 0) -> Iterator[tuple[str, str]]:
    """Texts at the search's edges, at its real sizes: ``(description, text)``.

    Every planted secret, alone and next to another, at and around each
    border the search has — window edges (1 KiB before a literal, 16 KiB
    after), its block and pass windows (32 KiB, 256 KiB), the size where
    windows start (64 KiB) — in fillers that hold no literal, a few (windows)
    or very many (whole-text passes, dense blocks); in other scripts, with
    NULs, in other letter cases.
    """
    rng = random.Random(seed)
    fillers = {
        "plain": "lorem ipsum dolor sit amet ",
        "literals": " ".join(_WORDS) + " ",
        "near misses": " ".join(_NEAR_MISSES) + " ",
        "scripts": _SCRIPTS,
        "nul": "\0\xff \0",
    }
    borders = (1 << 15, (1 << 16) + 1, (1 << 16) + 1024, 1 << 18)
    for kind, filler in fillers.items():
        for border in borders:
            base = (filler * (2 * border // len(filler) + 2))[: border + 40_000]
            for secret in PLANTED:
                for variant in (secret, secret.upper(), secret[:-1]):
                    for shift in (-len(variant), 0, rng.randrange(-2000, 2000)):
                        at = max(0, border + shift)
                        text = base[:at] + variant + base[at:]
                        yield f"{kind} filler, {variant[:12]!r} at {at}", text
            pair = rng.choice(PLANTED) + rng.choice(PLANTED)
            yield f"{kind} filler, two secrets touching", base[:border] + pair + base[border:]
            many = " ".join(rng.choice(PLANTED) for _ in range(3000))  # past every window bound
            yield f"{kind} filler, 3000 secrets", base[:border] + many + base[border:]


def check(old_secrets: types.ModuleType, old_decoded: types.ModuleType, size: int) -> int:
    """Compare old and new on the corpus and the adversarial texts; how many differ."""
    from inspector.export import decoded
    from inspector.redact import shapes as secrets

    differ = 0
    checked = 0
    texts = itertools.chain(corpus(size), adversarial())
    for name, text in texts:
        for label, old, new in (
            ("find_secrets", old_secrets.find_secrets, secrets.find_secrets),
            (
                "find_encoded_secrets",
                old_decoded.find_encoded_secrets,
                decoded.find_encoded_secrets,
            ),
        ):
            checked += 1
            if _spans(old(text)) != _spans(new(text)):
                differ += 1
                print(f"DIFFERS: {label} on {name}")
    print(f"{checked} comparisons, {differ} differ")
    return differ


def load_old(checkout: Path) -> tuple[types.ModuleType, types.ModuleType]:
    """``secrets`` and ``decoded`` of another checkout's ``inspector/export``, by path."""
    root = checkout / "inspector"
    for name, path in (("_old_inspector", root), ("_old_inspector.export", root / "export")):
        package = types.ModuleType(name)
        package.__path__ = [str(path)]  # a namespace: its __init__ (all of export) not run
        sys.modules[name] = package
    try:
        secrets = importlib.import_module("_old_inspector.redact.shapes")
    except ModuleNotFoundError:  # a checkout from before inspector/redact
        secrets = importlib.import_module("_old_inspector.export.secrets")
    decoded = importlib.import_module("_old_inspector.export.decoded")
    return secrets, decoded


def _spans(found: list[Any]) -> list[tuple[Any, ...]]:
    return [tuple(getattr(f, k) for k in f.__slots__) for f in found]


def main(argv: list[str] | None = None) -> None:
    """Time old and new on every text; print a table of medians."""
    from inspector.export import decoded
    from inspector.redact import shapes as secrets

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="checkout of the old code")
    parser.add_argument("--mb", type=float, default=30.0, help="size of each text (MB)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--check", action="store_true", help="only compare the finds")
    args = parser.parse_args(argv)
    old_secrets, old_decoded = load_old(args.old)
    size = int(args.mb * MB)
    if args.check:
        raise SystemExit(1 if check(old_secrets, old_decoded, size) else 0)
    print(f"{'text':<15} {'function':<20} {'old ms':>8} {'new ms':>8} {'speed-up':>8}  matches")
    for name, text in corpus(size):
        for label, old, new in (
            ("find_secrets", old_secrets.find_secrets, secrets.find_secrets),
            (
                "find_encoded_secrets",
                old_decoded.find_encoded_secrets,
                decoded.find_encoded_secrets,
            ),
        ):
            expected = _spans(old(text))
            if _spans(new(text)) != expected:
                raise SystemExit(f"{name}: {label} differs from the old one")
            results = compare(
                [("old", functools.partial(old, text)), ("new", functools.partial(new, text))],
                len(text),
                1,
                args.repeats,
            )
            before, after = results["old"].median, results["new"].median
            print(
                f"{name:<15} {label:<20} {before * 1e3:8.1f} {after * 1e3:8.1f} "
                f"{paired_ratio(results['old'], results['new']):7.2f}x  {len(expected)}"
            )
        del text


if __name__ == "__main__":
    main()
