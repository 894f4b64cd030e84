"""Framings beside SSE: how a response body is cut into frames.

===================  =========================================  ===========================
framing              what it is                                 decoder
===================  =========================================  ===========================
``sse``              ``text/event-stream`` (the default)        ``sse.FrameDecoder``
``ndjson``           one JSON document a line (Ollama)          ``ndjson.NdjsonDecoder``
``aws-eventstream``  binary messages with CRC32s (Bedrock)      ``eventstream.EventStreamDecoder``
``json-array``       one JSON array streamed element by         ``jsonarray.JsonArrayDecoder``
                     element (Gemini without ``alt=sse``)
===================  =========================================  ===========================

Every decoder has the SSE decoder's interface (:class:`.base.FramingDecoder`)
and gives :class:`~inspector.core.sse.Frame` objects with their byte spans;
:func:`rebuild_for` is how a trace turns a frame's bytes back into its frame.
:func:`detect_framing` picks the framing from a capture's header and the
first bytes (see :mod:`.detect`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Final

from ..sse import DEFAULT_MAX_FRAME, DEFAULT_MAX_LINE, Frame
from .base import ChunkedDecoder, FramingDecoder, FramingError, HeaderFrame
from .detect import detect_framing, framing_of_header

__all__ = [
    "DEFAULT_FRAMING",
    "FRAMINGS",
    "FramingDecoder",
    "FramingError",
    "HeaderFrame",
    "Rebuild",
    "decoder_for",
    "detect_framing",
    "framing_of_header",
    "rebuild_for",
]

DEFAULT_FRAMING: Final = "sse"

#: Rebuilds a frame from its bytes: (raw, index, id, start, end, first chunk, last chunk, time).
Rebuild = Callable[[bytes, int, str, int, int, int, int, float], Frame]

#: Framing -> (module, decoder class): a module is imported when its framing is
#: first asked for, so that an SSE stream's path imports none of them.
_DECODERS: Final[dict[str, tuple[str, str]]] = {
    "ndjson": ("ndjson", "NdjsonDecoder"),
    "aws-eventstream": ("eventstream", "EventStreamDecoder"),
    "json-array": ("jsonarray", "JsonArrayDecoder"),
}

#: Every framing's name (``sse`` first).
FRAMINGS: Final = (DEFAULT_FRAMING, *_DECODERS)


def decoder_for(
    framing: str, *, max_line: int = DEFAULT_MAX_LINE, max_frame: int = DEFAULT_MAX_FRAME
) -> FramingDecoder:
    """A fresh decoder for ``framing`` (ValueError for a name not in :data:`FRAMINGS`)."""
    if framing == DEFAULT_FRAMING:
        from ..sse import FrameDecoder

        return FrameDecoder(max_line=max_line, max_frame=max_frame)
    try:
        name = _DECODERS[framing][1]
    except KeyError:
        raise ValueError(
            f"unknown framing {framing!r}; expected one of: {', '.join(FRAMINGS)}"
        ) from None
    decoder: type[ChunkedDecoder] = getattr(_module(framing), name)
    return decoder(max_line, max_frame)


def rebuild_for(framing: str) -> Rebuild | None:
    """How a trace rebuilds a frame of ``framing`` from its bytes (None: SSE's own way)."""
    if framing not in _DECODERS:
        return None
    rebuild: Rebuild = _module(framing).rebuild
    return rebuild


def _module(framing: str) -> ModuleType:
    """The module of ``framing``'s decoder, imported the first time it is asked for."""
    return importlib.import_module(f".{_DECODERS[framing][0]}", __name__)
