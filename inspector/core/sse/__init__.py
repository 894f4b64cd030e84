"""Server-sent events: the WHATWG decoder (:mod:`.decoder`) and the run scanner (:mod:`.runs`).

:mod:`.decoder` turns bytes into :class:`Frame` objects by the rules of the
HTML standard (:mod:`.outcome`: its limits, errors and what was left at the
end; :mod:`.span`: one frame decoded again from its bytes); :mod:`.runs`
keeps runs of plain events as columns and defines :class:`FrameColumns`, the
one interface the normalizer reads decoded frames through; :mod:`.lines`
gives the lines of a whole body where they sit, by the same rules, for
readers that edit bytes in place. The names other packages use are handed on
here.
"""

from .decoder import FrameDecoder
from .frame import Frame
from .outcome import DEFAULT_MAX_FRAME, DEFAULT_MAX_LINE, DecoderError, FrameTooLarge, Tail
from .runs import Decoded, FrameBatch, FrameColumns, FrameRun, SpanLog, columns, flatten
from .span import parse_span

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
