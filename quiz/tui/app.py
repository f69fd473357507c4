"""The Textual app: screens, global keys, command palette. It arranges and presents; the study
logic lives in :mod:`quiz.study` and the bank in :mod:`quiz.bank`.

Start-up paints first: this module imports Textual and the start screen only. The app, given
bank paths instead of a library, shows the start screen with the library in its first frame
when the validated-bank cache serves every bank (:func:`quiz.bank.cached_start.library_from_cache`:
its indexes only, no pydantic); otherwise it shows the load's progress and loads the banks in a
worker thread (pydantic, the loader and the study modules are imported there, after the first
paint). Everything else is imported where it is used.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from quiz.bank.terminal import terminal_safe
from quiz.tui.ahead import ScreensAhead, freeze_young, unfreeze
from quiz.tui.commands import AppCommands
from quiz.tui.content import path_lines
from quiz.tui.css_cache import keep_parsed, parsed_now, reuse_parsed
from quiz.tui.loading import LoadsBanks
from quiz.tui.screens import MIN_COLUMNS, MIN_ROWS
from quiz.tui.screens.start import StartScreen
from quiz.tui.textual_internals import StyledOnceWhenFirstShown

CSS_DIR = Path(__file__).parent

if TYPE_CHECKING:
    from datetime import datetime

    from quiz.bank.library import Library
    from quiz.footprint import FootprintSpec
    from quiz.study.exam import ExamSession
    from quiz.study.launch import Launch
    from quiz.study.lifecycle import Lifecycle, ResumeOffer, Session
    from quiz.study.recorder import QuestionIndex
    from quiz.study.session import SessionConfig, StudySession
    from quiz.study.shown import PreparedQuestions
    from quiz.study.store import Store
    from quiz.tui.loading import LoadFailure
    from quiz.tui.messages import OpenQuestion, RetryQuestions, SavingChanged, StartSession


def utc_now() -> datetime:
    """The time now, UTC-aware (:func:`quiz.study.store.utc_now`, imported when first asked)."""
    from quiz.study.store import utc_now as now

    return now()


class QuizApp(LoadsBanks, AppCommands, App[int]):
    """Study a :class:`~quiz.bank.library.Library`: start screen → questions → summary, or an
    exam → its report. With a :class:`~quiz.study.store.Store`, every answer is kept as it is
    given and an interrupted session is offered for resumption at the next start."""

    CSS_PATH = CSS_DIR / "app.tcss"
    TITLE = "quiz"
    ALLOW_IN_MAXIMIZED_VIEW = "KeyBar"
    """The key bar stays in view when a widget is maximized (the command palette's Maximize),
    as Textual's Footer did."""
    BINDINGS = [
        Binding("ctrl+q", "request_quit", "Quit", priority=True, show=False),
        Binding("ctrl+z", "suspend", "Suspend", show=False),
        Binding("f1", "help", "Help", show=False),
        Binding("m", "footprint", "Calculator"),
    ]

    def __init__(self, library: Library | None, *, seed: int | None = None,
                 shuffle: bool = True, paths: Sequence[str] | None = None,
                 store: Store | None = None, launch: Launch | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = utc_now,
                 check: Callable[[Library], str | None] | None = None,
                 collector_paused: bool = False, keep_css: bool = False) -> None:
        super().__init__()
        self._keep_css = keep_css
        """Keep Textual's parsed CSS between runs (:mod:`quiz.tui.css_cache`)."""
        self._css_reused = reuse_parsed(self.stylesheet) if keep_css else 0
        if keep_css and not self._css_reused:  # a first start: the CSS quiz was built with
            from quiz.tui.css_prebuilt import reuse_prebuilt

            reuse_prebuilt(self.stylesheet)
        self.loaded = library is not None
        """False while the banks load (the start screen shows the progress; Start waits)."""
        if library is None:
            # Imported when used (as the study modules are), not with this module: see
            # tests/tui/test_import_weight.py.
            from quiz.bank.library import Library

            library = Library(banks=())
        self.library = library
        self.paths = list(paths) if paths is not None else None
        """The bank files and folders the library was loaded from (None: not from files)."""
        if not self.loaded and not self.paths:
            raise ValueError("give a library, or the bank paths to load one from")
        self.seed = seed
        self.shuffle = shuffle
        self.store = store
        self._launch_asked = launch
        """What the command line asked for (``None``: nothing in particular, the start
        screen); :attr:`launch` gives it as a :class:`~quiz.study.launch.Launch`."""
        self.clock = clock
        self.now = now
        self.check = check
        """Run on the library loaded at start-up: a message means the command line asked for
        something it lacks (an unknown ``--topic``); the app then ends (see :attr:`failure`)."""
        self.failure: LoadFailure | None = None
        """Why the app ended without starting: the banks had errors, or :attr:`check` failed."""
        self._index: QuestionIndex | None = None
        # Held by a loading worker from its load to its last cache write: a reload ("r") soon
        # after a start waits for the entries being written, and is then served by them.
        self._load_lock = threading.Lock()
        self._first_frame = threading.Event()
        """Set once the first frame is drawn."""
        self._too_small = False
        """A "make the window larger" screen was pushed and may still be in the stack."""
        self._collector_paused = collector_paused
        """The garbage collector was paused for the start-up (by ``quiz``'s command line):
        resumed once the first frame is drawn."""
        self._study: Lifecycle | None = None
        self.ahead = ScreensAhead(self, self._draw_ahead)
        """The speed layer: screens made ahead of time, the start form's session drawn."""
        self.calculator_spec: FootprintSpec | None = None
        """The calculator's scenario as it was last left (reopened by ``m``)."""

    def get_default_screen(self) -> Screen[Any]:
        """The screen under every other (Textual's default, ``_default``), styled once when
        first shown: the start screen covers it from the first frame."""
        return BaseScreen(id="_default")

    @property
    def launch(self) -> Launch:
        """What the command line asked for (``Launch()``: nothing in particular, the start
        screen); the default made when first asked (after the first paint: the start screen is
        given ``None`` for it, and reads it the same way)."""
        if self._launch_asked is None:
            from quiz.study.launch import Launch

            self._launch_asked = Launch()
        return self._launch_asked

    @property
    def study(self) -> Lifecycle:
        """The sessions' life (:class:`~quiz.study.lifecycle.Lifecycle`), over the library
        loaded now; made when first asked (after the first paint: it imports the study
        modules)."""
        if self._study is None:
            from quiz.study.lifecycle import Lifecycle

            self._study = Lifecycle(self.library, store=self.store, index=lambda: self.index,
                                    clock=self.clock, now=self.now)
        self._study.library = self.library
        return self._study

    @property
    def session(self) -> StudySession | None:
        """The practice, review or cram session shown (``None``: none, or an exam)."""
        return self._study.session if self._study is not None else None

    @property
    def exam(self) -> ExamSession | None:
        """The exam shown (``None``: none, or a study session)."""
        return self._study.exam if self._study is not None else None

    @property
    def last_config(self) -> SessionConfig | None:
        """What the last session was started with."""
        return self._study.last_config if self._study is not None else None

    @property
    def index(self) -> QuestionIndex:
        """Bank id and content hash of every question of the library (built once per library;
        by the loading worker when the app loads the banks)."""
        if self._index is None:
            from quiz.study.recorder import QuestionIndex

            self._index = QuestionIndex.of(self.library)
        return self._index

    def on_mount(self) -> None:
        # First of what waits for the first frame: the collector, then the loading worker.
        self.call_after_refresh(self._drawn_first)
        if self.store is not None:  # told when answers cannot be saved, and when they are again
            self.store.listen(self._saving_changed)
        self._keep_theme_setting()
        if self.loaded:
            # Made terminal-safe here, once: every screen's header shows the app's title.
            self.title = terminal_safe(self.library.title)
            self._show_start()
            self._library_ready()
            return
        assert self.paths is not None
        if self._start_from_cache(self.paths):
            return
        # Paint first: the start screen shows the progress; the worker starts after the first
        # frame is drawn.
        self.push_screen(StartScreen(None, shuffle=self.shuffle, seed=self.seed,
                                     launch=self._launch_asked))
        self.call_after_refresh(self._fit_to_size)
        self.call_after_refresh(self._load_banks, self.paths, False)

    def _start_from_cache(self, paths: list[str]) -> bool:
        """When the validated-bank cache serves every bank (:meth:`_served_by_cache`), show
        the start screen with the library in the first frame: no loading screen, no form
        composed twice. What can wait (the resume offer and notices, decoding the questions)
        waits until that frame is drawn. Returns whether it did (also when :attr:`check`
        refused the library: the app then ends); ``False``: the banks are to be loaded."""
        writes: list[Callable[[], None]] = []
        served = self._served_by_cache(paths, writes)
        if served is None:
            return False
        if self._refused(served):
            return True
        assert served.library is not None
        self._take_library(served.library, None)
        self._show_start()
        self._say_loaded(served)
        self.call_after_refresh(self._library_ready)
        # Its thread starts once the first frame is drawn: nothing of it is in that frame.
        self.call_after_refresh(self._decode_served, self.library, self._first_frame, writes)
        return True

    def _drawn_first(self) -> None:
        """The first frame is drawn: resume the garbage collector if the start-up paused it
        (what the start-up built is frozen first: never scanned by a collection again, as
        :func:`~quiz.tui.ahead.freeze_young` does), and let what waits for the frame go on."""
        if self._collector_paused:
            self._collector_paused = False
            freeze_young()
            gc.enable()
        if self._keep_css:
            key_line, parsed = parsed_now(self.stylesheet)
            if len(parsed) > self._css_reused:  # some parsed afresh: kept for the next start
                threading.Thread(target=keep_parsed, args=(key_line, parsed), daemon=True,
                                 name="quiz-css-cache").start()
        self._first_frame.set()

    def _show_start(self) -> None:
        """Show the start screen with the library (its form as last used with it)."""
        self.push_screen(StartScreen(self.library, shuffle=self.shuffle, seed=self.seed,
                                     launch=self._launch_asked, remembered=self._remembered()))
        self.call_after_refresh(self._fit_to_size)

    def _library_ready(self) -> None:
        """The library is there: say what changed in the store, offer to resume an interrupted
        session, or start the mode the command line asked for."""
        # Once the start screen is drawn: the question screen is composed while it waits.
        self.call_after_refresh(self.ahead.prepare_question_screen)
        for title, text in self.study.opening_notices():
            self.notify(path_lines(text), title=title,
                        severity="warning" if title else "information",
                        timeout=20 if title else 5, markup=False)
        offer = self.study.resume_offer(self.launch.mode)
        if offer is None:
            self._launch()
        else:
            self._offer_resume(offer)

    def _keep_theme_setting(self) -> None:
        """The theme kept from the last run is applied, and kept whenever it changes."""
        if self.store is None:
            return
        theme = self.store.setting("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._keep_theme)

    def _remembered(self) -> dict[str, Any]:
        """The start form's settings last used with these banks (none for banks never studied
        together: every topic and every question); ``--no-shuffle`` wins."""
        from quiz.study.start_settings import settings_for_form

        remembered = settings_for_form(self.store, self.library)
        if not self.shuffle:
            remembered["shuffle"] = False
        return remembered

    def _keep_theme(self, theme: Any) -> None:
        if self.store is not None:
            self.store.set_setting("theme", getattr(theme, "name", str(theme)))

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_to_size)

    def _fit_to_size(self) -> None:
        """Below the smallest usable size, cover the app with a "make the window larger"
        notice; take it away when the window is large enough again."""
        small = self.size.width < MIN_COLUMNS or self.size.height < MIN_ROWS
        if not small and not self._too_small:
            return  # nothing to cover or uncover: the notice's screen is not even imported
        from quiz.tui.screens.too_small import TooSmallScreen

        covered = isinstance(self.screen, TooSmallScreen)
        if small and not covered:
            self.push_screen(TooSmallScreen())
            self._too_small = True
        elif not small:
            for screen in [s for s in self.screen_stack if isinstance(s, TooSmallScreen)]:
                if screen is self.screen:
                    self.pop_screen()
            self._too_small = any(isinstance(s, TooSmallScreen) for s in self.screen_stack)

    async def on_event(self, event: events.Event) -> None:
        """Every key reaches the screens in lower case when it is a single capital letter, so
        each one-letter key works with Caps Lock on. (Where a letter is typed — an input — the
        character typed is kept; only the key name used by bindings changes.)"""
        if isinstance(event, events.Key):
            event.key = fold_case(event.key)
        await super().on_event(event)

    # -- sessions: each handler is one call to the lifecycle ---------------------------------
    def _launch(self) -> None:
        """Start the mode the command line asked for (``quiz exam``, ``quiz review``)."""
        from quiz.study.mode import Mode

        launch = self.launch
        if launch.mode is None or launch.mode == Mode.PRACTICE:
            return
        config = self.study.launch_config(launch, shuffle=self.shuffle, seed=self.seed)
        self._begin(lambda: self.study.start(config, launch.mode or Mode.PRACTICE,
                                             launch.minutes, strict=launch.strict))

    def _offer_resume(self, offer: ResumeOffer) -> None:
        from quiz.tui.screens.confirm import ConfirmScreen

        def done(resume: bool | None) -> None:
            if resume and self._begin(lambda: self.study.resume(offer.waiting)):
                return
            self.study.abandon(offer.waiting)
            self._launch()

        self.push_screen(ConfirmScreen(
            offer.text, yes=offer.resume, no=offer.fresh, yes_variant="primary",
            focus_yes=offer.resume_is_default), done)

    def _begin(self, call: Callable[[], Session]) -> bool:
        """Run a lifecycle call that starts or resumes a session and show that session; what
        stops it is said in a notification. Returns whether a session is shown."""
        from quiz.study.lifecycle import StartRefused

        if not self.loaded:
            self.notify("The banks are still loading.", markup=False)
            return False
        try:
            session = call()
        except StartRefused as exc:
            self.notify(str(exc), severity=exc.severity,  # type: ignore[arg-type]
                        markup=False, timeout=30 if exc.severity == "error" else 5)
            return False
        self._back_to_start()
        if session is self.study.exam:
            from quiz.tui.screens.exam import ExamScreen

            self.push_screen(ExamScreen(self.study.exam, title=self.library.title))
        else:
            self.call_next(self._open_question_screen, session)
        return True

    async def _open_question_screen(self, session: StudySession) -> None:
        """Show ``session`` on the question screen made ahead of time; its plan is written
        once its first question is painted."""
        if session is not self.study.session:
            return  # another session started meanwhile
        screen = await self.ahead.question_screen()
        if screen in self.screen_stack:  # never expected: sessions start from the start screen
            self._back_to_start()
        await screen.begin(session)
        self.push_screen(screen)
        self.call_after_refresh(self.study.write_plan, session)

    def _draw_ahead(self) -> PreparedQuestions | None:
        """The practice session the start form describes, drawn by the lifecycle while the
        student reads (``None`` when the form is not on top, not composed yet, or not
        practice)."""
        from quiz.study.mode import Mode

        start = self._start_screen()
        if (start is None or not self.loaded or start.library is not self.library
                or start.loading_banks or not start.form_ready or self.screen is not start
                or start.mode != Mode.PRACTICE):
            self.study.forget_drawn()
            return None
        config = start.config()
        if isinstance(config, str):
            self.study.forget_drawn()
            return None
        return self.study.draw_ahead(config, self._topics_in_use())

    def on_unmount(self) -> None:
        self._first_frame.set()  # a worker waiting for it goes on (and finds itself cancelled)
        unfreeze()

    def _saving_changed(self, problem: str | None) -> None:
        """The store's listener: whether answers can be saved changed (``problem``: why not)."""
        # The app's messages are imported when one is first sent, not before the first paint.
        from quiz.tui.messages import SavingChanged

        self.post_message(SavingChanged(problem))

    def on_saving_changed(self, message: SavingChanged) -> None:
        from quiz.study.store import saving_text

        if self.store is not None:
            self.notify(saving_text(self.store, message.problem), markup=False,
                        title="Progress not saved" if message.problem else "Progress saved",
                        severity="error" if message.problem else "information",
                        timeout=20 if message.problem else 6)

    def _topics_in_use(self) -> AbstractSet[str] | None:
        """The topics of the library's questions, as the start screen counted them (None
        when it has not: then no filter is dropped)."""
        start = self._start_screen()
        if start is not None and start.library is self.library and start.topic_counts:
            return start.topic_counts.keys()
        return None

    def finish_session(self) -> None:
        """The current session is finished (every question answered, or the exam submitted):
        it is no longer offered for resumption."""
        self.study.finish()

    def on_start_session(self, message: StartSession) -> None:
        start, config = self._start_screen(), message.config
        every = start is not None and config.topics is not None and (
            config.topics >= start.topic_counts.keys())
        self.study.remember(config, strict=message.strict, every_topic=every,
                            every_question=config.count is None or (
                                start is not None and start.count_is_all))
        self._begin(lambda: self.study.start(message.config, message.mode, message.minutes,
                                             topics_in_use=self._topics_in_use(),
                                             strict=message.strict))

    def on_start_screen_form_changed(self, message: StartScreen.FormChanged) -> None:
        self.ahead.draw_soon()

    def on_retry_questions(self, message: RetryQuestions) -> None:
        self._begin(lambda: self.study.retry(message.question_ids, shuffle=self.shuffle,
                                             seed=self.seed, as_mode=message.mode))

    async def on_open_question(self, message: OpenQuestion) -> None:
        """From the summary's review list: back to the questions, at that one."""
        from quiz.tui.screens.question import QuestionScreen
        from quiz.tui.screens.summary import SummaryScreen

        if isinstance(self.screen, SummaryScreen):
            self.pop_screen()
        if isinstance(self.screen, QuestionScreen):
            await self.screen.go_to(message.position, from_summary=True)

    def _back_to_start(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()


class BaseScreen(StyledOnceWhenFirstShown, Screen[None]):
    """The app's first screen, under the start screen: as Textual's default screen, but its
    first showing, at the start-up, does not style its widgets again (they were just styled
    as they mounted; :class:`~quiz.tui.textual_internals.StyledOnceWhenFirstShown`)."""


def fold_case(key: str) -> str:
    """The key name with a single capital letter folded to lower case (``"N"`` → ``"n"``);
    other keys unchanged."""
    return key.lower() if len(key) == 1 and key.isupper() else key


def make_app(library: Library | None, *, seed: int | None = None, shuffle: bool = True,
             paths: Sequence[str] | None = None, store: Store | None = None,
             launch: Launch | None = None, clock: Callable[[], float] = time.monotonic,
             now: Callable[[], datetime] = utc_now,
             check: Callable[[Library], str | None] | None = None,
             collector_paused: bool = False, keep_css: bool = False) -> QuizApp:
    """The app factory used by the CLI and the tests. ``paths`` (the bank files and folders
    ``library`` was loaded from) lets ``r`` on the start screen reload them. With ``library``
    ``None`` the app loads ``paths`` itself after its first paint, showing the progress; when
    they have errors (or ``check`` returns a message for the library) it exits with status 1
    (2) and :attr:`QuizApp.failure` says why. Without a ``store`` nothing is kept.
    ``collector_paused`` says the caller paused the garbage collector for the start-up: the
    app resumes it once its first frame is drawn. ``keep_css``: Textual's parsed CSS is
    taken from the last run's and kept for the next (:mod:`quiz.tui.css_cache`).

    Raises:
        ValueError: ``library`` is ``None`` and there are no ``paths``.
    """
    return QuizApp(library, seed=seed, shuffle=shuffle, paths=paths, store=store,
                   launch=launch, clock=clock, now=now, check=check,
                   collector_paused=collector_paused, keep_css=keep_css)
