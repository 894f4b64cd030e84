"""Cassettes and HAR files are untrusted: nothing in them runs, grows without bound, or
picks where we write."""

from __future__ import annotations

import base64
import gzip
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson
import pytest

from inspector.capture import load_recording
from inspector.importer import import_files, output_stem
from inspector.interop import InteropError, read_bytes, read_file
from inspector.interop.limits import MAX_BODY, BodyError, b64decode_bounded, decode_content
from inspector.interop.yamlsafe import Inert, load_yaml

from .conftest import ROOT

SSE = (
    'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"hi"},'
    '"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def cassette(body_yaml: str, uri: str = "https://api.openai.com/v1/chat/completions") -> str:
    return (
        "interactions:\n- request:\n    body: '{\"stream\": true}'\n    headers: {}\n"
        f"    method: POST\n    uri: {uri}\n  response:\n    body:\n      string: {body_yaml}\n"
        "    headers: {content-type: [text/event-stream]}\n"
        "    status: {code: 200, message: OK}\nversion: 1\n"
    )


@pytest.mark.parametrize(
    "tag",
    [
        "!!python/object/apply:os.system",
        "!!python/object/new:os.system",
        "!!python/object/apply:subprocess.check_call",
    ],
)
def test_python_tags_in_a_cassette_are_never_executed(tmp_path: Path, tag: str) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.yaml"
    path.write_text(cassette(f'{tag} ["touch {marker}"]'))
    rec = load_recording(path)
    assert rec.chunks == []
    assert rec.problems == [
        f"{path}: interaction 1: the response body is a YAML tag that names code ({tag}); "
        "it was not executed and cannot be imported"
    ]
    assert not marker.exists()


def test_every_command_refuses_a_python_tag_body_with_a_message(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.yaml"
    path.write_text(cassette(f'!!python/object/apply:os.system ["touch {marker}"]'))
    for command in ("events", "check", "frames"):
        result = subprocess.run(
            [sys.executable, "-m", "inspector", command, str(path)],
            capture_output=True, text=True, cwd=ROOT, timeout=60,
        )  # fmt: skip
        assert result.returncode != 0
        assert "it was not executed and cannot be imported" in result.stderr
        assert "Traceback" not in result.stderr
    assert not marker.exists()


def test_python_tags_become_inert_data_and_value_tags_their_value() -> None:
    doc = load_yaml(
        "a: !!python/object/apply:os.system ['id']\n"
        "b: !!python/name:os.system ''\n"
        "c: !!python/unicode 'text'\n"
        "d: !!python/tuple [1, 2]\n"
        "e: !!python/object:vcr.request.Request {uri: 'https://x/'}\n"
        "f: !custom {k: v}\n"
    )
    assert doc["a"] == Inert("tag:yaml.org,2002:python/object/apply:os.system", ["id"])
    assert doc["b"] == Inert("tag:yaml.org,2002:python/name:os.system", "")
    assert doc["c"] == "text"
    assert doc["d"] == [1, 2]
    assert doc["e"] == Inert("tag:yaml.org,2002:python/object:vcr.request.Request",
                             {"uri": "https://x/"})  # fmt: skip
    assert doc["f"] == Inert("!custom", {"k": "v"})


def test_an_old_vcrpy_request_object_is_read_as_data() -> None:
    text = (
        "interactions:\n- request: !!python/object:vcr.request.Request\n"
        "    body: null\n    headers: {}\n    method: POST\n"
        "    uri: https://api.openai.com/v1/chat/completions\n"
        f"  response:\n    body: {{string: {orjson.dumps(SSE).decode()}}}\n"
        "    headers: {}\n    status: {code: 200, message: OK}\n"
    )
    ((_, rec),) = read_bytes(text.encode(), "old.yaml").recordings
    assert rec.provider == "openai-chat"


def test_a_gzip_bomb_is_refused_at_the_body_limit(tmp_path: Path) -> None:
    bomb = gzip.compress(b"\0" * (MAX_BODY + (1 << 20)), compresslevel=9)
    assert len(bomb) < 200_000
    text = cassette("!!binary |\n        " + base64.b64encode(bomb).decode())
    text = text.replace("content-type: [text/event-stream]",
                        "content-type: [text/event-stream], Content-Encoding: [gzip]")  # fmt: skip
    result = read_bytes(text.encode(), "bomb.yaml")
    assert result.recordings == []
    assert result.problems == ["bomb.yaml: interaction 1: the gzip body expands past 64 MiB; "
                               "not imported"]  # fmt: skip


def test_decoders_stop_at_their_limit_before_decoding_everything() -> None:
    with pytest.raises(BodyError, match="expands past"):
        decode_content(gzip.compress(b"a" * 100_000), ["gzip"], limit=10_000)
    with pytest.raises(BodyError, match="larger than"):
        b64decode_bounded(base64.b64encode(b"a" * 100_000), limit=10_000)
    with pytest.raises(BodyError, match="cannot be decoded"):
        decode_content(b"x", ["compress"])
    assert decode_content(gzip.compress(b"data: x\n\n"), ["gzip"]) == b"data: x\n\n"


def test_a_yaml_alias_bomb_in_a_structured_body_is_refused() -> None:
    # Nine levels of ten aliases each: a few lines that describe 10**9 values.
    levels = ["        a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for n in range(1, 9):
        levels.append(f"        a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 10) + "]")
    text = (
        "interactions:\n- request:\n    parsed_body:\n      stream: true\n      defs:\n"
        + "".join(f"{line}\n" for line in levels)
        + "      messages: *a8\n"
        "    headers: {}\n    method: POST\n    uri: https://api.openai.com/v1/chat/completions\n"
        f"  response:\n    body: {{string: {orjson.dumps(SSE).decode()}}}\n"
        "    headers: {}\n    status: {code: 200, message: OK}\n"
    )
    # Refused as the YAML is read, counted with its aliases expanded (yamlsafe).
    with pytest.raises(InteropError, match=r"aliases\.yaml: the YAML expands past"):
        read_bytes(text.encode(), "aliases.yaml")


def test_not_yaml_and_not_a_cassette_are_clear_errors() -> None:
    with pytest.raises(InteropError, match="not valid YAML at line 3"):
        read_bytes(b"interactions:\n  - [\n", "broken.yaml")
    with pytest.raises(InteropError, match="no 'interactions' list"):
        read_bytes(b"interactions: 3\n", "odd.yaml")
    with pytest.raises(InteropError, match=r"no log\.entries list"):
        read_bytes(b'{"log": {"version": "1.2"}}', "empty.har")


def test_output_names_come_from_the_file_name_only(tmp_path: Path) -> None:
    assert output_stem("../../etc/passwd.yaml") == "passwd"
    assert output_stem("dir/My Cassette\x1b[31m.yaml") == "My_Cassette_31m"
    assert output_stem("...yaml") == "imported"
    # A cassette whose content names other places is still written under its file name.
    path = tmp_path / "in" / "named.yaml"
    path.parent.mkdir()
    uri = "https://api.openai.com/../../../tmp/x/chat/completions"
    path.write_text(cassette(orjson.dumps(SSE).decode(), uri=uri))
    out = tmp_path / "out"
    (outcome,) = import_files([path], out)
    assert [p for _, p, _ in outcome.written] == [out / "named.jsonl"]
    assert sorted(os.listdir(out)) == ["named.jsonl"]


def test_a_symlink_planted_at_the_target_is_neither_followed_nor_replaced(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(cassette(orjson.dumps(SSE).decode()))
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (out / "s.jsonl").symlink_to(victim)
    (outcome,) = import_files([path], out)
    assert victim.read_text() == "keep me"
    assert (out / "s.jsonl").is_symlink()  # nothing is overwritten: the next free name is used
    assert outcome.renamed == [(out / "s.jsonl", out / "s-2.jsonl")]


def test_control_characters_from_a_cassette_never_reach_the_terminal(tmp_path: Path) -> None:
    evil = "\x1b]52;c;cGF3bmVk\x07\x1b[2J\u202e"
    text = cassette(orjson.dumps(SSE).decode()).replace(
        "version: 1", f"version: 1\nnote: {orjson.dumps(evil).decode()}"
    )
    path = tmp_path / "evil\x1b[31mname.yaml"
    path.write_text(text.replace("uri: https://api.openai.com/v1/chat/completions",
                                 f"uri: {orjson.dumps('https://x/' + evil).decode()}"))  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "import", str(path), "-o", str(tmp_path / "o")],
        capture_output=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    for stream in (result.stdout, result.stderr):
        assert b"\x1b" not in stream and b"\x07" not in stream
        assert "\u202e".encode() not in stream


def test_a_file_larger_than_the_limit_is_refused_without_parsing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import inspector.interop as interop

    monkeypatch.setattr(interop, "MAX_FILE", 1000)
    path = tmp_path / "big.yaml"
    path.write_text(cassette(orjson.dumps("data: x\n\n" * 200).decode()))
    with pytest.raises(InteropError, match="is more than 1,000 bytes"):
        read_file(path)


def test_a_fifo_or_device_is_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    with pytest.raises(InteropError, match="not a regular file"):
        read_file(fifo)
    with pytest.raises(InteropError, match="not a regular file"):
        read_file("/dev/zero")


def test_a_folder_is_walked_without_recursion_and_without_following_links() -> None:
    from inspector.importer import expand_inputs

    top = tempfile.mkdtemp(dir="/tmp")  # short, so the levels fit in PATH_MAX
    levels = [top]
    try:
        for _ in range(1500):  # deeper than the recursion limit; mkdir(parents) recurses
            levels.append(os.path.join(levels[-1], "d"))
            os.mkdir(levels[-1])
        Path(levels[-1], "loop").symlink_to(top)
        bottom = Path(levels[-1], "bottom.yaml")
        bottom.write_text(cassette(orjson.dumps("data: x\n\n").decode()))
        assert [file for file, _ in expand_inputs([top])] == [bottom]
    finally:  # shutil.rmtree recurses too: remove level by level
        Path(levels[-1], "loop").unlink(missing_ok=True)
        Path(levels[-1], "bottom.yaml").unlink(missing_ok=True)
        for level in reversed(levels):
            os.rmdir(level)


def test_the_alias_budget_holds_for_all_documents_of_a_file_together() -> None:
    from inspector.interop.yamlsafe import MAX_EXPANDED_CHARS, YamlError, load_yaml_documents

    piece = "x" * (MAX_EXPANDED_CHARS // 3)
    one = f"interactions: []\nnote: {piece}\n"
    assert len(load_yaml_documents(one + "---\n" + one)) == 2
    with pytest.raises(YamlError, match="in all"):
        load_yaml_documents("---\n".join([one] * 4))
