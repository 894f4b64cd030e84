"""Request bodies, read against three limits: per request, per deadline, for everyone.

A body is refused before it is held: ``Content-Length`` is checked first, a
chunked body is counted as it arrives. Every byte held is also reserved
from a :class:`BodyBudget` shared by all connections, so 256 clients
sending 32 MiB each cannot make the server hold 8 GiB: past the budget a
request is answered 503 (try again) instead. The reservation lasts until
the caller is done with the body (:func:`read_body` is a context manager).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Final

from starlette.requests import Request

from .limits import FrontLimits

__all__ = ["BodyBudget", "BodyRefused", "read_body"]

#: Seconds a client refused for the shared budget is told to wait (``Retry-After``).
RETRY_AFTER: Final = 1


class BodyRefused(Exception):
    """A request body not taken: ``status`` (413, 408, 503) and a message saying why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class BodyBudget:
    """Request-body bytes held at once across every connection, at most ``total``."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.held = 0

    def reserve(self, count: int) -> bool:
        """Take ``count`` more bytes, or (over the budget) take nothing and say False."""
        if self.held + count > self.total:
            return False
        self.held += count
        return True

    def release(self, count: int) -> None:
        """Give back ``count`` bytes."""
        self.held = max(0, self.held - count)


def _declared(request: Request) -> int | None:
    value = request.headers.get("content-length")
    if value is not None and value.isascii() and value.isdigit():
        return int(value)
    return None


def _too_large(limit: int) -> BodyRefused:
    return BodyRefused(413, f"the request body is larger than {limit} bytes")


def _busy(budget: BodyBudget) -> BodyRefused:
    return BodyRefused(
        503,
        f"the server holds {budget.total} bytes of request bodies at most, over every "
        f"connection, and is at that limit; retry in {RETRY_AFTER} s",
    )


@contextlib.asynccontextmanager
async def read_body(
    request: Request, limits: FrontLimits, budget: BodyBudget
) -> AsyncIterator[bytes]:
    """The whole body, held within ``limits`` and ``budget`` until the block ends.

    Raises :class:`BodyRefused` (413 over ``max_body``, 408 after
    ``body_timeout``, 503 over the shared budget). The body is also left in
    the request (``await request.body()`` gives it).
    """
    declared = _declared(request)
    if declared is not None and declared > limits.max_body:
        raise _too_large(limits.max_body)
    held = 0
    parts: list[bytes] = []
    try:
        try:
            async with asyncio.timeout(limits.body_timeout):
                async for part in request.stream():
                    if held + len(part) > limits.max_body:
                        raise _too_large(limits.max_body)
                    if not budget.reserve(len(part)):
                        raise _busy(budget)
                    held += len(part)
                    parts.append(part)
        except TimeoutError:
            raise BodyRefused(
                408, f"the request body took longer than {limits.body_timeout:g} s"
            ) from None
        body = b"".join(parts)
        parts.clear()
        request._body = body
        yield body
    finally:
        budget.release(held)
