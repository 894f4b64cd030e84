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
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

import orjson

from ..terminal import escape_char, escape_controls
from .keys import MissingKey, resolve_key
from .providers import PROVIDER_SPECS, LiveRequest, RequestError, build_request
from .timeouts import DEFAULT_PROGRESS_TIMEOUT, DEFAULT_TRANSPORT_TIMEOUT

if TYPE_CHECKING:  # the feed brings httpx: imported when a feed is made, not for --help
    from .feed import LiveFeed

__all__ = [
    "DEFAULT_MAX_BYTES",
    "UsageError",
    "add_live_arguments",
    "check_base_url",
    "default_capture_path",
    "feed_from_args",
    "parse_header",
    "parse_size",
]


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


#: ``--max-bytes`` suffixes (binary: ``64M`` is 64 MiB).
_SIZE_UNITS: Final = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
                      "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
                      "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30}  # fmt: skip
_SIZE: Final = re.compile(r"([0-9]+)\s*([A-Za-z]*)", re.ASCII)
DEFAULT_MAX_BYTES: Final = 256 << 20


def parse_size(text: str) -> int:
    """``64M`` -> 67108864; ``0`` (no cap) and plain byte counts too. Binary units."""
    match = _SIZE.fullmatch(text.strip())
    unit = _SIZE_UNITS.get(match.group(2).lower()) if match else None
    if match is None or unit is None:
        raise argparse.ArgumentTypeError(
            f"expected a size such as 65536, 512K, 64M or 2G (0: no cap), got {text!r}"
        )
    return int(match.group(1)) * unit


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
        "--max-bytes",
        metavar="SIZE",
        type=parse_size,
        default=DEFAULT_MAX_BYTES,
        help="stop recording after SIZE bytes received, keeping them (K, M, G: KiB, MiB, GiB; "
        "0: no cap; default 256M)",
    )
    parser.add_argument(
        "--progress-timeout",
        metavar="S",
        type=_seconds,
        default=DEFAULT_PROGRESS_TIMEOUT,
        help="give up when nothing but pings/comments arrives for S seconds "
        "(0: never; default %(default)g)",
    )


_TOKEN: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
#: Field values: visible ASCII, spaces and tabs (RFC 9110; no CR, LF, NUL or
#: other controls, which would split or smuggle headers; no non-ASCII, which
#: HTTP clients encode differently).
_FIELD_VALUE: Final = re.compile(r"[\t\x20-\x7e]*")


def parse_header(text: str) -> tuple[str, str]:
    """``"Name: value"`` -> ``("Name", "value")``; anything HTTP cannot carry is refused."""
    name, sep, value = text.partition(":")
    shown = escape_controls(text)
    if not sep or not _TOKEN.fullmatch(name.strip()):
        raise UsageError(f"--header {shown!r}: expected NAME:VALUE (NAME: letters, digits, -)")
    if not _FIELD_VALUE.fullmatch(value):
        bad = next(c for c in value if not _FIELD_VALUE.fullmatch(c))
        raise UsageError(
            f"--header {escape_controls(name.strip())}: the value contains {escape_char(bad)}; "
            "only printable ASCII, spaces and tabs can be sent"
        )
    return name.strip(), value.strip()


def check_base_url(url: str) -> None:
    """Raise :class:`UsageError` unless ``url`` is an ``http(s)://host[:port][/path]`` URL."""
    shown = escape_controls(url)
    if not url or not _FIELD_VALUE.fullmatch(url) or any(c in url for c in " \t"):
        raise UsageError(
            f"--base-url {shown!r}: a URL cannot contain spaces, control or non-ASCII characters "
            "(percent-encode them)"
        )
    try:
        parts = urlsplit(url)
        hostname = parts.hostname
    except ValueError as exc:
        raise UsageError(f"--base-url {shown!r}: not a valid URL ({exc})") from None
    host_port = parts.netloc.rpartition("@")[2]
    port_text = host_port.rpartition("]")[2] if host_port.startswith("[") else host_port
    _, colon, port = port_text.partition(":")
    if colon and not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise UsageError(f"--base-url {shown!r}: expected a port from 1 to 65535 after the ':'")
    if parts.scheme.lower() not in ("http", "https"):
        raise UsageError(
            f"--base-url {shown!r}: is not an http:// or https:// URL (such as "
            "http://127.0.0.1:8765)"
        )
    if not hostname:
        raise UsageError(f"--base-url {shown!r}: no host name")
    if parts.fragment:
        raise UsageError(f"--base-url {shown!r}: a base URL has no #fragment")
    if "@" in parts.netloc:
        # An HTTP client would send them as Basic auth in place of the request's own.
        raise UsageError(
            f"--base-url {shown!r}: credentials in the URL are not allowed (they would replace "
            "the request's own authorization; send your own with --header)"
        )


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


def _aws_request(
    args: argparse.Namespace, env: Mapping[str, str], draft: LiveRequest
) -> tuple[str | None, LiveRequest]:
    """Bedrock's request authenticated: a Bedrock API key (bearer), else SigV4 (:mod:`.aws`).

    Returns the secret to keep out of everything written (the key, or the
    SigV4 secret key) and the request. Raises :class:`MissingKey` when there is
    neither and the server is not on loopback.
    """
    from .aws import BEARER_ENV, SigningUnavailable, credentials_from, region_from, sign_sigv4
    from .keys import is_loopback_url

    bearer = env.get(args.api_key_env or BEARER_ENV, "")
    if args.api_key_env and not bearer:
        raise MissingKey(f"--api-key-env {args.api_key_env}: the variable is not set")
    if bearer:
        # (an Authorization of the user's own, from --header, is sent as given)
        headers = {"authorization": f"Bearer {bearer}", **draft.headers}
        return bearer, replace(draft, headers=headers)
    credentials = credentials_from(env)
    if credentials is not None:
        try:
            return credentials.secret_key, sign_sigv4(draft, credentials, region_from(env))
        except SigningUnavailable as exc:
            raise MissingKey(str(exc)) from None
    if is_loopback_url(draft.url):
        return None, draft
    raise MissingKey(
        f"no credentials for {args.provider}: set {BEARER_ENV} (a Bedrock API key), or "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (SigV4, with botocore installed)"
    )


def feed_from_args(
    args: argparse.Namespace,
    environ: Mapping[str, str] | None = None,
    *,
    keep_history: bool = True,
) -> LiveFeed:
    """A ready :class:`LiveFeed` from the parsed options (raises :class:`UsageError`).

    ``keep_history=False`` for a feed no view shows (``record``): see :class:`LiveFeed`.
    """
    from .feed import LiveFeed, request_secret_set
    from .recorder import check_writable  # with the capture machinery: not for --help

    env = os.environ if environ is None else environ
    body = _read_json(args.request, "--request") if args.request is not None else None
    if body is not None and not isinstance(body, dict):
        raise UsageError(f"--request {args.request}: the body must be a JSON object")
    tools = _read_json(args.tools, "--tools") if args.tools is not None else None
    headers = [parse_header(h) for h in args.header]
    if args.base_url is not None:
        check_base_url(args.base_url)
    spec = PROVIDER_SPECS[args.provider]
    base_url = args.base_url
    try:
        if spec.signer == "aws" and base_url is None:
            from .aws import bedrock_base_url

            base_url = bedrock_base_url(env)

        def request_with(api_key: str | None = None) -> LiveRequest:
            return build_request(
                args.provider,
                model=args.model,
                prompt=args.prompt,
                body=body,
                tools=tools,
                base_url=base_url,
                headers=headers,
                api_key=api_key,
            )

        # Built once without the key to learn the URL, which decides whether a key is needed.
        draft = request_with()
        if spec.signer == "aws":
            key, request = _aws_request(args, env, draft)
        else:
            key = resolve_key(
                args.provider, spec.key_env, env, explicit_env=args.api_key_env, url=draft.url
            )
            request = request_with(api_key=key)
    except (RequestError, MissingKey, ValueError) as exc:
        raise UsageError(str(exc)) from None
    # A model that is a key (or a key's shape) never names a file.
    model = request_secret_set(request, key).clean(request.model or "")
    output = args.output or default_capture_path(request.provider, model)
    problem = check_writable(output)
    if problem is not None:
        raise UsageError(problem)
    return LiveFeed(
        request,
        capture=output,
        api_key=key,
        transport_timeout=args.transport_timeout,
        progress_timeout=args.progress_timeout,
        max_bytes=getattr(args, "max_bytes", DEFAULT_MAX_BYTES) or None,
        keep_history=keep_history,
    )
