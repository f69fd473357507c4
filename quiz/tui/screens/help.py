"""The key help."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

HELP_TEXT = """\
Answering
  A–H or 1–8      choose that option (multiple response: toggle it)
  ↑ ↓ then Enter  choose the highlighted option
  Space           toggle the highlighted option (multiple response)
  Enter           submit the chosen options (multiple response)
  click           choose (or toggle) an option

After the answer
  n  →  Enter     next question
  p  ←            previous question
  ↑ ↓ PgUp PgDn   scroll the explanations
  s               summary: score so far, per topic

Anywhere
  m               memory (footprint) calculator (from a question: its worked example)
  ?               this help
  Ctrl+P          command palette (start over, summary, calculator, quit…)
  q  Esc  Ctrl+Q  quit (asks first)

Press Esc or ? to close."""


class HelpScreen(ModalScreen[None]):
    """The list of keys. Escape, ``?`` or ``q`` closes it."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("question_mark", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static("Keys", id="help-title", markup=False)
            yield Static(HELP_TEXT, id="help-text", markup=False)

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)
