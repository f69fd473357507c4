"""The app's global actions and command palette: new session, summary, statistics, the
calculator, help, suspend, quit, screenshot: :class:`AppCommands`, a part of
:class:`~quiz.tui.app.QuizApp`."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual.app import SystemCommand
from textual.screen import ModalScreen, Screen

from quiz.tui.app_state import AppState
from quiz.tui.textual_internals import driver_of

if TYPE_CHECKING:
    from quiz.study.store_records import SessionRecord
    from quiz.tui.screens.footprint import FootprintScreen
    from quiz.tui.screens.start import StartScreen


class AppCommands(AppState):
    """The app's global actions (its keys and the command palette's entries)."""

    if TYPE_CHECKING:

        def _start_screen(self) -> StartScreen | None:
            """The start screen, if on the stack."""

        def _back_to_start(self) -> None:
            """Close every screen above the start screen."""

        def finish_session(self) -> None:
            """The current session is finished."""

        def _library_ready(self) -> None:
            """The library is there."""

        def _remembered(self) -> dict[str, Any]:
            """The start form's remembered settings."""

        def _start_screen_loading(self) -> bool:
            """True while the start screen shows a load."""

    def _close_dialogs(self) -> None:
        """Close an open dialog (help, quit) before a command from the palette acts."""
        while isinstance(self.screen, ModalScreen) and len(self.screen_stack) > 1:
            self.pop_screen()

    def action_new_session(self) -> None:
        """Back to the start screen to choose a new session."""
        self._close_dialogs()
        self._back_to_start()

    def action_help(self) -> None:
        """Show the keys."""
        from quiz.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_summary(self) -> None:
        """Show the summary of the current session."""
        from quiz.tui.screens.summary import SummaryScreen

        self._close_dialogs()
        session = self.session
        if session is None:
            self.notify("No practice session yet: start one first.", markup=False)
        elif not isinstance(self.screen, SummaryScreen):
            if session.finished:
                self.finish_session()
            first = self.study.first_attempt
            screen = self.ahead.summary
            if screen is None or not self.ahead.idle(screen):
                screen = SummaryScreen(session, pass_mark=self.library.pass_mark,
                                       first_attempt=first)
            else:  # made ahead of time, or left by the last summary: filled, not composed
                screen.show(session, pass_mark=self.library.pass_mark, first_attempt=first)
            self.push_screen(screen)

    def action_stats(self) -> None:
        """Show the statistics dashboard."""
        from quiz.tui.screens.stats import StatsScreen

        self._close_dialogs()
        if self.store is None:
            self.notify("No progress store: statistics are not kept.", markup=False)
        elif not self.loaded:
            self.notify("The banks are still loading.", markup=False)
        elif not isinstance(self.screen, StatsScreen):
            self.push_screen(StatsScreen(self.store, self.library, now=self.now()))

    def action_exam_report(self) -> None:
        """Read a submitted exam's report again (from the statistics), as it was shown when
        submitted: the only exam's at once; with several, the one chosen from a list of them,
        newest first (:class:`~quiz.tui.screens.exam_pick.ExamPickScreen`)."""
        from quiz.study.stats import compute
        from quiz.tui.screens.exam_pick import ExamPickScreen
        from quiz.tui.screens.stats import StatsScreen

        exams = self.study.submitted_exams() if self.loaded else []
        if not exams:
            self.notify("No exam submitted yet from these banks.", markup=False)
            return
        if len(exams) == 1:
            self._open_exam_report(exams[0])
            return
        screen = self.screen
        if isinstance(screen, StatsScreen):
            rows = screen.stats.sessions
        else:
            assert self.store is not None  # submitted_exams() is empty without a store
            rows = compute(self.store, self.library, self.now()).sessions
        by_id = {row.id: row for row in rows}
        records = {rec.id: rec for rec in exams}

        def chosen(session_id: int | None) -> None:
            if session_id is not None:
                self._open_exam_report(records[session_id])

        self.push_screen(ExamPickScreen([by_id[rec.id] for rec in exams if rec.id in by_id]),
                         chosen)

    def _open_exam_report(self, record: SessionRecord) -> None:
        """Show the report of the submitted exam ``record`` (Esc comes back here)."""
        from quiz.study.lifecycle import StartRefused
        from quiz.tui.screens.exam_report import ExamReportScreen

        try:
            report = self.study.exam_report(record)
        except StartRefused as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self.push_screen(ExamReportScreen(report, topic_names=self.library.topics, kept=True))

    async def action_footprint(self) -> None:
        """Open the footprint calculator; from a question, pre-filled with its worked example.
        The calculator screen made ahead of time is filled in and shown (a new one only when
        it is already on the stack, under another screen)."""
        from quiz.tui.screens.footprint import FootprintScreen
        from quiz.tui.screens.question import QuestionScreen

        self._close_dialogs()
        if isinstance(self.screen, FootprintScreen):
            return
        spec = self.calculator_spec  # as it was left, unless a question brings its own
        # The worked example belongs to the reveal: only an answered question pre-fills it.
        if (self.session is not None and isinstance(self.screen, QuestionScreen)
                and self.session.outcome() is not None):
            spec = self.session.current.question.calculator_spec or spec
        screen = await self.ahead.calculator_screen()
        if screen in self.screen_stack:
            screen = FootprintScreen(spec)
        else:
            screen.show(spec)
        self.push_screen(screen, lambda _: self._calculator_closed(screen))

    def _calculator_closed(self, screen: FootprintScreen) -> None:
        """Keep the calculator's last scenario for the next time it is opened."""
        if screen.result is not None:
            self.calculator_spec = screen.result

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the calculator key while the calculator is open (also under one of its
        lists of choices); dim reloading and the statistics while the banks load."""
        if action == "footprint" and getattr(self.screen, "HIDES_CALCULATOR_KEY", False):
            return False
        if action in ("reload_banks", "stats") and (
                not self.loaded or self._start_screen_loading()):
            return None  # shown dimmed: they wait for the banks
        return True

    def action_suspend(self) -> None:
        """Ctrl+Z: suspend to the shell (resume with ``fg``) where the terminal allows it."""
        driver = driver_of(self)
        if sys.platform == "win32" or driver is None or not driver.can_suspend:
            where = "on Windows" if sys.platform == "win32" else "in this terminal"
            self.notify(f"Suspending is not possible {where}: quit with Ctrl+Q instead (answers "
                        "are not kept).", severity="warning", markup=False)
            return
        self.action_suspend_process()

    def action_help_quit(self) -> None:
        """Ctrl+C: say how to quit (Textual's own hint looks for a plain quit binding)."""
        self.notify("Press Ctrl+Q to quit.", markup=False)

    def action_request_quit(self) -> None:
        """Quit after a confirmation."""
        from quiz.tui.screens.confirm import ConfirmScreen

        if isinstance(self.screen, ConfirmScreen):
            return
        from quiz.tui.screens.question import QuestionScreen

        # Only a session still under way counts: one left with "New session" is over.
        under_way = any(isinstance(s, QuestionScreen) for s in self.screen_stack)
        text = self.study.quit_text(under_way=under_way) if self.loaded else "Quit quiz?"

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.exit(0)

        self.push_screen(ConfirmScreen(text, yes="Quit", no="Stay"), done)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Command palette entries: the main actions, then Textual's own."""
        yield SystemCommand("New session", "Choose topics and start over", self.action_new_session)
        yield SystemCommand("Summary", "Score so far, per topic", self.action_summary)
        yield SystemCommand("Statistics", "Accuracy per topic, due, mastered, leeches, history",
                            self.action_stats)
        yield SystemCommand("Footprint calculator",
                            "Training vs inference memory, with the derivation",
                            self.action_footprint)
        yield SystemCommand("Help", "Show the keys", self.action_help)
        yield SystemCommand("Quit", "Quit quiz (asks first)", self.action_request_quit)
        yield SystemCommand("Screenshot", "Save an SVG picture of the screen (says where)",
                            lambda: self.set_timer(0.1, self.action_save_screenshot))
        for command in super().get_system_commands(screen):
            # Ours ask first / our help lists the keys / ours says where it saved.
            if command.title not in ("Quit", "Keys", "Screenshot"):
                yield command

    def action_save_screenshot(self) -> None:
        """Save an SVG screenshot in :func:`quiz.paths.screenshots_dir` and say where, or why
        it could not be saved."""
        from quiz.paths import screenshots_dir

        folder = None
        try:
            folder = screenshots_dir()
            path = self.save_screenshot(path=str(folder))
        except OSError as exc:
            where = f" in {folder}" if folder is not None else ""
            self.notify(f"Could not save the screenshot{where}: {exc.strerror or exc}.",
                        severity="error", markup=False)
            return
        self.notify(f"Screenshot saved to {path}", markup=False)
