"""What one harness run serves: a capture's bytes, cut into pieces, and how the response ends.

A :class:`Scenario` is data only. The in-process transport
(:mod:`.transport`) and the loopback router (:mod:`.loopback`) both play it;
the oracle (:mod:`.oracle`) judges it; the shrinker (:mod:`.shrink`) makes
smaller ones from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from ..capture import Recording
from ..core.normalizer import Normalizer, stream_id_for
from ..core.trace import Trace, TransportEnd
from ..serve.catalog import stream_name
from ..session import guess_provider

__all__ = ["ENDINGS", "Base", "Scenario", "base_of", "trace_of"]

#: How a response ends after its last piece -> the transport end the oracle is told.
ENDINGS: Final[dict[str, str]] = {
    "eof": "eof",  # the HTTP body ends normally
    "reset": "reset",  # the connection is reset (TCP RST)
    "stall": "timeout",  # silence until the client gives up (or the harness does)
}


@dataclass(frozen=True, slots=True)
class Scenario:
    """One response to play: ``pieces`` in order, then ``ending`` (a key of :data:`ENDINGS`)."""

    capture: str
    mutation: str
    provider: str
    model: str
    pieces: tuple[bytes, ...]
    ending: str = "eof"
    status: int = 200
    headers: tuple[tuple[str, str], ...] = (("content-type", "text/event-stream"),)

    @property
    def body(self) -> bytes:
        """Every byte served, joined."""
        return b"".join(self.pieces)

    def with_pieces(self, pieces: tuple[bytes, ...]) -> Scenario:
        """The same scenario serving other bytes (the shrinker's candidates)."""
        return replace(self, pieces=tuple(p for p in pieces if p))

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready description (bytes as Latin-1 would lose nothing, but are shown as text)."""
        return {
            "capture": self.capture,
            "mutation": self.mutation,
            "provider": self.provider,
            "model": self.model,
            "ending": self.ending,
            "status": self.status,
            "pieces": len(self.pieces),
            "bytes": sum(len(p) for p in self.pieces),
        }


@dataclass(frozen=True)
class Base:
    """A capture as the mutations see it: its bytes, their frames, and the oracle's trace."""

    name: str
    provider: str
    model: str
    chunks: tuple[bytes, ...]
    ending: str
    status: int
    headers: tuple[tuple[str, str], ...]
    trace: Trace = field(repr=False)

    @property
    def body(self) -> bytes:
        """Every recorded byte, joined."""
        return b"".join(self.chunks)

    def scenario(
        self, mutation: str, pieces: tuple[bytes, ...], ending: str | None = None
    ) -> Scenario:
        """A scenario of this capture's status and headers serving ``pieces``."""
        return Scenario(
            capture=self.name,
            mutation=mutation,
            provider=self.provider,
            model=self.model,
            pieces=tuple(p for p in pieces if p),
            ending=self.ending if ending is None else ending,
            status=self.status,
            headers=self.headers,
        )


_MODEL: Final = re.compile(r"[A-Za-z0-9._:@-]{1,100}")
#: Recorded response headers a replay keeps (the rest describe the recorded connection).
_KEPT_HEADERS: Final = frozenset({"content-type", "x-request-id", "request-id", "openai-model"})


def _headers(rec: Recording, status: int) -> tuple[tuple[str, str], ...]:
    response = (rec.header or {}).get("response")
    recorded = response.get("headers") if isinstance(response, dict) else None
    kept = {
        str(k).lower(): str(v)
        for k, v in (recorded.items() if isinstance(recorded, dict) else [])
        if str(k).lower() in _KEPT_HEADERS
    }
    kept.setdefault("content-type", "text/event-stream" if status < 400 else "application/json")
    return tuple(sorted(kept.items()))


def _is_sse(rec: Recording) -> bool:
    """Whether the recording is an event stream (the mutations and drivers speak SSE; an
    AWS event stream or NDJSON recorded under a provider's name is not one)."""
    status = rec.status or 200
    response = (rec.header or {}).get("response")
    headers = response.get("headers") if isinstance(response, dict) else None
    kind = {str(k).lower(): str(v) for k, v in (headers or {}).items()}.get("content-type")
    return status >= 400 or kind is None or "event-stream" in kind


def base_of(rec: Recording, path: Path | str | None = None) -> Base | None:
    """The :class:`Base` of a readable recording, or None when its provider is unknown or
    it is not an event stream."""
    provider = guess_provider(rec)
    if provider is None or not rec.chunks or not _is_sse(rec):
        return None
    header = rec.header or {}
    model = header.get("model")
    # The model goes into URLs and a command's environment: a plain token or a stand-in.
    if not (isinstance(model, str) and _MODEL.fullmatch(model)):
        model = "harness-model"
    name = stream_name(Path(path if path is not None else rec.path))
    status = rec.status or 200
    ending = "reset" if rec.end is not None and rec.end.reason == "reset" else "eof"
    chunks = tuple(d for _, d in rec.chunks if d)
    trace = trace_of(provider, chunks, ending, status)
    return Base(name, provider, model, chunks, ending, status, _headers(rec, status), trace)


def trace_of(provider: str, pieces: Iterable[bytes], ending: str, status: int = 200) -> Trace:
    """The normalizer's trace of ``pieces`` served with ``status`` and ended by ``ending``."""
    pieces = tuple(pieces)
    normalizer = Normalizer(provider, stream_id_for(*pieces))
    if status >= 400:
        for piece in pieces:
            normalizer.receive_error_body(piece)
        return normalizer.fail_http(status)
    normalizer.feed_many((0.0, piece) for piece in pieces)
    return normalizer.finish(TransportEnd(ENDINGS[ending]))
