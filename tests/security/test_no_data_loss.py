"""Boundary: no command loses data — an existing file, a capture's end, what decoded.

No command overwrites a file that is there (it takes the next free name and
says which); two runs in one second get two names; a hang-up (SIGHUP, the
terminal closed) ends ``record`` and ``proxy`` the way SIGTERM does, with
the capture's end record written; a damaged compressed body keeps what
decoded and says where it broke; and an output folder reached through
another user's symbolic link is refused by every command, as by export.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from inspector.capture import read_recording

from ..conftest import ROOT
from .servers_helpers import (
    CHAT,
    SMALL,
    Witness,
    damaged_gzip,
    proxy_to,
    replay_of,
    write_capture,
)

KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")
URI = "https://api.openai.com/v1/chat/completions"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env["PYTHONPATH"] = str(ROOT)
    return env


def inspector(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True,
                          text=True, env=_env(), cwd=cwd, timeout=60)  # fmt: skip


def _cassette(path: Path, body: bytes = SMALL, gzipped: bool = False) -> Path:
    headers = {"content-type": ["text/event-stream"]}
    if gzipped:
        headers["content-encoding"] = ["gzip"]
    doc = {"version": 1, "interactions": [{
        "request": {"method": "POST", "uri": URI, "headers": {},
                    "body": '{"model": "m", "stream": true}'},
        "response": {"status": {"code": 200, "message": "OK"}, "headers": headers,
                     "body": {"string": body if gzipped else body.decode()}}}]}  # fmt: skip
    if gzipped:  # JSON cannot hold bytes: a YAML cassette (!!binary), as vcrpy writes it
        import yaml

        path.write_text(yaml.safe_dump(doc))
    else:
        path.write_bytes(orjson.dumps(doc))
    return path


@pytest.fixture(scope="module")
def slow_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    root = tmp_path_factory.mktemp("slow")
    write_capture(root / "long.jsonl", [SMALL] * 5)
    with replay_of(root) as server:
        yield server


# -- nothing is overwritten -------------------------------------------------------------


def test_import_never_overwrites_an_existing_capture_and_says_which_name_it_took(
    tmp_path: Path,
) -> None:
    source = _cassette(tmp_path / "chat.json")
    out = tmp_path / "out"
    out.mkdir()
    (out / "chat.jsonl").write_bytes(b"mine, do not touch")
    result = inspector("import", str(source), "-o", str(out), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (out / "chat.jsonl").read_bytes() == b"mine, do not touch"
    assert read_recording(out / "chat-2.jsonl").body == SMALL
    assert "not overwritten" in result.stdout and "chat-2.jsonl" in result.stdout
    again = inspector("import", str(source), "-o", str(out), cwd=tmp_path)
    assert again.returncode == 0 and (out / "chat-3.jsonl").exists()


def test_export_never_replaces_an_existing_file_and_writes_nothing_then(tmp_path: Path) -> None:
    source = ROOT / "captures" / "openai-chat" / "text-simple.jsonl"
    first = inspector("export", str(source), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    written = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    events = next(p for p in written if p.name.endswith(".events.jsonl"))
    events.write_bytes(b"mine\n")  # the user's own file under an export's name
    written[events] = b"mine\n"
    again = inspector("export", str(source), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert again.returncode == 1
    assert "already exists" in again.stderr and "never replaces a file" in again.stderr
    after = {p: p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert after == written  # nothing replaced, nothing left behind


def test_two_records_in_one_second_with_the_default_name_keep_both(
    slow_server: object, tmp_path: Path
) -> None:
    args = ("record", "--provider", "openai-chat", "--model", "long", "--prompt", "hi",
            "--base-url", slow_server.url + "?speed=0")  # type: ignore[attr-defined]  # fmt: skip
    runs = [subprocess.Popen([sys.executable, "-m", "inspector", *args], cwd=tmp_path,
                             env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(3)]  # fmt: skip
    for run in runs:
        assert run.wait(60) == 0, run.stderr.read() if run.stderr else ""
    captures = sorted(tmp_path.glob("*.jsonl"))
    assert len(captures) == 3
    assert all(read_recording(c).body == SMALL * 5 for c in captures)


def test_record_never_overwrites_the_file_named_by_o(slow_server: object, tmp_path: Path) -> None:
    target = tmp_path / "c.jsonl"
    target.write_bytes(b"precious")
    result = inspector("record", "--provider", "openai-chat", "--model", "long", "--prompt", "hi",
                       "--base-url", slow_server.url + "?speed=0",  # type: ignore[attr-defined]
                       "-o", str(target), cwd=tmp_path)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == b"precious"
    assert "not overwritten" in result.stderr and "c-2.jsonl" in result.stdout


# -- a hang-up ends a recording cleanly --------------------------------------------------


def _wait_for(condition: object, what: str) -> None:
    for _ in range(1000):
        if condition():  # type: ignore[operator]
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def test_sighup_ends_record_with_its_end_record(slow_server: object, tmp_path: Path) -> None:
    target = tmp_path / "hup.jsonl"
    url = slow_server.url + "?stall=30&stall_at=10"  # type: ignore[attr-defined]
    run = subprocess.Popen(
        [sys.executable, "-m", "inspector", "record", "--provider", "openai-chat", "--model",
         "long", "--prompt", "hi", "--base-url", url, "-o", str(target)],
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    _wait_for(lambda: target.exists() and b'"type":"chunk"' in target.read_bytes(), "a chunk")
    run.send_signal(signal.SIGHUP)
    assert run.wait(30) == 130
    rec = read_recording(target)
    assert rec.problems == [] and rec.end is not None and rec.end.reason == "cancelled"


def test_sighup_ends_the_proxy_with_every_capture_complete(
    slow_server: object, tmp_path: Path
) -> None:
    out = tmp_path / "rec"
    proxy = subprocess.Popen(
        [sys.executable, "-m", "inspector", "proxy", "--headless", "--port", "0", "--upstream",
         slow_server.url, "-o", str(out)],  # type: ignore[attr-defined]
        cwd=tmp_path, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proxy.stdout is not None
    first = proxy.stdout.readline()
    url = first.split()[1]
    with (
        httpx.Client(timeout=30) as client,
        client.stream(
            "POST", url + CHAT + "?stall=30&stall_at=10", json={"model": "long", "stream": True}
        ) as response,
    ):
        next(response.iter_raw())
        proxy.send_signal(signal.SIGHUP)
        assert proxy.wait(30) == 130
    (capture,) = sorted(out.glob("*.jsonl"))
    rec = read_recording(capture)
    assert rec.problems == [] and rec.end is not None and rec.end.reason == "cancelled"


# -- what decoded is kept ---------------------------------------------------------------------


def test_a_damaged_gzip_body_through_the_proxy_keeps_what_decoded_and_says_so(
    tmp_path: Path,
) -> None:
    with Witness() as upstream, proxy_to(upstream.url, tmp_path / "rec") as proxy:
        with httpx.Client(timeout=30) as client:
            received = b""
            try:
                ask = {"model": "damaged", "stream": True}
                with client.stream("POST", proxy.url + CHAT, json=ask) as response:
                    for piece in response.iter_raw():
                        received += piece
            except httpx.TransportError:
                pass  # the app's response is cut where the damage is
        _wait_for(lambda: not proxy.log.flows[0].live, "the flow to end")
    (capture,) = sorted((tmp_path / "rec").glob("*.jsonl"))
    rec = read_recording(capture)
    assert rec.problems == []
    whole = SMALL * 200
    assert received == damaged_gzip(whole)  # the app gets the body as sent
    assert rec.body == whole[: len(whole) // 2]  # the capture: the half that decoded
    assert rec.end is not None and "damaged" in (rec.end.error or "")


def test_a_damaged_gzip_body_in_a_cassette_keeps_what_decoded_and_says_so(
    tmp_path: Path,
) -> None:
    whole = SMALL * 2000
    source = _cassette(tmp_path / "damaged.yaml", damaged_gzip(whole), gzipped=True)
    result = inspector("import", str(source), "-o", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rec = read_recording(tmp_path / "out" / "damaged.jsonl")
    assert rec.body == whole[: len(whole) // 2]
    decoded = rec.header["imported"]["decoded"]
    assert any("damaged" in note or "cut short" in note for note in decoded)


# -- output folders through someone else's symlink -----------------------------------------


@pytest.fixture
def foreign_link(tmp_path: Path) -> Path:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "theirs"
    link.symlink_to(real)
    try:
        os.lchown(link, 4242, 4242)
    except PermissionError:
        pytest.skip("needs root to make a link owned by another user")
    return link


def test_import_refuses_an_output_folder_through_another_users_link(
    foreign_link: Path, tmp_path: Path
) -> None:
    result = inspector("import", str(_cassette(tmp_path / "c.json")), "-o",
                       str(foreign_link / "out"), cwd=tmp_path)  # fmt: skip
    assert result.returncode == 2 and "symbolic link owned by another user" in result.stderr
    assert not any((tmp_path / "real").iterdir())


def test_record_refuses_an_output_folder_through_another_users_link(
    foreign_link: Path, slow_server: object, tmp_path: Path
) -> None:
    result = inspector("record", "--provider", "openai-chat", "--model", "long", "--prompt", "hi",
                       "--base-url", slow_server.url,  # type: ignore[attr-defined]
                       "-o", str(foreign_link / "c.jsonl"), cwd=tmp_path)  # fmt: skip
    assert result.returncode == 2 and "symbolic link owned by another user" in result.stderr
    assert not any((tmp_path / "real").iterdir())


def test_proxy_refuses_an_output_folder_through_another_users_link(
    foreign_link: Path, tmp_path: Path
) -> None:
    result = inspector("proxy", "--headless", "--port", "0", "-o", str(foreign_link / "x"),
                       cwd=tmp_path)  # fmt: skip
    assert result.returncode == 2 and "symbolic link owned by another user" in result.stderr
    assert not any((tmp_path / "real").iterdir())
