"""Keymaps: the keymap file and ``--keymap``, checked so the footer and the help stay true."""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest
from textual.binding import Binding

import inspector.tui
from inspector.session import load_trace
from inspector.tui.keymap import (
    KEYMAP_FILE_ENV,
    KeymapError,
    check_keymap,
    default_keymap_path,
    load_keymap_file,
    resolve_keymap,
    scopes,
)
from inspector.tui.run import app_with_keymap

from ..conftest import ROOT
from .helpers import TEXT_THEN_TOOL
from .test_flows import header
from .test_keys import footer_keys, help_listing


def every_class_with_bindings() -> set[type]:
    found: set[type] = set()
    for info in pkgutil.walk_packages(inspector.tui.__path__, "inspector.tui."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            declared = vars(value).get("BINDINGS") if isinstance(value, type) else None
            ours = declared and value.__module__ == module.__name__
            if ours and any(isinstance(b, Binding) and b.id for b in declared):
                found.add(value)
    return found


def test_every_binding_the_tui_declares_is_checked_in_some_scope() -> None:
    ids_in_scopes = {b.id for scope in scopes() for b in scope.bindings}
    for owner in every_class_with_bindings():
        for binding in vars(owner)["BINDINGS"]:
            if isinstance(binding, Binding) and binding.id:
                assert binding.id in ids_in_scopes, (owner.__name__, binding.id)


def test_the_defaults_conflict_nowhere_and_adding_free_keys_is_fine() -> None:
    assert check_keymap({}) == []
    assert check_keymap({"step.next": "right,n,l", "step.previous": "left,p,h"}) == []
    # Moving a key between two bindings that are both rebound is no conflict.
    assert check_keymap({"step.next": "k", "step.previous": "j"}) == []


def test_an_unknown_id_is_named_with_the_ids_it_may_have_meant() -> None:
    [problem] = check_keymap({"step.nxt": "j"})
    assert problem.startswith("unknown binding id 'step.nxt'; did you mean step.next")


@pytest.mark.parametrize(
    ("keymap", "key", "ids"),
    [
        ({"step.next": "b"}, "b", "breakpoint.toggle and step.next"),
        ({"list.up": "k"}, "k", "list.up and step.previous"),
        ({"export.open": "q"}, "q", "app.quit and export.open"),
        ({"picker.open": "slash"}, None, None),  # the picker has no slash
    ],
)
def test_a_key_given_to_an_action_whose_screen_uses_it_is_a_conflict_naming_both(
    keymap: dict[str, str], key: str | None, ids: str | None
) -> None:
    problems = check_keymap(keymap)
    if key is None:
        assert problems == []
    else:
        assert any(p.startswith(f"key {key!r} is bound to both {ids}") for p in problems), problems


def test_the_keymap_file_is_toml_with_dotted_ids_and_the_command_line_wins(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keymap.toml"
    path.write_text(
        '[step]\nnext = "right,n,l"\nprevious = ["left", "p", "h"]\n"help.open" = "f1"\n'
    )
    assert load_keymap_file(path) == {
        "step.next": "right,n,l", "step.previous": "left,p,h", "step.help.open": "f1",
    }  # fmt: skip
    path.write_text('"step.next" = "right,n,l"\n[help]\nopen = "f1"\n')
    assert resolve_keymap(["help.open=f2"], path) == {"step.next": "right,n,l", "help.open": "f2"}
    assert load_keymap_file(tmp_path / "absent.toml") == {}


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("step.next = ", "not a TOML keymap"),
        ("[step]\nnext = 3\n", "expected keys"),
        ('[step]\nnext = "a b"\n', "expected keys"),
    ],
)
def test_a_broken_keymap_file_says_where_and_what(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "keymap.toml"
    path.write_text(text)
    with pytest.raises(KeymapError) as caught:
        load_keymap_file(path)
    assert str(path) in str(caught.value) and words in str(caught.value)


def test_the_file_lives_in_the_user_config_directory() -> None:
    assert default_keymap_path({"HOME": "/h", "XDG_CONFIG_HOME": "/cfg"}) == Path(
        "/cfg/llm-stream-inspector/keymap.toml"
    )
    assert default_keymap_path({KEYMAP_FILE_ENV: "/x/k.toml"}) == Path("/x/k.toml")
    assert default_keymap_path({}).name == "keymap.toml"


def run_inspector(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "inspector", *args],
        capture_output=True, text=True, cwd=ROOT, timeout=120, env=env,
    )  # fmt: skip


def test_open_exits_2_naming_the_keys_of_a_conflict_or_an_unknown_id(tmp_path: Path) -> None:
    import os

    env = {**os.environ, KEYMAP_FILE_ENV: str(tmp_path / "keymap.toml")}
    result = run_inspector("open", "--keymap", "step.next=b", str(TEXT_THEN_TOOL), env=env)
    assert result.returncode == 2
    assert "key 'b' is bound to both breakpoint.toggle and step.next" in result.stderr
    (tmp_path / "keymap.toml").write_text('[step]\nnxt = "j"\n')
    result = run_inspector("open", str(TEXT_THEN_TOOL), env=env)
    assert result.returncode == 2 and "unknown binding id 'step.nxt'" in result.stderr


async def test_a_keymap_file_the_app_reads_moves_keys_in_the_footer_and_help(
    no_user_keymap: Path,
) -> None:
    no_user_keymap.write_text('[help]\nopen = "f1"\n[step]\nnext = "right,n,l"\n')
    try:
        app = app_with_keymap(load_trace(TEXT_THEN_TOOL))
        async with app.run_test(size=(200, 50)) as pilot:
            assert footer_keys(app)[0] == "f1"
            await pilot.press("l")
            assert app.screen.cursor.position == 1  # type: ignore[attr-defined]
            await pilot.press("f1")
            listing = help_listing(app)
            assert "f1  All keys" in listing and "→ n l  Next frame" in listing
    finally:
        no_user_keymap.unlink()


async def test_an_unusable_keymap_file_is_said_and_the_default_keys_stay(
    no_user_keymap: Path,
) -> None:
    no_user_keymap.write_text('[step]\nnext = "b"\n')
    try:
        app = app_with_keymap(load_trace(TEXT_THEN_TOOL))
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.pause()
            assert app.keymap_problem is not None and "'b'" in app.keymap_problem
            assert footer_keys(app)[0] == "?"
    finally:
        no_user_keymap.unlink()


def test_the_proxy_tui_exits_2_on_a_bad_keymap_file_before_it_creates_anything(
    tmp_path: Path,
) -> None:
    import os

    (tmp_path / "keymap.toml").write_text('[flows]\nsort = "r"\n')
    env = {**os.environ, KEYMAP_FILE_ENV: str(tmp_path / "keymap.toml")}
    out = tmp_path / "flows"
    result = run_inspector("proxy", "--port", "0", "-o", str(out), env=env)
    assert result.returncode == 2
    assert "key 'r' is bound to both flows.replay and flows.sort" in result.stderr
    assert not out.exists()


def test_the_proxy_tui_runs_with_the_keymap_file(
    no_user_keymap: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``inspector proxy`` hands the checked keymap file to its app, as ``open`` does."""
    from inspector.cli import main
    from inspector.tui.screens.flows import ProxyApp

    seen: list[dict[str, str]] = []

    def run_instead(app: ProxyApp) -> None:
        seen.append(dict(app._keymap))
        app.server.shutdown()

    monkeypatch.setattr(ProxyApp, "run", run_instead)
    no_user_keymap.write_text('[flows]\nsort = "o"\n')
    try:
        assert main(["proxy", "--port", "0", "-o", str(tmp_path / "flows")]) == 0
    finally:
        no_user_keymap.unlink()
    assert seen == [{"flows.sort": "o"}]


async def test_the_flow_list_footer_shows_the_keys_the_keymap_gives(tmp_path: Path) -> None:
    from inspector.proxy import FlowLog, ProxyServer, ProxySettings
    from inspector.tui.screens.flows import ProxyApp

    server = ProxyServer(FlowLog(tmp_path), ProxySettings(upstream="http://127.0.0.1:9"))
    app = ProxyApp(server, upstream="http://127.0.0.1:9", keymap={"flows.sort": "o"})
    async with app.run_test(size=(200, 50)) as pilot:
        await pilot.pause()
        keys = footer_keys(app)
        assert "o" in keys and "s" not in keys
        await pilot.press("o")
        assert "sorted by duration" in header(app.screen)  # type: ignore[arg-type]
        await app.action_quit()
