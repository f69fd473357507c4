"""The question screen: progress, stem, options; after the answer, the reveal.

On this screen the letters A–H and digits 1–8 belong to the options (the
:class:`~quiz.tui.widgets.question_view.QuestionView` widget takes them), so no action key here
is a letter from A to H (next is ``n``, previous ``p``, quit ``q``, help ``?``).

The body — stem, hint line, options and reveal — is that one line-API widget: a key press
redraws the few blocks it changes, not a layout of dozens of widgets (issue 13).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding

from quiz.study.scheduling import RATING_NAMES
from quiz.study.session import StudySession
from quiz.study.shown import Outcome, SessionError, ShownQuestion
from quiz.tui.content import literal
from quiz.tui.screens.question_keys import QUESTION_BINDINGS, QuestionKeys
from quiz.tui.screens.reshown import ReshownScreen
from quiz.tui.textual_internals import event_clock  # the clock of key events (Message.time)
from quiz.tui.widgets.document import Runs
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.question_view import QuestionView
from quiz.tui.widgets.status_line import StatusLine
from quiz.tui.widgets.title_bar import TitleBar

REPEAT_GUARD = 0.35
"""Seconds after a reveal appears during which Enter does not move on: a held or bounced Enter,
or one typed before the reveal was drawn, must not skip it. Each ignored Enter extends the
guard, so a held key never gets through; a fresh press after release does."""


class QuestionScreen(QuestionKeys, ReshownScreen):
    """Asks the session's questions one at a time and reveals each answer's explanations."""

    BINDINGS = [
        Binding("n", "next", "Next"),
        Binding("p", "previous", "Previous"),
        Binding("s", "app.summary", "Summary"),
        Binding("r", "flag", "Flag"),
        # Shown after a rated answer (the keys themselves are taken in _step_for).
        Binding("1,2,3,4", "rate_key", "Rate", key_display="1–4"),
        # Undo and the calculator still work (the help lists them; the hint line says u Undo
        # after an answer): the keys above, Help and Quit are what fit at 80 columns.
        Binding("u", "undo", "Undo", show=False),
        Binding("escape", "back", "Back", show=False),
        *(b for b in QUESTION_BINDINGS if b.key != "escape"),
        Binding("m", "app.footprint", "Calculator", show=False),
    ]

    def __init__(self, session: StudySession | None = None) -> None:
        """Without a ``session`` the screen is made ahead of time (composed while the app
        waits) and shows nothing until :meth:`begin` gives it one."""
        super().__init__()
        self._session = session
        self._ticks_by_question: dict[str, frozenset[str]] = {}
        """Ticks of unsubmitted multiple-response questions, kept while the student browses."""
        self._input_lock = asyncio.Lock()
        self._enter_guard_until = 0.0
        self._from_summary = False
        """The question was opened from the summary's list: Esc goes back there."""
        self._rate_shown = False
        """Rate is shown in the key bar (see :meth:`_show_rate_key`)."""

    @property
    def session(self) -> StudySession:
        """The session shown. Raises ``RuntimeError`` before :meth:`begin` gave one."""
        if self._session is None:
            raise RuntimeError("this question screen has no session yet")
        return self._session

    async def begin(self, session: StudySession) -> None:
        """Show ``session`` from its current question, on this screen as it stands (made
        ahead of time, or left by the session before): what the last session left here
        (ticks, the Enter guard) is cleared first."""
        self._session = session
        self._ticks_by_question = {}
        self._enter_guard_until = 0.0
        self._from_summary = False
        await self.show_question()

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield StatusLine(id="status")
        yield QuestionView(id="body")
        yield KeyBar()

    async def on_mount(self) -> None:
        # The header shows the app's title: the bank title, made terminal-safe once by the app.
        if self._session is not None:
            await self.show_question()

    @property
    def view(self) -> QuestionView:
        """The body: stem, hint line, options and reveal."""
        return self.query_one("#body", QuestionView)

    # -- drawing ----------------------------------------------------------------------------
    async def show_question(self) -> None:
        """Draw the current question: answered ones with their reveal, others without."""
        shown = self.session.current
        outcome = self.session.outcome()
        # A notification from the screen before (the start screen's) never sits over a question.
        self.app.clear_notifications()
        self._draw_status()
        view = self.view
        view.show(shown, hint=self._hint(outcome),
                  ticked=self._ticks_by_question.get(shown.question.id, ()), outcome=outcome,
                  rating=self._rating_line())
        if self.focused is not view:
            view.focus()
        self._show_rate_key()

    def _draw_status(self) -> None:
        shown = self.session.current
        score = self.session.score
        q = shown.question
        # The topic name, the only part of any length, comes last: a narrow status line ends
        # it with an ellipsis (CSS text-overflow) and keeps the number and difficulty whole.
        parts = [f"Question {shown.number}/{shown.total}"]
        if self.session.mode != "practice":
            parts.insert(0, self.session.mode.capitalize())
        if q.id in self.session.flags:
            parts.append("⚑ flagged")
        if q.difficulty:
            parts.append(q.difficulty)
        parts.append(self.session.topic_names.get(q.topic, q.topic))
        # One line of fixed size: a new text needs no layout of the screen.
        self.query_one("#status", StatusLine).show(
            literal(" · ".join(parts), "bold"), f"Score {score.correct}/{score.answered}")

    def _show_hint(self, warning: str | None = None) -> None:
        """The line above the options: what to do now, or why the last key did nothing.
        It sits in the page, so it never covers the options the way a notification would."""
        if warning is not None:
            self.view.set_hint((warning,), warning=True)
        else:
            self.view.set_hint(self._hint(self.session.outcome()))

    def prepare(self, shown: ShownQuestion) -> None:
        """Draw ``shown`` (a session's first question) now, while the start screen waits:
        Enter then shows it without drawing it (:meth:`QuestionView.prepare`)."""
        self.view.prepare(shown, hint=question_hint(shown))

    def _hint(self, outcome: Outcome | None) -> Runs:
        shown = self.session.current
        if outcome is not None:
            last = "s Summary" if self.session.at_last else "n Next"
            return (("Answered. ", "bold"), f"{last} · p Previous · ↑↓ scroll · u Undo")
        return question_hint(shown)

    def _rating_line(self) -> Runs | None:
        """Under the verdict, in view after the answer: the rating given and the keys that
        change it (issue 23); ``None`` for an answer that moves no schedule."""
        rating = self.session.ratings.get(self.session.current.question.id)
        if rating is None or self.session.outcome() is None:
            return None
        return (("rated ", ""), (RATING_NAMES[rating], "bold"),
                " · change it: 1 Again · 2 Hard · 3 Good · 4 Easy")

    # -- answering --------------------------------------------------------------------------
    async def on_question_view_answered(self, message: QuestionView.Answered) -> None:
        try:
            async with self._input_lock:
                await self._answer(message.letters)
        finally:
            message.control.settled()

    def on_question_view_ticked(self, message: QuestionView.Ticked) -> None:
        self._ticks_by_question[self.session.current.question.id] = message.letters
        self._show_hint()
        message.control.settled()

    def on_question_view_highlighted(self, message: QuestionView.Highlighted) -> None:
        self._show_hint()
        message.control.settled()

    async def _answer(self, letters: frozenset[str]) -> None:
        try:
            outcome = self.session.answer(letters)
        except SessionError as exc:
            self.view.redraw_options()
            self._show_hint(str(exc))
            return
        self._ticks_by_question.pop(outcome.shown.question.id, None)
        self._draw_status()
        view = self.view
        # The verdict scrolled to the top, the rating line under it.
        view.reveal(outcome, hint=self._hint(outcome), rating=self._rating_line())
        self._enter_guard_until = event_clock() + REPEAT_GUARD
        self._show_rate_key()

    # -- keys (QuestionKeys.on_key runs these steps, in order, under the input lock) -------------
    def _step_for(self, event: events.Key) -> Callable[[], Awaitable[None]] | None:
        answered = self.session.outcome() is not None
        if event.key == "enter":
            if not answered:
                return None
            if event.time < self._enter_guard_until:
                # A repeat, a bounce or a key typed before the reveal was drawn.
                self._enter_guard_until = max(self._enter_guard_until,
                                              event.time + REPEAT_GUARD)
                event.stop()
                return None
            return self._next
        steps: dict[str, Callable[[], Awaitable[None]]] = {
            "n": self._next, "right": self._next, "p": self._previous, "left": self._previous,
            "u": self._undo, "r": self._flag,
        }
        if answered:
            steps |= {"up": self._scroll_line_up, "down": self._scroll_line_down}
            if self.session.current.question.id in self.session.ratings:
                # After the reveal the options take no keys: 1–4 re-rate the answer.
                steps |= {str(r): partial(self._rate, r) for r in RATING_NAMES}
        return steps.get(event.key)

    async def _rate(self, rating: int) -> None:
        """Replace the review rating of the answer shown (the line under the verdict says
        the new one)."""
        self.session.rate(rating)
        self.view.set_rating(self._rating_line())

    async def _flag(self) -> None:
        """Flag the question for review (a cram session goes over the flagged ones), or
        unflag it; the status line shows the flag."""
        flagged = self.session.toggle_flag()
        self._draw_status()
        if self.session.outcome() is None:
            self.view.set_hint(((("⚑ Flagged for review. " if flagged else "Flag removed. "),
                                 "bold"), *question_hint(self.session.current)[1:]))
        else:
            self.notify("Flagged for review." if flagged else "Flag removed.", markup=False)

    def action_flag(self) -> None:
        """The key bar's Flag (the key itself is a step, taken in order)."""
        self.run_worker(self._locked(self._flag), exclusive=False)

    async def _locked(self, step: Callable[[], Awaitable[None]]) -> None:
        async with self._input_lock:
            await step()

    def _show_rate_key(self) -> None:
        """Show or hide Rate in the key bar, when that changes (a refresh of the bindings
        redraws the key bar: not on every key)."""
        shown = self.check_action("rate_key", ()) is True
        if shown != self._rate_shown:
            self._rate_shown = shown
            self.refresh_bindings()

    def action_rate_key(self) -> None:
        """The key bar's Rate: the digit keys themselves rate (taken in order as steps)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Show Rate in the key bar only while an answer with a rating is shown."""
        if action == "rate_key":
            session = self._session
            return (session is not None and session.outcome() is not None
                    and session.current.question.id in session.ratings)
        return True

    def action_back(self) -> None:
        """Esc: back to the summary for a question opened from it; else ask to quit."""
        if self._from_summary:
            self._from_summary = False
            self.app.action_summary()  # type: ignore[attr-defined]
        else:
            self.app.action_request_quit()  # type: ignore[attr-defined]

    async def _scroll_line_up(self) -> None:
        self.view.scroll_up(animate=False)

    async def _scroll_line_down(self) -> None:
        self.view.scroll_down(animate=False)

    # -- actions ----------------------------------------------------------------------------
    async def _next(self) -> None:
        """Go to the next question; after the last one, to the summary."""
        if self.session.at_last:
            if self.session.outcome() is not None:
                self.app.action_summary()  # type: ignore[attr-defined]
            else:
                self._show_hint("This is the last question: answer it, or press s for the "
                                "summary.")
            return
        self.session.next()
        await self.show_question()

    async def _previous(self) -> None:
        """Go back one question (answered ones show their reveal)."""
        if self.session.position == 0:
            self._show_hint("This is the first question.")
            return
        self.session.previous()
        await self.show_question()

    async def _undo(self) -> None:
        """Take back the last answer of this session (with its schedule change) and ask that
        question again."""
        try:
            self.session.undo()
        except SessionError as exc:
            self._show_hint(str(exc))
            return
        self._ticks_by_question.pop(self.session.current.question.id, None)
        await self.show_question()
        self._show_hint("Answer undone: answer this question again.")

    async def action_undo(self) -> None:
        """Undo the last answer (the footer's Undo)."""
        async with self._input_lock:
            await self._undo()

    async def go_to(self, position: int, *, from_summary: bool = False) -> None:
        """Show the question at 0-based ``position`` (answered ones with their reveal);
        ``from_summary``: opened from the summary's list, so Esc goes back there."""
        async with self._input_lock:
            self.session.go(position)
            self._from_summary = from_summary
            await self.show_question()


def question_hint(shown: ShownQuestion) -> Runs:
    """The hint line of ``shown`` before it is answered: how to answer it."""
    letters = shown.letters
    span = f"{letters[0]}–{letters[-1]}"
    if shown.question.multiple_response:
        return ((f"Choose {shown.choose}. ", "bold"),
                f"Tick with {span} or 1–{len(letters)} (or ↑↓ Space), then press Enter.")
    return (("Choose one. ", "bold"),
            f"Press {span} or 1–{len(letters)}, or ↑↓ and Enter, or click.")
