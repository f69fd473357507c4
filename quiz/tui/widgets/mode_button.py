"""A mode's radio button whose state reads without colour."""

from __future__ import annotations

from textual.widgets import RadioButton

from quiz.tui.textual_internals import GlyphRadioButton


class ModeButton(GlyphRadioButton, RadioButton):
    """A radio button whose state reads without colour: ``●`` when chosen, blank when not
    (Textual's own shows ``●`` in both states and tells them apart by colour only)."""

    def inner_glyph(self) -> str:
        """``●`` when chosen, blank when not."""
        return "●" if self.value else " "
