"""The summary: score, pass mark, per-topic scores, what was missed."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from quiz.bank.terminal import terminal_safe
from quiz.study.session import StudySession
from quiz.tui.content import assemble, literal
from quiz.tui.messages import RetryQuestions


class SummaryScreen(Screen[None]):
    """Score and per-topic breakdown of a session; start over or retry what was missed."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "retry_missed", "Retry missed"),
        Binding("ctrl+n", "app.new_session", "New session"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
    ]

    def __init__(self, session: StudySession, *, pass_mark: float | None = None) -> None:
        super().__init__()
        self.session = session
        self.pass_mark = pass_mark

    def compose(self) -> ComposeResult:
        s = self.session
        score = s.score
        yield Header()
        with VerticalScroll(id="summary-body"):
            pct = f" ({score.fraction:.0%})" if score.answered else ""
            unanswered = score.total - score.answered
            yield Static(
                assemble(("Score ", "bold"), f"{score.correct} right of {score.answered} "
                         f"answered{pct}" + (f"; {unanswered} of {score.total} not answered yet"
                                             if unanswered else f"; all {score.total} answered")),
                id="summary-score", markup=False,
            )
            if self.pass_mark is not None and s.finished:
                passed = score.fraction >= self.pass_mark
                yield Static(
                    f"{'Pass' if passed else 'Below the pass mark'} "
                    f"(pass mark {self.pass_mark:.0%})",
                    id="summary-pass", classes="-pass" if passed else "-fail", markup=False,
                )
            table = Table(title=None, header_style="bold", expand=False)
            table.add_column("Topic")
            table.add_column("Right", justify="right")
            table.add_column("Answered", justify="right")
            table.add_column("Questions", justify="right")
            for topic, t in s.score_by_topic().items():
                table.add_row(Text(terminal_safe(s.topic_names.get(topic, topic))),
                              str(t.correct), str(t.answered), str(t.total))
            yield Static(table, id="summary-topics")
            missed = s.missed_ids()
            if missed:
                yield Static("To review", classes="section-title", markup=False)
                lines = []
                for shown in s.shown:
                    if shown.question.id in missed:
                        out = s.outcome(shown)
                        state = "wrong" if out else "unanswered"
                        first = shown.question.stem.strip().split("\n")[0]
                        if cell_len(first) > 90:  # terminal cells: a CJK character takes two
                            first = set_cell_size(first, 89).rstrip() + "…"
                        lines.append(f"{shown.number:>3}. ({state}) {first}")
                yield Static(literal("\n".join(lines)), id="summary-missed", markup=False)
                yield Static("r retries these; Ctrl+N starts a new session.", markup=False,
                             classes="hint")
            else:
                yield Static("Nothing missed. Ctrl+N starts a new session.", markup=False,
                             classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Summary"

    def action_back(self) -> None:
        """Return to the questions."""
        self.dismiss(None)

    def action_retry_missed(self) -> None:
        """Start a session with only the questions answered wrongly or left unanswered."""
        missed = self.session.missed_ids()
        if not missed:
            self.notify("Nothing to retry: every question was answered right.", markup=False)
            return
        self.post_message(RetryQuestions(missed))
