"""``inspector proxy``: a recording reverse proxy in front of the providers' APIs."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..net.limits import PROXY_LIMITS
from ..terminal import escape_controls, safe_path
from .common import EXIT_OK, EXIT_USAGE, error, port_number, positive_size
from .front_options import add_front_arguments, limits_from_args

DEFAULT_PORT = 8790
DEFAULT_DIRECTORY = "proxy-captures"


def register(sub: Any) -> None:
    """Add the ``proxy`` subcommand."""
    parser = sub.add_parser(
        "proxy",
        help="a recording reverse proxy: point an app's base URL at it, see and record its streams",
        description=(
            "Listen on loopback and forward every request to the provider its path belongs "
            "to (/v1/chat/completions and /v1/responses: api.openai.com; /v1/messages: "
            "api.anthropic.com; /v1beta/models/...:streamGenerateContent: "
            "generativelanguage.googleapis.com; /v1/completions: api.openai.com; "
            "/model/{id}/converse-stream and /invoke-with-response-stream: Bedrock in "
            "AWS_REGION; /api/chat and /api/generate: Ollama on 127.0.0.1:11434; /v2/chat: "
            "api.cohere.com), or to --upstream. Responses come back byte for byte as they "
            "arrive. Each streaming exchange on those endpoints (SSE, NDJSON, the AWS event "
            "stream, or an error status) is recorded as a capture in the output "
            "directory, with every credential the request carried scrubbed from it; "
            "non-streaming responses and other paths are forwarded unchanged and not "
            "recorded. Without --headless the TUI lists the exchanges as they happen. "
            "See docs/proxy.md."
        ),
    )
    parser.add_argument(
        "-o",
        "--output",
        default=DEFAULT_DIRECTORY,
        metavar="DIR",
        help="where captures go; created if missing (default %(default)s)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default %(default)s; another one is reachable from "
        "other machines: only with this option, and with a warning)",
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=DEFAULT_PORT,
        help="port (0: any free port; default %(default)s)",
    )
    parser.add_argument(
        "--upstream",
        metavar="URL",
        help="send every request to this server instead (a compatible server, "
        "`inspector serve`); the request's path is appended to the URL's",
    )
    parser.add_argument(
        "--headless",
        action="store_true",
        help="no TUI: print one line per exchange when it ends",
    )
    parser.add_argument(
        "--max-record",
        type=positive_size,
        default=None,
        metavar="SIZE",
        help="record at most SIZE of each response body (the app still gets all of it; "
        "the capture says where it was cut; default 256M)",
    )
    parser.add_argument(
        "--max-ratio",
        type=_ratio,
        default=None,
        metavar="N",
        help="stop a body the upstream compressed anyway once it decodes to more than N "
        "times its compressed size (default 100)",
    )
    add_front_arguments(parser, PROXY_LIMITS)
    parser.set_defaults(func=run)


def _ratio(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) < 2:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 2, got {text!r}")
    return int(text)


def _check_upstream(url: str) -> str | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"--upstream {escape_controls(url)}: expected an http:// or https:// URL"
    try:
        parts.port  # noqa: B018 - raises for a port that is not a number in range
    except ValueError as exc:
        return f"--upstream {escape_controls(url)}: {escape_controls(exc)}"
    if parts.query or parts.fragment:
        return f"--upstream {escape_controls(url)}: a query or fragment is not allowed"
    if "@" in parts.netloc:
        return f"--upstream {escape_controls(url)}: credentials in the URL are not allowed"
    return None


def _prepare_directory(directory: Path) -> str | None:
    """Create the output directory; why it cannot be written to, or None."""
    from ..export.output import UnsafeOutput, check_output_dir

    try:
        check_output_dir(directory)  # another user's symlink on the way: refused, as export does
    except UnsafeOutput as exc:
        return str(exc)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"{safe_path(directory)}: cannot create ({exc.strerror or exc})"
    if not os.access(directory, os.W_OK):
        return f"{safe_path(directory)}: not writable"
    return None


def _say(line: str) -> None:
    print(f"inspector proxy: {line}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Proxy until Ctrl+C (headless) or q (TUI); exit 2 for bad options or a taken port."""
    if args.upstream is not None and (problem := _check_upstream(args.upstream)):
        error(problem)
        return EXIT_USAGE
    # The TUI's keys, checked before anything is created: a bad keymap file exits 2 as `open` does.
    from .open import parse_keymap

    keymap = None if args.headless else parse_keymap([])
    if keymap is None and not args.headless:
        return EXIT_USAGE
    directory = Path(args.output)
    if problem := _prepare_directory(directory):
        error(problem)
        return EXIT_USAGE
    # The server stack loads only now: `inspector --help` stays quick.
    from ..live.keys import is_loopback_url
    from ..proxy import FlowLog, ProxyServer, ProxySettings, flow_line
    from ..proxy.app import DEFAULT_MAX_RATIO, DEFAULT_MAX_RECORD
    from ..proxy.routes import recipe
    from ..redact import redact_url

    settings = ProxySettings(
        listen_host=args.host,
        upstream=args.upstream.rstrip("/") if args.upstream else None,
        limits=limits_from_args(args, PROXY_LIMITS),
        max_record=args.max_record or DEFAULT_MAX_RECORD,
        max_ratio=args.max_ratio or DEFAULT_MAX_RATIO,
    )
    log = FlowLog(directory)
    try:
        server = ProxyServer(
            log,
            settings,
            port=args.port,
            handle_signals=args.headless,
            terminal_owned=not args.headless,
        )
    except OSError as exc:
        error(f"cannot listen on {escape_controls(args.host)}:{args.port}: {exc.strerror or exc}")
        return EXIT_USAGE
    shown = f"[{args.host}]" if ":" in args.host else args.host
    if not is_loopback_url(f"http://{shown}"):
        _say(f"warning: listening on {escape_controls(args.host)}, reachable from other machines")
    shown_upstream = redact_url(settings.upstream) if settings.upstream else None
    upstream = escape_controls(shown_upstream) if shown_upstream else "each provider's API"
    if not args.headless:
        from ..tui.screens.flows import ProxyApp  # Textual loads only for the TUI

        ProxyApp(server, upstream=upstream, keymap=keymap).run()
        _say(f"{log.count} exchanges; captures in {safe_path(directory)}")
        return EXIT_OK
    print(f"proxying {server.url} -> {upstream}; recording to {safe_path(directory)}", flush=True)
    for line in recipe(server.url):
        print("  " + line, flush=True)

    def print_finished(flow: Any) -> None:
        if not flow.live:
            print(flow_line(flow), flush=True)

    log.watch(print_finished)
    import asyncio
    import signal

    # uvicorn stops gracefully on SIGINT and SIGTERM, then raises the signal
    # again: SIGTERM then ends like Ctrl+C (130, after the captures are closed).
    # SIGHUP (the terminal went away) is handled as SIGTERM, not left to kill us.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    if hasattr(signal, "SIGHUP"):
        signal.signal(
            signal.SIGHUP, lambda _sig, frame: server.server.handle_exit(signal.SIGTERM, frame)
        )
    asyncio.run(server.serve())
    if server.server.should_exit:
        # Only a signal stops a headless proxy. uvicorn raises it again once
        # it has closed, but asyncio.run swallows it when it lands after the
        # serving task has finished: say "interrupted" (130) either way.
        raise KeyboardInterrupt
    return EXIT_OK
