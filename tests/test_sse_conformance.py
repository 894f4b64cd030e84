"""Every case of the SSE conformance suite (tests/data/sse_conformance_cases.json).

Provenance of the cases: tests/data/sse_conformance_README.md. Each case is fed
as its own chunks, byte at a time, and whole; all three must give exactly the
expected events, final retry and last event id.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from inspector.core.sse import FrameDecoder

from .conftest import DATA

CASES: list[dict[str, Any]] = json.loads((DATA / "sse_conformance_cases.json").read_text("utf-8"))


def case_chunks(case: dict[str, Any]) -> list[bytes]:
    if "chunks_hex" in case:
        return [bytes.fromhex(h) for h in case["chunks_hex"]]
    if "chunks" in case:
        return [c.encode("utf-8") for c in case["chunks"]]
    if "input_hex" in case:
        return [bytes.fromhex(case["input_hex"])]
    return [case["input"].encode("utf-8")]


def decode(chunks: list[bytes]) -> tuple[list[dict[str, str]], FrameDecoder]:
    decoder = FrameDecoder()
    events = [
        {"event": f.event, "data": f.data, "id": f.id}
        for chunk in chunks
        for f in decoder.feed(chunk)
        if not f.is_comment
    ]
    return events, decoder


def ways_to_feed(case: dict[str, Any]) -> dict[str, list[bytes]]:
    chunks = case_chunks(case)
    whole = b"".join(chunks)
    return {
        "as-given": chunks,
        "byte-at-a-time": [whole[i : i + 1] for i in range(len(whole))],
        "whole": [whole],
    }


def test_the_suite_has_all_84_cases() -> None:
    assert len(CASES) == 84


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_conformance_case(case: dict[str, Any]) -> None:
    for how, chunks in ways_to_feed(case).items():
        events, decoder = decode(chunks)
        assert events == case["expected"], how
        assert decoder.retry == case.get("expected_retry"), how
        if "expected_last_event_id" in case:
            assert decoder.last_event_id == case["expected_last_event_id"], how
