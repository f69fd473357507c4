"""The summary: score, pass mark, per-topic scores, and the questions to review."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding

from quiz.study.score import Score
from quiz.study.session import StudySession
from quiz.tui.messages import OpenQuestion, RetryQuestions
from quiz.tui.screens.reshown import ReshownScreen
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.summary_view import SummaryView
from quiz.tui.widgets.title_bar import TitleBar


class SummaryScreen(ReshownScreen):
    """Score and per-topic breakdown of a session, the first attempt's score beside a retry's,
    and the questions missed: each entry opens its question; ``r`` retries them all.

    The body is one :class:`~quiz.tui.widgets.summary_view.SummaryView`: showing a summary
    sets its blocks and lays out nothing but the screen switch itself (issue 13)."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("r", "retry_missed", "Retry missed"),
        Binding("ctrl+n", "app.new_session", "New session"),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
    ]

    def __init__(self, session: StudySession | None = None, *,
                 pass_mark: float | None = None, first_attempt: Score | None = None) -> None:
        """``first_attempt``: the score of the session this one retries (its first attempt),
        shown beside this one; the pass verdict then belongs to the first attempt. Without a
        ``session`` the screen is made ahead of time and shows nothing until :meth:`show`."""
        super().__init__()
        self.session = session
        self.pass_mark = pass_mark
        self.first_attempt = first_attempt

    def compose(self) -> ComposeResult:
        # Opening the summary again (the app keeps this screen) composes nothing: show()
        # gives the body its blocks.
        yield TitleBar()
        yield SummaryView(id="summary-body")
        yield KeyBar()

    @property
    def view(self) -> SummaryView:
        """The summary's body."""
        return self.query_one("#summary-body", SummaryView)

    def show(self, session: StudySession, *, pass_mark: float | None = None,
             first_attempt: Score | None = None) -> None:
        """Fill the screen with the summary of ``session`` as it stands now (see
        :meth:`__init__`), scrolled to the top, the first entry to review highlighted."""
        self.session, self.pass_mark, self.first_attempt = session, pass_mark, first_attempt
        view = self.view
        view.show(session, pass_mark=pass_mark, first_attempt=first_attempt)
        if not view.has_focus:
            view.focus(scroll_visible=False)

    def on_mount(self) -> None:
        self.title = "Summary"
        if self.session is not None:
            self.show(self.session, pass_mark=self.pass_mark, first_attempt=self.first_attempt)

    def on_summary_view_entry_chosen(self, message: SummaryView.EntryChosen) -> None:
        """Open the chosen question, with its reveal if it was answered."""
        self.post_message(OpenQuestion(message.position))

    def action_back(self) -> None:
        """Return to the questions."""
        self.dismiss(None)

    def action_retry_missed(self) -> None:
        """Start a session with only the questions answered wrongly or left unanswered."""
        missed = self.session.missed_ids() if self.session is not None else ()
        if not missed:
            self.notify("Nothing to retry: every question was answered right.", markup=False)
            return
        self.post_message(RetryQuestions(missed))
