"""The speed layer (issue 13): work done while the student reads the start screen, so that
Enter and ``s`` only show what is ready.

- the question and summary screens are composed, mounted, laid out and drawn off screen, then
  the calculator screen (``m`` only fills it in: composing it was most of ``m``, issue 26);
- the session the start form describes is drawn (:meth:`quiz.study.lifecycle.Lifecycle.draw_ahead`)
  and its first question drawn on the waiting question screen;
- what the app has built so far is collected out of the young generations and frozen
  (``gc.freeze``), so no collection of it lands within a key press; undone when the app ends.

Nothing here decides anything about a session: it only makes showing one cheaper.
"""

from __future__ import annotations

import gc
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from textual.app import App

from quiz.bank.terminal import flagged_pattern
from quiz.tui.textual_internals import (
    draw_off_screen,
    lay_out_off_screen,
    layout_pending,
    mount_off_stack,
)

if TYPE_CHECKING:
    from textual.timer import Timer

    from quiz.study.shown import PreparedQuestions
    from quiz.tui.screens.footprint import FootprintScreen
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.screens.summary import SummaryScreen

DRAW_AHEAD_DELAY = 0.3
"""Seconds the start screen's form stays unchanged before its session is drawn ahead."""


def freeze_young() -> None:
    """Collect the young generations, then freeze what survives: it is never scanned again by
    a collection during a key press. (The young generations only: a full collection would scan
    a decoded library, most of a second at 100,000 questions.)"""
    gc.collect(1)
    gc.freeze()


def unfreeze() -> None:
    """What :func:`freeze_young` froze becomes collectable again (the app ends: a process that
    runs several apps, tests and benchmarks, does not keep every ended app's objects)."""
    gc.unfreeze()


class ScreensAhead:
    """The question and summary screens made ahead of time for ``app``, and the start form's
    session drawn ahead. ``draw`` is asked for the session the start form describes (the
    lifecycle draws it; ``None``: nothing to draw now)."""

    def __init__(self, app: App[Any], draw: Callable[[], PreparedQuestions | None]) -> None:
        self.app = app
        self._draw = draw
        self.question: QuestionScreen | None = None
        """The question screen every study session is shown on (made while the app waits)."""
        self.summary: SummaryScreen | None = None
        """The summary screen every summary is shown on (made while a session runs)."""
        self.calculator: FootprintScreen | None = None
        """The calculator screen ``m`` shows (made once the other two are ready)."""
        self._question_mounted: Awaitable[Any] | None = None
        self._calculator_mounted: Awaitable[Any] | None = None
        self._draw_timer: Timer | None = None
        self._drawn: PreparedQuestions | None = None

    # -- the question screen ----------------------------------------------------------------
    def prepare_question_screen(self) -> None:
        """Compose the question screen now, while the start screen waits for the student,
        without showing it: composing and mounting its widgets was about half of what Enter
        on Start cost (issue 13). It is installed, so it stays mounted when a session ends,
        and every session is shown on it."""
        from quiz.tui.screens.question import QuestionScreen

        if self.question is not None:
            return
        screen = QuestionScreen()
        self.app.install_screen(screen, name="question")
        self._question_mounted = mount_off_stack(self.app, screen)
        self.question = screen
        # The first text with a character beyond ASCII (the status line's "·") builds
        # terminal_safe's pattern from the Unicode tables, 15-45 ms: built now, not on Enter.
        self.app.call_after_refresh(flagged_pattern)
        self.app.call_after_refresh(self._prepare_summary_screen)

    async def question_screen(self) -> QuestionScreen:
        """The question screen, mounted (awaited only when Start came before it was)."""
        self.prepare_question_screen()
        screen = self.question
        assert screen is not None
        if self._question_mounted is not None:
            if not screen.is_mounted:  # composed by now unless Start came at once
                # Awaiting a mount asks for a layout of the screen: only when it is needed.
                await self._question_mounted
            self._question_mounted = None
        return screen

    def idle(self, screen: Any) -> bool:
        """True when ``screen`` (made ahead) is mounted and not on the screen stack."""
        return (screen is not None and screen.is_mounted
                and screen not in self.app.screen_stack)

    # -- the summary screen -------------------------------------------------------------------
    def _prepare_summary_screen(self) -> None:
        """Compose the summary screen without showing it, after the question screen: ``s``
        then fills it (:meth:`SummaryScreen.show`)."""
        from quiz.tui.screens.summary import SummaryScreen

        if self.summary is not None:
            return
        screen = SummaryScreen()
        self.app.install_screen(screen, name="summary")
        mount_off_stack(self.app, screen)
        self.summary = screen
        self.app.call_after_refresh(self._settle)

    def _settle(self) -> None:
        """Once the screens made ahead of time are mounted, while the start screen waits:

        - lay them out for the terminal's size, so that Enter and ``s`` lay out a screen
          whose widgets already have their sizes (a first layout resized every widget and
          caused a second layout). A terminal resized later is laid out again on resume.
        - a collection of the young generations, then ``gc.freeze()``: what the app has built
          so far is never scanned again by a full collection during a key press (before, one
          falling on Enter or ``s`` scanned all of it: 30-90 ms on a 1,000-question library).
        """
        summary = self.summary
        if summary is not None and not summary.is_mounted:
            self.app.call_after_refresh(self._settle)  # composing: not yet
            return
        self._lay_out()
        # That layout gave widgets their sizes, and each widget whose size changed asked for
        # another layout (Textual's virtual_size is a layout reactive): run it now too, once
        # those requests have arrived, or the first Enter or ``s`` would run it.
        self.app.call_after_refresh(self._lay_out, True)
        self.draw_now()
        freeze_young()
        self.app.call_after_refresh(self.prepare_calculator_screen)

    def _lay_out(self, again: bool = False) -> None:
        """Lay out the screens made ahead of time (and not shown) for the terminal's size.
        ``again``: only those whose widgets asked for a layout since, then draw each once off
        screen, so that the styles and lines its widgets keep are ready when it is first
        shown (about 1 ms of its first Enter otherwise)."""
        for screen in (self.question, self.summary, self.calculator):
            if not self.idle(screen):
                continue
            assert screen is not None
            if not again or layout_pending(screen):
                lay_out_off_screen(screen, self.app.size)
                if screen is self.question:
                    # Its widgets have their sizes now: a first question drawn ahead before
                    # (the form's session drawn before this layout, at no width) is drawn at
                    # the view's width, so Enter draws none of its lines.
                    self.question.view.draw_prepared()
            if again:
                draw_off_screen(screen)
        if again:
            # What that drawing keeps (lines, styles) lives as long as the screens: out of
            # the young generations now, or the first collection of them within Enter scans it.
            freeze_young()

    # -- the calculator screen -----------------------------------------------------------------
    def prepare_calculator_screen(self) -> None:
        """Compose the calculator screen (with the calculator's defaults) without showing it,
        once the question and summary screens are ready: composing and mounting its form was
        most of what ``m`` cost (issue 26), and importing the calculator the rest. It is
        installed, so it stays mounted when closed, and every ``m`` shows it again
        (:meth:`~quiz.tui.screens.footprint.FootprintScreen.show`)."""
        from quiz.tui.screens.footprint import FootprintScreen

        if self.calculator is not None:
            return
        screen = FootprintScreen()
        self.app.install_screen(screen, name="calculator")
        self._calculator_mounted = mount_off_stack(self.app, screen)
        self.calculator = screen
        self.app.call_after_refresh(self._settle_calculator)

    def _settle_calculator(self) -> None:
        """Lay the calculator screen out and draw it off screen once it is mounted (as
        :meth:`_settle` does the others), then freeze what it built."""
        screen = self.calculator
        if screen is None or not self.idle(screen):
            if screen is not None and not screen.is_mounted:
                self.app.call_after_refresh(self._settle_calculator)  # composing: not yet
            return
        lay_out_off_screen(screen, self.app.size)
        self.app.call_after_refresh(self._lay_out, True)

    async def calculator_screen(self) -> FootprintScreen:
        """The calculator screen, mounted (awaited only when ``m`` came before it was)."""
        self.prepare_calculator_screen()
        screen = self.calculator
        assert screen is not None
        if self._calculator_mounted is not None:
            if not screen.is_mounted:
                await self._calculator_mounted
            self._calculator_mounted = None
        return screen

    @property
    def drawn(self) -> PreparedQuestions | None:
        """The start form's session drawn ahead (``None`` until one is)."""
        return self._drawn

    # -- the start form's session ---------------------------------------------------------------
    def draw_soon(self) -> None:
        """The start screen's form is shown or changed: draw its session a moment later, once
        the form has stopped changing."""
        if self._draw_timer is not None:
            self._draw_timer.stop()
        self._draw_timer = self.app.set_timer(DRAW_AHEAD_DELAY, self.draw_now)

    def draw_now(self) -> None:
        """Draw the session the start form describes now (the lifecycle keeps it for Enter)
        and its first question on the waiting question screen."""
        self._draw_timer = None
        drawn = self._draw()
        if drawn is None or drawn is self._drawn:
            return  # nothing to draw, or the form says what it said: the session drawn stands
        self._drawn = drawn
        # Its order of the library (a tuple and a list as long as the library) leaves the
        # young generations now, while the student reads: else the next collection of them
        # scanned both during a key press (about 1 ms of Enter at 100,000 questions).
        gc.collect(1)
        screen = self.question
        if self.idle(screen):
            assert screen is not None
            screen.prepare(drawn[0])
