"""Step 2 of the rewrite: decide what becomes of every string filed.

Per text (the strings of one stream key, joined): a secret anywhere in it
becomes a placeholder (:mod:`inspector.redact.shapes`, searched on the
decoded text, so it is found across deltas and escapes); with ``--text
mask`` model text and tool-argument values are masked character for
character (:mod:`..mask`). Ids get pseudonyms, signatures placeholders. Each
changed unit is re-encoded in its own form and width: nothing here changes
a length. A text nothing is done to — not masked, no secret, every fragment
still plain bytes — is left *untouched*: no string objects are made for it.
"""

from __future__ import annotations

from array import array
from typing import Any, Final

from ...redact.shapes import placeholder
from ..decoded import find_encoded_secrets
from ..jsonlex import ESC, render_unit
from ..ledger import Context
from ..mask import mask_char, mask_json_text
from ..pseudonyms import signature_placeholder
from ..rules import Treatment
from .collect import Collected
from .strings import Fragments, String, unit_index

__all__ = ["Decided", "decide"]

# --text mask for an ASCII string without escapes: one C call.
_ASCII_MASK: Final = bytes(
    0x78 if chr(b).isalpha() else 0x30 if chr(b).isdigit() else b for b in range(128)
) + bytes(range(128, 256))
# What a masked string counts as in the report, by treatment.
_MASK_LABEL: Final = {
    Treatment.TEXT: "model-text",
    Treatment.JSON_TEXT: "tool-arguments",
    Treatment.PROMPT: "request-echo",
}


class Decided:
    """Every string with its edits decided, and the texts left untouched."""

    __slots__ = ("id_repeats", "numbers", "singles", "streams", "untouched")

    def __init__(self, found: Collected) -> None:
        #: Each text's strings, by stream key (edits decided).
        self.streams: dict[tuple[Any, ...], list[String]] = {}
        #: Texts nothing is done to, still as bytes and offsets.
        self.untouched: list[Fragments] = []
        self.singles: list[String] = found.singles
        #: A simple id's first string and where it recurs: written everywhere as decided once.
        self.id_repeats: dict[bytes, tuple[String, array[int]]] = found.id_repeats
        #: Masked logprob numbers: body offset, new bytes.
        self.numbers: list[tuple[int, bytes]] = found.numbers


def decide(found: Collected, ctx: Context, *, untouched: bool = True) -> Decided:
    """Step 2: the edits of every string ``found`` holds (secrets, ids, masks).

    Removed secrets and counts go to ``ctx.ledger``. With ``untouched=False``
    every text is made into strings even when nothing is done to it (the
    reference the shortcut is tested against).
    """
    return _Decider(ctx, untouched).decide(found)


class _Decider:
    def __init__(self, ctx: Context, untouched_allowed: bool) -> None:
        self.ctx = ctx
        self.untouched_allowed = untouched_allowed
        self.singles: list[String] = []
        self.clean_ids: dict[str, bool] = {}  # id -> holds no secret

    def _masked(self, treatment: Treatment) -> bool:
        """Whether the strings of a text of this treatment are masked."""
        if treatment is Treatment.JSON_TEXT or treatment is Treatment.TEXT:
            return self.ctx.mask_text
        return treatment is Treatment.PROMPT and not self.ctx.keep_request

    def decide(self, found: Collected) -> Decided:
        """Decide every string ``found`` holds: the edits in each, and what is left as is."""
        decided = Decided(found)
        self.singles = decided.singles
        # A text nothing is done to - not masked, no secret in it (nearly every
        # text with --text keep) - keeps its fragments as bytes and offsets: no
        # string objects for its ~130,000 deltas on a 30 MB stream.
        streams = decided.streams
        for key, stream in found.fragments.items():
            if (
                self.untouched_allowed
                and not self._masked(stream.treatment)
                and stream.plain()
                and not find_encoded_secrets(stream.text())
            ):
                decided.untouched.append(stream)
                continue
            streams[key] = stream.strings()
        for strings in streams.values():
            self._secrets(strings)
            treatment = strings[0].treatment
            if treatment is Treatment.JSON_TEXT and self.ctx.mask_text:
                self._mask_json(strings)
            elif (treatment is Treatment.TEXT and self.ctx.mask_text) or (
                treatment is Treatment.PROMPT and not self.ctx.keep_request
            ):
                for string in strings:
                    self._mask_text(string)
        for string in self.singles:
            treatment = string.treatment
            if treatment is Treatment.ID:
                self._id(string)
            elif treatment is Treatment.OPAQUE:
                chars = string.chars
                if chars:
                    self.ctx.ledger.placeholders["signature"] += 1
                self._replace_whole(string, signature_placeholder(chars))
            else:
                self._secrets([string])
                if treatment is Treatment.TEXT and self.ctx.mask_text:
                    self._mask_text(string)

        for first, repeats in decided.id_repeats.values():
            if repeats and first.edited:
                # Not one blob (a secret in it, say): every copy decided on its own.
                for start in repeats:
                    string = String(first.raw, start, Treatment.ID)
                    self._id(string)
                    self.singles.append(string)
                repeats.clear()
        return decided

    def _id(self, string: String) -> None:
        # A key pasted where an id goes is removed, not given a look-alike.
        # (One id repeats in every frame: whether it holds one is asked once.)
        chars = string.chars
        clean = self.clean_ids.get(chars)
        if clean is None:
            clean = self.clean_ids[chars] = not find_encoded_secrets(chars)
        if clean or not self._secrets([string]):
            self._replace_whole(string, self.ctx.pseudonym("id", string.chars))

    def _secrets(self, strings: list[String]) -> bool:
        """Replace every secret in these strings (one text, joined); whether there was one."""
        text = "".join(s.chars for s in strings)
        matches = find_encoded_secrets(text)
        if not matches:
            return False
        where = unit_index(strings)
        for match in matches:
            self.ctx.ledger.remove_all(match.rule, match.values)
            hits = [where(g) for g in range(match.start, match.end)]
            width = sum(s.units.widths[k] for s, k in hits if s.offsets[k] >= 0)
            fill = placeholder(match.rule, width).encode("ascii")
            used = 0
            for string, k in hits:
                if string.offsets[k] < 0:
                    continue
                w = string.units.widths[k]
                string.edits[k] = fill[used : used + w]
                used += w
        return True

    def _mask_text(self, string: String) -> None:
        if string.simple and not string.edited:
            blob = string.raw.translate(_ASCII_MASK)
            if blob != string.raw:
                string.blob = blob
                self.ctx.ledger.masked[_MASK_LABEL[string.treatment]] += 1
            return
        units = string.units
        changed = False
        for k, ch in enumerate(units.chars):
            if k in string.edits or units.forms[k] == ESC:
                continue
            masked = mask_char(ch)
            if masked != ch:
                string.edits[k] = render_unit(masked, units.forms[k], units.upper[k])
                changed = True
        if changed:
            self.ctx.ledger.masked[_MASK_LABEL[string.treatment]] += 1

    def _mask_json(self, strings: list[String]) -> None:
        text = "".join(s.chars for s in strings)
        changes = mask_json_text(text)
        if not changes:
            return
        where = unit_index(strings)
        touched: set[int] = set()
        for g, ch in changes.items():
            string, k = where(g)
            if k in string.edits or string.units.forms[k] == ESC:
                continue
            string.edits[k] = render_unit(ch, string.units.forms[k], string.units.upper[k])
            touched.add(id(string))
        if touched:
            self.ctx.ledger.masked["tool-arguments"] += len(touched)

    def _replace_whole(self, string: String, new: str) -> None:
        if string.simple and not string.edited:
            blob = new.encode("utf-8", "surrogateescape")
            if len(blob) == len(string.raw):
                string.blob = blob if blob != string.raw else None
                return
        units = string.units
        for k, (old, ch) in enumerate(zip(units.chars, new, strict=True)):
            if old != ch:
                form = units.forms[k]
                if form == ESC:
                    continue  # "\/" in an id: punctuation, kept
                string.edits[k] = render_unit(ch, form, units.upper[k])
