"""The exam screen: one question at a time under a countdown; no verdict until the end.

Keys: the letters A–H and digits 1–8 choose (multiple response: toggle a tick), ``↑↓`` and then
``Enter`` or ``Space`` too, and a click on an option; ``n``/``p`` move, ``r`` flags for review,
``l`` opens the question list (the map), ``s`` the review-before-submit list. No action key is a
letter from A to H: those belong to the options. When the clock reaches zero the exam is
submitted and the score report shown.

The body — stem, hint line, options — is the question screen's line-API widget
(:class:`~quiz.tui.widgets.question_view.QuestionView`, here as :class:`ExamView`): the options
are drawn and their keys handled in that one place, and a key press redraws the blocks it
changes, not a layout of a widget per option (issue 13).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer

from quiz.bank.terminal import terminal_safe
from quiz.study.exam import ExamSession
from quiz.study.shown import SessionError
from quiz.tui.content import literal
from quiz.tui.screens.covered import HiddenWhenCovered
from quiz.tui.screens.question_keys import QUESTION_BINDINGS, QuestionKeys
from quiz.tui.widgets.bars import clock_text
from quiz.tui.widgets.document import Runs
from quiz.tui.widgets.exam_view import ExamView
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.question_view import QuestionView
from quiz.tui.widgets.status_line import StatusLine
from quiz.tui.widgets.title_bar import TitleBar
from quiz.wording import plural

SAVE_EVERY_TICKS = 5
"""The clock is saved every this many seconds (and on every action), so a killed exam resumes
with at most this much time given back."""

WARN_AT_MINUTES = (10, 5, 1)
"""Minutes left at which the exam warns (each once)."""


class ExamScreen(QuestionKeys, HiddenWhenCovered, Screen[None]):
    """A running exam: question, options, the clock, flags; the report after submitting."""

    BINDINGS = [
        # Every exam key, Help and Quit fit the key bar at 80 columns with "Prev" for Previous
        # (79 cells with the palette key); the hint line spells them out.
        Binding("n", "next", "Next"),
        Binding("p", "previous", "Prev", tooltip="Previous question"),
        Binding("r", "flag", "Flag"),
        Binding("l", "map", "Map"),
        Binding("s", "submit", "Submit…"),
        Binding("t", "pause", "Pause"),
        # A strict exam has no pause: its bar leaves t out, and t says why on the hint line.
        Binding("t", "no_pause", "Pause", show=False),
        *QUESTION_BINDINGS,
        # The calculator still opens with m (the help lists it), but the exam's own keys and
        # Help and Quit are what fit in the key bar at 80 columns.
        Binding("m", "app.footprint", "Calculator", show=False),
    ]

    def __init__(self, exam: ExamSession, *, title: str = "quiz") -> None:
        super().__init__()
        self.exam = exam
        self.bank_title = title
        self._ticks = 0
        self._timer: Timer | None = None
        self._warned = {m for m in WARN_AT_MINUTES if exam.remaining <= m * 60}
        """The warnings given (or not to give: the exam began with less time than that)."""
        self._input_lock = asyncio.Lock()
        self._view = ExamView(id="body")

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield StatusLine(id="status")
        yield self._view
        yield KeyBar()

    async def on_mount(self) -> None:
        self.title = terminal_safe(self.bank_title)
        self.sub_title = "Exam"
        await self.show_question()
        self._timer = self.set_interval(1.0, self.tick)

    @property
    def view(self) -> ExamView:
        """The body: stem, hint line and options."""
        return self._view

    # -- clock ------------------------------------------------------------------------------
    def tick(self) -> None:
        """Once a second: redraw the clock, save it now and then, submit at zero."""
        if self.exam.report is not None:
            return
        self._ticks += 1
        if self.exam.expired:
            self.finish()
            return
        if self.exam.paused:
            return
        if self._ticks % SAVE_EVERY_TICKS == 0:
            self.exam.save()
        self._warn()
        self._draw_status()

    def _warn(self) -> None:
        """At 10, 5 and 1 minutes left: a warning that stays a few seconds."""
        remaining = self.exam.remaining
        for minutes in WARN_AT_MINUTES:
            if minutes not in self._warned and remaining <= minutes * 60:
                self._warned.add(minutes)
                self.notify(f"{plural(minutes, 'minute')} left.", title="Time",
                            severity="warning", timeout=8, markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Pause is in a strict exam's key bar neither shown nor bound (``no_pause`` answers
        t there)."""
        if action == "pause":
            return not self.exam.strict
        if action == "no_pause":
            return self.exam.strict
        return True

    def action_no_pause(self) -> None:
        """t in a strict exam: say on the hint line that it has no pause."""
        self.action_pause()

    def action_pause(self) -> None:
        """Stop the clock and hide the question (not in a strict exam)."""
        from quiz.tui.screens.paused import PausedScreen

        try:
            self.exam.pause()
        except SessionError as exc:
            self._show_hint(str(exc).capitalize() + ".")
            return

        def go_on(_: None) -> None:
            self.exam.unpause()
            self._draw_status()

        self.app.push_screen(PausedScreen(self.exam.remaining), go_on)

    def finish(self) -> None:
        """Submit the exam (or take the time-out) and show the score report."""
        from quiz.tui.screens.exam_report import ExamReportScreen

        if self._timer is not None:
            self._timer.stop()
        timed_out = self.exam.report is None and self.exam.expired
        report = self.exam.submit()
        finish = getattr(self.app, "finish_session", None)
        if callable(finish):
            finish()
        if timed_out:
            self.notify("Time is up: the exam was submitted.", severity="warning",
                        markup=False)
        self.app.switch_screen(ExamReportScreen(report, topic_names=self.exam.topic_names))

    # -- drawing ----------------------------------------------------------------------------
    def _draw_status(self) -> None:
        exam = self.exam
        shown = exam.current
        q = shown.question
        # The topic name, the only part of any length, comes last (as on the question screen):
        # a narrow status line ends it with an ellipsis and keeps the flag and difficulty whole.
        parts = [f"Question {shown.number}/{shown.total}"]
        if q.id in exam.flags:
            parts.append("⚑ flagged")
        if q.difficulty:
            parts.append(q.difficulty)
        parts.append(exam.topic_names.get(q.topic, q.topic))
        # One line of fixed size: a new text (the clock, every second) needs no layout.
        answered, clock = f"{len(exam.answers)}/{exam.total}", clock_text(exam.remaining)
        self.query_one("#status", StatusLine).show(
            literal(" · ".join(parts), "bold"), f"{answered} answered · ⏱ {clock} left",
            narrow=f"{answered} · ⏱ {clock}", alert=exam.remaining < 60)

    async def show_question(self) -> None:
        """Draw the current question from its top with the choices made so far (no verdict)."""
        shown = self.exam.current
        # A notification from the screen before (the start screen's) never sits over a question.
        self.app.clear_notifications()
        self._draw_status()
        view = self.view
        view.show(shown, hint=self._hint(), ticked=self.exam.ticks.get(shown.question.id, ()))
        if self.focused is not view:
            view.focus()

    def _hint(self, head: Runs = ()) -> Runs:
        """The line above the options: how to answer, and the exam's keys (after ``head``)."""
        shown = self.exam.current
        letters = shown.letters
        span = f"{letters[0]}–{letters[-1]}"
        keys = (" n/p move · r flag · l map · s submit" + (
            "" if self.exam.strict else " · t pause") + ". No feedback until the end.")
        if shown.question.multiple_response:
            return (*head, (f"Choose {shown.choose}. ", "bold"),
                    f"Tick with {span} or 1–{len(letters)} (or ↑↓ Space); answered once "
                    f"{shown.choose} are ticked, change it any time." + keys)
        return (*head, ("Choose one. ", "bold"),
                f"Press {span} or 1–{len(letters)}, or ↑↓ and Enter, or click; change it any "
                "time." + keys)

    def _show_hint(self, warning: str | None = None) -> None:
        """Say how to answer on the hint line, or why the last key did nothing (``warning``)."""
        if warning is not None:
            self.view.set_hint((warning,), warning=True)
        else:
            self.view.set_hint(self._hint())

    # -- choosing ---------------------------------------------------------------------------
    # The body takes the option keys (letters, digits, arrows, Enter, Space, clicks) and passes
    # up what they mean; the keys it does not take come to on_key, in the order typed. It waits
    # for settled() before taking another key, so "b n b" applies each letter to the right
    # question.
    async def on_question_view_answered(self, message: QuestionView.Answered) -> None:
        try:
            async with self._input_lock:
                await self.record(message.letters)
        finally:
            message.control.settled()

    async def on_question_view_ticked(self, message: QuestionView.Ticked) -> None:
        try:
            async with self._input_lock:
                await self.record(message.letters)
        finally:
            message.control.settled()

    def on_question_view_highlighted(self, message: QuestionView.Highlighted) -> None:
        if self.view.hint_warning:
            self._show_hint()
        message.control.settled()

    async def record(self, letters: frozenset[str]) -> None:
        """Make ``letters`` the current question's choice (multiple response: its ticks). No
        verdict is shown; past the time limit the exam is submitted instead."""
        exam = self.exam
        if exam.expired and exam.report is None:
            self.finish()
            return
        qid = exam.current.question.id
        try:
            exam.answer(letters)  # the one way to answer, as the practice screen's
        except SessionError as exc:
            self.view.show_choice(exam.ticks.get(qid, ()))
            self._show_hint(str(exc))
            return
        self.view.show_choice(exam.ticks.get(qid, ()))
        self._draw_status()
        if self.view.hint_warning:
            self._show_hint()

    # -- keys (QuestionKeys.on_key runs these steps, in order, under the input lock) -------------
    def _step_for(self, event: events.Key) -> Callable[[], Awaitable[None]] | None:
        steps: dict[str, Callable[[], Awaitable[None]]] = {
            "n": self._next, "right": self._next, "p": self._previous, "left": self._previous,
        }
        return steps.get(event.key)

    async def _next(self) -> None:
        if self.exam.position == self.exam.total - 1:
            self._show_hint("This is the last question: s reviews and submits.")
            return
        self.exam.go(self.exam.position + 1)
        await self.show_question()

    async def _previous(self) -> None:
        if self.exam.position == 0:
            self._show_hint("This is the first question.")
            return
        self.exam.go(self.exam.position - 1)
        await self.show_question()

    async def jump(self, position: int) -> None:
        """Go to the question at a 0-based ``position``."""
        self.exam.go(position)
        await self.show_question()

    # -- actions ----------------------------------------------------------------------------
    def action_flag(self) -> None:
        """Flag the current question for review (or unflag it); the hint line says which."""
        try:
            flagged = self.exam.toggle_flag()
        except SessionError as exc:
            self._show_hint(str(exc))
            return
        self._draw_status()
        head = "⚑ Flagged for review. " if flagged else "Flag removed. "
        self.view.set_hint(self._hint(((head, "bold"),)))

    def action_map(self) -> None:
        """Open the question map: answered, unanswered and flagged; jump to any."""
        self._open_map(submitting=False)

    def action_submit(self) -> None:
        """Review before submitting: unanswered and flagged questions, then submit or go
        back."""
        self._open_map(submitting=True)

    def _open_map(self, *, submitting: bool) -> None:
        from quiz.tui.screens.exam_map import SUBMIT, ExamMapScreen

        async def done(choice: int | None) -> None:
            if choice == SUBMIT:
                self.finish()
            elif choice is not None:
                async with self._input_lock:
                    await self.jump(choice)

        self.app.push_screen(ExamMapScreen(self.exam, submitting=submitting), done)
