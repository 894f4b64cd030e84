"""``scripts/corpus.py``: the table a folder of recordings adds up to.

Run over copies of the real long-tail set, so each row it prints is one the
set really produces: a stream per imported interaction, the terminal states and
detections, warnings by path, "cannot tell" with its evidence, and the
interactions import leaves out — a streamed body it skipped is checked itself
and counted, a body that is not a stream is listed, never silently dropped.
"""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import ROOT

LONGTAIL = ROOT / "tests" / "fixtures" / "real-longtail"


@pytest.fixture(scope="module")
def corpus() -> ModuleType:
    name = "corpus_runner_under_test"
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / "corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # (its dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


def run(corpus: ModuleType, folder: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert corpus.main([str(folder), "--list"]) == 0
    return str(capsys.readouterr().out)


def copy(names: list[str], folder: Path) -> Path:
    for name in names:
        shutil.copy(LONGTAIL / name, folder / name)
    return folder


def test_the_table_counts_streams_states_detections_and_warnings_by_path(
    corpus: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = [
        "vercel-ai-gateway-xai-provider-metadata.sse",
        "openllmetry-ollama-chat-llama3-stream.yaml",
        "vercel-openai-completions-gpt35-instruct-length.sse",
    ]
    out = run(corpus, copy(names, tmp_path), capsys)
    assert out.splitlines()[0].startswith("streams: 3  normalized: 3  cannot tell: 0  crashes: 0")
    assert "      2  completed (stop)\n      1  completed (length)" in out
    for row in ("1  ollama", "1  openai-chat", "1  openai-completions"):
        assert row in out
    assert "      1  unread_field choices[].delta.provider_metadata" in out


def test_cannot_tell_is_listed_with_what_the_body_is(
    corpus: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = run(corpus, copy(["cohere-v1-command-r.yaml"], tmp_path), capsys)
    evidence = out.split("cannot tell (evidence):\n", 1)[1].splitlines()
    line = next(row for row in evidence if row.startswith(f"  {tmp_path}/cohere-v1"))
    assert "it is NDJSON (one JSON document a line: Cohere v1 chat" in line


def test_a_streamed_body_import_skips_is_checked_and_counted_as_a_lead(
    corpus: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A stream import passes over: Ollama's NDJSON answer behind a gateway path, its
    # request saying stream: false and the answer labelled application/json.
    cassette = (LONGTAIL / "openllmetry-ollama-chat-llama3-stream.yaml").read_text()
    hidden = (
        cassette.replace('"stream": true', '"stream": false')
        .replace("/api/chat", "/gateway/llm")
        .replace("application/x-ndjson", "application/json")
    )
    (tmp_path / "hidden.yaml").write_text(hidden)
    out = run(corpus, tmp_path, capsys)
    assert "import skipped a stream: 1  not streamed: 0" in out.splitlines()[0]
    assert "1  ollama" in out
    assert "(application/json, 6,328 bytes: it is NDJSON (one JSON document a line: Ollama" in out
    assert "ollama completed (stop) warnings=0 (import skipped it)" in out


def test_an_interaction_that_is_not_a_stream_is_listed_not_dropped(
    corpus: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = (LONGTAIL / "pydantic-ai-bedrock-converse-stream-invalid-model-400.yaml").read_text()
    # The same interaction at an endpoint that does not only stream: a plain JSON answer.
    plain = cassette.replace("/converse-stream", "/converse")
    (tmp_path / "converse.yaml").write_text(plain)
    out = run(corpus, tmp_path, capsys)
    assert out.splitlines()[0].startswith("streams: 0  normalized: 0")
    assert out.splitlines()[0].endswith("import skipped a stream: 0  not streamed: 1")
    assert "not streamed (left out by import):" in out
    assert "interaction 1 (POST 400) is not a streamed response (application/json, 55 bytes" in out


def test_text_from_a_recording_reaches_the_terminal_escaped(
    corpus: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],'
        b'"odd\\u001b[31m":1}\n\ndata: [DONE]\n\n'
    )
    (tmp_path / "escape.sse").write_bytes(body)
    out = run(corpus, tmp_path, capsys)
    assert "\x1b" not in out
    assert "unread_field odd\\x1b[31m" in out
