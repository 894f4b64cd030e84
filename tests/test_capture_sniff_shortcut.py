"""A body that cannot be a cassette or HAR log is told so without importing the sniffer."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from inspector.capture import _may_be_foreign
from inspector.interop.format_sniff import sniff_format

HEADS = [
    b"",
    b"data: {}\n\n",
    b"event: x\ndata: y\n\n",
    b": comment\n\n",
    b"id: 1\ndata: x\n\n",
    b"retry: 5\n",
    b"\xef\xbb\xbfdata: x\n\n",
    b'{"log": {"entries": []}}',
    b'  \n{"interactions": [], "version": 1}',
    b"interactions:\n- request: {}\n",
    b"version: 1\ninteractions: []\n",
    b"# cassette\n---\ninteractions: []\n",
    b"%YAML 1.2\n---\nversion: 1\ninteractions: []\n",
    b"\xef\xbb\xbf  interactions: []",
    b' \t\r\n\x0b\x0c{"log": {}}',
    b"\x0b\x0cinteractions:",
]


@pytest.mark.parametrize("head", HEADS)
def test_the_shortcut_never_refuses_what_the_sniffer_would_take(head: bytes) -> None:
    if sniff_format(head) is not None:
        assert _may_be_foreign(head)


def test_random_heads_agree_with_the_sniffer() -> None:
    rng = random.Random(16)
    pieces = [b" ", b"\t", b"\n", b"\r", b"\x0b", b"\x0c", b"\xef\xbb\xbf", b"{", b'"log"', b":",
              b"{", b'"interactions"', b"interactions", b"version", b"#x", b"%Y", b"---", b"data",
              b"-", b"i", b"v"]  # fmt: skip
    found = 0
    for _ in range(20000):
        head = b"".join(rng.choice(pieces) for _ in range(rng.randrange(0, 8)))
        if sniff_format(head) is not None:
            assert _may_be_foreign(head), head
            found += 1
    assert found > 20


def test_reading_a_raw_stream_does_not_import_the_interop_package(tmp_path: object) -> None:
    code = (
        "import sys, pathlib, tempfile\n"
        "from inspector.capture import read_recording\n"
        "p = pathlib.Path(tempfile.mkdtemp()) / 'x.sse'\n"
        "p.write_bytes(b'data: {}\\n\\n')\n"
        "rec = read_recording(p)\n"
        "assert rec.kind == 'raw', rec\n"
        "assert 'inspector.interop' not in sys.modules, 'imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
