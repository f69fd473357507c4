"""The exam's question map and its review-before-submit list.

A grid with one button per question (answered, unanswered, flagged, current); choosing one
jumps there. Opened to submit, it first warns about unanswered questions and lists the flagged
ones, with a Submit button.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from quiz.study.exam import ExamSession

SUBMIT = -1
"""What the map returns when the student submits the exam."""


SHOWN_NUMBERS = 15
"""At most this many question numbers are listed in a warning; the rest are counted (the map
below shows every one)."""


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:SHOWN_NUMBERS])
    rest = len(numbers) - SHOWN_NUMBERS
    return f"{shown} and {rest} more" if rest > 0 else shown


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
        exam = self.exam
        with Vertical(id="exam-map"):
            title = "Review before submitting" if self.submitting else "Question map"
            yield Static(title, id="map-title", markup=False)
            unanswered, flagged = exam.unanswered(), exam.flagged()
            # The legend on a line of its own: it fits the 76 columns of the map whole.
            lines = [f"{len(exam.answers)} of {exam.total} answered · {len(flagged)} flagged",
                     "● answered  ○ unanswered  ⚑ flagged"]
            if self.submitting:
                if unanswered:
                    n = len(unanswered)
                    lines.append(f"Warning: {n} question{'s' * (n != 1)} not answered "
                                 f"({_numbers(unanswered)}); each counts as wrong.")
                else:
                    lines.append("Every question is answered.")
                if flagged:
                    lines.append(f"Flagged for review: {_numbers(flagged)}.")
            # The warning and the grid scroll between the title and the buttons, so Submit
            # and Back stay in view however many questions the exam has.
            with VerticalScroll(id="map-body", can_focus=False):
                yield Static("\n".join(lines), id="map-summary", markup=False,
                             classes="-warn" if self.submitting and unanswered else "")
                with Grid(id="map-grid"):
                    for cell in exam.question_map():
                        mark = ("⚑" if cell.flagged else "") + ("●" if cell.answered else "○")
                        classes = " ".join(c for c, on in (("-answered", cell.answered),
                                                           ("-flagged", cell.flagged),
                                                           ("-current", cell.current)) if on)
                        yield Button(f"{cell.number}{mark}", id=f"map-{cell.number}",
                                     classes=f"map-cell {classes}".strip(), compact=True)
            with Horizontal(id="map-actions"):
                if self.submitting:
                    yield Button("Submit exam", id="map-submit", variant="error")
                yield Button("Back to the exam", id="map-back", variant="primary")

    def on_mount(self) -> None:
        if self.submitting:
            self.query_one("#map-submit", Button).focus()
        else:
            self.query_one(f"#map-{self.exam.position + 1}", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        button_id = event.button.id or ""
        if button_id == "map-submit":
            self.dismiss(SUBMIT)
        elif button_id == "map-back":
            self.dismiss(None)
        elif button_id.startswith("map-"):
            self.dismiss(int(button_id.removeprefix("map-")) - 1)

    def action_back(self) -> None:
        """Back to the exam."""
        self.dismiss(None)
