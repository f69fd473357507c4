"""A yes/no confirmation dialog."""

from __future__ import annotations

from typing import Literal

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static


class ConfirmScreen(ModalScreen[bool]):
    """Ask a question; dismiss with True (confirmed) or False. ``y``/``n`` and Escape work too."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "Cancel", show=False),
    ]

    def __init__(self, question: str, *, yes: str = "Yes", no: str = "No",
                 yes_variant: Literal["error", "primary"] = "error",
                 focus_yes: bool = False) -> None:
        super().__init__()
        self.question = question
        self.yes = yes
        self.no = no
        self.yes_variant: Literal["error", "primary"] = yes_variant
        self.focus_yes = focus_yes

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            # In a scroll that fits the terminal: a long question on a small terminal keeps
            # its first lines and the buttons in view (it scrolls instead of being cut).
            with VerticalScroll(id="dialog-scroll", can_focus=False):
                yield Static(f"{self.question}\n\ny: {self.yes} · n or Esc: {self.no}",
                             id="dialog-question", markup=False)
            with Horizontal(id="dialog-buttons"):
                yield Button(self.yes, variant=self.yes_variant, id="yes")
                yield Button(self.no, variant="default" if self.focus_yes else "primary",
                             id="no")

    def on_mount(self) -> None:
        self.query_one("#yes" if self.focus_yes else "#no", Button).focus()
        self._fit()

    def on_resize(self) -> None:
        self._fit()

    def _fit(self) -> None:
        """The question's scroll is as tall as the terminal leaves room for: its border and
        padding (4 rows), the gap (1) and the buttons (3)."""
        self.query_one("#dialog-scroll").styles.max_height = max(2, self.app.size.height - 8)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, value: bool) -> None:
        """Dismiss with ``value``."""
        self.dismiss(value)
