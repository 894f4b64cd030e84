"""Boundary: text from outside printed to a terminal by the CLI.

File names, capture and provider text, problems found in them: nothing the
terminal would act on (ESC sequences, OSC 52 clipboard writes, CR, BEL,
C1 controls, bidi overrides, line separators) may reach stdout or stderr
raw. Human output is escaped by :func:`inspector.terminal.escape_controls`;
JSON Lines output is ``\\u``-escaped and still parses to the same value.
"""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.session import load_trace
from inspector.terminal import (
    UNSAFE_RANGES,
    escape_char,
    escape_controls,
    escape_json,
    safe_path,
    unsafe_pattern,
)

from ..conftest import ROOT

UNSAFE_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}

# What must never reach a terminal raw, as bytes (UTF-8 for the non-ASCII ones).
RAW_HOSTILE = {
    "ESC": b"\x1b",
    "BEL": b"\x07",
    "CR": b"\r",
    "C1 CSI": "\x9b".encode(),
    "C1 OSC": "\x9d".encode(),
    "RLO U+202E": "\u202e".encode(),
    "LINE SEPARATOR U+2028": "\u2028".encode(),
    "ZERO WIDTH SPACE": "\u200b".encode(),
    "DEL": b"\x7f",
}
# ESC [ 31 m (colour), OSC 52 (write the clipboard), CR, BEL, RLO, LS, C1 CSI.
HOSTILE = "\x1b[31mred\x1b]52;c;aGVsbG8=\x07\rover\u202eevil\u2028next\x9b2J\x7f\u200b"


def unsafe(char: str) -> bool:
    return unicodedata.category(char) in UNSAFE_CATEGORIES or 0xD800 <= ord(char) <= 0xDFFF


def test_the_unsafe_table_covers_every_control_format_and_separator_character() -> None:
    covered = {code for lo, hi in UNSAFE_RANGES for code in range(lo, hi + 1)}
    missing = [
        hex(code)
        for code in range(sys.maxunicode + 1)
        if unicodedata.category(chr(code)) in UNSAFE_CATEGORIES and code not in covered
    ]
    assert missing == []


@given(st.text())
def test_escaped_text_holds_no_control_format_separator_or_surrogate(text: str) -> None:
    assert not any(unsafe(char) for char in escape_controls(text))


@given(st.text())
def test_multi_line_escaping_keeps_only_line_feeds_and_tabs(text: str) -> None:
    assert not any(unsafe(char) and char not in "\n\t" for char in escape_controls(text, True))


@given(st.text(st.characters(blacklist_categories=("Cc", "Cf", "Zl", "Zp", "Cs"))))
def test_safe_text_passes_unchanged(text: str) -> None:
    assert escape_controls(text) == text
    assert escape_controls(text, multiline=True) == text


@given(st.text(st.characters(max_codepoint=0x7F)))
def test_ascii_text_is_escaped_exactly_where_the_pattern_finds_an_unsafe_character(
    text: str,
) -> None:
    # ASCII skips the pattern when str.isprintable says there is nothing to find.
    for multiline in (False, True):
        expected = unsafe_pattern(multiline).sub(lambda m: escape_char(m.group()), text)
        assert escape_controls(text, multiline) == expected


def test_every_hostile_character_becomes_a_visible_escape() -> None:
    assert escape_controls(HOSTILE) == (
        "\\x1b[31mred\\x1b]52;c;aGVsbG8=\\x07\\rover\\u202eevil\\u2028next\\x9b2J\\x7f\\u200b"
    )


def test_an_undecodable_file_name_prints_as_an_escape() -> None:
    name = os.fsdecode(b"bad\xff\xfe.sse")
    assert safe_path(name) == "bad\\udcff\\udcfe.sse"
    safe_path(name).encode("utf-8")  # printable: no lone surrogate left


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(json_values)
def test_escaped_json_parses_to_the_same_value_and_holds_no_raw_unsafe_character(
    value: object,
) -> None:
    text = escape_json(orjson.dumps(value))
    assert orjson.loads(text) == value
    assert text.isascii() or not any(unsafe(char) for char in text.decode("utf-8"))


# --- the commands, on hostile file names and contents -------------------------


def inspector(*args: str | bytes, cwd: Path, stdin: bytes | None = None) -> tuple[int, bytes]:
    result = subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True,
        cwd=cwd,
        input=stdin,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return result.returncode, result.stdout + result.stderr


def assert_nothing_raw(output: bytes) -> None:
    found = [name for name, raw in RAW_HOSTILE.items() if raw in output]
    assert found == [], output.decode("utf-8", "replace")
    assert b"Traceback" not in output


def chat_stream(text: str, finish: str = "stop") -> bytes:
    """An OpenAI Chat stream whose model text (and model name) is ``text``."""
    first = {"id": "c1", "model": text, "choices": [{"index": 0, "delta": {"content": text}}]}
    last = {"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]}
    return (
        b"".join(
            [b"data: " + orjson.dumps(first) + b"\n\n", b"data: " + orjson.dumps(last) + b"\n\n"]
        )
        + b"data: [DONE]\n\n"
    )


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    """A stream and a damaged capture, both with hostile names and contents."""
    (tmp_path / f"{HOSTILE}.sse").write_bytes(chat_stream(HOSTILE, finish=HOSTILE))
    header = {"type": "header", "format": "llm-stream-capture", "version": 1}
    chunk = {"type": "chunk", "t": 0.0, "text": chat_stream(HOSTILE).decode()}
    (tmp_path / f"damaged{HOSTILE}.jsonl").write_bytes(
        orjson.dumps(header) + b"\n" + orjson.dumps(chunk) + b"\n" + f"{HOSTILE}\n".encode()
    )
    (tmp_path / os.fsdecode(b"undecodable\xff\x9b.sse")).write_bytes(chat_stream("ok"))
    return tmp_path


def test_check_prints_hostile_names_and_contents_escaped(hostile_dir: Path) -> None:
    status, output = inspector("check", "--jobs", "1", ".", cwd=hostile_dir)
    assert status == 1  # the damaged capture
    assert_nothing_raw(output)
    text = output.decode()
    assert "\\x1b[31mred\\x1b]52;c;aGVsbG8=\\x07\\rover\\u202eevil" in text
    assert "undecodable\\udcff\\udc9b.sse: completed (stop)" in text
    assert "damaged: damaged\\x1b[31m" in text


@pytest.mark.parametrize("command", ["events", "frames"])
def test_json_lines_of_hostile_content_hold_no_raw_control(hostile_dir: Path, command: str) -> None:
    name = f"{HOSTILE}.sse"
    status, output = inspector(command, name, cwd=hostile_dir)
    assert status == 0
    assert_nothing_raw(output)
    records = [orjson.loads(line) for line in output.splitlines()]
    # The same values, only escaped.
    if command == "events":
        assert records == list(load_trace(hostile_dir / name).events)
    else:
        assert orjson.loads(records[0]["data"])["choices"][0]["delta"]["content"] == HOSTILE


@pytest.mark.parametrize("command", ["events", "frames", "check", "open"])
def test_errors_about_hostile_names_are_escaped(tmp_path: Path, command: str) -> None:
    status, output = inspector(command, f"missing{HOSTILE}.sse", cwd=tmp_path)
    assert status in (1, 2)
    assert_nothing_raw(output)
    assert "missing\\x1b[31mred" in output.decode()


def test_errors_about_damaged_captures_escape_the_name_and_what_the_file_said(
    hostile_dir: Path,
) -> None:
    name = f"v{HOSTILE}.jsonl"
    header = {"type": "header", "format": "llm-stream-capture", "version": HOSTILE}
    (hostile_dir / name).write_bytes(orjson.dumps(header) + b"\n")
    for command in ("events", "frames", "check"):
        status, output = inspector(command, name, cwd=hostile_dir)
        assert status in (1, 2), command
        assert_nothing_raw(output)
        assert b"is not supported" in output


def test_usage_errors_escape_the_bad_argument(tmp_path: Path) -> None:
    for args in (
        ["check", "--provider", HOSTILE, "x"],
        [f"--{HOSTILE}"],
        ["check", "--jobs", HOSTILE, "x"],
    ):
        status, output = inspector(*args, cwd=tmp_path)
        assert status == 2, args
        assert_nothing_raw(output)


def test_a_stream_read_from_stdin_is_escaped_too(tmp_path: Path) -> None:
    status, output = inspector("events", "-", cwd=tmp_path, stdin=chat_stream(HOSTILE))
    assert status == 0
    assert_nothing_raw(output)


def test_names_the_terminal_encoding_cannot_show_are_printed_as_escapes(tmp_path: Path) -> None:
    (tmp_path / "été—日本.sse").write_bytes(chat_stream("ok"))
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "check", ".", "missing-é.sse"],
        capture_output=True,
        cwd=tmp_path,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "ascii"},
    )
    assert b"Traceback" not in result.stderr
    assert result.stdout.splitlines() == [
        b"\\xe9t\\xe9\\u2014\\u65e5\\u672c.sse: completed (stop) frames=3 events=5 blocks=1 "
        b"warnings=0 ignored=0 violations=0 rejected=0",
        b"missing-\\xe9.sse: unreadable",
    ]
    assert result.stderr == b"inspector: missing-\\xe9.sse: no such file\n"
