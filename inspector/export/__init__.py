"""Record → anonymize → export: a capture made safe to commit to a test suite.

:func:`export_capture` is the one entry point (the CLI's ``inspector export``
and the TUI's export dialog both call it); :mod:`.pipeline` reads as the
steps it runs (:mod:`.api`: the entry points). For one capture or raw SSE file it

1. anonymizes the recording (:func:`anonymize`): the header record
   (:mod:`.request`) and the stream body byte for byte (:mod:`.rewrite`) —
   same chunks, same timing, same frame boundaries;
2. normalizes the original and the anonymized capture and compares their
   skeletons (:mod:`.skeleton`) and their chunking: any difference aborts;
3. renders the outputs — the anonymized capture, its golden
   ``.events.jsonl`` (exactly what ``inspector events`` prints for it), with
   ``pytest=True`` a test module (:mod:`.pytest_file`), and the redaction
   report (:mod:`.report`);
4. scans every output for every secret it removed (:mod:`.leaks`): a hit
   aborts;
5. only then writes the files.

Problems are raised as :class:`ExportError` with a message meant for the
user; nothing is written when an export fails. This module only hands the
public names on.
"""

from .anonymizer import Anonymized, anonymize
from .api import (
    PreparedExport,
    export_capture,
    export_paths,
    export_recording,
    export_trace,
    prepare_export,
)
from .capture_file import render_capture
from .options import TEXT_MODES, ExportError, ExportOptions, ExportOutcome, ExportResult
from .report import report_lines

__all__ = [
    "TEXT_MODES",
    "Anonymized",
    "ExportError",
    "ExportOptions",
    "ExportOutcome",
    "ExportResult",
    "PreparedExport",
    "anonymize",
    "export_capture",
    "export_paths",
    "export_recording",
    "export_trace",
    "prepare_export",
    "render_capture",
    "report_lines",
]
