"""What the replay server serves: recordings by provider endpoint and name.

Paths are files or directories; directories are searched the way ``inspector
check`` searches them (``.sse``, ``.jsonl``, ``.txt``, but not golden
``*.events.jsonl``). Each recording is served on its provider's endpoint
under its file name without the extension, which a request picks with its
``model``. The provider comes from the capture header, else from the frames.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from ..capture import Recording, load_recording
from ..library import expand_paths
from ..session import guess_provider

__all__ = ["ENDPOINTS", "Catalog", "Entry", "load_catalog", "stream_name"]

#: provider -> the path it streams on (Gemini's carries the model in the path).
ENDPOINTS: Final[dict[str, str]] = {
    "openai-chat": "/v1/chat/completions",
    "openai-responses": "/v1/responses",
    "anthropic": "/v1/messages",
    "gemini": "/v1beta/models/{model}:streamGenerateContent",
}


def stream_name(path: Path) -> str:
    """The name a request's ``model`` uses: the file name without its extension."""
    return path.name.rsplit(".", 1)[0] if "." in path.name else path.name


@dataclass(frozen=True, slots=True)
class Entry:
    """One servable recording."""

    name: str
    provider: str
    path: Path
    recording: Recording

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
        provider = guess_provider(rec)
        if provider is None:
            catalog.skipped.append(f"{path}: cannot tell which provider this stream is from")
            continue
        catalog.add(Entry(stream_name(path), provider, path, rec))
    return catalog
