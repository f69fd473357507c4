"""Shown instead of the app while the terminal is smaller than it can be used in."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from quiz.tui.screens import MIN_COLUMNS, MIN_ROWS


def notice(width: int, height: int) -> str:
    """The notice for a ``width`` × ``height`` terminal, as much of it as fits whole; an empty
    string when not even its first line fits (a blank screen rather than fragments)."""
    wanted = f"at least {MIN_COLUMNS}×{MIN_ROWS}"
    candidates = [
        f"Make the window larger\nto use quiz: it needs\n{wanted};\nit is {width}×{height} now.",
        f"Make the window larger\n({wanted}).",
        "Make the window larger",
        "Too small",
    ]
    for text in candidates:
        lines = text.split("\n")
        if len(lines) <= height and max(len(line) for line in lines) <= width:
            return text
    return ""


class TooSmallScreen(ModalScreen[None]):
    """Covers the app while the terminal is below :data:`MIN_COLUMNS` × :data:`MIN_ROWS`; the
    app dismisses it when the window is enlarged, and everything is back as it was. Keys do
    nothing meanwhile (Ctrl+Q still quits)."""

    DEFAULT_CSS = """
    TooSmallScreen {
        align: center middle;
        background: $background;
    }
    TooSmallScreen > #too-small {
        width: auto;
        height: auto;
        text-align: center;
    }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="too-small", markup=False)

    def on_resize(self) -> None:
        self.query_one("#too-small", Static).update(notice(self.size.width, self.size.height))
