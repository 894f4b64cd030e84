"""The options ``inspector live`` and ``inspector record`` share, and turning them into a feed.

Everything a user can get wrong before a byte is sent — a missing key, an
unreadable request file, a malformed ``--header``, an unwritable capture path
— becomes a :class:`UsageError` with a message naming the problem, so the
commands exit 2 without touching the network.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from .feed import DEFAULT_PROGRESS_TIMEOUT, DEFAULT_TRANSPORT_TIMEOUT, LiveFeed
from .providers import PROVIDER_SPECS, RequestError, build_request
from .recorder import check_writable
from .secrets import MissingKey, resolve_key

__all__ = ["UsageError", "add_live_arguments", "default_capture_path", "feed_from_args"]


class UsageError(ValueError):
    """The command line cannot make a request; the message says why."""


def _seconds(text: str, *, allow_zero: bool = True) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if value < 0 or (value == 0 and not allow_zero) or value != value:
        bound = ">= 0" if allow_zero else "> 0"
        raise argparse.ArgumentTypeError(f"expected seconds {bound}, got {text!r}")
    return value


def _positive_seconds(text: str) -> float:
    return _seconds(text, allow_zero=False)


def add_live_arguments(parser: argparse.ArgumentParser) -> None:
    """The request options of ``live`` and ``record``."""
    parser.add_argument(
        "--provider",
        required=True,
        choices=tuple(PROVIDER_SPECS),
        help="the provider's streaming protocol",
    )
    parser.add_argument("--model", help="the model (optional when --request names one)")
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--prompt", metavar="TEXT", help="send one user message")
    what.add_argument(
        "--request",
        metavar="FILE.json",
        type=Path,
        help="send this JSON request body (model and stream flag are set on it)",
    )
    parser.add_argument(
        "--tools",
        metavar="FILE.json",
        type=Path,
        help="a JSON list of tools: {name, description, parameters} entries are "
        "converted for the provider, others are passed as they are",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="another server: an OpenAI-compatible one, a proxy, or "
        "`inspector serve` (default: the provider's API)",
    )
    parser.add_argument(
        "--header",
        metavar="K:V",
        action="append",
        default=[],
        help="an extra request header (repeatable)",
    )
    parser.add_argument(
        "--api-key-env",
        metavar="NAME",
        help="read the key from this environment variable instead of the provider's usual one",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="CAPTURE.jsonl",
        type=Path,
        help="where to record (default: <provider>-<model>-<time>.jsonl here)",
    )
    parser.add_argument(
        "--transport-timeout",
        metavar="S",
        type=_positive_seconds,
        default=DEFAULT_TRANSPORT_TIMEOUT,
        help="give up when no byte arrives for S seconds (connect and read; default %(default)g)",
    )
    parser.add_argument(
        "--progress-timeout",
        metavar="S",
        type=_seconds,
        default=DEFAULT_PROGRESS_TIMEOUT,
        help="give up when nothing but pings/comments arrives for S seconds "
        "(0: never; default %(default)g)",
    )


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` -> ``("Name", "value")``."""
    name, sep, value = text.partition(":")
    if (
        not sep
        or not name.strip()
        or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name.strip())
    ):
        raise UsageError(f"--header {text!r}: expected NAME:VALUE")
    return name.strip(), value.strip()


def _read_json(path: Path, what: str) -> Any:
    try:
        return orjson.loads(path.read_bytes())
    except OSError as exc:
        raise UsageError(f"{what} {path}: cannot read ({exc.strerror or exc})") from None
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"{what} {path}: not valid JSON ({exc})") from None


def default_capture_path(provider: str, model: str, now: datetime | None = None) -> Path:
    """``<provider>-<model>-<UTC time>.jsonl`` in the current directory."""
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    safe_model = re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"
    return Path(f"{provider}-{safe_model}-{stamp}.jsonl")


def feed_from_args(args: argparse.Namespace, environ: Mapping[str, str] | None = None) -> LiveFeed:
    """A ready :class:`LiveFeed` from the parsed options (raises :class:`UsageError`)."""
    env = os.environ if environ is None else environ
    body = _read_json(args.request, "--request") if args.request is not None else None
    if body is not None and not isinstance(body, dict):
        raise UsageError(f"--request {args.request}: the body must be a JSON object")
    tools = _read_json(args.tools, "--tools") if args.tools is not None else None
    headers = [parse_header(h) for h in args.header]
    try:
        # Built once without the key to learn the URL, which decides whether a key is needed.
        draft = build_request(
            args.provider,
            model=args.model,
            prompt=args.prompt,
            body=body,
            tools=tools,
            base_url=args.base_url,
            headers=headers,
        )
        key = resolve_key(
            args.provider,
            PROVIDER_SPECS[args.provider].key_env,
            env,
            explicit_env=args.api_key_env,
            url=draft.url,
        )
        request = build_request(
            args.provider,
            model=args.model,
            prompt=args.prompt,
            body=body,
            tools=tools,
            base_url=args.base_url,
            headers=headers,
            api_key=key,
        )
    except (RequestError, MissingKey) as exc:
        raise UsageError(str(exc)) from None
    output = args.output or default_capture_path(request.provider, request.model)
    problem = check_writable(output)
    if problem is not None:
        raise UsageError(problem)
    return LiveFeed(
        request,
        capture=output,
        api_key=key,
        transport_timeout=args.transport_timeout,
        progress_timeout=args.progress_timeout,
    )
