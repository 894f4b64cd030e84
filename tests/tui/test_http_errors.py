"""An HTTP error instead of a stream: status, headers and body, everywhere.

A provider that refuses a request answers 429 / 529 / … with a JSON body and
no SSE frames. The Frames pane's end row says ``HTTP 429`` with the headers
and the body on one line, the end-of-bytes detail lists them and shows the
body pretty-printed, and the details screen (``d``) shows the body under the
response.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from inspector.tui.screens.details import DetailsScreen
from inspector.tui.screens.main import MainScreen

from ..conftest import CAPTURES
from .helpers import app_for, panes, plain

SIZE = (200, 50)

#: Every bundled capture whose response is an HTTP error.
HTTP_ERRORS = sorted(
    path
    for path in CAPTURES.glob("*/*.jsonl")
    if not path.name.endswith(".events.jsonl")
    and (orjson.loads(path.read_bytes().split(b"\n", 1)[0]).get("response") or {}).get(
        "status", 200
    )
    >= 400
)


def header_of(path: Path) -> dict[str, object]:
    return orjson.loads(path.read_bytes().split(b"\n", 1)[0])  # type: ignore[no-any-return]


def body_of(path: Path) -> str:
    lines = path.read_bytes().splitlines()[1:]
    return "".join(
        orjson.loads(line)["text"] for line in lines if orjson.loads(line)["type"] == "chunk"
    )


def test_the_library_has_http_error_captures_from_several_providers() -> None:
    assert len({path.parent.name for path in HTTP_ERRORS}) >= 3


@pytest.mark.parametrize("path", HTTP_ERRORS, ids=lambda p: f"{p.parent.name}/{p.name}")
async def test_the_end_row_and_its_detail_show_status_headers_and_body(path: Path) -> None:
    response = header_of(path)["response"]
    assert isinstance(response, dict)
    status, headers = response["status"], response.get("headers") or {}
    body = orjson.loads(body_of(path))
    app = app_for(path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        screen = app.screen
        assert isinstance(screen, MainScreen)
        view = panes(screen)
        end_row = view.frames[-1]
        # Status, then the body (what says why), then the headers, then how the bytes ended.
        expected = f"  ■ HTTP {status} · body " + orjson.dumps(body).decode()
        for name, value in headers.items():
            expected += f" · {name}: {value}"
        assert end_row.startswith(expected + " · end of bytes · eof")
        # The detail lists the headers one per line and pretty-prints the body.
        assert f"\nHTTP {status}\n" in view.frame_detail
        for name, value in headers.items():
            assert f"\n  {name}: {value}\n" in view.frame_detail
        pretty = orjson.dumps(body, option=orjson.OPT_INDENT_2).decode()
        assert "\nbody\n" + pretty in view.frame_detail
        await pilot.press("d")
        details = app.screen
        assert isinstance(details, DetailsScreen)
        page = plain(details.query_one("#details-text"))  # type: ignore[arg-type]
        response_part = page.split("\nResponse\n", 1)[1]
        assert response_part.startswith(f"  HTTP {status}\n")
        assert "  body\n" + pretty in response_part


async def test_an_error_body_that_is_not_json_is_shown_as_text_escaped(tmp_path: Path) -> None:
    capture = tmp_path / "503.jsonl"
    response = {"status": 503, "headers": {"x": "1"}}
    header = {"type": "header", "format": "llm-stream-capture", "version": 1,
              "provider": "anthropic", "response": response}  # fmt: skip
    chunk = {"type": "chunk", "t": 0.1, "text": "<html>\x1b[31mBad gateway [b]</html>"}
    capture.write_bytes(
        orjson.dumps(header) + b"\n" + orjson.dumps(chunk) + b"\n"
        + orjson.dumps({"type": "end", "t": 0.2, "reason": "eof", "error": None}) + b"\n"
    )  # fmt: skip
    app = app_for(capture)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("end")
        view = panes(app.screen)  # type: ignore[arg-type]
        assert view.frames[-1].startswith(
            "  ■ HTTP 503 · body <html>\\x1b[31mBad gateway [b]</html> · x: 1 · end of bytes"
        )
        assert "body\n<html>\\x1b[31mBad gateway [b]</html>" in view.frame_detail


async def test_with_no_frame_there_is_no_gap_to_show() -> None:
    app = app_for(CAPTURES / "openai-chat" / "http-429-rate-limited.jsonl")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = panes(app.screen).status  # type: ignore[arg-type]
        assert "TTFT — · max gap —" in status


async def test_y_on_an_http_error_copies_its_body() -> None:
    from ..conftest import ROOT

    app = app_for(ROOT / "captures" / "openai-chat" / "http-429-rate-limited.jsonl")
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.press("end", "y")
        await pilot.pause()
        screen = app.screen
        assert screen.copy_target() is not None  # type: ignore[attr-defined]
        what, body = screen.copy_target()  # type: ignore[attr-defined]
        assert what == "the HTTP 429 body" and '"error"' in body
        assert app.clipboard == body
