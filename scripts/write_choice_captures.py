# ruff: noqa: E501  (the scenarios are provider payloads written out whole, one per line)
"""Write the several-choices captures (contract v1.1): OpenAI Chat ``n > 1``, Gemini
``candidateCount > 1``, legacy Completions ``n > 1``.

Usage: python scripts/write_choice_captures.py   (then scripts/update_goldens.py)

No public recording of a streamed ``n > 1`` / ``candidateCount > 1`` response
was found (SDK and instrumentation test suites stream one choice), so every
scenario is **written from the provider's documentation** — the chunk object
of each API, whose ``choices[].index`` / ``candidates[].index`` tell the
choices apart — and its header says ``"written_from_docs": true``. The frames
are chunked the way :mod:`write_protocol_captures` chunks them (seeded, so the
files are reproducible).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from write_protocol_captures import header, sse, write

DONE = sse("[DONE]")


def _docs(h: dict[str, Any]) -> dict[str, Any]:
    return {**h, "written_from_docs": True}


# -- OpenAI Chat --------------------------------------------------------------

CHAT_MODEL = "gpt-4o-mini-2024-07-18"


def _openai_header(
    provider: str, path: str, model: str, asked: str, request: dict[str, Any]
) -> dict[str, Any]:
    """A capture header for a streamed OpenAI request for model ``asked``, two choices."""
    return _docs(
        header(
            provider,
            path,
            model,
            "https://api.openai.com" + path,
            {"authorization": "[redacted]"},
            {"model": asked, "stream": True, "n": 2, **request},
            "text/event-stream",
        )
    )


def chat_header(body: dict[str, Any]) -> dict[str, Any]:
    request = {"messages": [{"role": "user", "content": "[prompt]"}], **body}
    return _openai_header("openai-chat", "/v1/chat/completions", CHAT_MODEL, "gpt-4o-mini", request)


def chat(index: int, delta: dict[str, Any], finish: str | None = None, **extra: Any) -> bytes:
    return sse(
        {
            "id": "chatcmpl-AbC2n",
            "object": "chat.completion.chunk",
            "created": 1764619200,
            "model": CHAT_MODEL,
            "system_fingerprint": "fp_0ba0d124f1",
            "choices": [
                {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
            ],
            **extra,
        }
    )


def chat_usage(prompt: int, completion: int) -> bytes:
    return sse(
        {
            "id": "chatcmpl-AbC2n",
            "object": "chat.completion.chunk",
            "created": 1764619200,
            "model": CHAT_MODEL,
            "system_fingerprint": "fp_0ba0d124f1",
            "choices": [],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            },
        }
    )


def interleave(*lanes: list[bytes]) -> list[bytes]:
    """One frame of each lane in turn (a lane that runs out drops out)."""
    out: list[bytes] = []
    for n in range(max(len(lane) for lane in lanes)):
        out += [lane[n] for lane in lanes if n < len(lane)]
    return out


def openai_chat() -> None:
    roles = [
        chat(0, {"role": "assistant", "content": ""}),
        chat(1, {"role": "assistant", "content": ""}),
    ]
    first = [
        chat(0, {"content": p})
        for p in ["Why", " did", " the", " cat", " sit", " on", " the", " laptop", "?"]
    ]
    second = [
        chat(1, {"content": p})
        for p in [
            "Because",
            " it",
            " wanted",
            " to",
            " keep",
            " an",
            " eye",
            " on",
            " the",
            " mouse",
            ".",
        ]
    ]
    ends = [chat(0, {}, "stop"), chat(1, {}, "stop")]
    usage = chat_usage(14, 20)
    with_usage = {"stream_options": {"include_usage": True}}
    write(
        "openai-chat",
        "several-choices-interleaved",
        chat_header(with_usage),
        [*roles, *interleave(first, second), *ends, usage, DONE],
        "eof",
        301,
    )
    # Choice 1 hits max_tokens after three pieces; choice 0 goes on alone.
    write(
        "openai-chat",
        "several-choices-one-ends-early",
        chat_header({**with_usage, "max_tokens": 3}),
        [
            *roles,
            *interleave(first[:3], second[:3]),
            chat(1, {}, "length"),
            *first[3:],
            chat(0, {}, "stop"),
            chat_usage(14, 12),
            DONE,
        ],
        "eof",
        302,
    )
    # Choice 0 answers in text, choice 1 calls the tool (its arguments in fragments).
    call = [
        chat(
            1,
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_9Fq2",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            },
        ),
        *[
            chat(1, {"tool_calls": [{"index": 0, "function": {"arguments": p}}]})
            for p in ['{"ci', 'ty": "', 'Paris"', "}"]
        ],
    ]
    text = [
        chat(0, {"content": p}) for p in ["It", " is", " usually", " mild", " in", " Paris", "."]
    ]
    tools = {
        "tools": [
            {
                "type": "function",
                "function": {"name": "get_weather", "parameters": {"type": "object"}},
            }
        ]
    }
    write(
        "openai-chat",
        "several-choices-tool-and-text",
        chat_header(tools),
        [*roles, *interleave(text, call), chat(0, {}, "stop"), chat(1, {}, "tool_calls"), DONE],
        "eof",
        303,
    )
    # Choice 0 is complete, choice 1 is cut mid-text: no [DONE], the end is not proved.
    write(
        "openai-chat",
        "several-choices-cut-before-last",
        chat_header({}),
        [*roles, *interleave(first, second[:6]), chat(0, {}, "stop"), *second[6:8]],
        "reset",
        304,
    )
    # An error chunk in the middle of both answers.
    error = sse(
        {
            "error": {
                "message": "The server had an error while processing your request. Sorry about that!",
                "type": "server_error",
                "param": None,
                "code": None,
            }
        }
    )
    write(
        "openai-chat",
        "several-choices-error-mid-stream",
        chat_header({}),
        [*roles, *interleave(first[:4], second[:4]), error],
        "eof",
        305,
    )
    # [DONE] while choice 1 never said why it stopped: it may be incomplete.
    write(
        "openai-chat",
        "several-choices-done-without-one-finish",
        chat_header({}),
        [*roles, *interleave(first, second[:5]), chat(0, {}, "stop"), DONE],
        "eof",
        306,
    )


# -- Gemini -------------------------------------------------------------------

GEMINI_MODEL = "gemini-2.5-flash"
GEMINI_URL = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"


def gemini_header(count: int = 2, **config: Any) -> dict[str, Any]:
    body = {
        "contents": [{"role": "user", "parts": [{"text": "[prompt]"}]}],
        "generationConfig": {"candidateCount": count, **config},
    }
    return _docs(
        header(
            "gemini",
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            GEMINI_MODEL,
            GEMINI_URL,
            {"x-goog-api-key": "[redacted]"},
            body,
            "text/event-stream",
        )
    )


def candidate(
    index: int, parts: list[dict[str, Any]] | None, finish: str | None = None, *, named: bool = True
) -> dict[str, Any]:
    """One candidate; ``named=False`` leaves ``index: 0`` out, as proto3 JSON may."""
    out: dict[str, Any] = {}
    if parts is not None:
        out["content"] = {"parts": parts, "role": "model"}
    if finish is not None:
        out["finishReason"] = finish
    if index or named:
        out["index"] = index
    return out


def gemini(candidates: list[dict[str, Any]], output: int, **extra: Any) -> bytes:
    usage = {"promptTokenCount": 9, "candidatesTokenCount": output, "totalTokenCount": 9 + output}
    return sse(
        {
            "candidates": candidates,
            "usageMetadata": usage,
            "modelVersion": GEMINI_MODEL,
            "responseId": "Xk9sZ-choices",
            **extra,
        }
    )


def t(text: str) -> list[dict[str, Any]]:
    return [{"text": text}]


def gemini_captures() -> None:
    a = ["Paris", " is the capital", " of France", "."]
    b = ["The capital", " of France", " is Paris", "!"]
    frames = [
        gemini([candidate(0, t(x)), candidate(1, t(y))], 2 * (n + 1))
        for n, (x, y) in enumerate(zip(a, b, strict=True))
    ]
    frames.append(gemini([candidate(0, t(""), "STOP"), candidate(1, t(""), "STOP")], 8))
    write("gemini", "several-candidates-text", gemini_header(), frames, "eof", 311)
    # Candidate 1 stops at MAX_TOKENS; the later responses carry candidate 0 only
    # (index 0 left out, as proto3 JSON allows).
    write(
        "gemini",
        "several-candidates-one-ends-early",
        gemini_header(maxOutputTokens=64),
        [
            gemini([candidate(0, t("Paris"), named=False), candidate(1, t("The"))], 2),
            gemini(
                [candidate(0, t(" is"), named=False), candidate(1, t(" capital"), "MAX_TOKENS")], 4
            ),
            gemini([candidate(0, t(" the capital"), named=False)], 5),
            gemini([candidate(0, t(" of France."), "STOP", named=False)], 7),
        ],
        "eof",
        312,
    )
    # Candidate 0 calls the function, candidate 1 answers in text.
    call = [{"functionCall": {"name": "get_weather", "args": {"city": "Paris"}}}]
    tools = {"tools": [{"functionDeclarations": [{"name": "get_weather"}]}]}
    h = gemini_header()
    h["request"]["body"].update(tools)
    write(
        "gemini",
        "several-candidates-call-and-text",
        h,
        [
            gemini([candidate(0, call), candidate(1, t("I cannot check"))], 6),
            gemini([candidate(0, None, "STOP"), candidate(1, t(" the weather."), "STOP")], 10),
        ],
        "eof",
        313,
    )
    # Candidate 0 has finished, candidate 1 is cut before its finishReason.
    write(
        "gemini",
        "several-candidates-cut-before-last",
        gemini_header(),
        [*frames[:3], gemini([candidate(0, t("."), "STOP"), candidate(1, t(" is Paris"))], 7)],
        "reset",
        314,
    )
    # Google's error object in the middle of both answers (as Gemini sends it mid-stream).
    error = sse(
        {
            "error": {
                "code": 503,
                "message": "The model is overloaded. Please try again later.",
                "status": "UNAVAILABLE",
            }
        }
    )
    write(
        "gemini",
        "several-candidates-error-mid-stream",
        gemini_header(),
        [*frames[:2], error],
        "eof",
        315,
    )


# -- legacy Completions -------------------------------------------------------

INSTRUCT = "gpt-3.5-turbo-instruct"


def completions_header(body: dict[str, Any]) -> dict[str, Any]:
    request = {"prompt": "Say this is a test", "max_tokens": 16, **body}
    return _openai_header("openai-completions", "/v1/completions", INSTRUCT, INSTRUCT, request)


def completion(index: int, text: str, finish: str | None = None) -> bytes:
    return sse(
        {
            "id": "cmpl-2nChoices",
            "object": "text_completion",
            "created": 1764619200,
            "model": INSTRUCT,
            "choices": [{"text": text, "index": index, "logprobs": None, "finish_reason": finish}],
        }
    )


def openai_completions() -> None:
    first = [completion(0, p) for p in ["\n\n", "This", " is", " a", " test", "."]]
    second = [completion(1, p) for p in ["\n\n", "This", " is", " indeed", " a", " test"]]
    usage = sse(
        {
            "id": "cmpl-2nChoices",
            "object": "text_completion",
            "created": 1764619200,
            "model": INSTRUCT,
            "choices": [],
            "usage": {"prompt_tokens": 5, "completion_tokens": 12, "total_tokens": 17},
        }
    )
    write(
        "openai-completions",
        "several-choices-interleaved",
        completions_header({"stream_options": {"include_usage": True}}),
        [
            *interleave(first, second),
            completion(0, "", "stop"),
            completion(1, "", "length"),
            usage,
            DONE,
        ],
        "eof",
        321,
    )
    write(
        "openai-completions",
        "several-choices-cut-before-last",
        completions_header({}),
        [*interleave(first, second[:3]), completion(0, "", "stop"), *second[3:5]],
        "eof",
        322,
    )
    error = sse(
        {
            "error": {
                "message": "The server had an error while processing your request.",
                "type": "server_error",
                "code": None,
            }
        }
    )
    write(
        "openai-completions",
        "several-choices-error-chunk",
        completions_header({}),
        [*interleave(first[:3], second[:3]), error],
        "eof",
        323,
    )


def main() -> int:
    openai_chat()
    gemini_captures()
    openai_completions()
    return 0


if __name__ == "__main__":
    sys.exit(main())
