"""The streaming scrubber (``SecretScrubber.feed``) and export's recovery by hash: old vs new.

    python -m benchmarks.bench_secrets_scrub --old ../old-checkout            # 8 MB streams
    python -m benchmarks.bench_secrets_scrub --old ../old-checkout --mb 2 --repeats 3

Both scrubbers run in this process on the same chunks, round-robin
(:func:`benchmarks.timing.compare`, medians of CPU time). The old one is the
``SecretScrubber`` of another checkout (``inspector/redact/spellings.py``, or
``inspector/live/scrub.py`` before there was a redact package), loaded by
path. Each stream is fed in chunks as a live recording receives them, with
the secrets of a request (a key, a cookie value, a Basic password) in play;
the outputs must be the same where the stream holds none of them (a
benchmark of a wrong answer is no benchmark).

The last rows time :meth:`inspector.redact.digests.DigestMatcher.recover`
(new only: export's search of an imported capture for what import
removed) on the same streams.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import secrets as random_bytes
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .streams import stream_of_size
from .timing import compare

__all__ = ["SECRETS", "load_old", "main", "streams"]

MB = 1_000_000
SECRETS = ("sk-proj-" + "Qm7Zt2Lp" * 5, "session-cookie-" + "Hj6Kd9" * 3, "basic-pass-Xy7Xy7Xy7")
CHUNK = 1024


def streams(size: int) -> Iterator[tuple[str, bytes]]:
    """``(name, body)``: provider streams of about ``size`` bytes, and prose-heavy ones."""
    for provider in ("openai-chat", "anthropic"):
        yield provider, stream_of_size(provider, size)
    base64ish = (b"data: " + random_bytes.token_urlsafe(600).encode() + b"\n\n") * (size // 800)
    yield "base64-like data", base64ish[:size]


def load_old(checkout: Path) -> type:
    """The ``SecretScrubber`` class of another checkout, loaded by path."""
    for relative in ("inspector/redact/spellings.py", "inspector/live/scrub.py"):
        path = checkout / relative
        if path.exists():
            spec = importlib.util.spec_from_file_location("_old_scrubber", path)
            assert spec is not None and spec.loader is not None
            module = types.ModuleType("_old_scrubber")
            sys.modules["_old_scrubber"] = module
            spec.loader.exec_module(module)
            return module.SecretScrubber  # type: ignore[no-any-return]
    raise SystemExit(f"{checkout}: no SecretScrubber found")


def _fed(scrubber_class: type, chunks: list[bytes]) -> bytes:
    scrubber = scrubber_class(SECRETS)
    out = [scrubber.feed(chunk) for chunk in chunks]
    out.append(scrubber.flush())
    return b"".join(out)


def _recover(matcher: Any, text: str) -> Any:
    return matcher.recover(text)


def main(argv: list[str] | None = None) -> None:
    """Time old and new on every stream; print a table of medians."""
    from inspector.redact.digests import DigestMatcher
    from inspector.redact.secretset import SecretSet
    from inspector.redact.spellings import SecretScrubber

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", type=Path, required=True, help="checkout of the old code")
    parser.add_argument("--mb", type=float, default=8.0, help="size of each stream (MB)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    old_class = load_old(args.old)
    size = int(args.mb * MB)
    print(f"{'stream':<18} {'what':<16} {'old ms':>8} {'new ms':>8} {'speed-up':>8}  MB/s new")
    record = SecretSet([("secret", s) for s in SECRETS]).digests()
    matcher = DigestMatcher.from_header({"redacted": record})
    for name, body in streams(size):
        chunks = [body[at : at + CHUNK] for at in range(0, len(body), CHUNK)]
        old: Callable[[], bytes] = functools.partial(_fed, old_class, chunks)
        new: Callable[[], bytes] = functools.partial(_fed, SecretScrubber, chunks)
        if old() != new():
            raise SystemExit(f"{name}: the scrubbers' outputs differ")
        results = compare([("old", old), ("new", new)], len(body), 1, args.repeats)
        before, after = results["old"].median, results["new"].median
        print(
            f"{name:<18} {'feed (1 KiB)':<16} {before * 1e3:8.1f} {after * 1e3:8.1f} "
            f"{before / after:7.2f}x  {len(body) / after / MB:7.1f}"
        )
        text = body.decode("utf-8", "surrogateescape")
        results = compare(
            [("new", functools.partial(_recover, matcher, text))], len(body), 1, args.repeats
        )
        after = results["new"].median
        print(
            f"{name:<18} {'recover by hash':<16} {'-':>8} {after * 1e3:8.1f} {'':>8}  "
            f"{len(body) / after / MB:7.1f}"
        )


if __name__ == "__main__":
    main()
