"""Export removes a secret however it is encoded: JSON escapes, percent-encoding, nesting.

A key in tool-call arguments reaches the wire JSON-escaped at least once
(the arguments are JSON text inside a JSON string), and a model or client
can escape it further: ``sk\\u002dproj-…``, every character ``\\u``-escaped,
``sk%2Dproj…`` in a URL, or a JSON document inside an argument value. For
each of the four providers, each spelling, and fragments small enough to cut
every escape in two (and chunks cut across frames), the export must succeed
and no output may hold the key in any decoded form.
"""

from __future__ import annotations

import codecs
import json
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest

from inspector.capture import load_recording
from inspector.capture_writer import CaptureWriter
from inspector.export import ExportError, ExportOptions, export_capture, prepare_export
from inspector.session import load_trace

KEY = "sk-proj-Zq8" + "Xy7" * 13  # an OpenAI-shaped key, 50 characters
CORE = KEY[8:]  # what must never be seen again, in any form

# -- spellings of the key as JSON string content (what sits between quotes) -------


def one_escape(key: str) -> str:
    return key.replace("-", "\\u002d", 1)


def upper_escapes(key: str) -> str:
    return key.replace("-", "\\u002D")


def all_escaped(key: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in key)


def percent_encoded(key: str) -> str:
    return "https://example.com/fetch?q=" + key.replace("-", "%2D")


def percent_lower(key: str) -> str:
    return "https://example.com/fetch?q=" + "".join(f"%{ord(c):02x}" for c in key)


def nested_json(key: str) -> str:
    # The value is itself JSON text holding the key \\u-escaped.
    inner = json.dumps({"token": key.replace("-", "\\u002d")})
    return json.dumps(inner)[1:-1]


SPELLINGS: dict[str, Callable[[str], str]] = {
    "one-u-escape": one_escape,
    "upper-hex-escapes": upper_escapes,
    "every-char-escaped": all_escaped,
    "percent-encoded": percent_encoded,
    "percent-lower-hex": percent_lower,
    "json-in-a-json-string": nested_json,
}


def arguments_text(spelled: str) -> str:
    """The tool call's arguments: JSON text whose one value is the spelled key."""
    return '{"url": "' + spelled + '"}'


def fragments(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- one tool-call stream per provider ----------------------------------------------


def sse(payload: dict[str, Any], event: str | None = None) -> str:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(payload)}\n\n"


def openai_chat(parts: list[str], whole: str) -> str:
    base = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return sse({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    call = {"index": 0, "id": "call_abc123def456", "type": "function"}
    out = [chunk({"role": "assistant", "tool_calls": [{**call, "function": {"name": "fetch"}}]})]
    out += [chunk({"tool_calls": [{"index": 0, "function": {"arguments": p}}]}) for p in parts]
    out.append(chunk({}, "tool_calls"))
    return "".join(out) + "data: [DONE]\n\n"


def openai_responses(parts: list[str], whole: str) -> str:
    response = {"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-4o"}
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "fetch"}
    where = {"item_id": "fc_1", "output_index": 0}
    out = [sse({"type": "response.created", "response": {**response, "output": []}})]
    out.append(
        sse(
            {
                "type": "response.output_item.added",
                "output_index": 0,
                "item": {**item, "arguments": ""},
            }
        )
    )
    out += [
        sse({"type": "response.function_call_arguments.delta", **where, "delta": p}) for p in parts
    ]
    out.append(sse({"type": "response.function_call_arguments.done", **where, "arguments": whole}))
    done = {**item, "arguments": whole, "status": "completed"}
    out.append(sse({"type": "response.output_item.done", "output_index": 0, "item": done}))
    final = {**response, "status": "completed", "output": [done]}
    out.append(sse({"type": "response.completed", "response": final}))
    return "".join(out)


def anthropic(parts: list[str], whole: str) -> str:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude",
               "content": [], "usage": {"input_tokens": 1, "output_tokens": 1}}  # fmt: skip
    tool = {"type": "tool_use", "id": "toolu_1", "name": "fetch", "input": {}}
    out = [sse({"type": "message_start", "message": message}, "message_start")]
    out.append(sse({"type": "content_block_start", "index": 0, "content_block": tool},
                   "content_block_start"))  # fmt: skip
    for p in parts:
        delta = {"type": "input_json_delta", "partial_json": p}
        out.append(sse({"type": "content_block_delta", "index": 0, "delta": delta},
                       "content_block_delta"))  # fmt: skip
    out.append(sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    out.append(sse({"type": "message_delta", "delta": {"stop_reason": "tool_use"},
                    "usage": {"output_tokens": 5}}, "message_delta"))  # fmt: skip
    out.append(sse({"type": "message_stop"}, "message_stop"))
    return "".join(out)


def gemini(parts: list[str], whole: str) -> str:
    # Gemini sends the arguments as an object, whole: the spelling sits in the
    # stream's own JSON, so it is written raw (not re-escaped) into the frame.
    call = '{"functionCall": {"name": "fetch", "args": ' + whole + "}}"
    candidate = (
        '{"content": {"parts": ['
        + call
        + '], "role": "model"}, "finishReason": "STOP", "index": 0}'
    )
    return "data: {" + '"candidates": [' + candidate + "]}\r\n\r\n"


PROVIDERS: dict[str, Callable[[list[str], str], str]] = {
    "openai-chat": openai_chat,
    "openai-responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
}


def write_capture(path: Path, provider: str, body: bytes, chunk: int) -> Path:
    writer = CaptureWriter(path, {"provider": provider, "endpoint": "test"})
    for i in range(0, len(body), chunk):
        writer.chunk(i / 1000, body[i : i + chunk])
    writer.end("eof", 1.0)
    return path


# -- what "not there in any form" means ---------------------------------------------


def _unescape(text: str) -> str:
    data = text.encode("utf-8", "backslashreplace").replace(b"\\/", b"/")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return codecs.decode(data, "unicode_escape", "backslashreplace")


def every_reading(text: str) -> list[str]:
    """``text`` with escapes undone up to four times, each also percent-decoded."""
    levels = [text]
    for _ in range(4):
        levels.append(_unescape(levels[-1]))
    return levels + [unquote(level) for level in levels]


def assert_gone(out: Path, capture: str) -> None:
    texts = [p.read_text(encoding="utf-8") for p in sorted(out.iterdir())]
    texts.append(load_recording(out / capture).body.decode("utf-8", "replace"))
    trace = load_trace(out / capture)
    joined: dict[int, str] = {}
    for event in trace.events:
        if event["type"] == "block.delta":
            index = event["block"]["index"]
            joined[index] = joined.get(index, "") + event["delta"].get("text", "")
    texts += joined.values()
    for text in texts:
        for reading in every_reading(text):
            assert CORE not in reading


# -- the specifications ---------------------------------------------------------------


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_key_in_tool_arguments_is_removed_in_every_spelling(
    tmp_path: Path, provider: str, spelling: str
) -> None:
    whole = arguments_text(SPELLINGS[spelling](KEY))
    # 5-character fragments cut escapes (6 and 12 characters) in two; 37-byte
    # chunks cut frames, and escapes, at other places.
    body = PROVIDERS[provider](fragments(whole, 5), whole).encode()
    source = write_capture(tmp_path / "in.jsonl", provider, body, 37)
    result = export_capture(source, tmp_path / "out", ExportOptions(pytest=True))
    assert sum(n for rule, n in result.report["removed"].items() if rule == "openai-key") >= 1
    assert_gone(tmp_path / "out", "in.jsonl")


def test_a_percent_encoded_key_in_the_request_url_and_an_error_body_is_removed(
    tmp_path: Path,
) -> None:
    encoded = KEY.replace("-", "%2d")
    header = {"provider": "openai-chat", "endpoint": "/v1/chat/completions",
              "request": {"url": f"https://api.example.com/v1?trace=on&q={encoded}",
                          "body": json.dumps({"model": "m", "note": f"see {encoded}"})},
              "response": {"status": 401}}  # fmt: skip
    path = tmp_path / "in.jsonl"
    writer = CaptureWriter(path, header)
    error = {"error": {"message": f"Incorrect API key provided: {encoded}", "code": "bad_key"}}
    writer.chunk(0.0, json.dumps(error).encode())
    writer.end("eof", 0.1)
    export_capture(path, tmp_path / "out", ExportOptions(keep_request=True))
    assert_gone(tmp_path / "out", "in.jsonl")


def test_the_leak_check_refuses_an_export_that_would_still_hold_an_encoded_key(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Simulate a rewriter that misses the key: the verification alone must refuse,
    # without printing the key.
    import inspector.export.anonymizer as anonymizer

    unchanged = lambda body, ctx, whole_json=False: body.take()  # noqa: E731
    monkeypatch.setattr(anonymizer, "rewrite_body", unchanged)
    whole = arguments_text(all_escaped(KEY))
    body = anthropic(fragments(whole, 4), whole).encode()
    source = write_capture(tmp_path / "in.jsonl", "anthropic", body, 23)
    with pytest.raises(ExportError) as refused:
        prepare_export(load_recording(source))
    message = str(refused.value)
    assert "openai-key" in message and "nothing was written" in message
    assert CORE[:6] not in message and KEY not in message
    # Masked: the kind, the length and at most the last two characters.
    assert f"[openai-key, {len(KEY)} chars, …{KEY[-2:]}]" in message
