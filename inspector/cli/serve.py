"""``inspector serve PATH...``: play recordings as a real HTTP streaming endpoint."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..net.limits import SERVE_LIMITS
from ..terminal import escape_controls
from .common import EXIT_OK, EXIT_USAGE, at_least, error, port_number
from .front_options import add_front_arguments, limits_from_args

_speed = at_least(float, 0, "a speed")


def register(sub: Any) -> None:
    """Add the ``serve`` subcommand."""
    parser = sub.add_parser(
        "serve",
        help="serve captures as provider streaming endpoints, with faults on demand",
        description=(
            "Serve captures and raw SSE files (directories are searched like `inspector "
            "check`) on the providers' streaming paths, each in its own framing (SSE, NDJSON, "
            "AWS event stream, JSON array). A request's model (or ?capture=NAME) picks the "
            "capture by file name; GET / lists them. Faults per request: query parameters or "
            "an X-Inspector-Fault header (cut, drop, reset, corrupt, stall, stall_at, "
            "ping_every, chunk, status, retry_after, speed; places as bytes or frame:K): see "
            "docs/live.md."
        ),
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default %(default)s)")
    parser.add_argument(
        "--port",
        type=port_number,
        default=8765,
        help="port (0: any free port; default %(default)s)",
    )
    parser.add_argument(
        "--speed",
        type=_speed,
        default=1.0,
        help="replay speed: 2 is twice as fast, 0 sends without delays (default %(default)g)",
    )
    add_front_arguments(parser, SERVE_LIMITS)
    parser.set_defaults(func=run)


def _log(line: str) -> None:
    # Request paths, models, user agents and file names are attacker-controlled.
    print(f"inspector serve: {escape_controls(line)}", file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Serve until Ctrl+C; exit 2 when there is nothing to serve or the port is taken."""
    from ..live.keys import is_loopback_url
    from ..serve.catalog import ENDPOINTS, load_catalog
    from ..serve.runner import ReplayServer

    catalog = load_catalog(args.paths)
    for reason in catalog.skipped:
        _log(f"skipped {reason}")
    if not len(catalog):
        where = " ".join(escape_controls(p) for p in args.paths)
        error("nothing to serve: no readable capture or SSE file in " + where)
        return EXIT_USAGE
    host = escape_controls(args.host)
    try:
        server = ReplayServer(
            catalog,
            host=args.host,
            port=args.port,
            speed=args.speed,
            log=_log,
            limits=limits_from_args(args, SERVE_LIMITS),
        )
    except (OSError, ValueError, UnicodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        error(f"cannot listen on {host}:{args.port}: {escape_controls(why)}")
        return EXIT_USAGE
    if not is_loopback_url(f"http://[{args.host}]" if ":" in args.host else f"http://{args.host}"):
        _log(f"warning: listening on {args.host}, reachable from other machines")
    print(f"serving {len(catalog)} streams on {server.url} (speed {args.speed:g})", flush=True)
    for provider, entries in sorted(catalog.by_provider.items()):
        names = escape_controls(", ".join(sorted(entries)))
        print(f"  POST {ENDPOINTS[provider]}  {provider}: {names}", flush=True)
    server.run()
    return EXIT_OK
