"""The footer: the screen's keys in the order the screen declares them, whatever the keymap.

Textual's :class:`~textual.widgets.Footer` lists keys in the order they are
bound, and a keymap rebinds a key by removing it and adding it back — at the
end, where a narrow terminal cuts it off. This footer orders the keys by the
binding's place in the screen's ``BINDINGS`` (by id), so help and quit, which
the main screen declares first, stay at the left edge on any terminal and
under any keymap.
"""

from __future__ import annotations

from collections.abc import Iterator

from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Footer, Input
from textual.widgets._footer import FooterKey

__all__ = ["KeysFooter", "declared_order"]


def declared_order(bindings: list[Binding]) -> dict[str, int]:
    """Each binding id's place in a ``BINDINGS`` list."""
    return {binding.id: i for i, binding in enumerate(bindings) if binding.id}


def _shows_keys(widget: Input) -> bool:
    return any(isinstance(b, Binding) and b.show for b in type(widget).BINDINGS)


class KeysFooter(Footer):
    """A :class:`Footer` whose keys keep the screen's declared order (see the module)."""

    def _shown(self) -> Iterator[tuple[Binding, bool, str]]:
        """One (binding, enabled, tooltip) per action shown, in declared order.

        While a prompt (a search or go-to bar) has the focus, only its own keys:
        what is typed goes into it, so the screen's letter keys do not apply.
        """
        focused = self.screen.focused
        prompt = focused if isinstance(focused, Input) and _shows_keys(focused) else None
        owner = type(self.screen) if prompt is None else type(prompt)
        order = declared_order([b for b in owner.BINDINGS if isinstance(b, Binding)])
        per_action: dict[str, tuple[Binding, bool, str]] = {}
        for node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.show and (prompt is None or node is prompt):
                per_action.setdefault(binding.action, (binding, enabled, tooltip))
        last = len(order)
        yield from sorted(per_action.values(), key=lambda shown: order.get(shown[0].id or "", last))

    def compose(self) -> ComposeResult:
        """The keys, then the command palette's key on the right (as Textual's footer)."""
        if not self._bindings_ready:
            return
        shown = list(self._shown())
        self.styles.grid_size_columns = len(shown)
        for binding, enabled, tooltip in shown:
            yield FooterKey(
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                disabled=not enabled,
                tooltip=tooltip or binding.tooltip,
            ).data_bind(compact=Footer.compact)
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            palette = self.screen.active_bindings.get(self.app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _node, binding, enabled, _tooltip = palette
                yield FooterKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    classes="-command-palette",
                    disabled=not enabled,
                    tooltip=binding.tooltip or binding.description,
                )
