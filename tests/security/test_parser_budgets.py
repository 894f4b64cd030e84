"""Boundary: imported files cannot expand past the budgets, whatever their tricks.

A budget counts what a file *becomes*, not its size on disk: a YAML alias
stands for its anchor's whole tree, gzip and base64 bodies decode to more
than they take, and one body can be repeated by aliases. Past a budget the
command says so and exits 2 (reading) — never a traceback, a MemoryError
or a crash.
"""

from __future__ import annotations

import base64
import gzip
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.cli import main

SSE = b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n'
URI = "https://api.openai.com/v1/chat/completions"


def _cassette(field: str, bomb: str) -> str:
    """A cassette whose ``field`` (request method, uri, header, body…) is an alias bomb."""
    fields = {
        "method": "POST",
        "uri": URI,
        "headers": "{}",
        "body": orjson.dumps('{"model": "m", "stream": true}').decode(),
    }
    fields[field] = bomb
    request = "".join(f"    {name}: {value}\n" for name, value in fields.items())
    return (
        "interactions:\n- request:\n" + request + "  response:\n"
        f"    body: {{string: {orjson.dumps(SSE.decode()).decode()}}}\n"
        "    headers: {content-type: [text/event-stream]}\n"
        "    status: {code: 200, message: OK}\n"
    )


def _bomb(levels: int, fanout: int, leaf: str) -> tuple[str, str]:
    """(anchors, the alias that expands to fanout**levels leaves)."""
    lines = [f"a0: &a0 [{', '.join([leaf] * fanout)}]"]
    for n in range(1, levels + 1):
        lines.append(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * fanout) + "]")
    return "\n".join(lines) + "\n", f"*a{levels}"


def _run(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["events", str(path)])
    err = capsys.readouterr().err
    assert "Traceback" not in err and "MemoryError" not in err
    return code, err


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.sampled_from(["method", "uri", "headers", "body"]),
    st.integers(min_value=7, max_value=12),
    st.integers(min_value=8, max_value=12),
    st.sampled_from(["x", '"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"', "{k: v}", "[1, 2]"]),
)
def test_a_yaml_alias_bomb_anywhere_in_a_cassette_is_refused_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str, levels: int, fanout: int,
    leaf: str,
) -> None:  # fmt: skip
    anchors, alias = _bomb(levels, fanout, leaf)
    path = tmp_path / "bomb.yaml"
    path.write_text("version: 1\n" + anchors + _cassette(field, alias))
    code, err = _run(path, capsys)
    assert code == 2
    assert "bomb.yaml" in err and "expands past" in err


def test_interactions_repeated_by_aliases_are_counted_as_expanded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # One interaction, then lists of lists of it: 12**6 interactions once expanded.
    one = _cassette("method", "POST").removeprefix("interactions:\n- ")
    anchors, alias = _bomb(6, 12, "*i")
    text = "version: 1\ni: &i\n  " + one + anchors
    path = tmp_path / "repeated.yaml"
    path.write_text(text + f"interactions: {alias}\n")
    code, err = _run(path, capsys)
    assert code == 2 and "expands past" in err


def test_an_alias_that_contains_itself_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text("version: 1\n" + _cassette("headers", "&h {x-loop: *h}"))
    code, err = _run(path, capsys)
    assert code == 2 and "contains itself" in err


def test_one_gzip_body_repeated_by_aliases_counts_once_per_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 60 MiB of SSE in 60 KB of gzip, used by 20 interactions: 1.2 GiB decoded in all.
    body = gzip.compress(SSE * (60 * 1024 * 1024 // len(SSE)), compresslevel=9)
    packed = base64.b64encode(body).decode()
    interaction = (
        f"  - &i\n    request: {{method: POST, uri: '{URI}', headers: {{}},\n"
        '               body: \'{"model": "m", "stream": true}\'}\n'
        "    response:\n      status: {code: 200, message: OK}\n"
        "      headers: {content-type: [text/event-stream], content-encoding: [gzip]}\n"
        f"      body: {{string: !!binary '{packed}'}}\n"
    )
    path = tmp_path / "gzips.yaml"
    path.write_text("version: 1\ninteractions:\n" + interaction + "  - *i\n" * 19)
    code, err = _run(path, capsys)
    assert code == 2 and "decode to more than" in err


@pytest.mark.parametrize("depth", [2_000, 200_000])
def test_json_nested_past_the_depth_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    path = tmp_path / "deep.har"
    entry = {"request": {"method": "POST", "url": URI}, "response": {"status": 200}}
    text = orjson.dumps({"log": {"version": "1.2", "entries": [entry]}}).decode()
    path.write_text(text.replace('"status":200', '"status":200,"x":' + "[" * depth + "]" * depth))
    code, err = _run(path, capsys)
    assert code == 2 and "deep.har" in err


def test_a_yaml_nested_past_the_depth_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "deep.yaml"
    path.write_text(_cassette("headers", "{x: " + "[" * 50_000 + "]" * 50_000 + "}"))
    code, err = _run(path, capsys)
    assert code == 2 and "deep.yaml" in err
