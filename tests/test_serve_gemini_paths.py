"""``inspector serve`` answers Gemini's stream on both API versions google-genai asks for."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from inspector.serve import ReplayServer

from .conftest import ROOT
from .test_live_helpers import serving


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with serving(ROOT / "captures" / "gemini") as running:
        yield running


@pytest.mark.parametrize("version", ["v1beta", "v1"])
def test_gemini_streams_on_v1beta_and_v1(server: ReplayServer, version: str) -> None:
    url = f"{server.url}/{version}/models/text-single:streamGenerateContent?alt=sse"
    response = httpx.post(url, json={"contents": []}, timeout=10)
    assert response.status_code == 200
    assert response.headers["x-inspector-capture"] == "text-single"
    assert response.text.startswith("data: ")
