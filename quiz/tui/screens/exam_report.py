"""The exam's score report (issue 23): score and pass/fail, time used and pauses, compact bars
per topic and difficulty, then the answer sheet — one line per question with your answer, the
key and the time spent — filtered by a key; Enter opens a question's full reveal, Esc comes
back; the missed questions can be retaken as practice or as an exam."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import DataTable, Static

from quiz.bank.terminal import cell_width
from quiz.study.exam import ExamReport
from quiz.study.mode import Mode
from quiz.tui.content import assemble, literal
from quiz.tui.messages import RetryQuestions
from quiz.tui.widgets.answer_sheet import AnswerSheet, SheetFilter
from quiz.tui.widgets.bars import clock_text, score_line
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.report_item import ReportItem
from quiz.tui.widgets.title_bar import TitleBar
from quiz.wording import plural

__all__ = ["DIFFICULTY_ORDER", "ExamReportScreen", "ReportItem", "pauses_text"]

DIFFICULTY_ORDER = ("easy", "medium", "hard", "unrated")

FILTER_KEYS = {"a": SheetFilter.ALL, "w": SheetFilter.WRONG, "f": SheetFilter.FLAGGED,
               "u": SheetFilter.UNANSWERED}


def pauses_text(report: ExamReport) -> str:
    """What the report says of the exam's timing: strict, one sitting, or its pauses."""
    if report.strict:
        return "Strict exam: the clock ran in wall time, no pause."
    if not report.pauses:
        return "Taken in one sitting: no pause."
    n = len(report.pauses)
    return (f"Paused {plural(n, 'time')} for {clock_text(report.paused_s)} in all: not a "
            "timed sitting.")


def percent_text(report: ExamReport) -> str:
    """The score as a percentage with the digits that tell it apart from the pass mark (as
    the practice summary shows it): 1 of 3 at a mark of 0.334 is 33.3%, not 33%."""
    return report.score.percents(report.pass_mark)[0]


class ExamReportScreen(Screen[None]):
    """The report of a submitted exam. ``Ctrl+N`` starts a new session."""

    BINDINGS = [
        Binding("p", "retake('practice')", "Practise missed"),
        Binding("e", "retake('exam')", "Retake as exam"),
        Binding("ctrl+n", "app.new_session", "New session"),
        Binding("ctrl+t", "app.stats", "Statistics", show=False),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
        Binding("escape", "back", "Back", show=False),
        Binding("m", "app.footprint", "Calculator", show=False),
        *(Binding(key, f"show('{which}')", which.capitalize(), show=False)
          for key, which in FILTER_KEYS.items()),
    ]

    def __init__(self, report: ExamReport, *, topic_names: dict[str, str] | None = None,
                 kept: bool = False) -> None:
        """``kept``: a report read again (from the statistics): Esc goes back there."""
        super().__init__()
        self.report = report
        self.topic_names = dict(topic_names or {})
        self.kept = kept

    def compose(self) -> ComposeResult:
        r = self.report
        s = r.score
        yield TitleBar()
        with VerticalScroll(id="report-body"):
            yield Static(assemble(("Score ", "bold"),
                                  f"{s.correct} of {s.total} right ({percent_text(r)}); "
                                  f"{s.total - s.answered} not answered"),
                         id="report-score", markup=False)
            verdict = "Pass" if r.passed else "Below the pass mark"
            yield Static(f"{verdict} (pass mark {r.score.percents(r.pass_mark)[1]})",
                         id="report-pass", classes="-pass" if r.passed else "-fail",
                         markup=False)
            ended = " — the time ran out" if r.timed_out else ""
            yield Static(f"Time used {clock_text(r.time_used_s)} of "
                         f"{clock_text(r.time_limit_s)}{ended}", id="report-time", markup=False)
            yield Static(pauses_text(r), id="report-pauses", markup=False)
            width = max([cell_width(self.topic_names.get(t, t)) for t in r.by_topic]
                        + [cell_width(d) for d in r.by_difficulty] + [10])
            width = min(width, 30)
            yield Static(literal("\n".join(
                score_line(self.topic_names.get(t, t), sc, width)
                for t, sc in r.by_topic.items())), id="report-topics", markup=False)
            diffs = sorted(r.by_difficulty, key=lambda d: DIFFICULTY_ORDER.index(d)
                           if d in DIFFICULTY_ORDER else len(DIFFICULTY_ORDER))
            yield Static(literal("\n".join(score_line(d, r.by_difficulty[d], width)
                                           for d in diffs)),
                         id="report-difficulty", markup=False)
        yield Static(id="sheet-filter", markup=False)
        yield AnswerSheet(r.items, self.topic_names, id="answer-sheet")
        yield KeyBar()

    @property
    def sheet(self) -> AnswerSheet:
        """The answer sheet."""
        return self.query_one("#answer-sheet", AnswerSheet)

    def on_mount(self) -> None:
        self.title = "Exam report"
        self.sheet.focus()
        self._say_filter()

    def _say_filter(self) -> None:
        sheet = self.sheet
        parts = []
        for key, which in FILTER_KEYS.items():
            label = f"{key} {which.capitalize()} {sheet.count(which)}"
            parts.append(f"[{label}]" if which is sheet.filter else label)
        self.query_one("#sheet-filter", Static).update(
            "Enter opens · " + " · ".join(parts))

    def action_show(self, which: str) -> None:
        """List only the questions ``which`` keeps (all, wrong, flagged, unanswered)."""
        sheet = self.sheet
        sheet.show(SheetFilter(which))
        self._say_filter()
        if not sheet.listed:
            self.notify(f"No {which} question in this exam.", markup=False)

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Enter on a row: that question's full reveal; Esc comes back here."""
        from quiz.tui.screens.exam_reveal import ExamRevealScreen

        event.stop()
        sheet = self.sheet
        listed = [sheet.items[i] for i in sheet.listed]
        index = sheet.listed.index(int(str(event.row_key.value)))
        self.app.push_screen(ExamRevealScreen(listed, index))

    def missed_ids(self) -> tuple[str, ...]:
        """The questions answered wrongly or not answered, in exam order."""
        return tuple(it.shown.question.id for it in self.sheet.items if not it.correct)

    def action_retake(self, mode: str) -> None:
        """Retake the missed questions as practice or as an exam."""
        missed = self.missed_ids()
        if not missed:
            self.notify("Every question was right: nothing to retake.", markup=False)
            return
        self.app.post_message(RetryQuestions(missed, Mode(mode)))

    def action_back(self) -> None:
        """Back: to the statistics for a report read again, else to the start screen."""
        if self.kept:
            self.dismiss(None)
        else:
            self.app.action_new_session()  # type: ignore[attr-defined]
