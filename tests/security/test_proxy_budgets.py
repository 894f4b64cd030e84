"""Boundary: what an upstream sends cannot make the proxy record or decode without bound.

The app is the proxy's user: it receives what the upstream sent, byte for
byte, up to where a budget stops the proxy. The capture keeps at most
``max_record`` bytes of a response body and says where it was cut; a body
the upstream compressed although it was asked not to is decoded within a
ratio and a size, and past them the stream is cut for the app too and the
capture says why. What the request sends is bounded by the front
(``test_server_front.py``) and stored so the capture reads back
(``test_capture_limits.py``).
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from inspector.capture import read_recording
from inspector.cli import main

from .servers_helpers import CHAT, CHAT_END, Witness, chat_frame, gzip_bomb, proxy_to


@pytest.fixture(scope="module")
def upstream() -> Iterator[Witness]:
    with Witness(big=3 * 1024 * 1024) as witness:
        yield witness


def _settle(proxy: Any) -> None:
    for _ in range(1000):
        if proxy.log.flows and not any(flow.live for flow in proxy.log.flows):
            return
        time.sleep(0.01)
    raise AssertionError("the exchange did not end")


def _receive(proxy: Any, model: str) -> tuple[bytes, str]:
    received = b""
    problem = ""
    with httpx.Client(timeout=60) as client:
        try:
            with client.stream("POST", proxy.url + CHAT, json={"model": model, "stream": True}
                               ) as response:  # fmt: skip
                for piece in response.iter_raw():
                    received += piece
        except httpx.TransportError as exc:
            problem = type(exc).__name__
    _settle(proxy)
    return received, problem


def test_a_long_response_reaches_the_app_whole_and_the_capture_says_where_it_was_cut(
    upstream: Witness, tmp_path: Path
) -> None:
    with proxy_to(upstream.url, tmp_path, max_record=1024 * 1024) as proxy:
        received, problem = _receive(proxy, "big")
    assert problem == "" and received.endswith(CHAT_END) and len(received) > 3 * 1024 * 1024
    (capture,) = sorted(tmp_path.glob("*.jsonl"))
    rec = read_recording(capture)
    assert rec.problems == [] and rec.body == received[: 1024 * 1024]
    assert rec.end is not None and rec.end.reason == "eof"
    assert f"only the first {1024 * 1024} of the {len(received)} body bytes" in (
        rec.end.error or ""
    )
    assert main(["check", str(capture)]) in (0, 1)  # readable: a cut stream may be incomplete


def test_a_gzip_bomb_is_decoded_only_up_to_the_ratio_and_the_capture_says_why(
    upstream: Witness, tmp_path: Path
) -> None:
    with proxy_to(upstream.url, tmp_path) as proxy:
        received, _problem = _receive(proxy, "bomb")
    # The app gets the body as sent (64 MiB packed into ~64 KB); the capture's decoded
    # copy stops after about 100 times what arrived, not at 64 MiB.
    assert received == gzip_bomb(64 * 1024 * 1024)
    (capture,) = sorted(tmp_path.glob("*.jsonl"))
    rec = read_recording(capture)
    assert rec.problems == [] and 0 < len(rec.body) < 16 * 1024 * 1024
    assert rec.body == zlib.decompress(received, 31)[: len(rec.body)]
    assert rec.end is not None and "expands more than 100 times" in (rec.end.error or "")


def test_a_gzip_body_is_decoded_only_up_to_the_size_budget(
    upstream: Witness, tmp_path: Path
) -> None:
    with proxy_to(upstream.url, tmp_path, max_ratio=100_000, max_record=2 * 1024 * 1024) as proxy:
        received, _problem = _receive(proxy, "bomb")
    assert received == gzip_bomb(64 * 1024 * 1024)  # the app's copy is the body as sent
    (capture,) = sorted(tmp_path.glob("*.jsonl"))
    rec = read_recording(capture)
    assert rec.problems == [] and len(rec.body) <= 2 * 1024 * 1024
    assert rec.end is not None and "decodes to more than" in (rec.end.error or "")


def test_an_ordinary_stream_is_not_touched_by_the_budgets(
    upstream: Witness, tmp_path: Path
) -> None:
    with proxy_to(upstream.url, tmp_path) as proxy:
        received, problem = _receive(proxy, "small")
    assert problem == "" and received == chat_frame("hello ") + chat_frame("world") + CHAT_END
    (capture,) = sorted(tmp_path.glob("*.jsonl"))
    rec = read_recording(capture)
    assert rec.body == received and rec.end is not None and rec.end.error is None
