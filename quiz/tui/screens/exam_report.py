"""The exam's score report: score and pass/fail, time used, bars per topic and difficulty, then
every question with its full reveal — flagged and wrong ones first."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from quiz.bank.terminal import cell_width
from quiz.study.exam import ExamItem, ExamReport
from quiz.tui.content import assemble, literal
from quiz.tui.widgets.bars import clock_text, score_line
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.report_item import ReportItem
from quiz.tui.widgets.title_bar import TitleBar

DIFFICULTY_ORDER = ("easy", "medium", "hard", "unrated")







class ExamReportScreen(Screen[None]):
    """The report of a submitted exam. ``Ctrl+N`` starts a new session."""

    BINDINGS = [
        Binding("ctrl+n", "app.new_session", "New session"),
        Binding("ctrl+t", "app.stats", "Statistics"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
        Binding("escape", "app.new_session", "Back", show=False),
        Binding("pageup", "scroll(-1)", "Page up", show=False),
        Binding("pagedown", "scroll(1)", "Page down", show=False),
    ]

    def __init__(self, report: ExamReport, *, topic_names: dict[str, str] | None = None) -> None:
        super().__init__()
        self.report = report
        self.topic_names = dict(topic_names or {})

    def compose(self) -> ComposeResult:
        r = self.report
        s = r.score
        yield TitleBar()
        with VerticalScroll(id="report-body"):
            yield Static(assemble(("Score ", "bold"),
                                  f"{s.correct} of {s.total} right ({r.fraction:.0%}); "
                                  f"{s.total - s.answered} not answered"),
                         id="report-score", markup=False)
            verdict = "Pass" if r.passed else "Below the pass mark"
            yield Static(f"{verdict} (pass mark {r.pass_mark:.0%})", id="report-pass",
                         classes="-pass" if r.passed else "-fail", markup=False)
            ended = " — the time ran out" if r.timed_out else ""
            yield Static(f"Time used {clock_text(r.time_used_s)} of "
                         f"{clock_text(r.time_limit_s)}{ended}", id="report-time", markup=False)
            width = max([cell_width(self.topic_names.get(t, t)) for t in r.by_topic]
                        + [cell_width(d) for d in r.by_difficulty] + [10])
            width = min(width, 30)
            yield Static("By topic", classes="section-title", markup=False)
            yield Static(literal("\n".join(
                score_line(self.topic_names.get(t, t), sc, width)
                for t, sc in r.by_topic.items())), id="report-topics", markup=False)
            yield Static("By difficulty", classes="section-title", markup=False)
            diffs = sorted(r.by_difficulty, key=lambda d: DIFFICULTY_ORDER.index(d)
                           if d in DIFFICULTY_ORDER else len(DIFFICULTY_ORDER))
            yield Static(literal("\n".join(score_line(d, r.by_difficulty[d], width)
                                           for d in diffs)),
                         id="report-difficulty", markup=False)
            yield Static("Every question (flagged and wrong first)", classes="section-title",
                         markup=False)
            for item in r.items:
                yield self._item(item)
        yield KeyBar()

    @staticmethod
    def _item(item: ExamItem) -> ReportItem:
        shown = item.shown
        return ReportItem(item, classes="report-item " + ("-right" if item.correct else "-wrong"),
                          id=f"report-q{shown.number}")

    def on_mount(self) -> None:
        self.title = "Exam report"
        self.query_one("#report-body", VerticalScroll).focus()

    def action_scroll(self, pages: int) -> None:
        """Scroll by a page."""
        body = self.query_one("#report-body", VerticalScroll)
        (body.scroll_page_down if pages > 0 else body.scroll_page_up)(animate=False)
