"""The ``command:CMD`` driver: any program, in any language, against the loopback server.

The program gets ``INSPECTOR_BASE_URL`` (the base URL to which it appends its
provider's usual path, such as ``/v1/chat/completions``), ``INSPECTOR_PROVIDER``,
``INSPECTOR_MODEL`` (the model to send) and ``INSPECTOR_TIMEOUT`` (seconds) in
its environment, and prints one JSON line::

    {"ok": true, "text": "...", "tool_calls": [{"name": "...", "arguments": "..."}],
     "finish_reason": "stop", "error": null}

A program that prints no such line, or exits without one, has crashed; one
still running after the progress timeout plus the margin has hung.
"""

from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any, Final

import orjson

from .drivers import Driver, Hung, Outcome, Target

__all__ = ["command_driver", "parse_line"]

#: Bytes of a program's output kept (its last JSON line is read from them).
_MAX_OUTPUT: Final = 1 << 20
PROVIDERS: Final = ("openai-chat", "openai-responses", "anthropic", "gemini")


def parse_line(stdout: bytes, returncode: int) -> Outcome:
    """The outcome a program printed (its last non-empty line), or a crash saying why not."""
    lines = [line for line in stdout[-_MAX_OUTPUT:].splitlines() if line.strip()]
    if not lines:
        return Outcome(False, error=f"printed no JSON line (exit {returncode})", crashed=True)
    try:
        data: Any = orjson.loads(lines[-1])
        calls = tuple((str(c["name"]), str(c["arguments"])) for c in data.get("tool_calls") or [])
        ok = data["ok"]
        if not isinstance(ok, bool):
            raise TypeError("ok is not a boolean")
    except (orjson.JSONDecodeError, AttributeError, KeyError, TypeError) as exc:
        return Outcome(False, error=f"its last line is not the JSON outcome ({exc})", crashed=True)
    finish = data.get("finish_reason")
    error = data.get("error")
    return Outcome(
        ok,
        str(data.get("text") or ""),
        calls,
        None if finish is None else str(finish),
        None if error is None else str(error)[:500],
    )


#: Seconds a program may take to start (an interpreter, its imports) on top of the
#: progress timeout and the margin before it counts as hung.
STARTUP: Final = 5.0


def command_driver(command: str, margin: float = 2.0, startup: float = STARTUP) -> Driver:
    """A :class:`Driver` running ``command`` (split like a shell would, never run by one)."""
    argv = shlex.split(command)

    def run(target: Target) -> Outcome:
        env = dict(os.environ)
        env.update(
            INSPECTOR_BASE_URL=target.base_url,
            INSPECTOR_PROVIDER=target.provider,
            INSPECTOR_MODEL=target.model,
            INSPECTOR_TIMEOUT=f"{target.timeout:g}",
        )
        with subprocess.Popen(
            argv, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        ) as process:  # fmt: skip
            try:
                stdout, _ = process.communicate(timeout=target.timeout + margin + startup)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()
                raise Hung(command) from None
        return parse_line(stdout, process.returncode)

    return Driver(
        f"command:{command}", PROVIDERS, None, run, lambda: (), f"the program {command}",
        guardable=False, extra={"loopback": True, "startup": startup},
    )  # fmt: skip
