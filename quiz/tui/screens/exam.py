"""The exam screen: one question at a time under a countdown; no verdict until the end.

Keys: the letters A–H and digits 1–8 choose (multiple response: toggle), ``↑↓`` + ``Enter`` or
``Space`` too; ``n``/``p`` move, ``r`` flags for review, ``l`` opens the question list (the map),
``s`` the review-before-submit list. No action key is a letter from A to H: those belong to the
options. When the clock reaches zero the exam is submitted and the score
report shown.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from functools import partial

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Static

from quiz.bank.model import OPTION_KEYS
from quiz.bank.terminal import terminal_safe
from quiz.study.exam import ExamSession
from quiz.study.session import SessionError
from quiz.tui.content import assemble, literal
from quiz.tui.widgets.bars import clock_text
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.option_item import OptionItem
from quiz.tui.widgets.title_bar import TitleBar

SAVE_EVERY_TICKS = 5
"""The clock is saved every this many seconds (and on every action), so a killed exam resumes
with at most this much time given back."""


class ExamScreen(Screen[None]):
    """A running exam: question, options, the clock, flags; the report after submitting."""

    BINDINGS = [
        Binding("n", "next", "Next"),
        Binding("p", "previous", "Previous"),
        Binding("r", "flag", "Flag"),
        Binding("l", "map", "Map"),
        Binding("s", "submit", "Submit…"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.request_quit", "Quit"),
        Binding("escape", "app.request_quit", "Quit", show=False),
    ]

    def __init__(self, exam: ExamSession, *, title: str = "quiz") -> None:
        super().__init__()
        self.exam = exam
        self.bank_title = title
        self.highlight = 0
        self._ticks = 0
        self._timer: Timer | None = None
        self._lock = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="status"):
            yield Static(id="status-left", markup=False)
            yield Static(id="exam-clock", markup=False)
        with VerticalScroll(id="body", can_focus=False):
            yield Static(id="stem", markup=False)
            yield Static(id="hint", markup=False)
            yield Vertical(id="options")
        yield KeyBar()

    async def on_mount(self) -> None:
        self.title = terminal_safe(self.bank_title)
        self.sub_title = "Exam"
        await self.show_question()
        self._timer = self.set_interval(1.0, self.tick)

    # -- clock ------------------------------------------------------------------------------
    def tick(self) -> None:
        """Once a second: redraw the clock, save it now and then, submit at zero."""
        if self.exam.report is not None:
            return
        self._ticks += 1
        if self.exam.expired:
            self.finish()
            return
        if self._ticks % SAVE_EVERY_TICKS == 0:
            self.exam.save()
        self._draw_status()

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
        parts = [f"Question {shown.number}/{shown.total}", exam.topic_names.get(q.topic, q.topic)]
        if q.difficulty:
            parts.append(q.difficulty)
        if q.id in exam.flags:
            parts.append("⚑ flagged")
        self.query_one("#status-left", Static).update(literal(" · ".join(parts), "bold"))
        answered = len(exam.answers)
        clock = self.query_one("#exam-clock", Static)
        clock.update(f"{answered}/{exam.total} answered · ⏱ {clock_text(exam.remaining)} left")
        clock.set_class(exam.remaining < 60, "-low")

    async def show_question(self) -> None:
        """Draw the current question with the ticks given so far (no verdict)."""
        shown = self.exam.current
        self.highlight = 0
        self._draw_status()
        self.query_one("#stem", Static).update(literal(shown.question.stem))
        self.query_one("#hint", Static).update(self._hint())
        options = self.query_one("#options", Vertical)
        await options.remove_children()
        ticks = self.exam.ticks.get(shown.question.id, frozenset())
        items = [OptionItem(opt, multiple=shown.question.multiple_response,
                            id=f"option-{opt.letter}") for opt in shown.options]
        await options.mount_all(items)
        for i, item in enumerate(items):
            item.chosen = item.option.letter in ticks
            item.highlighted = i == 0
        self.query_one("#body", VerticalScroll).scroll_home(animate=False)

    def _hint(self) -> Content:
        shown = self.exam.current
        letters = shown.letters
        span = f"{letters[0]}–{letters[-1]}"
        if shown.question.multiple_response:
            head = f"Choose {shown.choose}. "
            how = f"Toggle with {span} or 1–{len(letters)} (or ↑↓ Space)."
        else:
            head = "Choose one. "
            how = f"Press {span} or 1–{len(letters)}, or ↑↓ and Enter; change it any time."
        return assemble((head, "bold"), how,
                        " n/p move · r flag for review · l map · s submit. "
                        "No feedback until the end.")

    def _items(self) -> list[OptionItem]:
        return list(self.query(OptionItem))

    # -- input ------------------------------------------------------------------------------
    async def on_key(self, event: events.Key) -> None:
        """Letters and digits choose; navigation keys move. One key at a time, in order."""
        step = self._step_for(event)
        if step is None:
            return
        event.stop()
        event.prevent_default()
        async with self._lock:
            await step()

    def _step_for(self, event: events.Key) -> Callable[[], Awaitable[None]] | None:
        steps: dict[str, Callable[[], Awaitable[None]]] = {
            "n": self._next, "right": self._next, "p": self._previous, "left": self._previous,
            "enter": self._enter, "space": self._enter,
            "up": partial(self._move, -1), "down": partial(self._move, 1),
        }
        if event.key in steps:
            return steps[event.key]
        char = (event.character or "").upper()
        if len(char) == 1 and (char in OPTION_KEYS or char in "12345678"):
            return partial(self._choose_key, char)
        return None

    async def _choose_key(self, char: str) -> None:
        shown = self.exam.current
        index = OPTION_KEYS.index(char) if char in OPTION_KEYS else int(char) - 1
        if index >= len(shown.options):
            self.notify(f"There is no option {char} here (options: "
                        f"{', '.join(shown.letters)}).", severity="warning", markup=False)
            return
        await self.choose(shown.options[index].letter)

    async def on_option_item_clicked(self, message: OptionItem.Clicked) -> None:
        async with self._lock:
            await self.choose(message.letter)

    async def choose(self, letter: str) -> None:
        """Choose (or toggle) ``letter`` on the current question. No verdict is shown."""
        if self.exam.expired and self.exam.report is None:
            self.finish()
            return
        try:
            ticks = self.exam.choose(letter)
        except SessionError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        for i, item in enumerate(self._items()):
            item.chosen = item.option.letter in ticks
            if item.option.letter == letter:
                item.highlighted = True
                self.highlight = i
            else:
                item.highlighted = False
        self._draw_status()

    async def _enter(self) -> None:
        await self.choose(self.exam.current.options[self.highlight].letter)

    async def _move(self, delta: int) -> None:
        items = self._items()
        self.highlight = (self.highlight + delta) % len(items)
        for i, item in enumerate(items):
            item.highlighted = i == self.highlight
        items[self.highlight].scroll_visible(animate=False)

    async def _next(self) -> None:
        if self.exam.position == self.exam.total - 1:
            self.notify("This is the last question: s reviews and submits.", markup=False)
            return
        self.exam.go(self.exam.position + 1)
        await self.show_question()

    async def _previous(self) -> None:
        if self.exam.position == 0:
            self.notify("This is the first question.", markup=False)
            return
        self.exam.go(self.exam.position - 1)
        await self.show_question()

    async def jump(self, position: int) -> None:
        """Go to the question at a 0-based ``position``."""
        self.exam.go(position)
        await self.show_question()

    # -- actions ----------------------------------------------------------------------------
    async def action_next(self) -> None:
        """Next question."""
        async with self._lock:
            await self._next()

    async def action_previous(self) -> None:
        """Previous question."""
        async with self._lock:
            await self._previous()

    def action_flag(self) -> None:
        """Flag the current question for review (or unflag it)."""
        try:
            flagged = self.exam.toggle_flag()
        except SessionError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self._draw_status()
        self.notify("Flagged for review." if flagged else "Flag removed.", markup=False)

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
                async with self._lock:
                    await self.jump(choice)

        self.app.push_screen(ExamMapScreen(self.exam, submitting=submitting), done)
