"""The decoders of the newer framings against what users run today, on the same bytes.

    python -m benchmarks.bench_framings [--events N] [--repeats N]

One process, candidates timed round-robin (:mod:`benchmarks.timing`); every
ratio is baseline time / ours, from the same run. The bodies are built here,
the same shape as the bundled captures, and fed in the same chunks to both
sides (one message a chunk, as Bedrock and Ollama deliver a slow stream, and
16 KiB reads, as a fast one arrives):

- **Bedrock** (AWS event stream): botocore's ``EventStreamBuffer`` — the
  parser boto3's ``EventStream`` iterates, with both CRCs checked and the
  headers parsed — against :class:`~inspector.core.framing.eventstream.EventStreamDecoder`;
  then each side's payload JSON parsed (``json.loads`` as boto3's parser does,
  ``orjson`` as our adapters do).
- **Ollama** (NDJSON): the ollama client's own loop (``Client._request``:
  ``httpx.Response.iter_lines()``, ``json.loads``, ``ChatResponse(**part)``)
  against :class:`~inspector.core.framing.ndjson.NdjsonDecoder` plus
  ``orjson.loads``, and against our whole pipeline (decoder, adapter,
  machine, trace).
- **Cohere** (SSE): the cohere SDK's loop (``V2Client.chat_stream``:
  its ``EventSource.iter_sse()`` and ``parse_sse_obj`` into
  ``V2ChatStreamResponse``) against our whole pipeline with the cohere
  adapter.

The baselines need ``botocore``, ``ollama`` and ``cohere`` installed (the
``bench`` extra); a missing one is reported and its rows skipped.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import orjson

from inspector.core.framing import decoder_for
from inspector.core.framing.eventstream import encode_message
from inspector.core.normalizer import Normalizer

from .timing import compare, paired_ratio

WORDS = ["The", " sky", " is", " blue", " because", " of", " Rayleigh", " scatter", "ing", "."]


def pieces(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def bedrock_body(count: int) -> list[bytes]:
    """A ConverseStream response of ``count`` text deltas, one message each."""

    def message(name: str, payload: dict[str, Any]) -> bytes:
        headers = [
            (":event-type", name),
            (":content-type", "application/json"),
            (":message-type", "event"),
        ]
        return encode_message(headers, orjson.dumps({**payload, "p": "abcdefghijklmnopqrstu"}))

    out = [message("messageStart", {"role": "assistant"})]
    out += [
        message("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": WORDS[i % 10]}})
        for i in range(count)
    ]
    out += [
        message("contentBlockStop", {"contentBlockIndex": 0}),
        message("messageStop", {"stopReason": "end_turn"}),
        message(
            "metadata",
            {"usage": {"inputTokens": 9, "outputTokens": count}, "metrics": {"latencyMs": 9}},
        ),
    ]
    return out


def ollama_body(count: int) -> list[bytes]:
    """An ``/api/chat`` response of ``count`` content lines and the done line."""
    line = {
        "model": "llama3.2",
        "created_at": "2026-12-01T20:00:00.123456789Z",
        "message": {"role": "assistant", "content": ""},
        "done": False,
    }
    out = []
    for i in range(count):
        line["message"] = {"role": "assistant", "content": WORDS[i % 10]}
        out.append(orjson.dumps(line) + b"\n")
    done = {
        **line,
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "total_duration": 4883583458,
        "load_duration": 1334875,
        "prompt_eval_count": 26,
        "prompt_eval_duration": 342546000,
        "eval_count": count,
        "eval_duration": 4535599000,
    }
    return [*out, orjson.dumps(done) + b"\n"]


def cohere_body(count: int) -> list[bytes]:
    """A v2 chat response of ``count`` content deltas."""

    def event(document: dict[str, Any]) -> bytes:
        return f"event: {document['type']}\ndata: {orjson.dumps(document).decode()}\n\n".encode()

    out = [
        event(
            {
                "id": "5a7d",
                "type": "message-start",
                "delta": {
                    "message": {
                        "role": "assistant",
                        "content": [],
                        "tool_plan": "",
                        "tool_calls": [],
                        "citations": [],
                    }
                },
            }
        ),
        event(
            {
                "type": "content-start",
                "index": 0,
                "delta": {"message": {"content": {"type": "text", "text": ""}}},
            }
        ),
    ]
    out += [
        event(
            {
                "type": "content-delta",
                "index": 0,
                "delta": {"message": {"content": {"text": WORDS[i % 10]}}},
            }
        )
        for i in range(count)
    ]
    usage = {
        "billed_units": {"input_tokens": 5, "output_tokens": count},
        "tokens": {"input_tokens": 200, "output_tokens": count},
    }
    out += [
        event({"type": "content-end", "index": 0}),
        event({"type": "message-end", "delta": {"finish_reason": "COMPLETE", "usage": usage}}),
    ]
    return out


# -- ours -----------------------------------------------------------------------


def our_decoder(framing: str, chunks: list[bytes], parse: bool) -> Callable[[], int]:
    def run() -> int:
        decoder = decoder_for(framing)
        loads = orjson.loads
        count = 0
        for chunk in chunks:
            frames = decoder.feed(chunk)
            if parse:
                for frame in frames:
                    loads(frame.data)
            count += len(frames)
        return count

    return run


def our_pipeline(provider: str, framing: str, chunks: list[bytes]) -> Callable[[], int]:
    def run() -> int:
        normalizer = Normalizer(provider, "st_bench", framing=framing)
        feed = normalizer.feed
        for chunk in chunks:
            feed(chunk)
        trace = normalizer.finish()
        assert trace.state == "completed", trace.outcome
        return len(trace.events)

    return run


# -- what users run -----------------------------------------------------------------


def botocore_loop(chunks: list[bytes], parse: bool) -> Callable[[], int] | None:
    try:
        from botocore.eventstream import EventStreamBuffer
    except ImportError:
        return None

    def run() -> int:
        buffer = EventStreamBuffer()
        count = 0
        for chunk in chunks:
            buffer.add_data(chunk)
            for message in buffer:
                if parse:
                    json.loads(message.payload)
                count += 1
        return count

    return run


def response(chunks: list[bytes], content_type: str) -> httpx.Response:
    def stream() -> Iterator[bytes]:
        yield from chunks

    return httpx.Response(200, headers={"content-type": content_type}, content=stream())


def ollama_loop(chunks: list[bytes]) -> Callable[[], int] | None:
    try:
        from ollama import ChatResponse
    except ImportError:
        return None

    def run() -> int:
        # ollama._client.Client._request, stream=True: its loop over the response.
        count = 0
        for line in response(chunks, "application/x-ndjson").iter_lines():
            part = json.loads(line)
            if err := part.get("error"):
                raise RuntimeError(err)
            ChatResponse(**part)
            count += 1
        return count

    return run


def cohere_loop(chunks: list[bytes]) -> Callable[[], int] | None:
    try:
        from cohere.core.http_sse._api import EventSource
        from cohere.core.pydantic_utilities import parse_sse_obj
        from cohere.v2.types.v2chat_stream_response import V2ChatStreamResponse
    except ImportError:
        return None

    def run() -> int:
        # cohere.v2.raw_client.V2Client.chat_stream: its loop over the response.
        count = 0
        for sse in EventSource(response(chunks, "text/event-stream")).iter_sse():
            if sse.data == "[DONE]":
                break
            if not sse.data:
                continue
            parse_sse_obj(sse=sse, type_=V2ChatStreamResponse)
            count += 1
        return count

    return run


Row = tuple[str, str, str, Callable[[], int] | None, Callable[[], int], int, int]


def rows(count: int) -> list[Row]:
    """(protocol, what, chunks, baseline, ours, bytes, frames) for every comparison."""
    out: list[Row] = []
    for name, frames in (
        ("bedrock", bedrock_body(count)),
        ("ollama", ollama_body(count)),
        ("cohere", cohere_body(count)),
    ):
        body = b"".join(frames)
        for label, chunks in (("a message a chunk", frames), ("16 KiB reads", pieces(body, 16384))):
            size, n = len(body), len(frames)
            if name == "bedrock":
                out.append(
                    (
                        name,
                        "decode (CRCs, headers)",
                        label,
                        botocore_loop(chunks, False),
                        our_decoder("aws-eventstream", chunks, False),
                        size,
                        n,
                    )
                )
                out.append(
                    (
                        name,
                        "decode + payload JSON",
                        label,
                        botocore_loop(chunks, True),
                        our_decoder("aws-eventstream", chunks, True),
                        size,
                        n,
                    )
                )
                out.append(
                    (
                        name,
                        "whole pipeline vs decode + JSON",
                        label,
                        botocore_loop(chunks, True),
                        our_pipeline("bedrock-converse", "aws-eventstream", chunks),
                        size,
                        n,
                    )
                )
            elif name == "ollama":
                out.append(
                    (
                        name,
                        "decode + JSON vs client loop",
                        label,
                        ollama_loop(chunks),
                        our_decoder("ndjson", chunks, True),
                        size,
                        n,
                    )
                )
                out.append(
                    (
                        name,
                        "whole pipeline vs client loop",
                        label,
                        ollama_loop(chunks),
                        our_pipeline("ollama", "ndjson", chunks),
                        size,
                        n,
                    )
                )
            else:
                out.append(
                    (
                        name,
                        "whole pipeline vs SDK loop",
                        label,
                        cohere_loop(chunks),
                        our_pipeline("cohere", "sse", chunks),
                        size,
                        n,
                    )
                )
    return out


def main(argv: list[str] | None = None) -> int:
    """Print the table (Markdown); 1 when a target ratio is under 2x."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--events", type=int, default=20_000, help="deltas per stream")
    parser.add_argument("--repeats", type=int, default=7, help="runs of each candidate")
    args = parser.parse_args(argv)
    print(
        f"{args.events} deltas a stream, median of {args.repeats} interleaved runs "
        "(CPU time), one process; ratios paired by round\n"
    )
    print("| protocol | comparison | chunks | baseline ms | ours ms | ours MB/s | ratio |")
    print("|---|---|---|---:|---:|---:|---:|")
    slow = False
    for protocol, what, label, baseline, ours, size, frames in rows(args.events):
        if baseline is None:
            print(f"| {protocol} | {what} | {label} | (baseline not installed) | | | |")
            continue
        assert baseline() == ours() or what.startswith("whole"), (protocol, what)
        results = compare([("baseline", baseline), ("ours", ours)], size, frames, args.repeats)
        base, mine = results["baseline"].median, results["ours"].median
        ratio = paired_ratio(results["baseline"], results["ours"])
        # The target (2x) is the decoder's; for Cohere, whose framing is SSE, the whole
        # pipeline's against the SDK's loop. The other rows say what the rest costs.
        target = not what.startswith("whole") or protocol == "cohere"
        slow = slow or (target and ratio < 2)
        print(
            f"| {protocol} | {what} | {label} | {base * 1e3:.1f} | {mine * 1e3:.1f} | "
            f"{results['ours'].mb_per_s:.0f} | {ratio:.1f}x{'' if target else ' (info)'} |"
        )
    return 1 if slow else 0


if __name__ == "__main__":
    sys.exit(main())
