"""Write the golden ``.events.jsonl`` beside each capture in ``captures/``.

Usage: python scripts/update_goldens.py [PATH ...]   (default: all of captures/)

A golden file is exactly what ``inspector events`` prints for its capture.
Review the diff before committing: a golden that changed is a contract change
or a bug.
"""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from inspector.library import expand_paths
from inspector.session import load_trace

ROOT = Path(__file__).resolve().parent.parent


def golden_path(capture: Path) -> Path:
    """``x.jsonl`` / ``x.sse`` -> ``x.events.jsonl``."""
    return capture.with_name(capture.name.rsplit(".", 1)[0] + ".events.jsonl")


def main(argv: list[str]) -> int:
    paths = expand_paths(argv or [str(ROOT / "captures")])
    for path in paths:
        trace = load_trace(path)
        body = b"".join(orjson.dumps(e) + b"\n" for e in trace.events)
        target = golden_path(path)
        old = target.read_bytes() if target.exists() else None
        if old != body:
            target.write_bytes(body)
            print(f"{'updated' if old else 'created'} {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
