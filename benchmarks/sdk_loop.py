"""The baseline of the process benchmark: the openai SDK's decode + JSON loop on a file.

    python benchmarks/sdk_loop.py FILE

What a script using the openai SDK does with the same bytes, and nothing
more: ``openai._streaming.SSEDecoder().iter_bytes(...)`` over the file's
bytes and ``sse.json()`` (``json.loads``) for every event with data, as
``Stream.__stream__`` does before building response models. A raw SSE file
is read in 64 KiB pieces; a capture (``.jsonl``) is read line by line and
each chunk record's bytes go to the decoder as they were received. Prints
the number of events. Standalone on purpose: it imports nothing of the
inspector, so its start-up is the SDK's own.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Iterator

from openai._streaming import SSEDecoder

READ_SIZE = 64 * 1024


def raw_chunks(path: str) -> Iterator[bytes]:
    """A raw SSE file in ``READ_SIZE`` pieces."""
    with open(path, "rb") as file:
        while piece := file.read(READ_SIZE):
            yield piece


def capture_chunks(path: str) -> Iterator[bytes]:
    """The received chunks of a capture, in order."""
    with open(path, "rb") as file:
        for line in file:
            record = json.loads(line)
            if record.get("type") != "chunk":
                continue
            text = record.get("text")
            yield text.encode("utf-8") if text is not None else base64.b64decode(record["b64"])


def main(path: str) -> int:
    """Decode every event and parse its data; the number of events."""
    with open(path, "rb") as file:
        capture = file.read(1) == b"{"
    count = 0
    for sse in SSEDecoder().iter_bytes(capture_chunks(path) if capture else raw_chunks(path)):
        count += 1
        if sse.data and not sse.data.startswith("[DONE]"):
            sse.json()
    return count


if __name__ == "__main__":
    print(main(sys.argv[1]))
