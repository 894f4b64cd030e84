"""The export dialog (``x``): the same anonymized export as ``inspector export``.

The dialog asks for what the command's options ask — where to write, the
base name of the files, ``--text keep|mask``, ``--pytest``, ``--keep-request``
and ``--format vcr`` (a cassette beside the capture) — and then exports:

* a trace read from a file on disk with :func:`~inspector.export.export_capture`
  on that file, exactly as the command would;
* anything else (a live session, a replay, a trace built in memory) with
  :func:`~inspector.export.export_trace`, which exports what the session
  recorded.

The export normalizes the stream twice and scans every output for leaks, so
it runs in a thread worker and the interface stays responsive; the worker
only posts :class:`ExportDialog.Finished` and the dialog shows the outcome:
the files written (the cassette, if asked, written from the exported
capture as ``inspector export --format vcr`` writes it) and the report's
counts per rule (the report never holds a removed value), or the error's
message — never a traceback.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, RadioButton, RadioSet, Static

from ...core.trace import Trace
from ...export import ExportError, ExportOptions, ExportResult, export_capture, export_trace
from ...export.foreign import write_exported
from ...library import STREAM_SUFFIXES
from ...viewmodel.textsafe import one_line, safe_text

__all__ = [
    "ExportDialog",
    "ExportDone",
    "ExportRequest",
    "default_directory",
    "default_name",
    "outcome_text",
    "run_export",
]

#: Where exports go unless the user says otherwise, relative to the working directory.
EXPORTS_DIR = "exports"

_HINT = (
    "Writes NAME.jsonl (or NAME.sse), its golden NAME.events.jsonl, NAME.report.json "
    "and, if asked, test_NAME.py and a VCR cassette NAME.yaml. Secrets, e-mail addresses "
    "and the request's prompt are always removed and ids pseudonymized; the export is "
    "verified (same skeleton, no removed secret left) before anything is written."
)


def default_name(trace: Trace) -> str:
    """The base name of the outputs: the file's name without its suffix, else ``live-PROVIDER``."""
    source = trace.source or ""
    if source and "://" not in source:
        name = PurePath(source).name
        for suffix in STREAM_SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                return name[: -len(suffix)]
    return f"live-{trace.provider or 'stream'}"


def default_directory(name: str) -> str:
    """``exports/NAME``: one folder per exported stream, under the working directory."""
    return str(PurePath(EXPORTS_DIR) / name)


def exported_file(trace: Trace, live: bool) -> Path | None:
    """The file to export with ``export_capture``, or None to export the trace itself.

    A live session or a replay may have been cut short or cancelled, so what
    it recorded can differ from any file it came from: only a trace read from
    a file that is still there is exported from that file.
    """
    if live or not trace.source:
        return None
    path = Path(trace.source)
    return path if path.is_file() else None


@dataclass(frozen=True)
class ExportRequest:
    """One export as the dialog's fields describe it."""

    directory: Path
    options: ExportOptions
    #: Also write the exported capture as a vcrpy cassette (``NAME.yaml``).
    cassette: bool = False


@dataclass(frozen=True)
class ExportDone:
    """A finished export: its files and report, and the cassette if one was asked for."""

    result: ExportResult
    cassette: Path | None = None
    #: What the cassette cannot carry (chunk timing, a transport end), said beside it.
    cassette_notes: tuple[str, ...] = ()
    #: Why the cassette was not written, though the export itself was.
    cassette_error: str | None = None


def run_export(trace: Trace, file: Path | None, request: ExportRequest) -> ExportDone:
    """Export ``file`` if there is one, else what ``trace`` recorded; then the cassette.

    The cassette is written from the exported capture — anonymized and
    verified — never from the original. Raises
    :class:`~inspector.export.ExportError` and :class:`OSError` for the export.
    """
    if file is not None:
        result = export_capture(file, request.directory, request.options)
    else:
        result = export_trace(trace, request.directory, request.options)
    if not request.cassette:
        return ExportDone(result)
    try:
        target, notes = write_exported(result.files["capture"], "vcr", trace.provider)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        return ExportDone(result, cassette_error=f"The cassette was not written: {reason}")
    return ExportDone(result, target, tuple(notes))


def outcome_text(
    directory: str, done: ExportDone | ExportResult | None = None, error: str | None = None
) -> Text:
    """What the dialog shows after an export: the files and the report, or the error.

    Every value here may come from the capture (file names, tool names in the
    report, error messages quoting the input), so it is built with
    :func:`~inspector.viewmodel.textsafe.safe_text`, never parsed as markup.
    """
    text = Text(end="")
    if done is None:
        text.append("✗ Export failed\n", "bold red")
        text.append_text(safe_text(error or "unknown error", multiline=True))
        return text
    if isinstance(done, ExportResult):
        done = ExportDone(done)
    result = done.result
    files = dict(result.files)
    if done.cassette is not None:
        files["cassette"] = done.cassette
    text.append(f"✓ Exported {len(files)} files into ", "bold green")
    text.append_text(one_line(directory, 300, "bold green"))
    text.append("\n")
    width = max(len(role) for role in files)
    for role, path in files.items():
        text.append(f"  {role:<{width}}  ", "cyan")
        text.append_text(one_line(str(path), 400))
        text.append("\n")
    for note in done.cassette_notes:
        text.append(f"  {'':<{width}}  ", "cyan")
        text.append_text(one_line(note, 400, "dim"))
        text.append("\n")
    if done.cassette_error is not None:
        text.append_text(one_line(done.cassette_error, 400, "bold yellow"))
        text.append("\n")
    lines = result.summary()
    if lines and lines[0].startswith(f"{result.report.get('source')} -> "):
        lines = lines[1:]  # it names the files, listed above with their folder
    text.append("\nReport\n", "bold underline")
    text.append_text(safe_text("\n".join(lines), multiline=True))
    return text


class TickBox(Checkbox):
    """A checkbox that shows ``✓`` when on and nothing when off.

    Textual's draws ``X`` in both states and tells them apart by colour
    alone, which many terminals and themes do not show.
    """

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        """The mark inside the box: it follows the value."""
        return "✓" if self.value else " "


class TickRadio(RadioButton):
    """A radio button that shows ``●`` when chosen and nothing otherwise (see :class:`TickBox`)."""

    @property
    def BUTTON_INNER(self) -> str:  # type: ignore[override]
        """The mark inside the button: it follows the value."""
        return "●" if self.value else " "


def _field(value: str, id: str) -> Input:
    field = Input(value, id=id, compact=True)
    # A blinking cursor would make snapshots and screenshots differ run to run.
    field.cursor_blink = False
    return field


class ExportDialog(ModalScreen[None]):
    """Export options, an Export button, and the outcome; escape closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="export.close",
                tooltip="Close the export dialog (nothing is written unless you export)"),
    ]  # fmt: skip

    class Finished(Message):
        """The export worker is done: a result, or the message of what went wrong."""

        def __init__(self, directory: str, result: ExportDone | None, error: str | None) -> None:
            super().__init__()
            self.directory = directory
            self.result = result
            self.error = error

    def __init__(self, trace: Trace, *, source: str, live: bool) -> None:
        super().__init__()
        self.trace = trace
        self.source = source
        self.file = exported_file(trace, live)
        self.busy = False

    def compose(self) -> ComposeResult:
        """The source, the options, the buttons, and room for the outcome."""
        name = default_name(self.trace)
        with Vertical(id="export-box") as box:
            box.border_title = "Export"
            box.border_subtitle = "esc: close"
            yield Static(self._source_text(), id="export-source")
            with Horizontal(classes="export-row"):
                yield Label("Output directory", classes="export-label")
                yield _field(default_directory(name), "export-directory")
            with Horizontal(classes="export-row"):
                yield Label("Name", classes="export-label")
                yield _field(name, "export-name")
            with Horizontal(classes="export-row"):
                yield Label("Model text", classes="export-label")
                with RadioSet(id="export-text", compact=True):
                    yield TickRadio("keep", value=True, id="export-text-keep")
                    yield TickRadio("mask (letters → x, digits → 0)", id="export-text-mask")
            yield TickBox("Write a pytest file (test_NAME.py)", id="export-pytest", compact=True)
            yield TickBox(
                "Keep the request's prompt (secrets are removed anyway)",
                id="export-keep-request",
                compact=True,
            )
            yield TickBox(
                "Also write a VCR cassette (NAME.yaml: the body in one piece, for vcrpy)",
                id="export-cassette",
                compact=True,
            )
            with Horizontal(id="export-buttons"):
                yield Button("Export", variant="primary", id="export-run", compact=True)
                yield Button("Close", id="export-close", compact=True)
            with VerticalScroll(id="export-outcome-scroll"):
                yield Static(Text(_HINT, "dim"), id="export-outcome")

    def on_mount(self) -> None:
        """Export button first: ``x`` then enter exports with the defaults."""
        self.query_one("#export-run", Button).focus()

    def _source_text(self) -> Text:
        text = Text("Source  ", "bold", end="")
        text.append_text(one_line(self.source, 300, "italic"))
        if self.file is not None:
            text.append("  (the file on disk)", "dim")
        else:
            text.append("  (what this session recorded)", "dim")
        return text

    # -- reading the fields ---------------------------------------------------

    def read_request(self) -> ExportRequest | str:
        """The export the fields describe, or why they do not describe one."""
        directory = self.query_one("#export-directory", Input).value.strip()
        name = self.query_one("#export-name", Input).value.strip()
        if not directory:
            return "Choose an output directory."
        if not name or name in (".", "..") or "/" in name or "\\" in name:
            return "The name is the base name of the files: not empty, without folders."
        mask = self.query_one("#export-text-mask", RadioButton).value
        options = ExportOptions(
            text="mask" if mask else "keep",
            keep_request=self.query_one("#export-keep-request", Checkbox).value,
            pytest=self.query_one("#export-pytest", Checkbox).value,
            name=name,
            # The provider the session was read with: a raw .sse file opened with
            # --provider cannot be recognized again from its bytes alone.
            provider=self.trace.provider,
        )
        cassette = self.query_one("#export-cassette", Checkbox).value
        return ExportRequest(Path(directory).expanduser(), options, cassette=cassette)

    # -- exporting --------------------------------------------------------------

    @on(Button.Pressed, "#export-run")
    @on(Input.Submitted)
    def _export_asked(self) -> None:
        self.start_export()

    def start_export(self) -> None:
        """Export with the options shown (the Export button, or enter in a field)."""
        if self.busy:
            return
        request = self.read_request()
        if isinstance(request, str):
            self._show(Text(request, "bold yellow"))
            return
        self.busy = True
        self.query_one("#export-run", Button).disabled = True
        self._show(Text("Exporting… anonymizing, verifying, scanning for leaks", "bold"))
        self._export(request, self.query_one("#export-directory", Input).value.strip())

    @work(thread=True, exclusive=True, group="export", exit_on_error=False)
    def _export(self, request: ExportRequest, shown: str) -> None:
        """Run the export off the UI thread; post what came of it."""
        result: ExportDone | None = None
        error: str | None = None
        try:
            result = run_export(self.trace, self.file, request)
        except ExportError as exc:
            error = str(exc)  # already a message for the user; nothing was written
        except OSError as exc:
            # Name the file only when it is not the directory itself (a failed mkdir).
            other = exc.filename is not None and Path(exc.filename) != request.directory
            where = f" ({exc.filename})" if other else ""
            error = f"Could not write into {shown}: {exc.strerror or exc}{where}"
        except Exception as exc:
            # A bug in the exporter must not end the session the user is
            # inspecting: say what happened and keep the trace on screen.
            error = f"The export stopped on an unexpected error: {type(exc).__name__}: {exc}"
        self.post_message(self.Finished(shown, result, error))

    def on_export_dialog_finished(self, message: Finished) -> None:
        """Show the files and the report, or the error."""
        self.busy = False
        run = self.query_one("#export-run", Button)
        run.disabled = False
        self._show(outcome_text(message.directory, message.result, message.error))
        if message.result is not None:
            self.query_one("#export-close", Button).focus()
        else:
            run.focus()

    def _show(self, text: Text) -> None:
        self.query_one("#export-outcome", Static).update(text)
        self.query_one("#export-outcome-scroll", VerticalScroll).scroll_home(animate=False)

    # -- closing ------------------------------------------------------------------

    @on(Button.Pressed, "#export-close")
    def _close_pressed(self) -> None:
        self.action_close()

    def action_close(self) -> None:
        """Back to the main screen (not while an export is being written)."""
        if self.busy:
            # A thread cannot be stopped halfway; closing now would hide
            # whether the files were written.
            self.notify("The export is still running: wait for it to finish.", timeout=2)
            return
        self.dismiss(None)
