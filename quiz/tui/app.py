"""The Textual app: screens, global keys, command palette. It arranges and presents; the study
logic lives in :mod:`quiz.study` and the bank in :mod:`quiz.bank`.

Start-up paints first: this module imports Textual and the start screen only, and the app,
given bank paths instead of a library, shows the start screen with the load's progress and
loads the banks in a worker thread (pydantic, the loader and the study modules are imported
there, after the first paint). Everything else is imported where it is used.
"""

from __future__ import annotations

import gc
import os
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import ModalScreen, Screen

from quiz.bank.library import Diagnostic, Library, LoadReport
from quiz.bank.terminal import flagged_pattern, terminal_safe
from quiz.tui.messages import (
    BanksLoaded,
    BanksLoading,
    OpenQuestion,
    RetryQuestions,
    StartSession,
)
from quiz.tui.screens.start import StartScreen

CSS_DIR = Path(__file__).parent
DRAW_AHEAD_DELAY = 0.3
"""Seconds the start screen's form stays unchanged before its session is drawn ahead."""

SHOWN_WAIT_S = 2.0
"""Longest the loading worker waits for the loaded library to be on screen before it writes
the cache and decodes cached questions (see :meth:`QuizApp._load_banks`)."""

if TYPE_CHECKING:
    from datetime import datetime

    from textual.timer import Timer

    from quiz.bank.load import LoadProgress
    from quiz.footprint.spec import FootprintSpec
    from quiz.study.exam import ExamSession
    from quiz.study.progress import Interrupted, QuestionIndex, Recorder
    from quiz.study.session import Score, SessionConfig, StudySession
    from quiz.study.store import Store
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.screens.summary import SummaryScreen


def utc_now() -> datetime:
    """The time now, UTC-aware (:func:`quiz.study.store.utc_now`, imported when first asked)."""
    from quiz.study.store import utc_now as now

    return now()


@dataclass(frozen=True)
class Launch:
    """What the command line asked for: a ``mode`` to start at once (``None``: the start
    screen), the filters every mode honours, and an exam's ``minutes``."""

    mode: str | None = None
    topics: frozenset[str] | None = None
    tags: frozenset[str] | None = None
    difficulties: frozenset[str] | None = None
    count: int | None = None
    minutes: float | None = None


class QuizApp(App[int]):
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
                 store: Store | None = None, launch: Launch = Launch(),
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], datetime] = utc_now,
                 check: Callable[[Library], str | None] | None = None) -> None:
        super().__init__()
        self.loaded = library is not None
        """False while the banks load (the start screen shows the progress; Start waits)."""
        self.library = library if library is not None else Library(banks=())
        self.paths = list(paths) if paths is not None else None
        """The bank files and folders the library was loaded from (None: not from files)."""
        if library is None and not self.paths:
            raise ValueError("give a library, or the bank paths to load one from")
        self.seed = seed
        self.shuffle = shuffle
        self.store = store
        self.launch = launch
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
        self._question_screen: QuestionScreen | None = None
        """The question screen every study session is shown on (made while the app waits)."""
        self._summary_screen: SummaryScreen | None = None
        """The summary screen every summary is shown on (made while a session runs)."""
        self._question_mounted: Awaitable[None] | None = None
        """Until awaited once: the mounting of :attr:`_question_screen`."""
        self._remembered_settings: dict[str, Any] = {}
        self._drawn: tuple[Library, SessionConfig, StudySession] | None = None
        self._plan_to_write: tuple[Store, int, StudySession] | None = None
        """The session just started, its id in the store: its plan is written once its
        first question is painted (:meth:`_write_plan`)."""
        """A session drawn ahead while the start screen waits: (library, draw, session)."""
        self._draw_timer: Timer | None = None
        self.session: StudySession | None = None
        self.calculator_spec: FootprintSpec | None = None
        """The calculator's scenario as it was last left (reopened by ``m``)."""
        self.exam: ExamSession | None = None
        self.recorder: Recorder | None = None
        self.last_config: SessionConfig | None = None
        self.last_mode = "practice"
        self.first_attempt: Score | None = None
        """The score of the first attempt while the student retries what it missed."""

    @property
    def index(self) -> QuestionIndex:
        """Bank id and content hash of every question of the library (built once per library;
        by the loading worker when the app loads the banks)."""
        if self._index is None:
            from quiz.study.progress import QuestionIndex

            self._index = QuestionIndex.of(self.library)
        return self._index

    def on_mount(self) -> None:
        self._remembered_settings = self._remembered()
        if not self.loaded:
            # Paint first: the start screen shows the progress; the worker starts after the
            # first frame is drawn.
            self.push_screen(StartScreen(None, shuffle=self.shuffle, seed=self.seed,
                                         launch=self.launch))
            self.call_after_refresh(self._fit_to_size)
            assert self.paths is not None
            self.call_after_refresh(self._load_banks, self.paths, False)
            return
        # Made terminal-safe here, once: every screen's header shows the app's title.
        self.title = terminal_safe(self.library.title)
        self.push_screen(StartScreen(self.library, shuffle=self.shuffle, seed=self.seed,
                                     launch=self.launch, remembered=self._remembered_settings))
        self.call_after_refresh(self._fit_to_size)
        self._library_ready()

    def _library_ready(self) -> None:
        """The library is there: say what changed in the store, offer to resume an interrupted
        session, or start the mode the command line asked for."""
        from quiz.study.progress import interrupted_sessions

        # Once the start screen is drawn: the question screen is composed while it waits.
        self.call_after_refresh(self._prepare_question_screen)
        if self.store is None:
            self._launch()
            return
        if self.store.notice:
            self.notify(self.store.notice, title="Progress file set aside", severity="warning",
                        timeout=20, markup=False)
        changed = self.store.reset_changed_cards(self.index.hash_of)
        if changed:
            n = len(changed)
            self.notify(f"{n} question{'s' * (n != 1)} changed since you last saw "
                        f"{'them' if n != 1 else 'it'}: {'their' if n != 1 else 'its'} review "
                        "schedule starts over (the history is kept).", markup=False)
        waiting = interrupted_sessions(self.store,
                                       {bank.header.id for bank in self.library.banks})
        if waiting:
            self._offer_resume(waiting)
        else:
            self._launch()

    def _remembered(self) -> dict[str, Any]:
        """Settings kept from the last run (theme, topics, shuffle, count); the theme is applied
        here and kept whenever it changes."""
        if self.store is None:
            return {}
        theme = self.store.setting("theme")
        if isinstance(theme, str) and theme in self.available_themes:
            self.theme = theme
        self.theme_changed_signal.subscribe(self, self._keep_theme)
        remembered = {key: self.store.setting(key) for key in ("topics", "shuffle", "count")}
        if not self.shuffle:  # --no-shuffle on the command line wins
            remembered["shuffle"] = False
        return {k: v for k, v in remembered.items() if v is not None}

    def _keep_theme(self, theme: Any) -> None:
        if self.store is not None:
            self.store.set_setting("theme", getattr(theme, "name", str(theme)))

    def remember(self, config: SessionConfig) -> None:
        """Keep the start screen's choices for the next run."""
        if self.store is None:
            return
        if config.topics is not None:
            self.store.set_setting("topics", sorted(config.topics))
        self.store.set_setting("shuffle", config.shuffle)
        if config.count is not None:
            self.store.set_setting("count", config.count)

    def on_resize(self, event: events.Resize) -> None:
        self.call_after_refresh(self._fit_to_size)

    def _fit_to_size(self) -> None:
        """Below the smallest usable size, cover the app with a "make the window larger"
        notice; take it away when the window is large enough again."""
        from quiz.tui.screens.too_small import MIN_COLUMNS, MIN_ROWS, TooSmallScreen

        small = self.size.width < MIN_COLUMNS or self.size.height < MIN_ROWS
        covered = isinstance(self.screen, TooSmallScreen)
        if small and not covered:
            self.push_screen(TooSmallScreen())
        elif not small:
            for screen in [s for s in self.screen_stack if isinstance(s, TooSmallScreen)]:
                if screen is self.screen:
                    self.pop_screen()

    async def on_event(self, event: events.Event) -> None:
        """Every key reaches the screens in lower case when it is a single capital letter, so
        each one-letter key works with Caps Lock on. (Where a letter is typed — an input — the
        character typed is kept; only the key name used by bindings changes.)"""
        if isinstance(event, events.Key):
            event.key = fold_case(event.key)
        await super().on_event(event)

    def _launch(self) -> None:
        """Start the mode the command line asked for (``quiz exam``, ``quiz review``)."""
        launch = self.launch
        if launch.mode is None or launch.mode == "practice":
            return
        from quiz.study.session import SessionConfig

        self.start_session(SessionConfig(topics=launch.topics, tags=launch.tags,
                                         difficulties=launch.difficulties, count=launch.count,
                                         shuffle=self.shuffle, seed=self.seed),
                           launch.mode, launch.minutes)

    def _offer_resume(self, waiting: list[Interrupted]) -> None:
        from quiz.tui.screens.confirm import ConfirmScreen

        newest = waiting[0]
        store = self.store
        assert store is not None
        for older in waiting[1:]:
            store.end_session(older.record.id, "abandoned")

        def done(resume: bool | None) -> None:
            if resume and self._resume(newest):
                return
            store.end_session(newest.record.id, "abandoned")
            self._launch()

        self.push_screen(ConfirmScreen(
            newest.describe() + "\n\nResume it? Its answers are kept either way.",
            yes="Resume", no="Start afresh", yes_variant="primary", focus_yes=True), done)

    def _resume(self, waiting: Interrupted) -> bool:
        """Rebuild an interrupted session and show it where it was left."""
        from quiz.bank.load import StoredBankError
        from quiz.study.exam import ExamSession
        from quiz.study.progress import Recorder
        from quiz.study.session import SessionError, StudySession

        rec = waiting.record
        store = self.store
        assert store is not None
        answers = store.answers(rec.id)
        try:
            questions = self.library.questions
            if rec.mode == "exam":
                exam = ExamSession.resume(
                    questions, rec.plan, rec.state,
                    [(a.question_id, a.chosen) for a in answers], store.flags(rec.id),
                    topic_names=self.library.topics, clock=self.clock)
            else:
                session = StudySession.from_plan(questions, rec.plan, self.library.topics)
        except (SessionError, StoredBankError) as exc:
            self.notify(f"Cannot resume: {exc}.", severity="warning", markup=False)
            return False
        recorder = Recorder(store, rec.id, rec.mode, self.index, now=self.now)
        self.recorder = recorder
        self._back_to_start()
        if rec.mode == "exam":
            exam.sink = recorder
            self._show_exam(exam)
            return True
        session.mode = rec.mode
        session.clock = self.clock
        for a in answers:
            session.restore(a.question_id, a.chosen)
            if a.rating is not None:
                session.ratings[a.question_id] = a.rating
        session.sink = recorder
        first_open = next((i for i, q in enumerate(session.questions)
                           if q.id not in session.outcomes), session.total - 1)
        session.go(first_open)
        self.session = session
        self.exam = None
        self.last_mode = rec.mode
        self._show_session(session)
        return True

    # -- sessions ---------------------------------------------------------------------------
    def start_session(self, config: SessionConfig, mode: str = "practice",
                      minutes: float | None = None, *,
                      first_attempt: Score | None = None) -> None:
        """Draw a session of ``mode`` (practice, exam, review, cram) from the library and show
        its first question. Review draws the questions due now, then the most missed; cram the
        ones missed last time or flagged. ``first_attempt`` is the score of the session this
        one retries, shown beside it in the summary. A cached bank whose questions can no
        longer be read (:class:`~quiz.bank.load.StoredBankError`) is said in a notification,
        with what to do; nothing starts."""
        from quiz.bank.load import StoredBankError  # loaded with the banks: costs nothing

        try:
            self._start_session(config, mode, minutes, first_attempt=first_attempt)
        except StoredBankError as exc:
            self.notify(str(exc), severity="error", markup=False, timeout=30)

    def _start_session(self, config: SessionConfig, mode: str, minutes: float | None, *,
                       first_attempt: Score | None) -> None:
        from quiz.study.exam import ExamSession
        from quiz.study.progress import Recorder, cram_ids
        from quiz.study.scheduling import review_queue
        from quiz.study.session import SessionError, StudySession

        if not self.loaded:
            self.notify("The banks are still loading.", markup=False)
            return
        if mode in ("review", "cram"):
            if self.store is None:
                self.notify("Review needs the progress store.", severity="error", markup=False)
                return
            if mode == "review":
                ids = review_queue(self.store.cards(), self.store.tallies(),
                                   self.index.hash_of, self.now())
                empty = ("Nothing to review: no question is due and none was missed. "
                         "Practise or take an exam first.")
            else:
                ids = cram_ids(self.store, self.index)
                empty = "Nothing to cram: no question was missed last time or flagged."
            ids = [i for i in ids if config.matches(self.library.question(i))]
            if not ids:
                self.notify(empty, severity="warning", markup=False)
                return
            config = replace(config, question_ids=tuple(ids), ordered=True)
        draw = self._draw_config(config)
        drawn, self._drawn = self._drawn, None
        try:
            if mode == "exam":
                exam = ExamSession.draw(
                    self.library.questions, draw, minutes=minutes,
                    bank_minutes=self.library.time_limit, pass_mark=self.library.pass_mark,
                    topic_names=self.library.topics, clock=self.clock)
            elif drawn is not None and drawn[0] is self.library and drawn[1] == draw:
                session = drawn[2]  # drawn while the start screen waited, as Enter would
            else:
                session = StudySession.from_questions(
                    self.library.questions, draw, topic_names=self.library.topics)
        except SessionError as exc:
            self.notify(str(exc), severity="error", markup=False)
            return
        self._close_current()
        self.last_config = config
        self.last_mode = mode
        self.first_attempt = first_attempt
        self._back_to_start()
        if self.store is not None:
            # A practice session's plan (every question's id: 100+ ms at 100,000 questions,
            # reading each question object) is written once its first question is painted
            # (issue 13); an exam's, with its time limit, at once.
            plan = exam.plan() if mode == "exam" else {}
            plan["pid"] = os.getpid()
            banks = tuple(b.header.id for b in self.library.banks)
            sid = self.store.start_session(mode, banks, config.seed, plan, now=self.now())
            self.recorder = Recorder(self.store, sid, mode, self.index, now=self.now)
            if mode != "exam":
                self._plan_to_write = (self.store, sid, session)
        else:
            self.recorder = None
        if mode == "exam":
            exam.sink = self.recorder
            exam.save()
            self._show_exam(exam)
            return
        session.mode = mode
        session.clock = self.clock
        session.sink = self.recorder
        session.go(0)
        self.session = session
        self.exam = None
        self._show_session(session)

    @staticmethod
    def _write_plan(store: Store, session_id: int, session: StudySession) -> None:
        """Store what ``session`` drew (:meth:`StudySession.plan`), so that it can be resumed
        after a crash or a closed terminal."""
        plan = session.plan()
        plan["pid"] = os.getpid()
        store.set_plan(session_id, plan)

    def _draw_config(self, config: SessionConfig) -> SessionConfig:
        """What ``config`` draws with: no topic filter when every topic in use is ticked (so
        drawing reads no question)."""
        in_use = self._topics_in_use()
        if config.topics is not None and in_use is not None and config.topics >= in_use:
            return replace(config, topics=None)
        return config

    def draw_ahead_soon(self) -> None:
        """The start screen's form is shown or changed: draw its session a moment later
        (:meth:`_draw_ahead`), once the form has stopped changing."""
        if self._draw_timer is not None:
            self._draw_timer.stop()
        self._draw_timer = self.set_timer(DRAW_AHEAD_DELAY, self._draw_ahead)

    def _draw_ahead(self) -> None:
        """Draw the session the start screen's form describes now, while the student reads
        it: Enter then takes it instead of drawing (shuffling the library is O(n): ~36 ms at
        100,000 questions, issue 13). Drawn with the same configuration, so with the same
        seed it is the session Enter would draw, and without one an equally random one. Only
        a practice session is drawn ahead (an exam, review or cram draws its own)."""
        from quiz.bank.load import StoredBankError
        from quiz.study.session import SessionError, StudySession

        self._draw_timer = None
        previous, self._drawn = self._drawn, None
        start = self._start_screen()
        if (start is None or not self.loaded or start.library is not self.library
                or start.loading_banks or self.screen is not start or start.mode != "practice"):
            return
        config = start.config()
        if isinstance(config, str):
            return
        draw = self._draw_config(config)
        if previous is not None and previous[0] is self.library and previous[1] == draw:
            self._drawn = previous  # the form says what it said: the session drawn for it stands
            return
        try:
            session = StudySession.from_questions(self.library.questions, draw,
                                                  topic_names=self.library.topics)
        except (SessionError, StoredBankError):  # Enter will say what is wrong
            return
        self._drawn = (self.library, draw, session)
        # Its order of the library (a tuple and a list as long as the library) leaves the
        # young generations now, while the student reads: else the next collection of them
        # scanned both during a key press (about 1 ms of Enter at 100,000 questions).
        gc.collect(1)
        screen = self._question_screen
        if screen is not None and screen.is_mounted and screen not in self.screen_stack:
            screen.prepare(session)

    # -- the question screen, made ahead of time ----------------------------------------------
    def _prepare_question_screen(self) -> None:
        """Compose the question screen now, while the start screen waits for the student,
        without showing it: composing and mounting its widgets was about half of what Enter
        on Start cost (issue 13). It is installed, so it stays mounted when a session ends,
        and every session is shown on it (:meth:`QuestionScreen.begin`)."""
        from quiz.tui.screens.question import QuestionScreen

        if self._question_screen is not None:
            return
        screen = QuestionScreen()
        self.install_screen(screen, name="question")
        # Textual 8: registers the screen and runs its compose and mount in its own task (as
        # push_screen does), here without putting it on the screen stack.
        _, self._question_mounted = self._get_screen(screen)
        self._question_screen = screen
        # The first text with a character beyond ASCII (the status line's "·") builds
        # terminal_safe's pattern from the Unicode tables, 15-45 ms: built now, not on Enter.
        self.call_after_refresh(flagged_pattern)
        self.call_after_refresh(self._prepare_summary_screen)

    def _show_session(self, session: StudySession) -> None:
        """Show ``session`` on the question screen, right after the current message (before
        the next key is handled)."""
        self.call_next(self._open_question_screen, session)

    async def _open_question_screen(self, session: StudySession) -> None:
        if session is not self.session:
            return  # another session started meanwhile
        self._prepare_question_screen()
        screen = self._question_screen
        assert screen is not None
        if screen in self.screen_stack:  # never expected: sessions start from the start screen
            self._back_to_start()
        if self._question_mounted is not None:
            if not screen.is_mounted:  # composed by now unless Start came at once
                # Awaiting a mount asks for a layout of the screen: only when it is needed.
                await self._question_mounted
            self._question_mounted = None
        await screen.begin(session)
        self.push_screen(screen)
        plan, self._plan_to_write = self._plan_to_write, None
        if plan is not None and plan[2] is session:
            self.call_after_refresh(self._write_plan, *plan)  # once the question is painted

    def _prepare_summary_screen(self) -> None:
        """Compose the summary screen without showing it, after the question screen (see
        :meth:`_prepare_question_screen`): ``s`` then fills it (:meth:`SummaryScreen.show`)."""
        from quiz.tui.screens.summary import SummaryScreen

        if self._summary_screen is not None:
            return
        screen = SummaryScreen()
        self.install_screen(screen, name="summary")
        self._get_screen(screen)  # Textual 8: composed and mounted off the screen stack
        self._summary_screen = screen
        self.call_after_refresh(self._settle_prepared_screens)

    def _settle_prepared_screens(self) -> None:
        """Once the screens made ahead of time are mounted, while the start screen waits:

        - lay them out for the terminal's size, so that Enter and ``s`` lay out a screen whose
          widgets already have their sizes (a first layout resized every widget and caused a
          second layout). Textual ignores a Resize on a screen never shown: the screen's
          layout is run directly. A terminal resized later is laid out again on resume.
        - a collection of the young generations, then ``gc.freeze()``: what the app has
          built so far (Textual's modules, the start, question and summary screens) is never
          scanned again by a full collection during a key press (again once the screens are
          drawn off screen, :meth:`_lay_out_prepared_screens`). Before, a full collection
          falling on Enter or ``s`` scanned all of it: 30-90 ms on a 1,000-question library
          (issue 13). The freeze is undone when the app ends (:meth:`on_unmount`)."""
        summary = self._summary_screen
        if summary is not None and not summary.is_mounted:
            self.call_after_refresh(self._settle_prepared_screens)  # composing: not yet
            return
        self._lay_out_prepared_screens()
        # That layout gave widgets their sizes, and each widget whose size changed asked for
        # another layout (Textual's virtual_size is a layout reactive): run it now too, once
        # those requests have arrived, or the first Enter or ``s`` would run it.
        self.call_after_refresh(self._lay_out_prepared_screens, True)
        self._draw_ahead()
        # The young generations only: with banks served by the cache the library is decoded
        # (then frozen, quiz.bank.load) by the loading worker meanwhile, and a full collection
        # would scan it (most of a second at 100,000 questions).
        gc.collect(1)
        gc.freeze()

    def _lay_out_prepared_screens(self, again: bool = False) -> None:
        """Lay out the screens made ahead of time (and not shown) for the terminal's size.
        ``again``: only those whose widgets asked for a layout since, then draw each once
        off screen, so that the styles and lines its widgets keep are ready when it is first
        shown (its first Enter drew the title bar, the styles of every part, ... from
        nothing: about 1 ms more)."""
        for screen in (self._question_screen, self._summary_screen):
            if screen is None or not screen.is_mounted or screen in self.screen_stack:
                continue
            if not again or screen._layout_required:
                screen._refresh_layout(self.size)
                screen._layout_required = False  # a screen not shown never clears it itself
            if again:
                screen._compositor.render_full_update()
        if again:
            # What that drawing keeps (lines, styles) lives as long as the screens: out of the
            # young generations now, or the first collection of them within Enter scans it.
            gc.collect(1)
            gc.freeze()

    def on_unmount(self) -> None:
        # What the app froze becomes collectable again: a process that runs several apps
        # (tests, benchmarks) does not keep every ended app's objects.
        gc.unfreeze()

    def _topics_in_use(self) -> AbstractSet[str] | None:
        """The topics of the library's questions, as the start screen counted them (None
        when it has not: then no filter is dropped)."""
        start = self._start_screen()
        if start is not None and start.library is self.library and start.topic_counts:
            return start.topic_counts.keys()
        return None

    def _show_exam(self, exam: ExamSession) -> None:
        from quiz.tui.screens.exam import ExamScreen

        self.exam = exam
        self.session = None
        self.last_mode = "exam"
        self.push_screen(ExamScreen(exam, title=self.library.title))

    def finish_session(self) -> None:
        """Mark the current session finished in the store (every question answered, or the
        exam submitted): it is no longer offered for resumption."""
        if self.recorder is not None and self.store is not None:
            self.store.end_session(self.recorder.session_id, "finished", now=self.now())

    def _close_current(self) -> None:
        """Leaving a session for a new one: an unfinished one is closed as abandoned (its
        answers stay in the history); a running exam is not — it can be resumed later."""
        if self.recorder is None or self.store is None:
            return
        rec = self.store.session(self.recorder.session_id)
        if rec.status == "open" and rec.mode != "exam":
            self.store.end_session(rec.id, "abandoned", now=self.now())

    def on_start_session(self, message: StartSession) -> None:
        self.remember(message.config)
        self.start_session(message.config, message.mode, message.minutes)

    def on_start_screen_form_changed(self, message: StartScreen.FormChanged) -> None:
        self.draw_ahead_soon()

    def on_retry_questions(self, message: RetryQuestions) -> None:
        from quiz.study.session import SessionConfig

        base = self.last_config or SessionConfig(shuffle=self.shuffle, seed=self.seed)
        mode = "practice" if self.last_mode in ("exam", "review") else self.last_mode
        first = self.first_attempt or (self.session.score if self.session else None)
        self.start_session(replace(base, question_ids=message.question_ids, topics=None,
                                   count=None, ordered=False), mode, first_attempt=first)

    async def on_open_question(self, message: OpenQuestion) -> None:
        """From the summary's review list: back to the questions, at that one."""
        from quiz.tui.screens.question import QuestionScreen
        from quiz.tui.screens.summary import SummaryScreen

        if isinstance(self.screen, SummaryScreen):
            self.pop_screen()
        if isinstance(self.screen, QuestionScreen):
            await self.screen.go_to(message.position)

    def _back_to_start(self) -> None:
        while len(self.screen_stack) > 2:
            self.pop_screen()

    # -- loading -------------------------------------------------------------------------------
    def action_reload_banks(self) -> None:
        """Load the banks again from disk (``r`` on the start screen), in a worker thread and
        through the validated-bank cache, with the progress on the start screen."""
        if self.paths is None:
            self.notify("These questions were not loaded from files: nothing to reload.",
                        markup=False)
            return
        if not self.loaded or self._start_screen_loading():
            return  # a load is under way
        start = self._start_screen()
        if start is not None:
            start.begin_loading()
        self._load_banks(self.paths, True)

    def _start_screen(self) -> StartScreen | None:
        return next((s for s in self.screen_stack if isinstance(s, StartScreen)), None)

    def _start_screen_loading(self) -> bool:
        start = self._start_screen()
        return start is not None and start.loading_banks

    @work(thread=True, exclusive=True, group="load", exit_on_error=False)
    def _load_banks(self, paths: list[str], reload: bool) -> None:
        """Load ``paths`` (:func:`quiz.bank.load.load_for_study`: the cache, then a full load)
        and index the questions, posting :class:`BanksLoading` as it goes and
        :class:`BanksLoaded` at the end, then write the cache entries of the banks loaded in
        full. A load starts once the previous one has written its entries (a reload soon
        after the start is then served by them). Never raises: an unexpected exception becomes
        an "internal error" diagnostic."""

        def progress(done: LoadProgress) -> None:
            self.post_message(BanksLoading(done))

        with self._load_lock:
            self._load_and_write(paths, reload, progress)

    def _load_and_write(self, paths: list[str], reload: bool,
                        progress: Callable[[LoadProgress], None]) -> None:
        from quiz.bank.load import load_for_study
        from quiz.study.progress import QuestionIndex

        writes: list[Callable[[], None]] = []
        try:
            report = load_for_study(paths, progress=progress, cache_writes=writes)
            index = QuestionIndex.of(report.library) if report.library is not None else None
        except Exception as exc:  # a bug must be a message, never a traceback
            from quiz.debug import HINT, show_traceback

            show_traceback(exc)
            report = LoadReport(None, [Diagnostic(
                ", ".join(paths), 0, 0, f"internal error while loading the banks "
                f"({type(exc).__name__}: {exc}); please report it ({HINT})")])
            index = None
        shown = threading.Event()
        self.post_message(BanksLoaded(report, index, reload, shown))
        # Once the start screen shows the library (not while it draws it), the cache entries
        # of banks loaded in full are written (a few hundred ms for a large bank) and the
        # questions of cached banks decoded (as long): done here, they save the next start
        # and the first session's wait.
        if writes and report.library is not None:
            shown.wait(SHOWN_WAIT_S)
        for write in writes:
            try:  # a cache entry or an early decode that fails costs the next start, nothing else
                write()
            except Exception as exc:
                from quiz.debug import show_traceback

                show_traceback(exc)

    def on_banks_loading(self, message: BanksLoading) -> None:
        start = self._start_screen()
        if start is not None:
            start.show_progress(message.progress)

    async def on_banks_loaded(self, message: BanksLoaded) -> None:
        try:
            await self._show_loaded(message)
        finally:  # the loading worker goes on once this frame is drawn (or the app ends)
            if self.failure is None:
                self.call_after_refresh(message.shown.set)
            else:
                message.shown.set()

    async def _show_loaded(self, message: BanksLoaded) -> None:
        report = message.report
        if message.reload:
            self._reloaded(report, message.index)
            return
        if report.library is None:
            self.failure = LoadFailure(report.diagnostics)
            self.exit(return_code=1)
            return
        problem = self.check(report.library) if self.check is not None else None
        if problem is not None:
            self.failure = LoadFailure(report.diagnostics, usage=problem)
            self.exit(return_code=2)
            return
        self.library = report.library
        self._index = message.index
        self.loaded = True
        self.title = terminal_safe(self.library.title)
        start = self._start_screen()
        if start is not None:
            await start.show_library(self.library, self._remembered_settings)
        warnings = len(report.warnings)
        if warnings:
            self.notify(f"The banks loaded with {warnings} warning{'s' * (warnings != 1)} "
                        "(quiz validate lists them).", markup=False)
        self._library_ready()

    def _reloaded(self, report: LoadReport, index: QuestionIndex | None) -> None:
        """Show the reloaded library on a fresh start screen, or the problems in a panel
        (keeping the library already loaded)."""
        from quiz.tui.screens.bank_problems import BankProblemsScreen

        start = self._start_screen()
        if report.library is None:
            if start is not None:
                start.end_loading()
            self.push_screen(BankProblemsScreen(report.diagnostics))
            return
        self.library = report.library
        self._index = index
        self.title = terminal_safe(self.library.title)
        self._close_dialogs()
        fresh = StartScreen(self.library, shuffle=self.shuffle, seed=self.seed)
        if start is not None and self.screen is start:
            self.switch_screen(fresh)
        elif start is not None:
            # A session is on top: it keeps its questions; the next one draws from the new banks.
            self._back_to_start()
            self.switch_screen(fresh)
        else:
            self.push_screen(fresh)
        count, banks = self.library.question_count, len(self.library.banks)
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
            self.notify("No practice session yet: start one first.", markup=False)
        elif not isinstance(self.screen, SummaryScreen):
            if self.session.finished:
                self.finish_session()
            screen = self._summary_screen
            if screen is None or not screen.is_mounted or screen in self.screen_stack:
                screen = SummaryScreen(self.session, pass_mark=self.library.pass_mark,
                                       first_attempt=self.first_attempt)
            else:  # made ahead of time, or left by the last summary: filled, not composed
                screen.show(self.session, pass_mark=self.library.pass_mark,
                            first_attempt=self.first_attempt)
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

    def action_footprint(self) -> None:
        """Open the footprint calculator; from a question, pre-filled with its worked example."""
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
        self.push_screen(FootprintScreen(spec), self._calculator_closed)

    def _calculator_closed(self, spec: FootprintSpec | None) -> None:
        """Keep the calculator's last scenario for the next time it is opened."""
        if spec is not None:
            self.calculator_spec = spec

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Hide the calculator key while the calculator is open; dim reloading and the
        statistics while the banks load."""
        from quiz.tui.screens.footprint import FootprintScreen

        if action == "footprint" and isinstance(self.screen, FootprintScreen):
            return False
        if action in ("reload_banks", "stats") and (
                not self.loaded or self._start_screen_loading()):
            return None  # shown dimmed: they wait for the banks
        return True

    def action_suspend(self) -> None:
        """Ctrl+Z: suspend to the shell (resume with ``fg``) where the terminal allows it."""
        driver = self._driver
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
        text = "Quit quiz?"
        open_session = self.recorder is not None and self.store is not None and (
            self.store.session(self.recorder.session_id).status == "open")
        if open_session and self.exam is not None and self.exam.report is None:
            self.exam.save()
            text += ("\n\nYour exam answers are saved and the clock stops: the exam is "
                     "offered to resume at the next start, with its time left.")
        elif open_session and under_way and self.session is not None and self.session.outcomes:
            text += ("\n\nYour answers are saved as you give them: this session is offered "
                     "to resume at the next start.")
        elif self.store is not None:
            text += "\n\nYour progress is saved."
        elif under_way and self.session is not None and self.session.outcomes:
            n = len(self.session.outcomes)
            text += f"\n\nThis session's {n} answer{'s' * (n != 1)} will not be kept."

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


def fold_case(key: str) -> str:
    """The key name with a single capital letter folded to lower case (``"N"`` → ``"n"``);
    other keys unchanged."""
    return key.lower() if len(key) == 1 and key.isupper() else key


@dataclass(frozen=True)
class LoadFailure:
    """Why the app ended before starting: the ``diagnostics`` of a load with errors (every one
    at its ``path:line:col``), or, with ``usage``, what the command line asked for that the
    library lacks."""

    diagnostics: list[Diagnostic]
    usage: str | None = None


def make_app(library: Library | None, *, seed: int | None = None, shuffle: bool = True,
             paths: Sequence[str] | None = None, store: Store | None = None,
             launch: Launch = Launch(), clock: Callable[[], float] = time.monotonic,
             now: Callable[[], datetime] = utc_now,
             check: Callable[[Library], str | None] | None = None) -> QuizApp:
    """The app factory used by the CLI and the tests. ``paths`` (the bank files and folders
    ``library`` was loaded from) lets ``r`` on the start screen reload them. With ``library``
    ``None`` the app loads ``paths`` itself after its first paint, showing the progress; when
    they have errors (or ``check`` returns a message for the library) it exits with status 1
    (2) and :attr:`QuizApp.failure` says why. Without a ``store`` nothing is kept.

    Raises:
        ValueError: ``library`` is ``None`` and there are no ``paths``.
    """
    return QuizApp(library, seed=seed, shuffle=shuffle, paths=paths, store=store,
                   launch=launch, clock=clock, now=now, check=check)
