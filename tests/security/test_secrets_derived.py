"""Class 6 — derived fields and messages: no secret in a name, a header, a line or an error.

A key sent as the ``model`` never names a capture file nor reaches the
capture header, the proxy's headless line or the TUI; usage errors, the
proxy's banner and export's refusal show a secret only masked: kind, length,
at most the last two characters.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx

from inspector.live.options import default_capture_path
from inspector.proxy import FlowLog, ProxyServer, ProxySettings, flow_line
from inspector.redact import SecretSet, masked
from inspector.redact.messages import clean_message

from ..conftest import ROOT
from .secrets_upstream import HostileUpstream

KEY = "sk-proj-" + "Dm5Rk8Tq" * 5
PLAIN = "plain-secret-" + "Yu4" * 5  # no known shape: only the set knows it


def _inspector(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")} | env
    return subprocess.run([sys.executable, "-m", "inspector", *args], capture_output=True,
                          text=True, env=environ, cwd=ROOT, timeout=60)  # fmt: skip


def test_a_key_as_the_model_never_names_the_capture_file() -> None:
    for model in (KEY, PLAIN):
        cleaned = SecretSet([("api-key", PLAIN)]).clean(model)
        name = default_capture_path("openai-chat", cleaned).name
        assert KEY not in name and PLAIN not in name and KEY[-12:] not in name


def test_the_proxy_keeps_a_key_sent_as_model_out_of_names_lines_and_headers(
    tmp_path: Path,
) -> None:
    log = FlowLog(tmp_path)
    with HostileUpstream() as upstream:
        settings = ProxySettings(upstream=upstream.url)
        with ProxyServer(log, settings, port=0) as proxy:
            httpx.post(f"{proxy.url}/v1/chat/completions", json={"model": KEY, "stream": True},
                       headers={"Authorization": f"Bearer {KEY}"}, timeout=10)  # fmt: skip
    (flow,) = log.flows
    assert flow.capture is not None
    shown = [flow.capture.name, flow.capture.read_text(), flow_line(flow), flow.description,
             str(flow.model)]  # fmt: skip
    assert not [text for text in shown if KEY in text or KEY[8:20] in text]


def test_usage_errors_show_a_url_password_and_a_header_token_masked() -> None:
    bad_url = f"https://user:{PLAIN}@h ost/v1"
    result = _inspector("record", "--provider", "openai-chat", "--model", "m", "--prompt", "x",
                        "--base-url", bad_url, OPENAI_API_KEY=KEY)  # fmt: skip
    assert result.returncode == 2 and "--base-url" in result.stderr
    assert PLAIN not in result.stderr
    result = _inspector("record", "--provider", "openai-chat", "--model", "m", "--prompt", "x",
                        "--header", f"Authorization Bearer {KEY}", OPENAI_API_KEY=KEY)  # fmt: skip
    assert result.returncode == 2 and KEY not in result.stderr and KEY[:12] not in result.stderr


def test_the_proxy_refuses_upstream_userinfo_without_printing_it(tmp_path: Path) -> None:
    # Credentials in --upstream would replace the app's own Authorization upstream: the
    # proxy refuses them, and its message names the upstream without them.
    result = subprocess.run(
        [sys.executable, "-m", "inspector", "proxy", "--headless", "--port", "0",
         "--upstream", f"http://user:{PLAIN}@127.0.0.1:9", "-o", str(tmp_path)],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )  # fmt: skip
    assert result.returncode == 2
    assert "credentials in the URL are not allowed" in result.stderr
    assert "127.0.0.1:9" in result.stderr
    assert PLAIN not in result.stdout + result.stderr


def test_a_masked_secret_shows_its_kind_length_and_at_most_two_characters() -> None:
    shown = masked(KEY, "openai-key")
    assert shown == f"[openai-key, {len(KEY)} chars, …{KEY[-2:]}]"
    assert masked("short-pw", "cookie") == "[cookie, 8 chars]"
    message = clean_message(f"refused: {KEY} in https://u:{PLAIN}@host/x?api_key={PLAIN}")
    assert KEY not in message and PLAIN not in message and "openai-key" in message


async def test_the_replay_server_log_masks_a_key_sent_as_the_model() -> None:
    import httpx

    from inspector.serve import load_catalog
    from inspector.serve.app import create_app

    lines: list[str] = []
    app = create_app(load_catalog([ROOT / "captures" / "openai-chat"]), speed=0, log=lines.append)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        await client.post("/v1/chat/completions", json={"model": KEY, "stream": True})
    assert lines and all(KEY not in line for line in lines)
    assert any("openai-key" in line for line in lines)


def test_an_export_never_names_its_outputs_after_a_key_in_the_inputs_name(
    tmp_path: Path,
) -> None:
    from inspector.capture import load_recording
    from inspector.export import ExportOptions, export_recording
    from inspector.export.pipeline import base_name

    for key in (KEY, "AKIA" + "Q3ZP7XW2LM4NB6RT", "ghp_" + "k8Rw2" * 8):
        assert key not in base_name(f"/x/openai-chat-{key}-20261201-000000.jsonl")
    source = tmp_path / f"openai-chat-{KEY}-20261201.sse"
    source.write_bytes(
        b'data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":'
        b'{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    )
    export_recording(load_recording(source), tmp_path / "out", ExportOptions(pytest=True))
    names = [p.name for p in (tmp_path / "out").rglob("*")]
    assert names and not [n for n in names if KEY in n or KEY[3:15] in n.replace("_", "-")]
