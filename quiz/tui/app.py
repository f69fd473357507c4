"""The Textual app: screens, global keys, command palette. It arranges and presents; the study
logic lives in :mod:`quiz.study` and the bank in :mod:`quiz.bank`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

from quiz.bank.library import Library, LoadReport
from quiz.bank.terminal import terminal_safe
from quiz.study.session import SessionConfig, SessionError, StudySession
from quiz.tui.messages import RetryQuestions, StartSession
from quiz.tui.screens.start import StartScreen

CSS_DIR = Path(__file__).parent


class QuizApp(App[int]):
    """Study a :class:`~quiz.bank.library.Library`: start screen → questions → summary."""

    CSS_PATH = CSS_DIR / "app.tcss"
    TITLE = "quiz"
    BINDINGS = [
        Binding("ctrl+q", "request_quit", "Quit", priority=True, show=False),
        Binding("f1", "help", "Help", show=False),
        Binding("m", "footprint", "Calculator"),
    ]

    def __init__(self, library: Library, *, seed: int | None = None, shuffle: bool = True,
                 paths: Sequence[str] | None = None) -> None:
        super().__init__()
        self.library = library
        self.paths = list(paths) if paths is not None else None
        """The bank files and folders the library was loaded from (None: not from files)."""
        self.seed = seed
        self.shuffle = shuffle
        self.session: StudySession | None = None
        self.last_config: SessionConfig | None = None

    def on_mount(self) -> None:
        self.title = terminal_safe(self.library.title)
        self.push_screen(StartScreen(self.library, shuffle=self.shuffle, seed=self.seed))

    # -- sessions ---------------------------------------------------------------------------
    def start_session(self, config: SessionConfig) -> None:
        """Draw a session from the library and show its first question."""
        from quiz.tui.screens.question import QuestionScreen

        try:
            session = StudySession.from_questions(
                self.library.questions, config, topic_names=self.library.topics)
        except SessionError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self.session = session
        self.last_config = config
        self._back_to_start()
        self.push_screen(QuestionScreen(session, title=self.library.title))

    def on_start_session(self, message: StartSession) -> None:
        self.start_session(message.config)

    def on_retry_questions(self, message: RetryQuestions) -> None:
        base = self.last_config or SessionConfig(shuffle=self.shuffle, seed=self.seed)
        self.start_session(replace(base, question_ids=message.question_ids, topics=None,
                                   count=None))

    def _back_to_start(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()

    # -- reloading ------------------------------------------------------------------------------
    def action_reload_banks(self) -> None:
        """Load the banks again from disk (``r`` on the start screen), in a worker thread."""
        if self.paths is None:
            self.notify("These questions were not loaded from files: nothing to reload.",
                        markup=False)
            return
        self.notify("Reloading the banks...", markup=False, timeout=2)
        self._reload(self.paths)

    @work(thread=True, exclusive=True, group="reload")
    def _reload(self, paths: list[str]) -> None:
        from quiz.bank.load import load_library

        report = load_library(paths)
        self.call_from_thread(self._reloaded, report)

    def _reloaded(self, report: LoadReport) -> None:
        """Show the reloaded library on a fresh start screen, or the problems in a panel
        (keeping the library already loaded)."""
        from quiz.tui.screens.bank_problems import BankProblemsScreen

        if report.library is None:
            self.push_screen(BankProblemsScreen(report.diagnostics))
            return
        self.library = report.library
        self.title = terminal_safe(self.library.title)
        self._close_dialogs()
        start = next((s for s in self.screen_stack if isinstance(s, StartScreen)), None)
        fresh = StartScreen(self.library, shuffle=self.shuffle, seed=self.seed)
        if start is not None and self.screen is start:
            self.switch_screen(fresh)
        elif start is not None:
            # A session is on top: it keeps its questions; the next one draws from the new banks.
            self._back_to_start()
            self.switch_screen(fresh)
        else:
            self.push_screen(fresh)
        count, banks = len(self.library.questions), len(self.library.banks)
        warnings = len(report.warnings)
        self.notify(f"Reloaded: {count} question{'s' * (count != 1)} in {banks} "
                    f"bank{'s' * (banks != 1)}"
                    + (f", {warnings} warning{'s' * (warnings != 1)} (quiz validate lists "
                       "them)" if warnings else "") + ".", markup=False)

    # -- actions ----------------------------------------------------------------------------
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
        if self.session is None:
            self.notify("No session yet: start one first.", markup=False)
        elif not isinstance(self.screen, SummaryScreen):
            self.push_screen(SummaryScreen(self.session, pass_mark=self.library.pass_mark))

    def action_footprint(self) -> None:
        """Open the footprint calculator; from a question, pre-filled with its worked example."""
        from quiz.tui.screens.footprint import FootprintScreen
        from quiz.tui.screens.question import QuestionScreen

        self._close_dialogs()
        if isinstance(self.screen, FootprintScreen):
            return
        spec = None
        # The worked example belongs to the reveal: only an answered question pre-fills it.
        if (self.session is not None and isinstance(self.screen, QuestionScreen)
                and self.session.outcome() is not None):
            q = self.session.current.question
            if q.worked_example is not None:
                spec = q.worked_example.footprint
            elif q.infographic is not None and q.infographic.footprint is not None:
                spec = q.infographic.footprint
        self.push_screen(FootprintScreen(spec))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the calculator key while the calculator is open."""
        from quiz.tui.screens.footprint import FootprintScreen

        if action == "footprint" and isinstance(self.screen, FootprintScreen):
            return False
        return True

    def action_help_quit(self) -> None:
        """Ctrl+C: say how to quit (Textual's own hint looks for a plain quit binding)."""
        self.notify("Press Ctrl+Q to quit.", markup=False)

    def action_request_quit(self) -> None:
        """Quit after a confirmation."""
        from quiz.tui.screens.confirm import ConfirmScreen

        if isinstance(self.screen, ConfirmScreen):
            return
        answered = len(self.session.outcomes) if self.session else 0
        text = "Quit quiz?"
        if answered:
            text += f"\n\nThis session's {answered} answer{'s' * (answered != 1)} will not be kept."

        def done(confirmed: bool | None) -> None:
            if confirmed:
                self.exit(0)

        self.push_screen(ConfirmScreen(text, yes="Quit", no="Stay"), done)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Command palette entries: the main actions, then Textual's own."""
        yield SystemCommand("New session", "Choose topics and start over", self.action_new_session)
        yield SystemCommand("Summary", "Score so far, per topic", self.action_summary)
        yield SystemCommand("Footprint calculator",
                            "Training vs inference memory, with the derivation",
                            self.action_footprint)
        yield SystemCommand("Help", "Show the keys", self.action_help)
        yield SystemCommand("Quit", "Quit quiz (asks first)", self.action_request_quit)
        for command in super().get_system_commands(screen):
            if command.title not in ("Quit", "Keys"):  # ours ask first / our help lists keys
                yield command


def make_app(library: Library, *, seed: int | None = None, shuffle: bool = True,
             paths: Sequence[str] | None = None) -> QuizApp:
    """The app factory used by the CLI and the tests. ``paths`` (the bank files and folders
    ``library`` was loaded from) lets ``r`` on the start screen reload them."""
    return QuizApp(library, seed=seed, shuffle=shuffle, paths=paths)
