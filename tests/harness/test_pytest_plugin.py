"""The pytest plugin, used the way a user's suite uses it (in a pytest of its own)."""

from __future__ import annotations

import os
import subprocess
import sys

from .conftest import CHAT, ROOT

USER_SUITE = '''
import httpx
import pytest

CAPTURE = {capture!r}


def ask(http: httpx.Client, base: str) -> str:
    """The code under test: a client that trusts EOF (wrong)."""
    text = ""
    with http.stream("POST", base + "/v1/chat/completions", json={{}}) as response:
        for line in response.iter_lines():
            if line.startswith("data: {{") and '"content"' in line:
                import json
                for c in json.loads(line[6:])["choices"]:
                    text += (c.get("delta") or {{}}).get("content") or ""
    return text


@pytest.mark.inspector_mutations("as-recorded", "eof@mid-text")
def test_in_process(inspector_replay, inspector_mutation):
    replay = inspector_replay(CAPTURE, inspector_mutation)
    replay.assert_correct(text=ask(replay.http_client(), "http://x"), finish_reason="stop")


@pytest.mark.inspector_mutations("as-recorded")
def test_over_loopback(inspector_replay, inspector_mutation):
    replay = inspector_replay(CAPTURE, inspector_mutation)
    with httpx.Client() as http:
        replay.assert_correct(text=ask(http, replay.base_url), finish_reason="stop")


def test_not_applicable_skips(inspector_replay):
    inspector_replay(CAPTURE, "lying-finish")
'''


def test_a_user_suite_parametrizes_over_mutations(tmp_path):
    suite = USER_SUITE.format(capture=str(CHAT / "text-simple.jsonl"))
    (tmp_path / "test_user.py").write_text(suite)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
            str(tmp_path / "test_user.py")]  # fmt: skip
    listed = subprocess.run([sys.executable, "-c", "import importlib.metadata as m; print("
                             "[e.value for e in m.entry_points(group='pytest11')])"],
                            capture_output=True, text=True, env=env).stdout  # fmt: skip
    if "inspector.pytest_plugin" not in listed:
        args[3:3] = ["-p", "inspector.pytest_plugin"]
    result = subprocess.run(args, capture_output=True, text=True, env=env, cwd=tmp_path)
    out = result.stdout
    assert "test_in_process[eof@mid-text] FAILED" in out or "1 failed" in out, out
    assert "2 passed, 1 skipped" in out or ("passed" in out and "skipped" in out), out
    assert "silently_wrong under eof@mid-text" in out
