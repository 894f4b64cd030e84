"""Write the planted-secret corpus of ``tests/test_export_corpus.py``.

Usage: python tests/data/export/make_corpus.py   (rewrites the files beside it)

Every capture here is synthetic: realistic provider streams with fake
secrets planted in every place an export must clean — request headers, the
URL's user-info and query, the request body (prompt and tool results),
response headers, stream text split across deltas and across chunks, tool
arguments split across fragments, an SSE comment, an error message, an HTTP
error body, a chunk stored as ``b64`` (it ends inside a UTF-8 character) and
the transport's error text. ``planted.json`` lists every planted value, and
every prompt marker, per file. The secrets have the right shape for their
rule but are not real credentials.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from inspector.capture import parse_recording
from inspector.session import trace_recording

HERE = Path(__file__).resolve().parent


def fill(prefix: str, total: int, stem: str) -> str:
    """``prefix`` + ``stem`` padded with zeros to ``total`` characters."""
    body = stem + "0" * (total - len(prefix) - len(stem))
    return prefix + body


S = {
    "openai_project_key": fill("sk-proj-", 60, "PlantedOpenAIProjectKey"),
    "openai_admin_key": fill("sk-admin-", 50, "PlantedAdminKey"),
    "openai_svcacct_key": fill("sk-svcacct-", 56, "PlantedServiceAccountKey"),
    "openai_legacy_key": fill("sk-", 51, "PlantedLegacyKey"),
    "openai_http_key": fill("sk-proj-", 60, "PlantedHttpErrorKey"),
    "anthropic_key": fill("sk-ant-api03-", 60, "PlantedAnthropicKey"),
    "anthropic_error_key": fill("sk-ant-api03-", 60, "PlantedAnthropicErrorKey"),
    "google_key": fill("AIza", 39, "PlantedGoogleKey"),
    "google_query_key": fill("AIza", 39, "PlantedGoogleQueryKey"),
    "google_header_key": fill("AIza", 39, "PlantedGoogleHeaderKey"),
    "bearer_token": fill("", 40, "PlantedBearerToken"),
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkLWp3dCJ9.PlantedJwtSignature0001",
    "jwt_comment": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwbGFudGVkLWNvbW1lbnQifQ.PlantedJwtSig02",
    "aws_access_key": "AKIAPLANTED000000001",
    "aws_secret_key": fill("", 40, "PlantedAwsSecretKey/"),
    "github_token": fill("ghp_", 40, "PlantedGithubToken"),
    "github_pat": fill("github_pat_", 60, "PlantedFineGrainedPat_"),
    "slack_token": fill("xoxb-", 40, "0000000000-PlantedSlackBot"),
    "slack_webhook": "https://hooks.slack.com/services/T0PLANTED/B0PLANTED/PlantedWebhook0000",
    "xai_key": fill("xai-", 60, "PlantedXaiKey"),
    "hf_token": fill("hf_", 40, "PlantedHuggingFace"),
    "email_user": "alice.planted@example.com",
    "email_text": "bob.planted+stream@example.org",
    "email_args": "carol.planted@example.net",
    "email_error": "dave.planted@example.io",
    "cookie": "session=PlantedCookieValue0001",
    "set_cookie": "__cf_bm=PlantedSetCookieValue0002; path=/; HttpOnly",
    "organization": "org-PlantedOrganization0003",
    "project": "proj_PlantedProject0004",
    "anthropic_org": "5f1c0a2e-0000-4000-8000-planted00005",
    "proxy_auth": "Basic " + base64.b64encode(b"planted-proxy:PlantedProxyPass06").decode(),
    "url_password": "PlantedUrlPassword0007",
    "transport_key": fill("sk-proj-", 60, "PlantedTransportErrorKey"),
}

PROMPTS = {
    "system": "PLANTED-PROMPT-SYSTEM: you are a planted assistant",
    "user": "PLANTED-PROMPT-USER: tell me a planted secret",
    "tool_result": "PLANTED-PROMPT-TOOL-RESULT: 17 degrees in Planted City",
    "args": "PLANTED-PROMPT-ARGS-Planted-City",
    "thinking": "PLANTED-PROMPT-THINKING about the planted request",
    "instructions": "PLANTED-PROMPT-INSTRUCTIONS: answer in planted style",
}


def sse(*frames: tuple[str | None, Any], crlf: bool = False) -> bytes:
    """Frames as SSE bytes; a ``None`` event name writes only ``data:``."""
    nl = "\r\n" if crlf else "\n"
    out = []
    for event, data in frames:
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        head = f"event: {event}{nl}" if event else ""
        out.append(f"{head}data: {text}{nl}{nl}")
    return "".join(out).encode()


def cut(body: bytes, *markers: tuple[str, int]) -> list[bytes]:
    """Split ``body`` just after ``offset`` bytes into the first occurrence of each marker."""
    points = sorted({body.index(m.encode()) + offset for m, offset in markers})
    pieces = []
    at = 0
    for p in points:
        pieces.append(body[at:p])
        at = p
    pieces.append(body[at:])
    return pieces


def capture(header: dict[str, Any], chunks: list[bytes], end: dict[str, Any]) -> bytes:
    lines = [{"type": "header", "format": "llm-stream-capture", "version": 1, **header}]
    for i, data in enumerate(chunks):
        t = round(0.1 + i * 0.0375, 4)
        try:
            lines.append({"type": "chunk", "t": t, "text": data.decode("utf-8")})
        except UnicodeDecodeError:
            lines.append({"type": "chunk", "t": t, "b64": base64.b64encode(data).decode()})
    lines.append({"type": "end", **end})
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines).encode()


def chat_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "id": "chatcmpl-PlantedCompletion0001",
        "object": "chat.completion.chunk",
        "created": 1760000000,
        "model": "gpt-4o-2024-08-06",
        "system_fingerprint": "fp_0a1b2c3d4e",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }


def openai_chat() -> bytes:
    call = "call_PlantedToolCall00001"
    body = sse(
        (None, chat_chunk({"role": "assistant", "content": ""})),
        (None, chat_chunk({"content": "Here is the key sk-pr"})),
        (None, chat_chunk({"content": S["openai_project_key"][5:] + " — keep it safe."})),
        (
            None,
            chat_chunk({"content": f" Mail {S['email_text']} or use {S['slack_token']} Привет"}),
        ),
        (
            None,
            chat_chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": call,
                            "type": "function",
                            "function": {"name": "send_email", "arguments": ""},
                        }
                    ]
                }
            ),
        ),
        (
            None,
            chat_chunk(
                {
                    "tool_calls": [
                        {"index": 0, "function": {"arguments": '{"to": "' + S["email_args"][:9]}}
                    ]
                }
            ),
        ),
        (
            None,
            chat_chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "function": {
                                "arguments": S["email_args"][9:]
                                + '", "keys": ["'
                                + S["aws_access_key"][:6]
                            },
                        }
                    ]
                }
            ),
        ),
        (
            None,
            chat_chunk(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "function": {
                                "arguments": S["aws_access_key"][6:]
                                + '"], "auth": "Bearer '
                                + S["bearer_token"]
                                + '", "city": "Zürich \\"Z\\" \\u00e9t\\u00E9"}'
                            },
                        }
                    ]
                }
            ),
        ),
        (None, chat_chunk({}, "tool_calls")),
        (
            None,
            chat_chunk(
                {}, None, usage={"prompt_tokens": 91, "completion_tokens": 42, "total_tokens": 133}
            )
            | {"choices": []},
        ),
    )
    body = body.replace(b"data: ", b": keep-alive " + S["jwt_comment"].encode() + b"\n\ndata: ", 1)
    body += b"data: [DONE]\n\n"
    chunks = cut(
        body,
        ("keep-alive", 4),
        ("the key sk-pr", 10),  # inside the key
        ("Привет", 1),  # inside "П": this chunk and the next are stored as b64
        ("xoxb-", 3),  # inside the Slack token, in the b64 chunk
        ("carol.pl", 3),
        ("Bearer ", 12),
        ("[DONE]", 2),
    )
    header = {
        "provider": "openai-chat",
        "endpoint": "/v1/chat/completions",
        "model": "gpt-4o",
        "recorded_at": "2026-01-15T10:00:00Z",
        "request": {
            "method": "POST",
            "url": f"https://planted-user:{S['url_password']}@api.openai.com/v1/chat/completions"
            f"?api-version=2024-10-21&key={S['google_query_key']}",
            "headers": {
                "authorization": f"Bearer {S['openai_project_key']}",
                "openai-organization": S["organization"],
                "openai-project": S["project"],
                "cookie": S["cookie"],
                "proxy-authorization": S["proxy_auth"],
                "content-type": "application/json",
            },
            "body": {
                "model": "gpt-4o",
                "stream": True,
                "user": "customer-42",
                "messages": [
                    {"role": "system", "content": f"{PROMPTS['system']} {S['email_user']}"},
                    {"role": "user", "content": f"{PROMPTS['user']} {S['openai_admin_key']}"},
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": call,
                                "type": "function",
                                "function": {
                                    "name": "get_weather",
                                    "arguments": json.dumps({"city": PROMPTS["args"]}),
                                },
                            }
                        ],
                    },
                    {
                        "role": "tool",
                        "tool_call_id": call,
                        "content": f"{PROMPTS['tool_result']} {S['github_token']}",
                    },
                ],
                "tools": [
                    {
                        "type": "function",
                        "function": {
                            "name": "send_email",
                            "parameters": {
                                "type": "object",
                                "properties": {"to": {"type": "string"}},
                            },
                        },
                    }
                ],
            },
        },
        "response": {
            "status": 200,
            "headers": {
                "content-type": "text/event-stream",
                "openai-organization": S["organization"],
                "x-request-id": "req_PlantedRequestId000000001",
                "set-cookie": S["set_cookie"],
                "openai-processing-ms": "213",
            },
        },
    }
    return capture(header, chunks, {"t": 0.9, "reason": "eof", "error": None})


def anthropic() -> bytes:
    tool_id = "toolu_PlantedToolUse000000001"
    signature = base64.b64encode(b"planted-thinking-signature " * 6).decode()
    body = sse(
        (
            "message_start",
            {
                "type": "message_start",
                "message": {
                    "id": "msg_PlantedMessage0000000001",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-sonnet-4-5",
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 120, "output_tokens": 1},
                },
            },
        ),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "thinking", "thinking": "", "signature": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "thinking_delta", "thinking": "The user pasted AIza"},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {
                    "type": "thinking_delta",
                    "thinking": S["google_key"][4:] + "; ignore it.",
                },
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "signature_delta", "signature": signature},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("ping", {"type": "ping"}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 1,
                "content_block": {"type": "text", "text": ""},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "text_delta", "text": f"Write to {S['email_text']} — ✓ done"},
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 1}),
        (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": 2,
                "content_block": {"type": "tool_use", "id": tool_id, "name": "deploy", "input": {}},
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {
                    "type": "input_json_delta",
                    "partial_json": '{"token": "' + S["github_pat"][:20],
                },
            },
        ),
        (
            "content_block_delta",
            {
                "type": "content_block_delta",
                "index": 2,
                "delta": {
                    "type": "input_json_delta",
                    "partial_json": S["github_pat"][20:] + '", "session": "' + S["jwt"] + '"}',
                },
            },
        ),
        ("content_block_stop", {"type": "content_block_stop", "index": 2}),
        (
            "error",
            {
                "type": "error",
                "error": {
                    "type": "overloaded_error",
                    "message": f"Overloaded (key {S['anthropic_error_key']}, "
                    f"ask {S['email_error']})",
                },
            },
        ),
    )
    chunks = cut(body, ("AIza", 2), ("✓", 2), ("github_pat_", 5), ("overloaded_error", 4))
    header = {
        "provider": "anthropic",
        "endpoint": "/v1/messages",
        "model": "claude-sonnet-4-5",
        "recorded_at": "2026-01-15T10:05:00Z",
        "request": {
            "method": "POST",
            "url": "https://api.anthropic.com/v1/messages",
            "headers": {"x-api-key": S["anthropic_key"], "anthropic-version": "2023-06-01"},
            "body": {
                "model": "claude-sonnet-4-5",
                "max_tokens": 1024,
                "stream": True,
                "system": [
                    {
                        "type": "text",
                        "text": PROMPTS["system"],
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": f"{PROMPTS['user']} {S['google_key']}"}
                        ],
                    },
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "thinking",
                                "thinking": PROMPTS["thinking"],
                                "signature": signature,
                            },
                            {
                                "type": "tool_use",
                                "id": tool_id,
                                "name": "lookup",
                                "input": {"name": PROMPTS["args"]},
                            },
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": tool_id,
                                "content": f"{PROMPTS['tool_result']} {S['slack_webhook']}",
                            }
                        ],
                    },
                ],
            },
        },
        "response": {
            "status": 200,
            "headers": {
                "content-type": "text/event-stream",
                "request-id": "req_011PlantedRequest000001",
                "anthropic-organization-id": S["anthropic_org"],
                "cf-ray": "8f0a1b2c3d4e5f60-ZRH",
            },
        },
    }
    return capture(header, chunks, {"t": 1.2, "reason": "eof", "error": None})


def responses() -> bytes:
    rid = "resp_PlantedResponse0000000000000001"
    msg = "msg_PlantedOutputMessage000000000001"
    fc = "fc_PlantedFunctionCall0000000000001"
    call = "call_PlantedResponsesCall0001"
    base = {
        "id": rid,
        "object": "response",
        "created_at": 1760000000,
        "status": "in_progress",
        "model": "gpt-5",
        "instructions": f"{PROMPTS['instructions']} {S['email_user']}",
        "metadata": {"customer": S["email_user"]},
        "output": [],
        "usage": None,
        "previous_response_id": "resp_PlantedPreviousResponse000001",
    }
    done = dict(
        base,
        status="completed",
        usage={
            "input_tokens": 50,
            "output_tokens": 30,
            "total_tokens": 80,
            "output_tokens_details": {"reasoning_tokens": 0},
            "input_tokens_details": {"cached_tokens": 0},
        },
    )
    n = iter(range(100))

    def ev(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
        return kind, {"type": kind, "sequence_number": next(n), **fields}

    body = sse(
        ev("response.created", response=base),
        ev(
            "response.output_item.added",
            output_index=0,
            item={
                "id": msg,
                "type": "message",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            },
        ),
        ev(
            "response.content_part.added",
            item_id=msg,
            output_index=0,
            content_index=0,
            part={"type": "output_text", "text": "", "annotations": []},
        ),
        ev(
            "response.output_text.delta",
            item_id=msg,
            output_index=0,
            content_index=0,
            delta="Token: " + S["github_token"][:15],
        ),
        ev(
            "response.output_text.delta",
            item_id=msg,
            output_index=0,
            content_index=0,
            delta=S["github_token"][15:] + ", key " + S["openai_svcacct_key"],
        ),
        ev(
            "response.output_text.done",
            item_id=msg,
            output_index=0,
            content_index=0,
            text="Token: " + S["github_token"] + ", key " + S["openai_svcacct_key"],
        ),
        ev(
            "response.output_item.done",
            output_index=0,
            item={
                "id": msg,
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "annotations": [],
                        "text": "Token: " + S["github_token"] + ", key " + S["openai_svcacct_key"],
                    }
                ],
            },
        ),
        ev(
            "response.output_item.added",
            output_index=1,
            item={
                "id": fc,
                "type": "function_call",
                "status": "in_progress",
                "call_id": call,
                "name": "notify",
                "arguments": "",
            },
        ),
        ev(
            "response.function_call_arguments.delta",
            item_id=fc,
            output_index=1,
            delta='{"hook": "' + S["slack_webhook"][:30],
        ),
        ev(
            "response.function_call_arguments.delta",
            item_id=fc,
            output_index=1,
            delta=S["slack_webhook"][30:]
            + '", "aws": "aws_secret_access_key='
            + S["aws_secret_key"]
            + '"}',
        ),
        ev(
            "response.function_call_arguments.done",
            item_id=fc,
            output_index=1,
            arguments='{"hook": "'
            + S["slack_webhook"]
            + '", "aws": "aws_secret_access_key='
            + S["aws_secret_key"]
            + '"}',
        ),
        ev(
            "response.output_item.done",
            output_index=1,
            item={
                "id": fc,
                "type": "function_call",
                "status": "completed",
                "call_id": call,
                "name": "notify",
                "arguments": '{"hook": "'
                + S["slack_webhook"]
                + '", "aws": "aws_secret_access_key='
                + S["aws_secret_key"]
                + '"}',
            },
        ),
        ev("response.completed", response=done),
    )
    chunks = cut(body, ("ghp_", 6), ("hooks.slack", 4), ("response.completed", 9))
    header = {
        "provider": "openai-responses",
        "endpoint": "/v1/responses",
        "model": "gpt-5",
        "recorded_at": "2026-01-15T10:10:00Z",
        "request": {
            "method": "POST",
            "url": "https://api.openai.com/v1/responses",
            "headers": {
                "Authorization": f"Bearer {S['openai_svcacct_key']}",
                "OpenAI-Project": S["project"],
            },
            "body": {
                "model": "gpt-5",
                "stream": True,
                "instructions": PROMPTS["instructions"],
                "previous_response_id": "resp_PlantedPreviousResponse000001",
                "input": [
                    {"role": "user", "content": [{"type": "input_text", "text": PROMPTS["user"]}]},
                    {
                        "type": "function_call_output",
                        "call_id": call,
                        "output": f"{PROMPTS['tool_result']} "
                        f"aws_secret_access_key={S['aws_secret_key']}",
                    },
                ],
            },
        },
        "response": {
            "status": 200,
            "headers": {
                "content-type": "text/event-stream",
                "x-request-id": "req_PlantedResponsesRequest01",
            },
        },
    }
    return capture(header, chunks, {"t": 0.8, "reason": "eof", "error": None})


def gemini() -> bytes:
    signature = base64.b64encode(b"planted-gemini-thought-signature" * 4).decode()

    def chunk(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
        return {
            "candidates": [{"content": {"parts": parts, "role": "model"}, "index": 0, **extra}],
            "modelVersion": "gemini-2.5-flash",
            "responseId": "PlantedGeminiResponseId01",
        }

    body = sse(
        (None, chunk([{"text": f"Your key {S['openai_legacy_key']} and mail {S['email_user']} "}])),
        (None, chunk([{"text": "are noted — 東京 ✓"}])),
        (
            None,
            chunk(
                [
                    {
                        "functionCall": {
                            "name": "store",
                            "args": {
                                "owner": S["email_args"],
                                "creds": "aws_secret_access_key=" + S["aws_secret_key"],
                                "n": 3,
                            },
                        },
                        "thoughtSignature": signature,
                    }
                ]
            ),
        ),
        (
            None,
            chunk([{"text": ""}], finishReason="STOP")
            | {
                "usageMetadata": {
                    "promptTokenCount": 40,
                    "candidatesTokenCount": 22,
                    "totalTokenCount": 62,
                }
            },
        ),
        crlf=True,
    )
    chunks = cut(body, ("東京", 4), ("aws_secret", 3))
    header = {
        "provider": "gemini",
        "endpoint": "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
        "model": "gemini-2.5-flash",
        "recorded_at": "2026-01-15T10:15:00Z",
        "request": {
            "method": "POST",
            "url": "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:"
            f"streamGenerateContent?alt=sse&key={S['google_query_key']}",
            "headers": [
                ["x-goog-api-key", S["google_header_key"]],
                ["content-type", "application/json"],
            ],
            "body": {
                "systemInstruction": {"parts": [{"text": PROMPTS["system"]}]},
                "contents": [
                    {"role": "user", "parts": [{"text": PROMPTS["user"]}]},
                    {
                        "role": "model",
                        "parts": [
                            {"functionCall": {"name": "lookup", "args": {"city": PROMPTS["args"]}}}
                        ],
                    },
                    {
                        "role": "user",
                        "parts": [
                            {
                                "functionResponse": {
                                    "name": "lookup",
                                    "response": {"result": PROMPTS["tool_result"]},
                                }
                            }
                        ],
                    },
                ],
            },
        },
        "response": {
            "status": 200,
            "headers": {
                "content-type": "text/event-stream",
                "x-goog-request-id": "PlantedGoogleRequest01",
            },
        },
    }
    return capture(
        header,
        chunks,
        {
            "t": 2.5,
            "reason": "reset",
            "error": f"connection reset by proxy https://proxy.example?token={S['transport_key']}",
        },
    )


def http_error() -> bytes:
    error = {
        "error": {
            "message": f"Incorrect API key provided: {S['openai_http_key']}. Or was it "
            f"sk-proj-****************{S['openai_http_key'][-4:]}? Ask {S['email_error']}.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_api_key",
        }
    }
    body = json.dumps(error, indent=2).encode()
    header = {
        "provider": "openai-chat",
        "endpoint": "/v1/chat/completions",
        "request": {
            "method": "POST",
            "url": "https://api.openai.com/v1/chat/completions",
            "headers": {"Authorization": f"Bearer {S['openai_http_key']}"},
            "body": {"model": "gpt-4o", "messages": [{"role": "user", "content": PROMPTS["user"]}]},
        },
        "response": {"status": 401, "headers": {"content-type": "application/json"}},
    }
    return capture(header, cut(body, ("sk-proj-", 20)), {"t": 0.3, "reason": "eof", "error": None})


def raw() -> bytes:
    def frame(content: str) -> dict[str, Any]:
        return chat_chunk({"content": content}) | {"id": "chatcmpl-PlantedRawStream001"}

    body = sse(
        (None, frame(f"xAI key {S['xai_key']}")),
        (None, frame(f" and HF {S['hf_token']}.")),
        (None, chat_chunk({}, "stop")),
    )
    return b": contact " + S["email_user"].encode() + b"\n\n" + body + b"data: [DONE]\n\n"


FILES = {
    "openai-chat-planted.jsonl": (
        openai_chat,
        [
            "openai_project_key",
            "openai_admin_key",
            "google_query_key",
            "bearer_token",
            "jwt_comment",
            "aws_access_key",
            "github_token",
            "slack_token",
            "email_user",
            "email_text",
            "email_args",
            "cookie",
            "set_cookie",
            "organization",
            "project",
            "proxy_auth",
            "url_password",
        ],
        ["system", "user", "tool_result", "args"],
    ),
    "anthropic-planted.jsonl": (
        anthropic,
        [
            "anthropic_key",
            "anthropic_error_key",
            "google_key",
            "github_pat",
            "jwt",
            "email_text",
            "email_error",
            "slack_webhook",
            "anthropic_org",
        ],
        ["system", "user", "tool_result", "args", "thinking"],
    ),
    "openai-responses-planted.jsonl": (
        responses,
        [
            "openai_svcacct_key",
            "project",
            "github_token",
            "slack_webhook",
            "aws_secret_key",
            "email_user",
        ],
        ["user", "tool_result", "instructions"],
    ),
    "gemini-planted.jsonl": (
        gemini,
        [
            "google_query_key",
            "google_header_key",
            "openai_legacy_key",
            "email_user",
            "email_args",
            "aws_secret_key",
            "transport_key",
        ],
        ["system", "user", "tool_result", "args"],
    ),
    "http-error-planted.jsonl": (http_error, ["openai_http_key", "email_error"], ["user"]),
    "raw-planted.sse": (raw, ["xai_key", "hf_token", "email_user"], []),
}


def main() -> None:
    planted: dict[str, Any] = {}
    for name, (make, secrets, prompts) in FILES.items():
        data = make()
        # Each secret must really be there: in the file, in its chunks, or in the
        # text a normalizer assembles from the deltas it was split across.
        rec = parse_recording(data, name)
        texts = "".join(
            e["delta"]["text"] for e in trace_recording(rec).events if e["type"] == "block.delta"
        ).encode()
        for key in secrets:
            forms = (S[key].encode(), json.dumps(S[key])[1:-1].encode())
            assert any(f in data or f in rec.body or f in texts for f in forms), (name, key)
        (HERE / name).write_bytes(data)
        planted[name] = {
            "secrets": {key: S[key] for key in secrets},
            "prompts": [PROMPTS[key] for key in prompts],
        }
    (HERE / "planted.json").write_text(json.dumps(planted, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
