"""`inspector harness` end to end: matrix, JSON, Markdown, exit codes, repro files, the
`command:` driver over loopback HTTP (a Python client, and the docs' JavaScript one)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import orjson
import pytest

from inspector.cli import main

from .conftest import CHAT, ROOT

QUICK = ["--timeout", "0.25", "--margin", "0.6", "--jobs", "4"]


def test_a_failing_matrix_exits_1_and_writes_json_and_markdown(tmp_path, capsys):
    pytest.importorskip("openai")
    out, md = tmp_path / "h.json", tmp_path / "h.md"
    code = main(["harness", str(CHAT / "tool-call-fragmented.jsonl"), "--driver", "openai-chat",
                 "--mutation", "as-recorded", "--mutation", "eof@mid-tool-args",
                 "--json", str(out), "--markdown", str(md), *QUICK])  # fmt: skip
    assert code == 1
    report = orjson.loads(out.read_bytes())
    verdicts = {r["mutation"]: r["verdict"] for r in report["runs"]}
    assert verdicts == {"as-recorded": "agrees", "eof@mid-tool-args": "silently_wrong"}
    assert report["drivers"]["openai-chat"]["version"]
    assert report["failing"] == 1
    assert "silently_wrong" in md.read_text()
    shown = capsys.readouterr().out
    assert "openai-chat/tool-call-fragmented" in shown and ".W" in shown


def test_a_clean_matrix_exits_0(capsys):
    pytest.importorskip("openai")
    code = main(["harness", str(CHAT / "text-simple.jsonl"), "--driver", "openai-chat",
                 "--mutation", "split-utf8", "--mutation", "one-byte", "--mutation", "lines-cr",
                 *QUICK])  # fmt: skip
    assert code == 0


def test_failing_cells_get_minimized_repro_files(tmp_path):
    pytest.importorskip("openai")
    repro = tmp_path / "repro"
    out = tmp_path / "h.json"
    main(["harness", str(CHAT / "tool-call-fragmented.jsonl"), "--driver", "openai-chat",
          "--mutation", "eof@mid-tool-args", "--repro", str(repro), "--shrink-budget", "40",
          "--json", str(out), *QUICK])  # fmt: skip
    run = orjson.loads(out.read_bytes())["runs"][0]
    assert run["repro"]["bytes"][1] < run["repro"]["bytes"][0]
    assert Path(run["repro"]["test"]).exists() and Path(run["repro"]["capture"]).exists()


def test_untrusted_capture_names_are_escaped_in_the_matrix(tmp_path, capsys):
    pytest.importorskip("openai")
    hostile = tmp_path / "evil\x1b[31mred.sse"
    shutil.copy(CHAT / "text-simple.jsonl", hostile)
    main(["harness", str(hostile), "--driver", "openai-chat", "--mutation", "as-recorded",
          *QUICK])  # fmt: skip
    assert "\x1b" not in capsys.readouterr().out


def test_an_unknown_driver_or_mutation_is_a_usage_error(capsys):
    assert main(["harness", "--driver", "nope"]) == 2
    assert main(["harness", "--mutation", "nope", "--driver", "httpx-sse"]) == 2
    assert "unknown" in capsys.readouterr().err


CLIENT = """
import json, os, httpx
base, model = os.environ["INSPECTOR_BASE_URL"], os.environ["INSPECTOR_MODEL"]
out = {"ok": False, "text": "", "tool_calls": [], "finish_reason": None, "error": None}
done = False
try:
    with httpx.stream("POST", base + "/v1/chat/completions", json={"model": model},
                      timeout=float(os.environ["INSPECTOR_TIMEOUT"])) as response:
        for line in response.iter_lines():
            if line == "data: [DONE]":
                done = True
                break
            if line.startswith("data: "):
                for choice in json.loads(line[6:]).get("choices") or []:
                    out["text"] += (choice.get("delta") or {}).get("content") or ""
                    out["finish_reason"] = choice.get("finish_reason") or out["finish_reason"]
    out["ok"] = done
    out["error"] = None if done else "no [DONE]"
except Exception as exc:
    out["error"] = repr(exc)
print(json.dumps(out))
"""


def _command_run(tmp_path, command, mutations):
    out = tmp_path / "c.json"
    args = ["harness", str(CHAT / "text-simple.jsonl"), "--driver", f"command:{command}",
            "--json", str(out), "--timeout", "3", "--margin", "2", "--jobs", "2"]  # fmt: skip
    for m in mutations:
        args += ["--mutation", m]
    main(args)
    return {r["mutation"]: r["verdict"] for r in orjson.loads(out.read_bytes())["runs"]}


def test_the_command_driver_runs_a_program_over_loopback_http(tmp_path):
    client = tmp_path / "client.py"
    client.write_text(CLIENT)
    verdicts = _command_run(
        tmp_path,
        f"{sys.executable} {client}",
        ["as-recorded", "eof@mid-text", "reset@mid-text", "no-final-signal"],
    )
    assert verdicts == {"as-recorded": "agrees", "eof@mid-text": "raised",
                        "reset@mid-text": "raised", "no-final-signal": "raised"}  # fmt: skip


def test_a_program_that_prints_no_json_line_has_crashed(tmp_path):
    verdicts = _command_run(tmp_path, f"{sys.executable} -c pass", ["as-recorded"])
    assert verdicts == {"as-recorded": "crashed"}


def _docs_js() -> str:
    text = (ROOT / "docs" / "harness.md").read_text()
    found = re.search(r"```js\n(// harness-client\.mjs.*?)```", text, re.S)
    assert found, "docs/harness.md has the JavaScript client"
    return found.group(1)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_javascript_client_of_the_docs_agrees(tmp_path):
    client = tmp_path / "harness-client.mjs"
    client.write_text(_docs_js())
    verdicts = _command_run(
        tmp_path,
        f"node {client}",
        ["as-recorded", "split-field", "eof@mid-text", "no-final-signal"],
    )
    assert verdicts == {"as-recorded": "agrees", "split-field": "agrees",
                        "eof@mid-text": "raised", "no-final-signal": "raised"}  # fmt: skip
