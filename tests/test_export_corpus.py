"""The planted-secret corpus: every place a secret can hide, and none survives an export.

``tests/data/export/`` holds synthetic captures of the four providers, an
HTTP error and a raw SSE file, with fake secrets in request headers, the URL,
the request body, response headers, stream text (split across deltas and
chunks), tool arguments, an SSE comment, an error message, a ``b64`` chunk
and the transport's error; ``planted.json`` lists them (``make_corpus.py``
wrote them).
"""

from __future__ import annotations

import base64
import contextlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from inspector.capture import load_recording
from inspector.export import ExportOptions, export_paths
from inspector.export.skeleton import skeleton
from inspector.session import load_trace

from .conftest import DATA

CORPUS = DATA / "export"
PLANTED: dict[str, Any] = json.loads((CORPUS / "planted.json").read_text(encoding="utf-8"))
MODES = {
    "keep": ExportOptions(pytest=True),
    "mask": ExportOptions(text="mask", pytest=True),
    "keep-request": ExportOptions(keep_request=True, pytest=True),
}


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The corpus exported once per mode: mode -> output directory."""
    out = {}
    for mode, options in MODES.items():
        target = tmp_path_factory.mktemp(mode)
        outcomes = list(export_paths([CORPUS], target, options))
        assert [o.error for o in outcomes if o.error] == []
        assert sorted(o.source.name for o in outcomes) == sorted(PLANTED)
        out[mode] = target
    return out


def strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        # JSON inside a string (tool arguments): its strings too.
        if value[:1] in "{[":
            with contextlib.suppress(ValueError):
                yield from strings(json.loads(value))
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)


def block_texts(events: list[dict[str, Any]]) -> list[str]:
    """Each block's deltas joined: a secret split across fragments is whole again."""
    texts: dict[int, str] = {}
    for event in events:
        if event["type"] == "block.delta":
            index = event["block"]["index"]
            texts[index] = texts.get(index, "") + event["delta"]["text"]
    return list(texts.values())


def readable_forms(path: Path) -> list[str]:
    """Everything a reader of the file could decode from it, as text."""
    raw = path.read_bytes()
    forms = [raw.decode("utf-8", "replace")]
    if path.name.endswith(".events.jsonl"):
        forms += block_texts([json.loads(line) for line in raw.splitlines()])
    elif path.suffix in (".jsonl", ".sse"):
        forms += block_texts(load_trace(path).events)
    body = b""
    for line in raw.splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue
        forms.extend(strings(record))
        if isinstance(record, dict) and record.get("type") == "chunk":
            text = record.get("text")
            body += text.encode() if text is not None else base64.b64decode(record["b64"])
    for data in (body, raw if path.suffix == ".sse" else b""):
        text = data.decode("utf-8", "replace")
        forms.append(text)
        for line in text.splitlines():
            if line.startswith("data:"):
                try:
                    forms.extend(strings(json.loads(line[5:])))
                except ValueError:
                    forms.append(line)
    return forms


def encodings(secret: str) -> list[str]:
    """The secret as is, URL-encoded, and base64-encoded at each alignment."""
    out = {secret, quote(secret, safe="")}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + secret.encode()).decode()
        out.add(encoded[4 if shift else 0 : 4 * ((shift + len(secret)) // 3)])
    return sorted(out)


def outputs(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file())


def test_the_search_below_finds_every_planted_secret_in_the_originals() -> None:
    for name, planted in PLANTED.items():
        text = "\n".join(readable_forms(CORPUS / name))
        assert [key for key, value in planted["secrets"].items() if value not in text] == [], name


@pytest.mark.parametrize("mode", MODES)
def test_no_planted_secret_is_left_in_any_output_in_any_form(
    exports: dict[str, Path], mode: str
) -> None:
    secrets = {value for file in PLANTED.values() for value in file["secrets"].values()}
    found = []
    for path in outputs(exports[mode]):
        text = "\n".join(readable_forms(path))
        found += [(path.name, s[:12]) for s in secrets for form in encodings(s) if form in text]
    assert found == []


@pytest.mark.parametrize("mode", ["keep", "mask"])
def test_the_prompt_is_gone_unless_the_request_is_kept(exports: dict[str, Path], mode: str) -> None:
    prompts = [p for file in PLANTED.values() for p in file["prompts"]]
    for path in outputs(exports[mode]):
        text = "\n".join(readable_forms(path))
        assert [p for p in prompts if p in text or p.split(":")[0] in text] == [], path.name


def test_keep_request_keeps_the_prompt_in_the_header() -> None:
    # Read without exporting: the prompts are there to begin with…
    rec = load_recording(CORPUS / "anthropic-planted.jsonl")
    assert PLANTED["anthropic-planted.jsonl"]["prompts"][0] in json.dumps(rec.header)


def test_keep_request_exports_keep_the_prompt_text(exports: dict[str, Path]) -> None:
    header = json.loads(
        (exports["keep-request"] / "anthropic-planted.jsonl").read_text().split("\n")[0]
    )
    system = header["request"]["body"]["system"][0]["text"]
    assert system == PLANTED["anthropic-planted.jsonl"]["prompts"][0]


EXPECTED_RULES = {
    "openai-chat-planted.jsonl": {
        "header:authorization", "header:cookie", "header:openai-organization",
        "header:openai-project", "header:proxy-authorization", "header:set-cookie",
        "url-userinfo", "query:key", "openai-key", "email", "jwt", "slack-token",
        "bearer-token", "aws-access-key", "request-prompt"},
    "anthropic-planted.jsonl": {
        "header:x-api-key", "header:anthropic-organization-id", "anthropic-key", "google-key",
        "github-token", "jwt", "email", "request-prompt"},
    "openai-responses-planted.jsonl": {
        "header:authorization", "header:openai-project", "openai-key", "github-token",
        "slack-webhook", "aws-secret-key", "email", "request-prompt"},
    "gemini-planted.jsonl": {
        "header:x-goog-api-key", "query:key", "openai-key", "email", "aws-secret-key",
        "request-prompt"},
    "http-error-planted.jsonl": {
        "header:authorization", "openai-key", "masked-key", "email", "request-prompt"},
    "raw-planted.sse": {"xai-key", "huggingface-token", "email"},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(EXPECTED_RULES))
def test_the_report_counts_each_rule_that_removed_something(
    exports: dict[str, Path], name: str
) -> None:
    stem = name.rsplit(".", 1)[0]
    report = json.loads((exports["keep"] / f"{stem}.report.json").read_text())
    assert set(report["removed"]) == EXPECTED_RULES[name]
    assert report["verification"]["leak_scan"]["found"] == 0
    assert report["verification"]["skeleton"] == "identical"


def test_the_report_says_what_was_kept_and_pseudonymized(exports: dict[str, Path]) -> None:
    report = json.loads((exports["mask"] / "anthropic-planted.report.json").read_text())
    kept = report["kept"]
    assert kept["blocks"] == [
        {"index": 0, "kind": "reasoning"},
        {"index": 1, "kind": "text"},
        {"index": 2, "kind": "tool_call", "tool": "deploy"},
    ]
    assert kept["ending"] == {"state": "failed", "error_category": "upstream_overloaded"}
    assert "anthropic-version" in kept["headers"]
    assert report["pseudonymized"] == {"id": 2, "request-id-header": 2}
    assert report["placeholders"] == {"signature": 2}
    assert report["masked"]["model-text"] >= 2


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(PLANTED))
def test_the_exported_capture_has_the_original_skeleton_and_chunking(
    exports: dict[str, Path], mode: str, name: str
) -> None:
    original, exported = load_recording(CORPUS / name), load_recording(exports[mode] / name)
    assert [(t, len(d)) for t, d in exported.chunks] == [(t, len(d)) for t, d in original.chunks]
    assert exported.end is not None and original.end is not None
    assert (exported.end.reason, exported.end.time) == (original.end.reason, original.end.time)
    assert skeleton(load_trace(exports[mode] / name)) == skeleton(load_trace(CORPUS / name))


def test_a_chunk_stored_as_base64_is_still_base64_at_the_same_place(
    exports: dict[str, Path],
) -> None:
    def kinds(path: Path) -> list[str]:
        lines = path.read_text().splitlines()[1:-1]
        return ["b64" if "b64" in json.loads(line) else "text" for line in lines]

    name = "openai-chat-planted.jsonl"
    assert "b64" in kinds(CORPUS / name)
    assert kinds(exports["mask"] / name) == kinds(CORPUS / name)


def test_exporting_twice_gives_identical_files(exports: dict[str, Path], tmp_path: Path) -> None:
    list(export_paths([CORPUS], tmp_path, MODES["mask"]))
    first = {p.name: p.read_bytes() for p in outputs(exports["mask"])}
    second = {p.name: p.read_bytes() for p in outputs(tmp_path)}
    assert first == second


def test_the_generated_pytest_files_pass(exports: dict[str, Path]) -> None:
    for mode, directory in exports.items():
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(directory)],
            capture_output=True,
            text=True,
            cwd=directory,
            timeout=300,
        )
        assert result.returncode == 0, (mode, result.stdout[-3000:])
        assert f"{3 * len(PLANTED)} passed" in result.stdout
