"""The exam's question map and its review-before-submit list.

A grid with one cell per question (answered, unanswered, flagged, current); choosing one jumps
there. Opened to submit, it first warns about unanswered questions and lists the flagged ones,
with a Submit button.

The summary and the grid are one line-API widget (:class:`MapView`, a
:class:`~quiz.tui.widgets.document.Document`): a widget per question made opening the map of a
65-question exam cost about 170 × K (issue 13).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from quiz.study.exam import ExamSession
from quiz.tui.widgets.map_view import (
    MapView,
)

SUBMIT = -1
"""What the map returns when the student submits the exam."""














class ExamMapScreen(ModalScreen[int | None]):
    """Dismisses with a 0-based question position to jump to, :data:`SUBMIT`, or ``None``
    (back to the exam)."""

    BINDINGS = [
        Binding("escape", "back", "Back to the exam"),
        Binding("l", "back", "Back", show=False),
    ]

    def __init__(self, exam: ExamSession, *, submitting: bool = False) -> None:
        super().__init__()
        self.exam = exam
        self.submitting = submitting

    def compose(self) -> ComposeResult:
        with Vertical(id="exam-map"):
            title = "Review before submitting" if self.submitting else "Question map"
            yield Static(title, id="map-title", markup=False)
            # The summary and the grid scroll between the title and the buttons, so Submit
            # and Back stay in view however many questions the exam has.
            yield MapView(self.exam, submitting=self.submitting, id="map-view")
            with Horizontal(id="map-actions"):
                if self.submitting:
                    yield Button("Submit exam", id="map-submit", variant="error")
                yield Button("Back to the exam", id="map-back", variant="primary")

    def on_mount(self) -> None:
        if self.submitting:
            self.query_one("#map-submit", Button).focus()
        else:
            self.query_one("#map-view", MapView).focus()

    def on_map_view_chosen(self, message: MapView.Chosen) -> None:
        self.dismiss(message.position)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "map-submit":
            self.dismiss(SUBMIT)
        elif event.button.id == "map-back":
            self.dismiss(None)

    def action_back(self) -> None:
        """Back to the exam."""
        self.dismiss(None)
