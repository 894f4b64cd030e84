"""Work on request bodies done off the event loop, a few at a time.

Parsing a wide JSON body (millions of small values) takes seconds; on the
event loop that would stall every other client. :func:`off_loop` runs such
work in a worker thread, at most :data:`WORKERS` at once so a flood of
large requests queues instead of taking every core, and :func:`parse_json`
parses only bodies within the front's ``max_json``.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any, Final, TypeVar

import anyio
import anyio.to_thread
import orjson

__all__ = ["WORKERS", "JsonTooLarge", "off_loop", "parse_json"]

#: Worker threads parsing or walking request bodies at once (per process).
WORKERS: Final = 2
#: One limiter per event loop (each server thread runs its own loop).
_limiters: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, anyio.CapacityLimiter] = (
    weakref.WeakKeyDictionary()
)

T = TypeVar("T")
#: Bodies shorter than this are parsed at once: a thread would cost more than parsing.
_INLINE: Final = 2048


class JsonTooLarge(ValueError):
    """A body over the JSON budget: not parsed."""


def _capacity() -> anyio.CapacityLimiter:
    loop = asyncio.get_running_loop()
    limiter = _limiters.get(loop)
    if limiter is None:
        limiter = _limiters[loop] = anyio.CapacityLimiter(WORKERS)
    return limiter


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """``function(*args)`` in a worker thread (at most :data:`WORKERS` at once)."""
    return await anyio.to_thread.run_sync(function, *args, limiter=_capacity())


async def parse_json(raw: bytes, budget: int) -> Any:
    """``raw`` parsed as JSON in a worker thread; :class:`JsonTooLarge` over ``budget`` bytes.

    Raises :class:`orjson.JSONDecodeError` for text that is not JSON (orjson
    also refuses nesting deeper than 1024 levels that way, without recursion).
    """
    if len(raw) > budget:
        raise JsonTooLarge(f"the request body is over {budget} bytes, the most parsed as JSON")
    if len(raw) < _INLINE:
        return orjson.loads(raw)
    return await off_loop(orjson.loads, raw)
