"""The panel that lists a reload's problems, each at its ``path:line:col``."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from quiz.bank.library import Diagnostic
from quiz.bank.terminal import terminal_safe


class BankProblemsScreen(ModalScreen[None]):
    """Every problem found while reloading the banks, one per line as ``path:line:col:
    severity: message``, under a line that says the questions already loaded are kept.
    Escape, Enter or ``q`` closes it; the text is scrollable."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("enter", "close", "Close", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__()
        self.diagnostics = diagnostics

    def compose(self) -> ComposeResult:
        errors = sum(d.severity == "error" for d in self.diagnostics)
        with VerticalScroll(id="problems-dialog"):
            yield Static(f"The banks were not reloaded: {errors} error"
                         f"{'s' * (errors != 1)}", id="problems-title", markup=False)
            yield Static("The questions loaded before are kept. Fix these, save, then press r "
                         "again (quiz validate PATH prints the same list).",
                         id="problems-advice", markup=False)
            for diag in self.diagnostics:
                yield Static(terminal_safe(str(diag)), markup=False,
                             classes=f"problem -{diag.severity}")
            yield Static("Press Esc to close.", id="problems-close", markup=False)

    def on_mount(self) -> None:
        self.query_one("#problems-dialog", VerticalScroll).focus()  # arrows and PgDn scroll

    def action_close(self) -> None:
        """Close the panel."""
        self.dismiss(None)
