"""Server-sent events: the WHATWG decoder (:mod:`.decoder`) and the run scanner (:mod:`.runs`).

:mod:`.decoder` turns bytes into :class:`Frame` objects by the rules of the
HTML standard; :mod:`.runs` keeps runs of plain events as columns and defines
:class:`FrameColumns`, the one interface the normalizer reads decoded frames
through. The names other packages use are handed on here.
"""

from .decoder import (
    DEFAULT_MAX_FRAME,
    DEFAULT_MAX_LINE,
    DecoderError,
    FrameDecoder,
    FrameTooLarge,
    Tail,
    parse_span,
)
from .frame import Frame
from .runs import Decoded, FrameBatch, FrameColumns, FrameRun, SpanLog, columns, flatten

__all__ = [
    "DEFAULT_MAX_FRAME",
    "DEFAULT_MAX_LINE",
    "Decoded",
    "DecoderError",
    "Frame",
    "FrameBatch",
    "FrameColumns",
    "FrameDecoder",
    "FrameRun",
    "FrameTooLarge",
    "SpanLog",
    "Tail",
    "columns",
    "flatten",
    "parse_span",
]
