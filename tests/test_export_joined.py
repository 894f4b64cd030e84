"""An export normalizes both captures joined into large pieces, and writes what as received would.

``export_capture`` verifies the anonymized capture against the original with
both normalized joined (the decoder's fast paths); ``prepare_export`` hands
out traces normalized chunk by chunk, as received. Every file the two render
must be the same bytes, however the stream was chunked: on every bundled
capture and real stream, and on real streams cut anywhere, with their line
ends changed, damaged, or with a line over the decoder's bound (whose report
depends on the chunking: both sides are then normalized as received).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.capture import load_recording
from inspector.export import ExportError, ExportOptions, export_capture, prepare_export
from inspector.session import JOINED_PIECE

from .test_session_joined import BODIES, damaged, joined_in_pieces, stream_files, write_capture


def same_files(source: Path, out: Path, options: ExportOptions) -> None:
    """Export ``source`` both ways; every file the same bytes (or the same refusal)."""
    try:
        prepared = prepare_export(load_recording(source), options)
    except ExportError as exc:
        with pytest.raises(ExportError) as written_error:
            export_capture(source, out, options)
        assert str(written_error.value) == str(exc)
        return
    written = export_capture(source, out, options)
    assert set(written.files) == set(prepared.names)
    for role, path in written.files.items():
        assert path.read_bytes() == prepared.files[prepared.names[role]], (source.name, role)


def test_every_bundled_capture_and_real_stream_exports_as_received(tmp_path: Path) -> None:
    files = stream_files()
    assert len(files) >= 60
    for i, path in enumerate(files):
        same_files(path, tmp_path / str(i), ExportOptions(pytest=True))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(BODIES)),
    line_end=st.sampled_from([b"\n", b"\r\n"]),
    damage=st.sampled_from(["none", "bad json", "cut", "comment"]),
    cuts=st.lists(st.integers(0, 1 << 16), max_size=40),
    piece=st.sampled_from([1, 7, 300, JOINED_PIECE]),
    max_line=st.sampled_from([None, 64, 200]),
    text=st.sampled_from(["keep", "mask"]),
)
def test_a_capture_chunked_any_way_exports_as_received(
    tmp_path_factory: pytest.TempPathFactory,
    name: str,
    line_end: bytes,
    damage: str,
    cuts: list[int],
    piece: int,
    max_line: int | None,
    text: str,
) -> None:
    provider, body = damaged(name, line_end, damage)
    folder = tmp_path_factory.mktemp("export-joined")
    source = folder / "c.jsonl"
    write_capture(source, body, [c % (len(body) + 1) for c in cuts], provider)
    with joined_in_pieces(piece, max_line):
        same_files(source, folder / "out", ExportOptions(text=text, pytest=True))
