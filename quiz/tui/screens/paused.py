"""The exam's pause: an opaque screen over the question while the clock is stopped (issue 23)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from quiz.tui.widgets.bars import clock_text


class PausedScreen(ModalScreen[None]):
    """Hides the exam's question while its clock is stopped; ``t``, Enter or Esc go on (the
    exam screen starts the clock again when this closes). The report counts the pause."""

    DEFAULT_CSS = """
    PausedScreen {
        align: center middle;
        background: $background;
    }
    PausedScreen > #paused {
        width: auto;
        max-width: 90%;
        height: auto;
        text-align: center;
    }
    """

    BINDINGS = [
        Binding("t,enter,escape", "go_on", "Go on"),
        Binding("q", "app.request_quit", "Quit"),
    ]

    def __init__(self, remaining_s: float) -> None:
        super().__init__()
        self.remaining_s = remaining_s

    def compose(self) -> ComposeResult:
        yield Static(f"Paused: the clock is stopped with {clock_text(self.remaining_s)} left "
                     "and the question is hidden.\n\nPress t or Enter to go on. The report "
                     "will say the exam was paused.", id="paused", markup=False)

    def action_go_on(self) -> None:
        """Back to the exam; its clock runs again."""
        self.dismiss(None)
