"""Shared by the framing and protocol-adapter tests: bodies of each framing, compact sequences."""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import orjson

from inspector.capture import read_recording
from inspector.core.framing.eventstream import encode_message
from inspector.core.normalizer import Normalizer
from inspector.core.trace import Trace, TransportEnd
from inspector.session import framing_of

from .conftest import CAPTURES

#: The capture folders of the protocols beside the v1 four, and their framings.
PROTOCOL_FOLDERS = {
    "bedrock-converse": "aws-eventstream",
    "bedrock-invoke": "aws-eventstream",
    "ollama": "ndjson",
    "cohere": "sse",
    "openai-completions": "sse",
    "ai-sdk-ui": "sse",
}


def protocol_captures() -> list[Path]:
    """Every capture of the newer protocols."""
    return sorted(
        p
        for folder in PROTOCOL_FOLDERS
        for p in (CAPTURES / folder).glob("*.jsonl")
        if ".events." not in p.name
    )


def body_of(path: Path) -> tuple[bytes, str, str, str]:
    """A capture's body, provider, framing and how its transport ended."""
    rec = read_recording(path)
    assert rec.provider is not None and rec.end is not None
    return rec.body, rec.provider, framing_of(rec), rec.end.reason


def run(
    pieces: Iterable[bytes], provider: str, framing: str, end: str = "eof", sid: str = "st_t"
) -> Trace:
    """Normalize ``pieces`` fed one by one (live-style), then end the transport."""
    normalizer = Normalizer(provider, sid, framing=framing)
    for i, piece in enumerate(pieces):
        normalizer.feed(piece, float(i))
    return normalizer.finish(TransportEnd(end))


def compact(trace: Trace) -> list[tuple[Any, ...]]:
    """The normalized sequence, each event as a short tuple (the whole sequence, in order)."""
    out: list[tuple[Any, ...]] = []
    for event in trace.events:
        kind = event["type"]
        if kind == "stream.start":
            out.append((kind, event["provider"], event.get("framing"), event.get("model")))
        elif kind == "block.start":
            block = event["block"]
            extra = (
                (event.get("name"), event.get("call_id")) if block["kind"] == "tool_call" else ()
            )
            out.append((kind, block["index"], block["kind"], event["provider_type"], *extra))
        elif kind == "block.delta":
            delta = event["delta"]
            text = delta["text"] if delta["kind"] != "citation" else delta.get("citation")
            out.append((kind, event["block"]["index"], delta["kind"], text))
        elif kind == "block.stop":
            out.append((kind, event["block"]["index"]))
        elif kind == "stream.done":
            usage = event.get("usage") or {}
            tokens = (usage.get("input_tokens"), usage.get("output_tokens"))
            out.append((kind, event["finish_reason"], event["provider_finish_reason"], tokens))
        elif kind == "stream.error":
            error = event["error"]
            out.append((kind, event["status"], error["category"], error["provider_code"]))
        else:
            out.append((kind, event.get("code")))
    return out


def ndjson(documents: Sequence[dict[str, Any]]) -> bytes:
    return b"".join(orjson.dumps(d) + b"\n" for d in documents)


def sse(documents: Sequence[dict[str, Any] | str], named: bool = False) -> bytes:
    out = []
    for d in documents:
        data = d if isinstance(d, str) else orjson.dumps(d).decode()
        head = f"event: {d['type']}\n" if named and isinstance(d, dict) else ""
        out.append(f"{head}data: {data}\n\n".encode())
    return b"".join(out)


def message(name: str, payload: dict[str, Any], message_type: str = "event") -> bytes:
    """One event-stream message of a Bedrock event (or exception, by ``message_type``)."""
    key = ":event-type" if message_type == "event" else ":exception-type"
    headers = [(key, name), (":content-type", "application/json"), (":message-type", message_type)]
    return encode_message(headers, orjson.dumps(payload))


def invoke_chunk(event: dict[str, Any] | bytes) -> bytes:
    """One Bedrock invoke ``chunk`` message: the model's event (or its JSON) in base64."""
    inner = event if isinstance(event, bytes) else orjson.dumps(event)
    return message("chunk", {"bytes": base64.b64encode(inner).decode()})
