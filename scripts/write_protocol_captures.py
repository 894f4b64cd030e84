# ruff: noqa: E501  (the scenarios are provider payloads written out whole, one per line)
"""Write the captures of the newer wire protocols (Bedrock, Ollama, Cohere, Completions, AI SDK UI).

Usage: python scripts/write_protocol_captures.py   (then scripts/update_goldens.py)

Each scenario is a list of wire frames (bytes) and how the transport ended;
the frames are cut into chunks the way a network delivers them (mostly one
frame a read, sometimes two coalesced, sometimes one split mid-way), with a
seeded generator so the files are reproducible. Real recordings come from
``tests/data/cassette_bodies/`` (each folder's README says where from);
everything else is written from the provider's documentation, and the
README says so. Credentials are never in a capture: keys are ``[redacted]``.
"""

from __future__ import annotations

import base64
import random
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from inspector.capture import read_recording
from inspector.capture_writer import CaptureWriter
from inspector.core.framing.eventstream import EventStreamDecoder, encode_message
from inspector.core.sse import FrameDecoder

ROOT = Path(__file__).resolve().parent.parent
CAPTURES = ROOT / "captures"
BODIES = ROOT / "tests" / "data" / "cassette_bodies"
RECORDED_AT = "2026-12-01T20:00:00Z"

Scenario = tuple[list[bytes], str]  # frames, end reason

# -- chunking ---------------------------------------------------------------


def chunked(frames: list[bytes], seed: int) -> list[bytes]:
    """The frames' bytes as a transport delivers them (deterministic per seed)."""
    rng = random.Random(seed)
    out: list[bytes] = []
    i = 0
    while i < len(frames):
        roll = rng.random()
        if roll < 0.15 and i + 1 < len(frames):
            out.append(frames[i] + frames[i + 1])
            i += 2
        elif roll < 0.3 and len(frames[i]) > 4:
            cut = rng.randrange(1, len(frames[i]))
            out += [frames[i][:cut], frames[i][cut:]]
            i += 1
        else:
            out.append(frames[i])
            i += 1
    return out


def write(folder: str, name: str, header: dict[str, Any], frames: list[bytes], end: str,
          seed: int, cut: int | None = None) -> None:  # fmt: skip
    """One capture: ``cut`` keeps only that many bytes of the body (a transport cut)."""
    pieces = chunked(frames, seed)
    if cut is not None:
        kept, held = [], 0
        for piece in pieces:
            if held + len(piece) >= cut:
                kept.append(piece[: cut - held])
                break
            kept.append(piece)
            held += len(piece)
        pieces = [p for p in kept if p]
    rng = random.Random(seed + 1)
    path = CAPTURES / folder / f"{name}.jsonl"
    writer = CaptureWriter(path, header)
    t = 0.25 + rng.random() * 0.3
    for piece in pieces:
        writer.chunk(t, piece)
        t += 0.002 + rng.random() * 0.05
    writer.end(end, t + 0.001, None if end == "eof" else f"connection {end}")
    print(f"wrote {path.relative_to(ROOT)}")


def header(provider: str, endpoint: str, model: str, url: str, auth: dict[str, str],
           body: dict[str, Any], content_type: str) -> dict[str, Any]:  # fmt: skip
    return {
        "provider": provider,
        "endpoint": endpoint,
        "model": model,
        "recorded_at": RECORDED_AT,
        "request": {
            "method": "POST",
            "url": url,
            "headers": {**auth, "content-type": "application/json"},
            "body": body,
        },
        "response": {"status": 200, "headers": {"content-type": content_type}},
    }


# -- Bedrock ------------------------------------------------------------------

_SIGV4 = {"authorization": "[redacted]", "x-amz-date": "20261201T200000Z",
          "x-amz-security-token": "[redacted]"}  # fmt: skip
_EVENTSTREAM = "application/vnd.amazon.eventstream"


def event(name: str, payload: dict[str, Any]) -> bytes:
    """A Bedrock event message as the service frames it (with its ``p`` padding)."""
    body = orjson.dumps({**payload, "p": "abcdefghijklmnop"[: 4 + len(name) % 12]})
    return encode_message(
        [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")],
        body,
    )


def exception(name: str, payload: dict[str, Any]) -> bytes:
    """A Bedrock exception message."""
    return encode_message(
        [(":exception-type", name), (":content-type", "application/json"),
         (":message-type", "exception")],
        orjson.dumps(payload),
    )  # fmt: skip


def recorded(name: str) -> list[bytes]:
    """A real recording's messages (its CRCs verified by decoding it)."""
    body = base64.b64decode((BODIES / f"{name}.b64").read_text())
    decoder = EventStreamDecoder()
    frames = decoder.feed(body)
    assert decoder.error is None and not decoder.close().pending_bytes, name
    return [body[f.start : f.end] for f in frames]


def converse_header(model: str, body: dict[str, Any]) -> dict[str, Any]:
    url = f"https://bedrock-runtime.us-east-1.amazonaws.com/model/{model}/converse-stream"
    return header("bedrock-converse", f"/model/{model}/converse-stream", model, url, _SIGV4,
                  body, _EVENTSTREAM)  # fmt: skip


def text_deltas(index: int, pieces: Iterable[str]) -> list[bytes]:
    return [event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": p}})
            for p in pieces]  # fmt: skip


def bedrock_converse() -> None:
    claude = "anthropic.claude-3-sonnet-20240229-v1:0"
    titan = "amazon.titan-text-express-v1"
    weather = {
        "messages": [{"role": "user", "content": [{"text": "What is the weather in Barcelona?"}]}]
    }
    write("bedrock-converse", "tool-use", converse_header(claude, weather),
          recorded("openllmetry-anthropic-converse-stream-tool-use"), "eof", 1)  # fmt: skip
    write("bedrock-converse", "guardrail-intervened",
          converse_header(titan, {"messages": [{"role": "user", "content": [{"text": "what is the capital of Italy?"}]}]}),
          recorded("openllmetry-titan-guardrail-converse-stream"), "eof", 2)  # fmt: skip
    write("bedrock-converse", "guardrail-masked-output",
          converse_header(titan, {"messages": [{"role": "user", "content": [{"text": "Create a list of 3 pop songs."}]}]}),
          recorded("openllmetry-titan-converse-stream"), "eof", 3)  # fmt: skip
    tool = recorded("openllmetry-anthropic-converse-stream-tool-use")
    broken = bytearray(tool[3])
    broken[-10] ^= 0x20  # one payload byte changed: the message CRC no longer holds
    write("bedrock-converse", "crc-mismatch", converse_header(claude, weather),
          [*tool[:3], bytes(broken), *tool[4:]], "eof", 4)  # fmt: skip
    write("bedrock-converse", "interrupted-before-metadata", converse_header(claude, weather),
          tool[:-1], "reset", 5)  # fmt: skip
    sonnet = "us.anthropic.claude-sonnet-4-20250514-v1:0"
    think = {"messages": [{"role": "user", "content": [{"text": "Is 1001 prime?"}]}],
             "additionalModelRequestFields": {"thinking": {"type": "enabled", "budget_tokens": 1024}}}  # fmt: skip
    reasoning = [
        event("messageStart", {"role": "assistant"}),
        *[event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": t}}})
          for t in ("1001 = 7 × 143", ", and 143 = 11 × 13", ", so it is not prime.")],
        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "EqQBCkgIARABGAIiQL2x"}}}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        *text_deltas(1, ["No: ", "1001 = 7 × 11 × 13."]),
        event("contentBlockStop", {"contentBlockIndex": 1}),
        event("messageStop", {"stopReason": "end_turn"}),
        event("metadata", {"usage": {"inputTokens": 42, "outputTokens": 96, "totalTokens": 138,
                                     "cacheReadInputTokens": 0, "cacheWriteInputTokens": 0},
                           "metrics": {"latencyMs": 2310}}),
    ]  # fmt: skip
    write(
        "bedrock-converse",
        "reasoning-then-text",
        converse_header(sonnet, think),
        reasoning,
        "eof",
        6,
    )
    redacted = [
        event("messageStart", {"role": "assistant"}),
        event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"redactedContent": "RXF3dkNrZ0lBUkFCR0FJ"}}}),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        *text_deltas(1, ["It is not prime."]),
        event("contentBlockStop", {"contentBlockIndex": 1}),
        event("messageStop", {"stopReason": "end_turn"}),
        event("metadata", {"usage": {"inputTokens": 42, "outputTokens": 51, "totalTokens": 93}, "metrics": {"latencyMs": 1402}}),
    ]  # fmt: skip
    write(
        "bedrock-converse", "redacted-reasoning", converse_header(sonnet, think), redacted, "eof", 7
    )
    poem = {"messages": [{"role": "user", "content": [{"text": "Write a long poem about the sea."}]}],
            "inferenceConfig": {"maxTokens": 12}}  # fmt: skip
    write("bedrock-converse", "max-tokens", converse_header(claude, poem), [
        event("messageStart", {"role": "assistant"}),
        *text_deltas(0, ["The sea", " is wide,", " the sea is", " deep, and"]),
        event("contentBlockStop", {"contentBlockIndex": 0}),
        event("messageStop", {"stopReason": "max_tokens"}),
        event("metadata", {"usage": {"inputTokens": 15, "outputTokens": 12, "totalTokens": 27}, "metrics": {"latencyMs": 610}}),
    ], "eof", 8)  # fmt: skip
    write("bedrock-converse", "throttling-exception", converse_header(claude, poem), [
        event("messageStart", {"role": "assistant"}),
        *text_deltas(0, ["The sea", " is wide,"]),
        exception("throttlingException", {"message": "Too many tokens, please wait before trying again."}),
    ], "eof", 9)  # fmt: skip
    write("bedrock-converse", "model-stream-error", converse_header(claude, poem), [
        event("messageStart", {"role": "assistant"}),
        *text_deltas(0, ["The sea"]),
        exception("modelStreamErrorException", {"message": "The model stream failed.",
                                                "originalStatusCode": 500, "originalMessage": "internal error"}),
    ], "eof", 10)  # fmt: skip
    write("bedrock-converse", "service-unavailable", converse_header(claude, poem), [
        exception("serviceUnavailableException", {"message": "Bedrock is unable to process your request."}),
    ], "eof", 11)  # fmt: skip


def invoke_header(model: str, body: dict[str, Any]) -> dict[str, Any]:
    path = f"/model/{model}/invoke-with-response-stream"
    url = f"https://bedrock-runtime.us-east-1.amazonaws.com{path}"
    return header("anthropic", path, model, url, _SIGV4, body, _EVENTSTREAM)


def chunk_event(inner: bytes) -> bytes:
    """An invoke ``chunk`` event carrying one inner event's JSON."""
    payload = orjson.dumps({"bytes": base64.b64encode(inner).decode()})
    return encode_message(
        [
            (":event-type", "chunk"),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ],
        payload,
    )


def anthropic_events(capture: str) -> list[bytes]:
    """The data of every event of one of our Anthropic captures, in order."""
    rec = read_recording(CAPTURES / "anthropic" / capture)
    decoder = FrameDecoder()
    datas: list[bytes] = []
    for time, data in rec.chunks:
        datas += [f.data.encode() for f in decoder.feed(data, time) if f.comment is None]
    return datas


def bedrock_invoke() -> None:
    claude3 = "anthropic.claude-3-sonnet-20240229-v1:0"
    sonnet = "us.anthropic.claude-sonnet-4-20250514-v1:0"
    joke = {"messages": [{"role": "user", "content": [{"type": "text", "text": "Tell me a joke about opentelemetry"}]}],
            "max_tokens": 200, "anthropic_version": "bedrock-2023-05-31"}  # fmt: skip
    real = recorded("openllmetry-anthropic-claude3-invoke-stream")
    write("bedrock-invoke", "claude-text", invoke_header(claude3, joke), real, "eof", 21)
    write("bedrock-invoke", "interrupted-mid-message", invoke_header(claude3, joke), real, "reset", 22,
          cut=sum(len(m) for m in real[:6]) + 40)  # fmt: skip
    ask = {"messages": [{"role": "user", "content": "What's the weather?"}], "max_tokens": 1024,
           "anthropic_version": "bedrock-2023-05-31"}  # fmt: skip
    for name, capture, seed in (
        ("claude-tool-use", "tool-call-fragmented-json.jsonl", 23),
        ("claude-thinking", "reasoning.jsonl", 24),
        ("claude-max-tokens-cuts-tool-call", "max-tokens-cuts-tool-call.jsonl", 25),
    ):
        frames = [chunk_event(inner) for inner in anthropic_events(capture)]
        write("bedrock-invoke", name, invoke_header(sonnet, ask), frames, "eof", seed)
    frames = [chunk_event(inner) for inner in anthropic_events("text-simple.jsonl")[:4]]
    frames.append(
        exception(
            "throttlingException",
            {"message": "Too many requests, please wait before trying again."},
        )
    )
    write("bedrock-invoke", "throttling-mid-stream", invoke_header(sonnet, ask), frames, "eof", 26)


def model_header(provider: str, model: str, body: dict[str, Any]) -> dict[str, Any]:
    """An invoke capture's header for a model other than Claude."""
    return {**invoke_header(model, body), "provider": provider}


def inner(document: dict[str, Any]) -> bytes:
    """One invoke ``chunk`` carrying the model's own JSON object."""
    return chunk_event(orjson.dumps(document))


def cassette_messages(name: str) -> list[bytes]:
    """The messages of a real cassette's response body in tests/fixtures/cassettes."""
    import yaml

    doc = yaml.safe_load((ROOT / "tests" / "fixtures" / "cassettes" / f"{name}.yaml").read_bytes())
    body = doc["interactions"][0]["response"]["body"]["string"]
    decoder = EventStreamDecoder()
    frames = decoder.feed(body)
    assert decoder.error is None and not decoder.close().pending_bytes, name
    return [body[f.start : f.end] for f in frames]


_METRICS = {"amazon-bedrock-invocationMetrics": {"inputTokenCount": 18, "outputTokenCount": 9,
                                                  "invocationLatency": 412, "firstByteLatency": 190}}  # fmt: skip


def bedrock_invoke_models() -> None:
    """Llama, Titan, Nova, Cohere and Mistral behind invoke (fields from the Bedrock docs)."""
    folder = "bedrock-invoke"
    llama = "meta.llama3-8b-instruct-v1:0"
    prompt = {
        "prompt": "<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi",
        "max_gen_len": 64,
    }
    words = ["Hello", "!", " How", " can", " I", " help", "?"]
    first = {"generation": words[0], "prompt_token_count": 18, "generation_token_count": 1,
             "stop_reason": None}  # fmt: skip
    middle = [inner({"generation": w, "prompt_token_count": None, "generation_token_count": i + 2,
                     "stop_reason": None}) for i, w in enumerate(words[1:-1])]  # fmt: skip
    last = {"generation": words[-1], "prompt_token_count": None, "generation_token_count": 7}
    write(folder, "llama-text", model_header("bedrock-llama", llama, prompt), [
        inner(first), *middle, inner({**last, "stop_reason": "stop", **_METRICS}),
    ], "eof", 31)  # fmt: skip
    write(folder, "llama-max-gen-len", model_header("bedrock-llama", llama, prompt), [
        inner(first), *middle, inner({**last, "stop_reason": "length", **_METRICS}),
    ], "eof", 32)  # fmt: skip
    write(folder, "llama-interrupted", model_header("bedrock-llama", llama, prompt), [
        inner(first), *middle,
    ], "reset", 33)  # fmt: skip

    titan = "amazon.titan-text-express-v1"
    real = cassette_messages("openllmetry-titan-invoke-stream-guardrail-anonymized")
    story = {"inputText": "tell me a very two sentence story and put the string 1234561666 into "
             "the last sentence.", "textGenerationConfig": {"maxTokenCount": 8000, "temperature": 0.5}}  # fmt: skip
    write(folder, "titan-guardrail-anonymized", model_header("bedrock-titan", titan, story), real,
          "eof", 34)  # fmt: skip
    blocked = cassette_messages("openllmetry-titan-invoke-stream-guardrail-blocked")
    tennis = {"inputText": "How do I play tennis in Japan?",
              "textGenerationConfig": {"maxTokenCount": 1000, "temperature": 0.5}}  # fmt: skip
    write(folder, "titan-guardrail-blocked", model_header("bedrock-titan", titan, tennis), blocked,
          "eof", 35)  # fmt: skip
    write(folder, "titan-length", model_header("bedrock-titan", titan, tennis), [
        inner({"outputText": "Tennis in Japan", "index": 0, "inputTextTokenCount": 8}),
        inner({"outputText": " is played", "index": 0, "totalOutputTextTokenCount": 5,
               "completionReason": "LENGTH", **_METRICS}),
    ], "eof", 36)  # fmt: skip

    camping = {"schemaVersion": "messages-v1", "messages": [{"role": "user", "content": [{"text": "A camping trip"}]}],
               "system": [{"text": "tell me a very two sentence story and put the string 1234561666 into the last sentence."}],
               "inferenceConfig": {"topP": 0.9, "topK": 20, "temperature": 0.7}}  # fmt: skip
    write(folder, "nova-guardrail-real", model_header("bedrock-nova", "amazon.nova-lite-v1:0", camping),
          recorded("openllmetry-nova-invoke-stream-guardrail"), "eof", 44)  # fmt: skip
    nova = "us.amazon.nova-lite-v1:0"
    camp = {
        "schemaVersion": "messages-v1",
        "messages": [{"role": "user", "content": [{"text": "A camping trip"}]}],
    }
    nova_end = [
        inner({"messageStop": {"stopReason": "end_turn"}}),
        inner({"metadata": {"usage": {"inputTokens": 30, "outputTokens": 12}, "metrics": {},
                            "trace": {}}, **_METRICS}),
    ]  # fmt: skip
    write(folder, "nova-text", model_header("bedrock-nova", nova, camp), [
        inner({"messageStart": {"role": "assistant"}}),
        *(inner({"contentBlockDelta": {"delta": {"text": t}, "contentBlockIndex": 0}})
          for t in ["On", " their", " first", " night", "."]),
        inner({"contentBlockStop": {"contentBlockIndex": 0}}), *nova_end,
    ], "eof", 37)  # fmt: skip
    write(folder, "nova-tool-use", model_header("bedrock-nova", nova, camp), [
        inner({"messageStart": {"role": "assistant"}}),
        inner({"contentBlockStart": {"start": {"toolUse": {"toolUseId": "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
               "name": "get_weather"}}, "contentBlockIndex": 0}}),
        inner({"contentBlockDelta": {"delta": {"toolUse": {"input": "{\"city\": "}}, "contentBlockIndex": 0}}),
        inner({"contentBlockDelta": {"delta": {"toolUse": {"input": "\"Seattle\"}"}}, "contentBlockIndex": 0}}),
        inner({"contentBlockStop": {"contentBlockIndex": 0}}),
        inner({"messageStop": {"stopReason": "tool_use"}}), nova_end[1],
    ], "eof", 38)  # fmt: skip

    command = "cohere.command-text-v14"
    ask = {"prompt": "Describe the purpose of a 'hello world' program in one line.", "max_tokens": 512,
           "stream": True}  # fmt: skip
    pieces = [" A", " 'hello world'", " program", " checks", " a setup", "."]
    # Command (generate): each piece in generations[0], as AWS's Python example reads it.
    write(folder, "cohere-command-text", model_header("bedrock-cohere", command, ask), [
        *(inner({"generations": [{"text": t, "is_finished": False, "index": 0}]}) for t in pieces),
        inner({"generations": [{"text": "", "is_finished": True, "finish_reason": "COMPLETE",
                                "index": 0}], **_METRICS}),
    ], "eof", 39)  # fmt: skip
    write(folder, "cohere-command-error-toxic", model_header("bedrock-cohere", command, ask), [
        inner({"generations": [{"text": " A", "is_finished": False, "index": 0}]}),
        inner({"generations": [{"text": "", "is_finished": True, "finish_reason": "ERROR_TOXIC",
                                "index": 0}], **_METRICS}),
    ], "eof", 40)  # fmt: skip
    command_r = "cohere.command-r-v1:0"
    chat = {"message": "Describe the purpose of a 'hello world' program in one line."}
    write(folder, "cohere-command-r-text", model_header("bedrock-cohere", command_r, chat), [
        inner({"is_finished": False, "event_type": "stream-start", "generation_id": "0c9a"}),
        *(inner({"is_finished": False, "event_type": "text-generation", "text": t}) for t in pieces),
        inner({"is_finished": True, "event_type": "stream-end", "finish_reason": "COMPLETE",
               "response": {"text": "".join(pieces)}, **_METRICS}),
    ], "eof", 41)  # fmt: skip

    mistral = "mistral.mistral-7b-instruct-v0:2"
    condiment = {"prompt": "<s>[INST] What is your favourite condiment? [/INST]", "max_tokens": 64}
    spoken = [" Lemon", " juice", ",", " freshly", " squeezed", "."]
    outputs = [inner({"outputs": [{"text": t, "stop_reason": None}]}) for t in spoken[:-1]]
    write(folder, "mistral-text", model_header("bedrock-mistral", mistral, condiment), [
        *outputs, inner({"outputs": [{"text": spoken[-1], "stop_reason": "stop"}], **_METRICS}),
    ], "eof", 42)  # fmt: skip
    write(folder, "mistral-length", model_header("bedrock-mistral", mistral, condiment), [
        *outputs, inner({"outputs": [{"text": spoken[-1], "stop_reason": "length"}], **_METRICS}),
    ], "eof", 43)  # fmt: skip


# -- Ollama -------------------------------------------------------------------


def line(document: dict[str, Any]) -> bytes:
    return orjson.dumps(document) + b"\n"


def ollama_header(endpoint: str, model: str, body: dict[str, Any]) -> dict[str, Any]:
    return header("ollama", endpoint, model, f"http://localhost:11434{endpoint}", {}, body,
                  "application/x-ndjson")  # fmt: skip


_TIMINGS = {"total_duration": 4883583458, "load_duration": 1334875, "prompt_eval_duration": 342546000,
            "eval_duration": 4535599000}  # fmt: skip


def chat_line(model: str, t: int, **message: Any) -> bytes:
    return line({"model": model, "created_at": f"2026-12-01T20:00:0{t % 10}.{t:06d}Z",
                 "message": {"role": "assistant", "content": "", **message}, "done": False})  # fmt: skip


def chat_done(model: str, reason: str, prompt: int, generated: int) -> bytes:
    return line({"model": model, "created_at": "2026-12-01T20:00:09.999999Z",
                 "message": {"role": "assistant", "content": ""}, "done_reason": reason, "done": True,
                 **_TIMINGS, "prompt_eval_count": prompt, "eval_count": generated})  # fmt: skip


def ollama() -> None:
    llama = "llama3.2"
    hello = {"model": llama, "messages": [{"role": "user", "content": "Why is the sky blue?"}]}
    words = ["The", " sky", " is", " blue", " because", " of", " Rayleigh", " scattering", "."]
    text = [chat_line(llama, i, content=w) for i, w in enumerate(words)]
    write("ollama", "chat-text", ollama_header("/api/chat", llama, hello),
          [*text, chat_done(llama, "stop", 26, 10)], "eof", 31)  # fmt: skip
    write(
        "ollama",
        "chat-interrupted",
        ollama_header("/api/chat", llama, hello),
        text[:5],
        "reset",
        32,
    )
    write("ollama", "chat-length", ollama_header("/api/chat", llama, {**hello, "options": {"num_predict": 9}}),
          [*text[:-1], chat_done(llama, "length", 26, 9)], "eof", 33)  # fmt: skip
    qwen = "qwen3:8b"
    think = {
        "model": qwen,
        "think": True,
        "messages": [{"role": "user", "content": "Is 1001 prime?"}],
    }
    write("ollama", "chat-thinking", ollama_header("/api/chat", qwen, think), [
        *[chat_line(qwen, i, thinking=t) for i, t in enumerate(["1001 = 7 × 143", " = 7 × 11 × 13", "."])],
        *[chat_line(qwen, 10 + i, content=t) for i, t in enumerate(["No,", " 1001 = 7 × 11 × 13."])],
        chat_done(qwen, "stop", 14, 41),
    ], "eof", 34)  # fmt: skip
    tools = {"model": llama, "messages": [{"role": "user", "content": "Weather in Paris and Toronto?"}],
             "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}  # fmt: skip
    calls = [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}},
             {"function": {"name": "get_weather", "arguments": {"city": "Toronto"}}}]  # fmt: skip
    write("ollama", "chat-tool-calls", ollama_header("/api/chat", llama, tools),
          [chat_line(llama, 1, tool_calls=calls), chat_done(llama, "stop", 168, 35)], "eof", 35)  # fmt: skip
    write("ollama", "chat-error-line", ollama_header("/api/chat", llama, hello),
          [*text[:3], line({"error": "an error was encountered while running the model: unexpected EOF"})],
          "eof", 36)  # fmt: skip
    gen = {"model": llama, "prompt": "Why is the sky blue?"}
    generate = [line({"model": llama, "created_at": f"2026-12-01T20:00:01.{i:06d}Z", "response": w, "done": False})
                for i, w in enumerate(words)]  # fmt: skip
    final = line({"model": llama, "created_at": "2026-12-01T20:00:02.000000Z", "response": "", "done": True,
                  "done_reason": "stop", "context": [128006, 882, 128007], **_TIMINGS,
                  "prompt_eval_count": 31, "eval_count": 10})  # fmt: skip
    write(
        "ollama",
        "generate-text",
        ollama_header("/api/generate", llama, gen),
        [*generate, final],
        "eof",
        37,
    )
    write("ollama", "generate-model-not-found", ollama_header("/api/generate", "llama9", {**gen, "model": "llama9"}),
          [line({"error": "model 'llama9' not found"})], "eof", 38)  # fmt: skip


# -- SSE protocols ------------------------------------------------------------


def sse(document: dict[str, Any] | str, name: str | None = None) -> bytes:
    data = document if isinstance(document, str) else orjson.dumps(document).decode()
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {data}\n\n".encode()


def cohere_event(document: dict[str, Any]) -> bytes:
    return sse(document, document["type"])


def cohere_header(body: dict[str, Any]) -> dict[str, Any]:
    return header("cohere", "/v2/chat", "command-a-03-2025", "https://api.cohere.com/v2/chat",
                  {"authorization": "[redacted]"}, {"model": "command-a-03-2025", "stream": True, **body},
                  "text/event-stream")  # fmt: skip


def cohere_text(index: int, pieces: list[str]) -> list[bytes]:
    return [
        cohere_event({"type": "content-start", "index": index,
                      "delta": {"message": {"content": {"type": "text", "text": ""}}}}),
        *[cohere_event({"type": "content-delta", "index": index,
                        "delta": {"message": {"content": {"text": p}}}}) for p in pieces],
        cohere_event({"type": "content-end", "index": index}),
    ]  # fmt: skip


def cohere_end(reason: str, tokens_in: int, tokens_out: int, **extra: Any) -> bytes:
    usage = {"billed_units": {"input_tokens": tokens_in, "output_tokens": tokens_out},
             "tokens": {"input_tokens": tokens_in + 180, "output_tokens": tokens_out}}  # fmt: skip
    return cohere_event(
        {"type": "message-end", "delta": {"finish_reason": reason, "usage": usage, **extra}}
    )


_COHERE_START = cohere_event({"id": "1f4c0a6e-6a4b-4d1e-9c55-2b0d8a3c9e11", "type": "message-start",
                              "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "",
                                                    "tool_calls": [], "citations": []}}})  # fmt: skip


def cohere() -> None:
    hello = {"messages": [{"role": "user", "content": "Say hello in French."}]}
    write("cohere", "text", cohere_header(hello),
          [_COHERE_START, *cohere_text(0, ["Bonjour", " !", " Comment", " allez-vous ?"]),
           cohere_end("COMPLETE", 5, 7)], "eof", 41)  # fmt: skip
    write("cohere", "max-tokens", cohere_header({**hello, "max_tokens": 3}),
          [_COHERE_START, *cohere_text(0, ["Bonjour", " !"]), cohere_end("MAX_TOKENS", 5, 3)], "eof", 42)  # fmt: skip
    tools = {"messages": [{"role": "user", "content": "What's the weather in Toronto?"}],
             "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]}  # fmt: skip
    call_id = "get_weather_1byjy32y4hvq"
    write("cohere", "tool-plan-and-call", cohere_header(tools), [
        _COHERE_START,
        *[cohere_event({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": p}}})
          for p in ["I will", " look up", " the weather", " in Toronto."]],
        cohere_event({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {
            "id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": ""}}}}}),
        *[cohere_event({"type": "tool-call-delta", "index": 0,
                        "delta": {"message": {"tool_calls": {"function": {"arguments": a}}}}})
          for a in ['{"', 'location', '": "', 'Toronto', '"}']],
        cohere_event({"type": "tool-call-end", "index": 0}),
        cohere_end("TOOL_CALL", 37, 28),
    ], "eof", 43)  # fmt: skip
    docs = {"messages": [{"role": "user", "content": "Where do emperor penguins live?"}],
            "documents": [{"id": "doc-0", "data": {"text": "Emperor penguins live only in Antarctica."}}]}  # fmt: skip
    citation = {"start": 29, "end": 40, "text": "Antarctica.", "type": "TEXT_CONTENT",
                "sources": [{"type": "document", "id": "doc-0",
                             "document": {"id": "doc-0", "text": "Emperor penguins live only in Antarctica."}}]}  # fmt: skip
    text = cohere_text(0, ["Emperor penguins", " live only", " in", " Antarctica."])
    write("cohere", "citations", cohere_header(docs), [
        _COHERE_START, *text[:-1],
        cohere_event({"type": "citation-start", "index": 0, "delta": {"message": {"citations": citation}}}),
        cohere_event({"type": "citation-end", "index": 0}),
        text[-1], cohere_end("COMPLETE", 60, 12),
    ], "eof", 44)  # fmt: skip
    write("cohere", "finish-error", cohere_header(hello),
          [_COHERE_START, *cohere_text(0, ["Bonjour"])[:2],
           cohere_end("ERROR", 5, 1, error="internal server error, please try again")], "eof", 45)  # fmt: skip
    write("cohere", "interrupted-mid-text", cohere_header(hello),
          [_COHERE_START, *cohere_text(0, ["Bonjour", " !", " Comment"])[:3]], "reset", 46)  # fmt: skip


def completions_header(model: str, url: str, body: dict[str, Any]) -> dict[str, Any]:
    return header("openai-completions", "/v1/completions", model, url, {"authorization": "[redacted]"},
                  {"model": model, "stream": True, **body}, "text/event-stream")  # fmt: skip


def completion(model: str, text: str, reason: str | None, **extra: Any) -> bytes:
    return sse({"id": "cmpl-8Zx1", "object": "text_completion", "created": 1764619200, "model": model,
                "choices": [{"text": text, "index": 0, "logprobs": None, "finish_reason": reason, **extra}]})  # fmt: skip


def openai_completions() -> None:
    instruct = "gpt-3.5-turbo-instruct"
    url = "https://api.openai.com/v1/completions"
    body = {
        "prompt": "Say this is a test",
        "max_tokens": 16,
        "stream_options": {"include_usage": True},
    }
    pieces = ["\n\n", "This", " is", " a", " test", "."]
    usage = sse({"id": "cmpl-8Zx1", "object": "text_completion", "created": 1764619200, "model": instruct,
                 "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12}})  # fmt: skip
    text = [completion(instruct, p, None) for p in pieces]
    done = sse("[DONE]")
    write("openai-completions", "text-with-usage", completions_header(instruct, url, body),
          [*text, completion(instruct, "", "stop"), usage, done], "eof", 51)  # fmt: skip
    write("openai-completions", "length", completions_header(instruct, url, {**body, "max_tokens": 4}),
          [*text[:4], completion(instruct, "", "length"), done], "eof", 52)  # fmt: skip
    write("openai-completions", "finish-without-done", completions_header(instruct, url, body),
          [*text, completion(instruct, "", "stop")], "eof", 53)  # fmt: skip
    write("openai-completions", "done-without-finish-reason", completions_header(instruct, url, body),
          [*text, done], "eof", 54)  # fmt: skip
    write("openai-completions", "error-chunk", completions_header(instruct, url, body),
          [*text[:2], sse({"error": {"message": "The server had an error while processing your request.",
                                     "type": "server_error", "code": None}})], "eof", 55)  # fmt: skip
    vllm = "Qwen/Qwen2.5-1.5B-Instruct"
    write("openai-completions", "vllm-stop-reason", completions_header(vllm, "http://localhost:8000/v1/completions",
          {"prompt": "San Francisco is a", "max_tokens": 7}),
          [*[completion(vllm, p, None, stop_reason=None) for p in [" city", " in", " California"]],
           completion(vllm, ",", "stop", stop_reason="\n"), done], "eof", 56)  # fmt: skip


def ui_header(body: dict[str, Any]) -> dict[str, Any]:
    h = header("ai-sdk-ui", "/api/chat", "gpt-4o-mini", "http://localhost:3000/api/chat", {}, body,
               "text/event-stream")  # fmt: skip
    h["response"]["headers"]["x-vercel-ai-ui-message-stream"] = "v1"
    return h


def part(document: dict[str, Any]) -> bytes:
    return sse(document)


def ui_text(key: str, pieces: list[str]) -> list[bytes]:
    return [part({"type": "text-start", "id": key}),
            *[part({"type": "text-delta", "id": key, "delta": p}) for p in pieces],
            part({"type": "text-end", "id": key})]  # fmt: skip


def ai_sdk_ui() -> None:
    chat = {
        "id": "chat-1",
        "messages": [{"id": "m1", "role": "user", "parts": [{"type": "text", "text": "Hi!"}]}],
    }
    start = part({"type": "start", "messageId": "msg-9f1c"})
    done = sse("[DONE]")
    write("ai-sdk-ui", "text", ui_header(chat), [
        start, part({"type": "start-step"}), *ui_text("txt-0", ["Hello", "!", " How can I", " help?"]),
        part({"type": "finish-step"}), part({"type": "finish"}), done,
    ], "eof", 61)  # fmt: skip
    write("ai-sdk-ui", "reasoning-then-text", ui_header(chat), [
        start, part({"type": "start-step"}),
        part({"type": "reasoning-start", "id": "rs-0"}),
        *[part({"type": "reasoning-delta", "id": "rs-0", "delta": d}) for d in ["The user", " greets me."]],
        part({"type": "reasoning-end", "id": "rs-0"}),
        *ui_text("txt-0", ["Hello", "!"]), part({"type": "finish-step"}), part({"type": "finish"}), done,
    ], "eof", 62)  # fmt: skip
    call = "call_8Hk2"
    server_tool = [
        part({"type": "tool-input-start", "toolCallId": call, "toolName": "getWeather"}),
        *[part({"type": "tool-input-delta", "toolCallId": call, "inputTextDelta": d})
          for d in ['{"city', '":"Berlin"}']],
        part({"type": "tool-input-available", "toolCallId": call, "toolName": "getWeather", "input": {"city": "Berlin"}}),
    ]  # fmt: skip
    write("ai-sdk-ui", "server-tool-then-text", ui_header(chat), [
        start, part({"type": "start-step"}), *server_tool,
        part({"type": "tool-output-available", "toolCallId": call, "output": {"temperature": 21, "sky": "clear"}}),
        part({"type": "finish-step"}), part({"type": "start-step"}),
        *ui_text("txt-1", ["It is 21 °C", " and clear in Berlin."]),
        part({"type": "finish-step"}), part({"type": "finish"}), done,
    ], "eof", 63)  # fmt: skip
    write("ai-sdk-ui", "client-tool-call", ui_header(chat), [
        start, part({"type": "start-step"}), *server_tool, part({"type": "finish-step"}),
        part({"type": "finish"}), done,
    ], "eof", 64)  # fmt: skip
    write("ai-sdk-ui", "data-and-source-parts", ui_header(chat), [
        start, part({"type": "data-status", "id": "status-1", "data": {"stage": "searching"}}),
        part({"type": "source-url", "sourceId": "src-1", "url": "https://ai-sdk.dev/docs", "title": "AI SDK docs"}),
        *ui_text("txt-0", ["See the docs."]),
        part({"type": "message-metadata", "messageMetadata": {"createdAt": 1764619200}}),
        part({"type": "finish"}), done,
    ], "eof", 65)  # fmt: skip
    write("ai-sdk-ui", "error-part", ui_header(chat), [
        start, part({"type": "start-step"}), *ui_text("txt-0", ["Hel"])[:2],
        part({"type": "error", "errorText": "An error occurred."}), done,
    ], "eof", 66)  # fmt: skip
    write("ai-sdk-ui", "abort-part", ui_header(chat), [
        start, part({"type": "start-step"}), *ui_text("txt-0", ["Hello", " the"])[:3],
        part({"type": "abort"}), done,
    ], "eof", 67)  # fmt: skip


WRITERS: dict[str, Callable[[], None]] = {
    "bedrock-converse": bedrock_converse,
    "bedrock-invoke": bedrock_invoke,
    "bedrock-invoke-models": bedrock_invoke_models,
    "ollama": ollama,
    "cohere": cohere,
    "openai-completions": openai_completions,
    "ai-sdk-ui": ai_sdk_ui,
}


def main(argv: list[str]) -> int:
    for name in argv or list(WRITERS):
        WRITERS[name]()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
