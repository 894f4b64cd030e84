"""Two toy OpenAI Chat clients for testing the harness itself.

``naive`` is every mistake at once: it splits each chunk on blank lines as it
comes (no buffering across chunks), knows LF only, trusts EOF, has no
timeout and no error handling. ``careful`` does what a correct client must:
an SSE parser that buffers across chunks and takes every line end and
comment, a progress timeout, errors in the stream raised, ``[DONE]``
required, tool arguments parsed at the end.
"""

from __future__ import annotations

import re

import orjson

from inspector.harness.drivers import Driver, Outcome, Target

PATH = "/v1/chat/completions"
BODY = {"model": "toy", "stream": True, "messages": [{"role": "user", "content": "hi"}]}


class StreamError(Exception):
    """The careful client's own error."""


def _accumulate(data: dict, text: list[str], calls: dict[int, dict[str, str]]) -> str | None:
    finish = None
    for choice in data.get("choices") or []:
        delta = choice.get("delta") or {}
        if delta.get("content"):
            text.append(delta["content"])
        for call in delta.get("tool_calls") or []:
            slot = calls.setdefault(call.get("index", 0), {"name": "", "arguments": ""})
            function = call.get("function") or {}
            if function.get("name"):
                slot["name"] = function["name"]
            slot["arguments"] += function.get("arguments") or ""
        finish = choice.get("finish_reason") or finish
    return finish


def naive(target: Target) -> Outcome:
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    finish = None
    request = target.http_client.build_request("POST", target.base_url + PATH, json=BODY,
                                               timeout=None)  # fmt: skip
    response = target.http_client.send(request, stream=True)
    for chunk in response.iter_bytes():
        for event in chunk.split(b"\n\n"):
            if event.startswith(b"data: ") and event[6:] != b"[DONE]":
                finish = _accumulate(orjson.loads(event[6:]), text, calls) or finish
    calls_out = tuple((c["name"], c["arguments"]) for _, c in sorted(calls.items()))
    return Outcome(True, "".join(text), calls_out, finish)


_LINE = re.compile(rb"\r\n|\r|\n")


def _events(chunks):
    """A WHATWG-style SSE parser: (event, data) pairs, buffered across chunks."""
    buffer = b""
    data: list[bytes] = []
    event = b""
    pending_cr = False
    for chunk in chunks:
        if pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        pending_cr = chunk.endswith(b"\r")
        buffer += chunk
        while True:
            match = _LINE.search(buffer)
            if match is None or (match.group() == b"\r" and match.end() == len(buffer)
                                 and not pending_cr):  # fmt: skip
                break
            line, buffer = buffer[: match.start()], buffer[match.end() :]
            if not line:
                if data:
                    yield event.decode(), b"\n".join(data).decode()
                data, event = [], b""
            elif line.startswith(b":"):
                continue
            else:
                name, _, value = line.partition(b":")
                value = value[1:] if value.startswith(b" ") else value
                if name == b"data":
                    data.append(value)
                elif name == b"event":
                    event = value


def careful(target: Target) -> Outcome:
    text: list[str] = []
    calls: dict[int, dict[str, str]] = {}
    finish = None
    done = False
    with target.http_client.stream(
        "POST", target.base_url + PATH, json=BODY, timeout=target.timeout
    ) as response:
        if response.status_code >= 400:
            raise StreamError(f"HTTP {response.status_code}")
        for _event, data in _events(response.iter_raw()):
            if data == "[DONE]":
                done = True
                break
            try:
                value = orjson.loads(data)
            except orjson.JSONDecodeError as exc:
                raise StreamError(f"not JSON: {data[:80]!r}") from exc
            if not isinstance(value, dict):
                raise StreamError("not a JSON object")
            if "error" in value:
                raise StreamError(f"error in the stream: {value['error']}")
            finish = _accumulate(value, text, calls) or finish
    if not done:
        raise StreamError("the stream ended before [DONE]")
    for call in calls.values():
        try:
            orjson.loads(call["arguments"] or "{}")
        except orjson.JSONDecodeError as exc:
            raise StreamError(f"tool arguments are not JSON: {call['arguments'][:80]!r}") from exc
    calls_out = tuple((c["name"], c["arguments"]) for _, c in sorted(calls.items()))
    return Outcome(True, "".join(text), calls_out, finish)


def _httpx_errors():
    import httpx

    return (StreamError, httpx.HTTPError)


# (its only "error" is a JSON parse error: which a rechunked, proven stream gives it)
NAIVE = Driver("toy-naive", ("openai-chat",), None, naive, lambda: (ValueError,), "every mistake")
CAREFUL = Driver("toy-careful", ("openai-chat",), None, careful, _httpx_errors, "correct")
