"""Servers the benchmarks start as processes of their own: ``serve``, ``proxy``, a relay."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

__all__ = ["started"]


@contextmanager
def started(
    command: list[str],
    log: Path,
    *,
    ready: str = "",
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Start a server (output to ``log``); yield it and the URL its first line names.

    The first line must start with ``ready``. The server is stopped as a user
    stops it, with Ctrl+C, and killed if it has not exited 30 s later.
    """
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    try:
        for _ in range(3000):
            text = log.read_text(errors="replace")
            if text.startswith(ready) and "\n" in text:
                yield process, next(w for w in text.split() if w.startswith("http://"))
                return
            if process.poll() is not None:
                raise RuntimeError(f"{' '.join(command[:4])} exited: {text}")
            time.sleep(0.01)
        raise RuntimeError(f"{' '.join(command[:4])} did not start")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
