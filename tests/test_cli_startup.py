"""Start-up: a command imports only what it uses; ``check --jobs`` changes speed, not output.

No timings here (machines are noisy): what is checked is which modules a
command loads, measured in a fresh interpreter.
"""

from __future__ import annotations

import argparse
import importlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

import inspector.cli as cli_package
from inspector.cli import COMMAND_HELP, COMMANDS, build_parser
from inspector.cli.common import PROVIDER_NAMES
from inspector.core.adapters import PROVIDERS
from inspector.library import iter_stream_files

from .conftest import CAPTURES, ROOT

HEAVY = ("textual", "httpx", "starlette", "uvicorn", "rich", "anyio", "multiprocessing")
TINY = CAPTURES / "anthropic" / "text-simple.jsonl"

# Runs a command in-process (as the console script would), then reports
# which heavy packages it had imported.
PROBE = """
import sys
from inspector.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stdout.flush()
heavy = {heavy!r}
print("LOADED:" + ",".join(m for m in heavy if m in sys.modules), file=sys.stderr)
"""


def loaded_by(*args: str, watch: tuple[str, ...] = HEAVY) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=watch), *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    marker = next(line for line in result.stderr.splitlines() if line.startswith("LOADED:"))
    return [name for name in marker.removeprefix("LOADED:").split(",") if name]


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["check", str(TINY)],
        ["check", "--jobs", "1", str(CAPTURES / "anthropic")],
        ["events", str(TINY)],
        ["frames", str(TINY)],
        ["check", "--help"],
        ["record", "--help"],
        ["live", "--help"],
        ["serve", "--help"],
        ["proxy", "--help"],
        ["export", "--help"],
    ],
    ids=" ".join,
)
def test_headless_commands_import_no_ui_or_network_library(args: list[str]) -> None:
    assert loaded_by(*args) == []


@pytest.mark.parametrize("command", ["check", "events", "frames"])
def test_a_raw_stream_is_read_without_the_cassette_and_har_converters(command: str) -> None:
    # Every raw file is sniffed for a VCR cassette or HAR log; converting one
    # needs inspector.interop.exchange (email.utils, socket...), sniffing does not.
    raw = ROOT / "tests" / "fixtures" / "real" / "openai-chat" / "openai-text-plain.sse"
    converters = ("inspector.interop.exchange", "inspector.interop.har", "inspector.interop.vcr")
    assert loaded_by(command, str(raw), watch=(*converters, "email.utils", "socket")) == []


@pytest.mark.parametrize("command", ["check", "events", "frames"])
def test_parsing_does_not_import_shutil_for_the_terminal_width(command: str) -> None:
    assert loaded_by(command, str(TINY), watch=("shutil", "bz2", "lzma")) == []


@pytest.mark.parametrize("command", ["check", "events", "frames"])
def test_stream_ids_are_hashed_without_loading_openssl(command: str) -> None:
    assert loaded_by(command, str(TINY), watch=("_hashlib", "hashlib")) == []


def test_frames_reads_a_stream_without_the_trace_or_the_normalizer() -> None:
    # Frames are the decoder's output: no adapter, machine or trace is needed to print them.
    core = ("inspector.core.trace", "inspector.core.normalizer", "inspector.core.machine")
    assert loaded_by("frames", str(TINY), watch=(*core, "inspector.core.adapters")) == []


@pytest.mark.parametrize("command", ["check", "events", "frames"])
def test_an_sse_stream_imports_no_other_framing_s_decoder_and_no_summary(command: str) -> None:
    others = ("inspector.core.framing.ndjson", "inspector.core.framing.jsonarray")
    assert loaded_by(command, str(TINY), watch=(*others, "inspector.core.summary")) == []


@pytest.mark.parametrize("command", ["check", "events", "frames"])
def test_a_stream_whose_provider_is_told_is_never_sniffed_for_what_else_it_is(command: str) -> None:
    # (input_sniff names what a file that is no stream is: only a failed detection asks)
    assert loaded_by(command, str(TINY), watch=("inspector.input_sniff",)) == []


def test_an_export_with_no_secret_to_hash_loads_no_openssl() -> None:
    # hmac (and with it OpenSSL) is imported by what hashes a secret, when it hashes one.
    raw = ROOT / "tests" / "fixtures" / "real" / "openai-chat" / "openai-text-plain.sse"
    with tempfile.TemporaryDirectory() as out:
        loaded = loaded_by("export", str(raw), "-o", out, watch=("_hashlib", "hmac", "secrets"))
    assert loaded == []


def test_the_stream_id_hash_is_hashlibs_blake2b() -> None:
    import hashlib

    from inspector.core.digest import blake2b

    assert blake2b is hashlib.blake2b


@pytest.mark.parametrize("columns", ["", "40", "100", "200"])
def test_every_help_is_what_argparse_would_print_at_that_width(
    columns: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", columns)

    def helps() -> list[str]:
        parser = build_parser()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        return [parser.format_help()] + [
            sub.choices[name].load().format_help() for name in COMMANDS
        ]

    ours = helps()
    monkeypatch.setattr(cli_package, "_formatter", argparse.HelpFormatter)  # argparse's own
    assert ours == helps()


@pytest.mark.parametrize("extra", [[], ["--help"], ["--no-such-option"], ["x", "y", "-j", "0"]])
@pytest.mark.parametrize("name", COMMANDS)
def test_the_parser_of_one_command_parses_as_the_parser_of_all(
    name: str, extra: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    def outcome(parser: argparse.ArgumentParser) -> tuple[object, str, str]:
        try:
            result: object = vars(parser.parse_args([name, *extra]))
        except SystemExit as exc:
            result = exc.code
        printed = capsys.readouterr()
        return result, printed.out, printed.err

    assert outcome(build_parser(name)) == outcome(build_parser())


def test_building_the_parser_imports_no_command_module() -> None:
    code = (
        "import sys\n"
        "from inspector.cli import build_parser\n"
        "build_parser()\n"
        "loaded = [m for m in sys.modules if m.startswith('inspector.')]\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print(sorted(loaded), heavy)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert result.stdout.strip() == (
        "['inspector.cli', 'inspector.cli.common', 'inspector.library', 'inspector.terminal', "
        "'inspector.version'] []"
    )


def test_every_command_parses_and_its_module_says_the_help_of_the_table() -> None:
    parser = build_parser()
    for name in COMMANDS:
        with pytest.raises(SystemExit) as exit_info:
            parser.parse_args([name, "--help"])
        assert exit_info.value.code == 0, name

    class Recorder:
        def add_parser(self, name: str, **options: Any) -> argparse.ArgumentParser:
            said[name] = options.get("help")
            return argparse.ArgumentParser(prog=name)

    said: dict[str, str | None] = {}
    for name in COMMANDS:
        module = cli_package._MODULES.get(name, name)
        importlib.import_module(f"inspector.cli.{module}").register(Recorder())
    assert said == COMMAND_HELP


def test_the_provider_choices_are_the_adapters() -> None:
    assert PROVIDER_NAMES == PROVIDERS


def check(*args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", "check", *args],
        capture_output=True,
        cwd=ROOT,
        timeout=300,
    )


@pytest.fixture(scope="module")
def large_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled captures and a 5 MB stream: enough work that check starts a pool."""
    from benchmarks.streams import stream_of_size

    folder = tmp_path_factory.mktemp("pool") / "streams"
    shutil.copytree(CAPTURES, folder)
    (folder / "large.sse").write_bytes(stream_of_size("openai-chat", 5_000_000))
    return folder


def test_check_with_several_processes_prints_the_same_bytes_as_in_process(
    large_folder: Path,
) -> None:
    one = check("--jobs", "1", str(large_folder))
    two = check("--jobs", "2", str(large_folder))
    assert one.returncode == two.returncode
    assert one.stdout == two.stdout
    assert one.stderr == two.stderr
    assert len(one.stdout.splitlines()) >= 40


def test_check_with_several_processes_keeps_order_exit_code_and_errors(
    large_folder: Path,
) -> None:
    inputs = [
        str(CAPTURES / "openai-chat"),
        str(ROOT / "missing.sse"),
        str(large_folder),
        str(TINY),
    ]
    one = check("--jobs", "1", *inputs)
    three = check("--jobs", "3", *inputs)
    assert one.returncode == three.returncode == 1
    assert (one.stdout, one.stderr) == (three.stdout, three.stderr)
    assert b"missing.sse: unreadable" in one.stdout


def forks_for(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> bool:
    """Whether ``check --jobs 2`` of these paths hands its files to forked workers."""
    from inspector.cli import check as check_command
    from inspector.cli import fanout

    used: list[int] = []

    def spy(function: Any, items: Any, processes: int) -> Any:
        used.append(processes)
        return map(function, items)

    monkeypatch.setattr(fanout, "in_order", spy)
    jobs = ((path, None, True) for path in iter_stream_files(map(str, paths)))
    reports = list(check_command._reports(jobs, 2))
    assert reports
    return bool(used)


def test_workers_are_forked_when_the_files_are_worth_it_and_not_otherwise(
    large_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert forks_for(monkeypatch, large_folder)
    # A few small captures are checked faster than a fork would take.
    assert not forks_for(monkeypatch, CAPTURES / "anthropic" / "text-simple.jsonl", TINY)
    # One large file is one job: nothing to share.
    assert not forks_for(monkeypatch, large_folder / "large.sse")


def test_check_never_imports_multiprocessing(large_folder: Path) -> None:
    assert "multiprocessing" not in loaded_by("check", "--jobs", "2", str(large_folder))


def test_a_small_check_loads_no_fork_machinery() -> None:
    assert loaded_by("check", str(TINY), watch=("inspector.cli.fanout", "signal")) == []


def test_export_text_choices_are_the_exporters() -> None:
    from inspector.cli.export import TEXT_CHOICES
    from inspector.export import TEXT_MODES

    assert TEXT_CHOICES == TEXT_MODES
