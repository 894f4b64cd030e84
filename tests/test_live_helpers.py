"""Helpers shared by the live-mode, replay-server and fault-matrix tests (no tests here)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from inspector.capture import load_recording
from inspector.live import LiveFeed, build_request
from inspector.serve import ReplayServer, load_catalog

from .conftest import ROOT

REAL = ROOT / "tests" / "fixtures" / "real"
CHAT = REAL / "openai-chat"
#: A key no real provider would issue, easy to grep for in everything written.
SECRET = "sk-test-" + "Zq7xW" * 6
#: The four keys' usual variables, all set to distinctive values.
SECRET_ENV = {
    "OPENAI_API_KEY": SECRET,
    "ANTHROPIC_API_KEY": SECRET + "-anthropic",
    "GEMINI_API_KEY": SECRET + "-gemini",
    "GOOGLE_API_KEY": SECRET + "-google",
}


@contextmanager
def serving(*paths: Path, speed: float = 0.0) -> Iterator[ReplayServer]:
    """A replay server on a free loopback port, in a background thread."""
    server = ReplayServer(load_catalog(paths), speed=speed)
    with server:
        yield server


async def record_live(
    url: str,
    provider: str,
    model: str,
    capture: Path | None,
    *,
    api_key: str | None = None,
    **options: Any,
) -> LiveFeed:
    """One live request against ``url``, run to its end."""
    request = build_request(provider, model=model, prompt="hi", base_url=url, api_key=api_key)
    feed = LiveFeed(request, capture=capture, api_key=api_key, **options)
    await feed.run(lambda: None)
    return feed


def without_ids(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events without ``stream_id`` (a live id is random; a file's is a hash of its bytes)."""
    return [{k: v for k, v in e.items() if k != "stream_id"} for e in events]


def body_of(path: Path) -> bytes:
    """Every byte a capture or raw file holds."""
    return load_recording(path).body


def assert_nothing_holds(secrets: tuple[str, ...], *texts_or_paths: str | Path) -> None:
    """No secret occurs in any of the texts, or in any file below the paths."""
    for item in texts_or_paths:
        if isinstance(item, Path):
            files = [item] if item.is_file() else [p for p in item.rglob("*") if p.is_file()]
            for file in files:
                content = file.read_bytes()
                for secret in secrets:
                    assert secret.encode() not in content, f"{secret!r} written to {file}"
        else:
            for secret in secrets:
                assert secret not in item, f"{secret!r} printed"
