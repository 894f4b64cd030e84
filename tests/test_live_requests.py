"""Building each provider's streaming request, finding its key, and keeping keys out of records."""

from __future__ import annotations

import argparse
from pathlib import Path

import orjson
import pytest

from inspector.live.keys import MissingKey, is_loopback_url, resolve_key
from inspector.live.options import UsageError, add_live_arguments, feed_from_args, parse_header
from inspector.live.providers import RequestError, build_request, join_url, tools_for
from inspector.redact import REDACTED, redact_headers, redact_url
from inspector.redact.spellings import SecretScrubber

from .test_live_helpers import SECRET

# provider -> (URL, auth header, body without the prompt's message list)
EXPECTED = {
    "openai-chat": (
        "https://api.openai.com/v1/chat/completions",
        ("authorization", f"Bearer {SECRET}"),
        {"model": "m", "stream": True, "stream_options": {"include_usage": True},
         "messages": [{"role": "user", "content": "hi"}]},
    ),
    "openai-responses": (
        "https://api.openai.com/v1/responses",
        ("authorization", f"Bearer {SECRET}"),
        {"model": "m", "input": "hi", "stream": True},
    ),
    "anthropic": (
        "https://api.anthropic.com/v1/messages",
        ("x-api-key", SECRET),
        {"model": "m", "max_tokens": 1024, "stream": True,
         "messages": [{"role": "user", "content": "hi"}]},
    ),
    "gemini": (
        "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse",
        ("x-goog-api-key", SECRET),
        {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]},
    ),
}  # fmt: skip


@pytest.mark.parametrize("provider", EXPECTED)
def test_each_provider_gets_its_endpoint_auth_header_and_streaming_body(provider: str) -> None:
    url, (auth_name, auth_value), body = EXPECTED[provider]
    request = build_request(provider, model="m", prompt="hi", api_key=SECRET)
    assert request.url == url
    assert request.headers[auth_name] == auth_value
    assert request.headers["accept"] == "text/event-stream"
    assert request.body == body


def test_anthropic_requests_carry_the_api_version() -> None:
    assert build_request("anthropic", model="m", prompt="x").headers["anthropic-version"]


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("http://127.0.0.1:8765", "http://127.0.0.1:8765/v1/chat/completions"),
        ("http://localhost:11434/v1", "http://localhost:11434/v1/chat/completions"),
        ("https://openrouter.ai/api/v1/", "https://openrouter.ai/api/v1/chat/completions"),
        ("http://h:1/proxy", "http://h:1/proxy/v1/chat/completions"),
    ],
)
def test_base_url_with_or_without_the_version_segment(base: str, url: str) -> None:
    assert join_url(base, "/v1/chat/completions") == url


def test_gemini_base_url_keeps_its_own_query_and_adds_alt_sse() -> None:
    url = join_url(
        "http://127.0.0.1:1/v1beta?x=1", "/v1beta/models/g:streamGenerateContent", "alt=sse"
    )
    assert url == "http://127.0.0.1:1/v1beta/models/g:streamGenerateContent?x=1&alt=sse"


@pytest.mark.parametrize("base", ["ftp://h/", "127.0.0.1:8000", "not a url"])
def test_a_base_url_that_is_not_http_is_refused_with_its_value(base: str) -> None:
    with pytest.raises(RequestError, match="is not an http"):
        join_url(base, "/v1/messages")


def test_a_request_file_gets_the_model_and_stream_flag() -> None:
    body = {"model": "from-file", "messages": [], "temperature": 0}
    request = build_request("openai-chat", model=None, body=body)
    assert request.model == "from-file"
    assert request.body == {"model": "from-file", "messages": [], "temperature": 0, "stream": True}
    assert build_request("openai-chat", model="flag", body=body).body["model"] == "flag"


def test_gemini_request_files_keep_the_model_in_the_url_only() -> None:
    request = build_request("gemini", model="g-1", body={"contents": []})
    assert request.body == {"contents": []}
    assert "/models/g-1:streamGenerateContent" in request.url


def test_no_model_and_no_prompt_are_usage_errors() -> None:
    with pytest.raises(RequestError, match="needs a model"):
        build_request("anthropic", model=None, prompt="x")
    with pytest.raises(RequestError, match="exactly one of --prompt"):
        build_request("anthropic", model="m")


NEUTRAL = [{"name": "get_time", "description": "now", "parameters": {"type": "object"}}]


@pytest.mark.parametrize(
    ("provider", "tools"),
    [
        ("openai-chat", [{"type": "function", "function": NEUTRAL[0]}]),
        ("openai-responses", [{"type": "function", **NEUTRAL[0]}]),
        ("anthropic", [{"name": "get_time", "description": "now",
                        "input_schema": {"type": "object"}}]),
        ("gemini", [{"functionDeclarations": NEUTRAL}]),
    ],
)  # fmt: skip
def test_one_neutral_tools_file_works_for_every_provider(provider: str, tools: list) -> None:
    assert tools_for(provider, NEUTRAL) == tools


def test_tools_already_in_the_provider_shape_pass_unchanged() -> None:
    native = [{"type": "web_search_20250305", "name": "web_search"}]
    assert tools_for("anthropic", native) == native
    with pytest.raises(RequestError, match="JSON list"):
        tools_for("anthropic", {"name": "x"})


def test_keys_come_from_the_usual_variables_in_order() -> None:
    env = {"GOOGLE_API_KEY": "g", "GEMINI_API_KEY": "m"}
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    assert resolve_key("gemini", key_env, env, url="https://x") == "m"
    assert resolve_key("gemini", key_env, {"GOOGLE_API_KEY": "g"}, url="https://x") == "g"


def test_a_missing_key_names_every_variable_it_looked_at() -> None:
    key_env = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
    with pytest.raises(MissingKey, match="set GEMINI_API_KEY or GOOGLE_API_KEY"):
        resolve_key("gemini", key_env, {}, url="https://generativelanguage.googleapis.com")


def test_a_loopback_server_may_be_keyless_but_an_explicit_variable_must_exist() -> None:
    key_env = ("OPENAI_API_KEY",)
    assert resolve_key("openai-chat", key_env, {}, url="http://127.0.0.1:8765") is None
    assert resolve_key("openai-chat", key_env, {}, url="http://localhost:11434/v1") is None
    with pytest.raises(MissingKey, match="MY_KEY is not set"):
        resolve_key("openai-chat", key_env, {}, explicit_env="MY_KEY", url="http://127.0.0.1:1")
    assert (
        resolve_key("openai-chat", key_env, {"MY_KEY": "k"}, explicit_env="MY_KEY", url="x") == "k"
    )


@pytest.mark.parametrize(
    ("url", "loopback"),
    [("http://127.0.0.1:1", True), ("http://127.3.4.5", True), ("http://[::1]:8000", True),
     ("http://localhost", True), ("http://10.0.0.1", False), ("https://api.openai.com", False)],
)  # fmt: skip
def test_loopback_urls(url: str, loopback: bool) -> None:
    assert is_loopback_url(url) is loopback


def test_secret_headers_keep_their_names_with_redacted_values() -> None:
    headers = {
        "authorization": "Bearer x", "x-api-key": "x", "x-goog-api-key": "x", "api-key": "x",
        "x-custom-token": "x", "content-type": "application/json",
        "x-ratelimit-remaining-tokens": "99", "anthropic-version": "2023-06-01",
    }  # fmt: skip
    assert redact_headers(headers) == {
        "authorization": REDACTED, "x-api-key": REDACTED, "x-goog-api-key": REDACTED,
        "api-key": REDACTED, "x-custom-token": REDACTED, "content-type": "application/json",
        "x-ratelimit-remaining-tokens": "99", "anthropic-version": "2023-06-01",
    }  # fmt: skip


def test_the_key_query_parameter_is_stripped_from_urls() -> None:
    url = f"https://g/v1beta/models/m:streamGenerateContent?alt=sse&key={SECRET}"
    assert redact_url(url) == "https://g/v1beta/models/m:streamGenerateContent?alt=sse"


def test_a_key_pasted_anywhere_else_is_scrubbed_too() -> None:
    value = {"note": f"token {SECRET} here", "list": [SECRET], SECRET: 1}
    assert orjson.dumps(SecretScrubber([SECRET]).scrub_value(value)).count(SECRET.encode()) == 0
    # too short to scrub without false hits
    assert SecretScrubber(["abc"]).scrub_value("short") == "short"


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_live_arguments(parser)
    return parser.parse_args(list(argv))


def test_options_without_a_key_for_a_remote_server_are_a_usage_error(tmp_path: Path) -> None:
    args = _args("--provider", "anthropic", "--model", "m", "--prompt", "x",
                 "-o", str(tmp_path / "c.jsonl"))  # fmt: skip
    with pytest.raises(UsageError, match="set ANTHROPIC_API_KEY"):
        feed_from_args(args, environ={})


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--request", "missing.json"], "--request missing.json: cannot read"),
        (["--prompt", "x", "--header", "no-colon"], "expected NAME:VALUE"),
        (["--prompt", "x", "--base-url", "ftp://x"], "is not an http"),
        (["--prompt", "x", "-o", "/nonexistent-dir/c.jsonl"], "does not exist"),
    ],
)
def test_bad_options_say_what_is_wrong(tmp_path: Path, argv: list[str], message: str) -> None:
    args = _args("--provider", "openai-chat", "--model", "m", *argv)
    if args.output is None:
        args.output = tmp_path / "c.jsonl"
    with pytest.raises(UsageError, match=message):
        feed_from_args(args, environ={"OPENAI_API_KEY": SECRET})


def test_a_request_file_that_is_not_a_json_object(tmp_path: Path) -> None:
    bad = tmp_path / "r.json"
    bad.write_text("[1, 2]")
    args = _args("--provider", "openai-chat", "--request", str(bad), "-o", str(tmp_path / "c"))
    with pytest.raises(UsageError, match="must be a JSON object"):
        feed_from_args(args, environ={"OPENAI_API_KEY": SECRET})


def test_header_option_parsing() -> None:
    assert parse_header("anthropic-beta: tools-2024") == ("anthropic-beta", "tools-2024")
    assert parse_header("X-A:b:c") == ("X-A", "b:c")
