"""The statistics dashboard: accuracy per topic with its trend, questions seen, mastered and
due, leeches, and recent sessions with the exam history as bars and a sparkline."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from quiz.bank.library import Library
from quiz.bank.terminal import cell_width
from quiz.study.stats import Stats, compute, status_words
from quiz.study.store import Store, damage_text
from quiz.tui.content import assemble, literal
from quiz.tui.widgets.bars import bar, fit_label, sparkline
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.title_bar import TitleBar
from quiz.wording import plural

RECENT_SESSIONS = 10
"""Sessions listed on the dashboard (``quiz stats`` lists all)."""


class StatsScreen(Screen[None]):
    """Progress at a glance, computed from the store when opened."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("e", "app.exam_report", "Exam reports"),
        Binding("ctrl+n", "app.new_session", "New session"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
    ]

    def __init__(self, store: Store, library: Library, *, now: datetime) -> None:
        super().__init__()
        self.stats: Stats = compute(store, library, now)
        self.damage: str | None = damage_text(store) if store.damage else None
        """The damaged rows of the progress file skipped while computing, said on the page
        (the figures would otherwise fall short without a word)."""

    def compose(self) -> ComposeResult:
        st = self.stats
        yield TitleBar()
        with VerticalScroll(id="stats-body"):
            yield Static(assemble(("Questions ", "bold"),
                                  f"{st.seen} of {st.questions} seen · {st.mastered} mastered "
                                  f"· {st.due} due today · {plural(st.answers, 'answer')} "
                                  "given"),
                         id="stats-overview", markup=False)
            if self.damage:
                yield Static(literal(self.damage), id="stats-damage", markup=False)
            yield Static("Accuracy per topic (trend: one mark per session, oldest first)",
                         classes="section-title", markup=False)
            # One line per topic at 80 columns (the page's padding and scrollbar take 3): name
            # (18 at most), bar, accuracy, the last 6 sessions' trend, then seen / mastered /
            # due, 75-77 cells.
            width = min(18, max([cell_width(t.name) for t in st.topics] + [5]))
            lines = []
            for t in st.topics:
                acc = f"{t.accuracy:>4.0%}" if t.answered else "   –"
                lines.append(f"{fit_label(t.name, width)}  {bar(t.accuracy, 10)} {acc}  "
                             f"{sparkline(t.trend[-6:]):<6}  {t.seen}/{t.questions} seen · "
                             f"{t.mastered} mastered · {t.due} due")
            yield Static(literal("\n".join(lines) or "No questions."), id="stats-topics",
                         markup=False)
            yield Static("Leeches (missed again and again)", classes="section-title",
                         markup=False)
            leeches = "\n".join(f"{x.question_id}: missed {x.wrong}, right {x.right} — {x.stem}"
                                for x in st.leeches)
            yield Static(literal(leeches or "None: no question was missed 4 times or more."),
                         id="stats-leeches", markup=False)
            exams = [s for s in reversed(st.sessions) if s.mode == "exam" and s.answered]
            yield Static("Exam history", classes="section-title", markup=False)
            if exams:
                history = [f"{sparkline([e.score for e in exams])}  (oldest → newest)"]
                history += [f"{e.started_at}  {bar(e.score, 16)} {e.score:>4.0%}  "
                            f"{e.correct}/{e.total}  "
                            f"{'pass' if e.passed else 'below the mark'}"
                            for e in exams[-RECENT_SESSIONS:]]
                text = "\n".join(history)
            else:
                text = "No exam yet: choose Exam on the start screen, or run quiz exam."
            yield Static(literal(text), id="stats-exams", markup=False)
            yield Static("Recent sessions", classes="section-title", markup=False)
            recent = [f"{s.started_at}  {s.mode:<8} {bar(s.score, 12)} "
                      f"{s.correct}/{s.answered if s.mode != 'exam' else s.total}"
                      + ("" if s.status == "finished" else f"  ({status_words(s.status)})")
                      for s in st.sessions[:RECENT_SESSIONS]]
            yield Static(literal("\n".join(recent) or "No session yet."), id="stats-sessions",
                         markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self.title = "Statistics"

    def action_back(self) -> None:
        """Back to where the dashboard was opened."""
        self.dismiss(None)
