"""Choose which submitted exam's report to read again (from the statistics): every exam
submitted from the banks loaded, newest first, with its date, score and verdict. Enter opens
the one highlighted; Esc closes the list."""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from quiz.study.stats import SessionRow, clock_text
from quiz.tui.content import literal
from quiz.tui.widgets.bars import bar

PICK_TITLE = "Exam reports, newest first · Enter opens · Esc closes"
"""Above the list, so how to choose and how to leave are always in view."""


def exam_label(row: SessionRow) -> str:
    """One exam as the list shows it: ``2026-03-02 09:00  ████████░░░░ 67%  4/6  pass  0:40``
    (the date in local time, the bar and percentage of right over all questions, the verdict
    against the exam's pass mark, the time used)."""
    verdict = "pass" if row.passed else "below the mark"
    used = f"  {clock_text(row.seconds)}" if row.seconds is not None else ""
    return (f"{row.started_at}  {bar(row.score, 12)} {row.score:>4.0%}  "
            f"{row.correct}/{row.total}  {verdict}{used}")


class ExamPickScreen(ModalScreen[int | None]):
    """The list of submitted exams; dismissed with the chosen exam's session id, or ``None``
    (Esc)."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
    ]
    DEFAULT_CSS = """
    ExamPickScreen { align: center middle; }
    #exam-pick {
        width: 76;
        max-width: 100%;
        height: auto;
        max-height: 100%;
        border: thick $primary 80%;
        background: $surface;
        padding: 0 1;
    }
    #exam-pick-title { width: 100%; text-style: bold; }
    #exam-pick-list { height: auto; max-height: 18; border: none; padding: 0; }
    """

    def __init__(self, rows: Sequence[SessionRow]) -> None:
        """``rows``: the exams to offer, in the order listed (newest first)."""
        super().__init__()
        self.rows = list(rows)

    def compose(self) -> ComposeResult:
        with Vertical(id="exam-pick"):
            yield Static(PICK_TITLE, id="exam-pick-title", markup=False)
            yield OptionList(*(Option(literal(exam_label(row)), id=str(row.id))
                               for row in self.rows), id="exam-pick-list")

    def on_mount(self) -> None:
        picks = self.query_one("#exam-pick-list", OptionList)
        picks.highlighted = 0
        picks.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Enter (or a click) on an exam: open its report."""
        event.stop()
        self.dismiss(int(str(event.option.id)))

    def action_close(self) -> None:
        """Close the list without opening a report."""
        self.dismiss(None)
