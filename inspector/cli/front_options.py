"""The front's limits as command-line options, shared by ``serve`` and ``proxy``.

One option per row of :data:`inspector.net.limits.FRONT_OPTIONS`, each showing
its server's default in the help.
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import Any

from ..net.limits import FRONT_OPTIONS, KIB, MIB, FrontLimits
from .common import positive_size

__all__ = ["add_front_arguments", "limits_from_args"]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 86400:
        raise argparse.ArgumentTypeError(f"expected seconds above 0, got {text!r}")
    return value


def _count(text: str) -> int:
    if not (text.isascii() and text.isdigit()) or int(text) == 0:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, got {text!r}")
    return int(text)


def _shown(kind: str, value: float) -> str:
    if kind == "size":
        for unit, size in (("M", MIB), ("K", KIB)):
            if value >= size and not value % size:
                return f"{int(value // size)}{unit}"
    return f"{value:g}"


def add_front_arguments(parser: argparse.ArgumentParser, defaults: FrontLimits) -> None:
    """Add one option per limit to ``parser``, with ``defaults`` shown in the help."""
    kinds: dict[str, Any] = {"seconds": _seconds, "count": _count, "size": positive_size}
    metavars = {"seconds": "S", "count": "N", "size": "SIZE"}
    group = parser.add_argument_group("limits on clients (see docs/security.md)")
    for name, (option, kind, text) in FRONT_OPTIONS.items():
        default = getattr(defaults, name)
        group.add_argument(
            option,
            dest=f"front_{name}",
            type=kinds[kind],
            default=None,
            metavar=metavars[kind],
            help=f"{text} (default {_shown(kind, default)})",
        )


def limits_from_args(args: argparse.Namespace, defaults: FrontLimits) -> FrontLimits:
    """The limits the options asked for, the rest from ``defaults``."""
    given = {
        name: getattr(args, f"front_{name}")
        for name in FRONT_OPTIONS
        if getattr(args, f"front_{name}", None) is not None
    }
    return replace(defaults, **given)
