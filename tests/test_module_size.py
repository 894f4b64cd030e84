"""A module in inspector/ over ~600 lines says why at its top.

A long module is a place to look for a seam; one that has none writes its reason
in its docstring, in a line starting ``Why this module is long:`` within the first
lines, where a reader opening it sees it before the code.
"""

from __future__ import annotations

from .conftest import ROOT

PACKAGE = ROOT / "inspector"
LIMIT = 600
MARK = "Why this module is long:"
#: How far from the top the reason may stand (the docstring's opening paragraphs).
HEAD = 30

# Over the limit and without the mark when this test was written; each owner's work
# adds the reason (or splits the module), and then its line here goes. The lead
# removes an entry once its module passes on its own (the second test says when).
KNOWN: dict[str, str] = {}


def needs_reason(lines: list[str]) -> bool:
    """Over the limit, and no line near the top says why."""
    return len(lines) > LIMIT and not any(MARK in line for line in lines[:HEAD])


def _long_without_reason() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        lines = path.read_text(encoding="utf-8").splitlines()
        if needs_reason(lines):
            found[path.relative_to(PACKAGE).as_posix()] = len(lines)
    return found


def test_every_module_over_the_limit_states_why_near_its_top() -> None:
    unexplained = {name: n for name, n in _long_without_reason().items() if name not in KNOWN}
    assert unexplained == {}, (
        f"over {LIMIT} lines with no {MARK!r} line in the first {HEAD}: split the module "
        "along a seam, or say at its top why it stays one"
    )


def test_the_allowance_lists_only_modules_that_still_need_it() -> None:
    stale = set(KNOWN) - set(_long_without_reason())
    assert stale == set(), f"these now pass on their own: remove them from KNOWN: {stale}"


def test_the_check_sees_a_long_module_and_its_reason() -> None:
    # The rule itself, on modules written here: long without the mark is caught, the
    # mark past the head is not enough, the mark near the top is, and a short module
    # needs none.
    body = ["x = 1"] * LIMIT
    cases = {
        "short": body,
        "bare": [*body, "y = 2"],
        "late": [*body, f"# {MARK} too late"],
        "stated": ['"""A module.', "", f"{MARK} one table.", '"""', *body],
    }
    caught = {name: needs_reason(lines) for name, lines in cases.items()}
    assert caught == {"short": False, "bare": True, "late": True, "stated": False}
