"""Representative provider streams, built in memory for the benchmarks.

Each generator writes one stream the way its provider does (shapes copied from
the real recordings in ``fixtures/real``): a run of text deltas, then a tool
call whose JSON arguments arrive in fragments, then the provider's final
signal. Only the number of text deltas changes with the size asked for, so a
bigger stream is the same stream, longer. Gemini streams use CRLF, as Gemini
does; the others LF.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

__all__ = [
    "GENERATORS",
    "chunked",
    "decoder_stream",
    "frames_in",
    "stream_of_size",
]

WORDS = (" the", " stream", " arrives", " in", " small", " pieces", ",", " and", " each", " one")
ARGUMENT_FRAGMENTS = ('{"', "city", '":"', "Par", "is", '","', "unit", '":"', "celsius", '"}')
TOOL_NAME = "get_weather"


def _sse(payload: Any, event: str | None = None) -> bytes:
    head = b"event: " + event.encode() + b"\n" if event else b""
    return head + b"data: " + orjson.dumps(payload) + b"\n\n"


def openai_chat(n_text: int) -> bytes:
    """Chat Completions: ~220-byte ``chat.completion.chunk`` events, then a tool call."""
    base = {
        "id": "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT",
        "object": "chat.completion.chunk",
        "created": 1741569952,
        "model": "gpt-4o-2024-08-06",
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        return _sse({**base, "choices": [choice]})

    out = [chunk({"role": "assistant", "content": "", "refusal": None})]
    out += [chunk({"content": WORDS[i % len(WORDS)]}) for i in range(n_text)]
    call = {"index": 0, "id": "call_kL0PCQV7M2WMoVX8V8OtYSAL", "type": "function"}
    out.append(chunk({"tool_calls": [{**call, "function": {"name": TOOL_NAME, "arguments": ""}}]}))
    out += [
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]})
        for fragment in ARGUMENT_FRAGMENTS
    ]
    out.append(chunk({}, "tool_calls"))
    usage = {"prompt_tokens": 78, "completion_tokens": n_text + 12, "total_tokens": n_text + 90}
    out.append(_sse({**base, "choices": [], "usage": usage}))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def anthropic(n_text: int) -> bytes:
    """Messages API: ``event:`` + ``data:`` pairs, a ping, text, then a ``tool_use`` block."""
    message: dict[str, Any] = {
        "id": "msg_01Y6V41gqPaKWEw7iPouH7iW",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 69, "output_tokens": 2},
    }
    out = [_sse({"type": "message_start", "message": message}, "message_start")]
    text_block = {"type": "text", "text": ""}
    start_text = {"type": "content_block_start", "index": 0, "content_block": text_block}
    out.append(_sse(start_text, "content_block_start"))
    out.append(_sse({"type": "ping"}, "ping"))
    for i in range(n_text):
        delta = {"type": "text_delta", "text": WORDS[i % len(WORDS)]}
        out.append(
            _sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        )
    out.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
    tool = {
        "type": "tool_use",
        "id": "toolu_01A09q90qw90lq917835lq9",
        "name": TOOL_NAME,
        "input": {},
    }
    out.append(
        _sse(
            {"type": "content_block_start", "index": 1, "content_block": tool},
            "content_block_start",
        )
    )
    for fragment in ARGUMENT_FRAGMENTS:
        delta = {"type": "input_json_delta", "partial_json": fragment}
        out.append(
            _sse({"type": "content_block_delta", "index": 1, "delta": delta}, "content_block_delta")
        )
    out.append(_sse({"type": "content_block_stop", "index": 1}, "content_block_stop"))
    stop = {
        "type": "message_delta",
        "delta": {"stop_reason": "tool_use", "stop_sequence": None},
        "usage": {"output_tokens": n_text + 12},
    }
    out.append(_sse(stop, "message_delta"))
    out.append(_sse({"type": "message_stop"}, "message_stop"))
    return b"".join(out)


def openai_responses(n_text: int) -> bytes:
    """Responses API: typed ``response.*`` events, a message item, then a function call."""
    response = {
        "id": "resp_67e554a21aa88191b65876ac5e5bbe0406c52f0e511c76ed",
        "object": "response",
        "created_at": 1743082658,
        "status": "in_progress",
        "model": "gpt-4o-2024-08-06",
        "output": [],
        "usage": None,
    }
    seq = iter(range(1 << 62))

    def event(kind: str, **fields: Any) -> bytes:
        return _sse({"type": kind, **fields, "sequence_number": next(seq)}, kind)

    msg_id = "msg_67e554a28bec8191b56d3e2331eff88006c52f0e511c76ed"
    text = "".join(WORDS[i % len(WORDS)] for i in range(n_text))
    message = {"type": "message", "id": msg_id, "status": "in_progress", "role": "assistant"}
    part = {"type": "output_text", "text": "", "annotations": []}
    where = {"item_id": msg_id, "output_index": 0, "content_index": 0}
    out = [event("response.created", response=response)]
    out.append(event("response.in_progress", response=response))
    out.append(event("response.output_item.added", output_index=0, item={**message, "content": []}))
    out.append(event("response.content_part.added", **where, part=part))
    out += [
        event("response.output_text.delta", **where, delta=WORDS[i % len(WORDS)])
        for i in range(n_text)
    ]
    out.append(event("response.output_text.done", **where, text=text))
    done_part = {**part, "text": text}
    out.append(event("response.content_part.done", **where, part=done_part))
    done_message = {**message, "status": "completed", "content": [done_part]}
    out.append(event("response.output_item.done", output_index=0, item=done_message))
    fc_id = "fc_67e554a1de488191af0831d35cbe082e0794405d35281ae2"
    call = {
        "type": "function_call",
        "id": fc_id,
        "call_id": "call_kL0PCQV7M2WMoVX8V8OtYSAL",
        "name": TOOL_NAME,
        "arguments": "",
        "status": "in_progress",
    }
    out.append(event("response.output_item.added", output_index=1, item=call))
    out += [
        event("response.function_call_arguments.delta", item_id=fc_id, output_index=1, delta=f)
        for f in ARGUMENT_FRAGMENTS
    ]
    arguments = "".join(ARGUMENT_FRAGMENTS)
    out.append(
        event(
            "response.function_call_arguments.done",
            item_id=fc_id,
            output_index=1,
            arguments=arguments,
        )
    )
    done_call = {**call, "arguments": arguments, "status": "completed"}
    out.append(event("response.output_item.done", output_index=1, item=done_call))
    usage = {
        "input_tokens": 278,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": n_text + 12,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": n_text + 290,
    }
    final = {**response, "status": "completed", "output": [done_message, done_call], "usage": usage}
    out.append(event("response.completed", response=final))
    return b"".join(out)


def gemini(n_text: int) -> bytes:
    """``streamGenerateContent?alt=sse``: CRLF-separated candidates, then a function call."""
    tail = {
        "usageMetadata": {"promptTokenCount": 15, "totalTokenCount": 15},
        "modelVersion": "gemini-2.5-flash",
        "responseId": "w1peaMz6INOvnvgPgYfPiQY",
    }

    def candidate(parts: list[dict[str, Any]], finish: str | None = None) -> bytes:
        cand: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        return b"data: " + orjson.dumps({"candidates": [cand], **tail}) + b"\r\n\r\n"

    out = [candidate([{"text": WORDS[i % len(WORDS)]}]) for i in range(n_text)]
    call = {"functionCall": {"name": TOOL_NAME, "args": {"city": "Paris", "unit": "celsius"}}}
    out.append(candidate([call], "STOP"))
    return b"".join(out)


GENERATORS: dict[str, Callable[[int], bytes]] = {
    "openai-chat": openai_chat,
    "anthropic": anthropic,
    "openai-responses": openai_responses,
    "gemini": gemini,
}


def stream_of_size(provider: str, size: int) -> bytes:
    """A ``provider`` stream of about ``size`` bytes (at least a few frames)."""
    make = GENERATORS[provider]
    small, bigger = make(10), make(110)
    per_text = (len(bigger) - len(small)) / 100
    fixed = len(small) - 10 * per_text
    return make(max(10, round((size - fixed) / per_text)))


def decoder_stream(size: int, crlf: bool = False) -> bytes:
    """The decoder benchmark's stream: OpenAI-Chat-style events of ~220 bytes."""
    body = stream_of_size("openai-chat", size)
    return body.replace(b"\n", b"\r\n") if crlf else body


def frames_in(body: bytes) -> int:
    """Events plus comments in a stream whose events all end in one blank line."""
    return body.count(b"\r\n\r\n") or body.count(b"\n\n")


def chunked(data: bytes, size: int) -> list[bytes]:
    """``data`` cut into pieces of ``size`` bytes, as a socket might deliver it."""
    return [data[i : i + size] for i in range(0, len(data), size)]
