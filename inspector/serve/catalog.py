"""What the replay server serves: recordings by provider endpoint and name.

Paths are files or directories; directories are searched the way ``inspector
check`` searches them (``.sse``, ``.jsonl``, ``.txt``, but not golden
``*.events.jsonl``). Each recording is served on its provider's endpoint
(its *service*, :mod:`.services`) under its file name without the extension,
which a request picks with its ``model``. The provider comes from the capture
header, else from the frames; the framing likewise (:func:`~inspector.session.framing_of`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..capture import Recording, load_recording
from ..library import expand_paths
from ..session import framing_of, guess_provider
from .services import SERVICES, service_of

__all__ = ["ENDPOINTS", "Catalog", "Entry", "load_catalog", "replay_problem", "stream_name"]

#: service -> the path it streams on (Gemini's and Bedrock's carry the model in the path).
ENDPOINTS: Final[dict[str, str]] = {name: service.path for name, service in SERVICES.items()}


def stream_name(path: Path) -> str:
    """The name a request's ``model`` uses: the file name without its extension."""
    return path.name.rsplit(".", 1)[0] if "." in path.name else path.name


@dataclass(frozen=True, slots=True)
class Entry:
    """One servable recording."""

    name: str
    #: The service (:data:`~.services.SERVICES`) it is served by: mostly its provider's name.
    provider: str
    path: Path
    recording: Recording
    #: How its body is framed (``sse``, ``ndjson``, ``aws-eventstream``, ``json-array``).
    framing: str = "sse"

    def summary(self) -> dict[str, Any]:
        """What ``GET /`` shows for it."""
        rec = self.recording
        return {
            "path": str(self.path),
            "status": rec.status or 200,
            "chunks": len(rec.chunks),
            "bytes": sum(len(d) for _, d in rec.chunks),
            "duration": round(rec.chunks[-1][0], 3) if rec.chunks else 0.0,
            "end": rec.end.reason if rec.end is not None else None,
            "framing": self.framing,
        }


@dataclass
class Catalog:
    """Recordings by provider, then by name; and what was skipped, with why."""

    by_provider: dict[str, dict[str, Entry]] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return sum(len(entries) for entries in self.by_provider.values())

    def add(self, entry: Entry) -> None:
        """Register ``entry``; the first file of a name wins."""
        entries = self.by_provider.setdefault(entry.provider, {})
        if entry.name in entries:
            self.skipped.append(
                f"{entry.path}: the name {entry.name!r} is already served by "
                f"{entries[entry.name].path}"
            )
            return
        entries[entry.name] = entry

    def find(self, provider: str, model: str | None) -> Entry | None:
        """The recording for ``model`` on ``provider``'s endpoint.

        When the endpoint serves a single recording, that one plays whatever
        the model.
        """
        entries = self.by_provider.get(provider, {})
        if model is not None and model in entries:
            return entries[model]
        if len(entries) == 1:
            return next(iter(entries.values()))
        return None

    def names(self, provider: str) -> list[str]:
        """Every name served on ``provider``'s endpoint, sorted."""
        return sorted(self.by_provider.get(provider, {}))


#: RFC 9110 token (a header name) and field value (visible ASCII, space, tab,
#: Latin-1 letters; no CR, LF, NUL or other controls: those would split headers).
_TOKEN: Final = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_FIELD_VALUE: Final = re.compile(r"[\t\x20-\x7e\xa0-\xff]*")
MAX_REPLAYED_HEADERS: Final = 100
#: Statuses whose response has no body by definition (RFC 9110 §6.4.1).
_BODILESS: Final = frozenset({204, 304})
MAX_HEADER_VALUE: Final = 8192


def _header_problem(name: object, value: object) -> str | None:
    if not isinstance(name, str) or not _TOKEN.fullmatch(name):
        return f"the recorded response header name {name!r} is not a valid HTTP header name"
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return f"the recorded response header {name} has a {type(value).__name__} value"
    text = str(value)
    if len(text) > MAX_HEADER_VALUE:
        return f"the recorded response header {name} is longer than {MAX_HEADER_VALUE} characters"
    if not _FIELD_VALUE.fullmatch(text):
        return (
            f"the recorded response header {name} has a value with characters HTTP cannot "
            f"carry (CR, LF, NUL, controls): {text[:80]!r}"
        )
    return None


def replay_problem(rec: Recording) -> str | None:
    """Why ``rec`` cannot be replayed as recorded, or None.

    A capture is a file anyone may hand over: its recorded status and headers
    are checked here, once, so a crafted one is refused at load with a clear
    reason instead of splitting headers or failing every request later.
    """
    response = (rec.header or {}).get("response")
    if response is None:
        return None
    if not isinstance(response, dict):
        return "the header's 'response' is not an object"
    status = response.get("status")
    if status is not None and (
        isinstance(status, bool) or not isinstance(status, int) or not 100 <= status <= 599
    ):
        return f"the recorded status {status!r} is not an HTTP status from 200 to 599"
    if status in _BODILESS or (isinstance(status, int) and status < 200):
        return (
            f"the recorded status {status} cannot carry a body in HTTP "
            "(1xx, 204 and 304 never do), so the stream cannot be replayed"
        )
    headers = response.get("headers")
    if headers is None:
        return None
    if not isinstance(headers, dict):
        return "the recorded response headers are not an object"
    if len(headers) > MAX_REPLAYED_HEADERS:
        return f"more than {MAX_REPLAYED_HEADERS} recorded response headers"
    for name, value in headers.items():
        problem = _header_problem(name, value)
        if problem is not None:
            return problem
    return None


def load_catalog(paths: Iterable[str | Path]) -> Catalog:
    """Read every recording below ``paths``; unreadable ones are skipped with a reason."""
    catalog = Catalog()
    for path in expand_paths(str(p) for p in paths):
        if not path.exists():
            catalog.skipped.append(f"{path}: no such file")
            continue
        rec = load_recording(path)
        if not rec.chunks and rec.problems:
            catalog.skipped.append(rec.problems[0])
            continue
        problem = replay_problem(rec)
        if problem is not None:
            catalog.skipped.append(f"{path}: {problem}")
            continue
        provider = guess_provider(rec)
        if provider is None:
            catalog.skipped.append(f"{path}: cannot tell which provider this stream is from")
            continue
        framing = framing_of(rec)
        endpoint = (rec.header or {}).get("endpoint")
        service = service_of(provider, framing, endpoint, (d for _, d in rec.chunks[:8]))
        problem = _unservable(provider, framing, service, rec)
        if problem is not None:
            catalog.skipped.append(f"{path}: {problem}")
            continue
        assert service is not None
        catalog.add(Entry(stream_name(path), service, path, rec, framing))
    return catalog


def _unservable(provider: str, framing: str, service: str | None, rec: Recording) -> str | None:
    """Why a recording of ``provider`` in ``framing`` has no endpoint to be served on."""
    if service is None:
        return f"{provider} streams are not served (no endpoint of theirs is known)"
    framings = SERVICES[service].framings
    # An HTTP error's body is an error document, whatever the endpoint streams.
    if framing not in framings and not (rec.status is not None and rec.status >= 400):
        return (
            f"a {provider} stream framed as {framing} is not what {SERVICES[service].path} "
            f"streams ({' or '.join(framings)})"
        )
    return None
