"""The byte-level rewrite of a recorded stream body (:mod:`.body` reads as its steps)."""

from .apply import Covered, RewriteError, apply_edits, covered_ranges
from .body import Handover, rewrite_body
from .collect import FAST, REFERENCE, Collected, Shortcuts, collect, data_values
from .decide import Decided, decide
from .outside import scan_outside_strings

__all__ = [
    "FAST",
    "REFERENCE",
    "Collected",
    "Covered",
    "Decided",
    "Handover",
    "RewriteError",
    "Shortcuts",
    "apply_edits",
    "collect",
    "covered_ranges",
    "data_values",
    "decide",
    "rewrite_body",
    "scan_outside_strings",
]
