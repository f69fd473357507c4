"""Loading the banks for the app: read from the validated-bank cache before the first paint
when it serves them all, else in a worker thread after it; and reloading them (``r`` on the
start screen): :class:`LoadsBanks`, a part of :class:`~quiz.tui.app.QuizApp`."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.worker import get_current_worker

from quiz.bank.terminal import terminal_safe
from quiz.tui.app_state import AppState
from quiz.tui.screens.start import StartScreen

if TYPE_CHECKING:
    from quiz.bank.library import Diagnostic, Library, LoadReport
    from quiz.bank.load_progress import LoadProgress
    from quiz.study.recorder import QuestionIndex
    from quiz.tui.messages import BanksLoaded, BanksLoading

SHOWN_WAIT_S = 2.0
"""Longest the loading worker waits for the loaded library to be on screen before it writes
the cache and decodes cached questions (see :meth:`LoadsBanks._load_banks`)."""


class LoadFailure:
    """Why the app ended before starting: the ``diagnostics`` of a load with errors (every one
    at its ``path:line:col``), or, with ``usage``, what the command line asked for that the
    library lacks. (A plain class: made as the app is imported, before its first paint, it
    costs next to nothing, where a frozen dataclass took 0.5 ms and a named tuple 0.2.)"""

    __slots__ = ("diagnostics", "usage")

    def __init__(self, diagnostics: list[Diagnostic], usage: str | None = None) -> None:
        self.diagnostics = diagnostics
        self.usage = usage


class LoadsBanks(AppState):
    """The app's loading of banks: the worker, its progress on the start screen, the library
    shown (or why the app ends), and reloads."""

    failure: LoadFailure | None
    check: Callable[[Library], str | None] | None
    _load_lock: threading.Lock

    if TYPE_CHECKING:

        def _back_to_start(self) -> None:
            """Close every screen above the start screen."""

        def _library_ready(self) -> None:
            """The library is there."""

        def _remembered(self) -> dict[str, Any]:
            """The start form's remembered settings."""

        def _close_dialogs(self) -> None:
            """Close an open dialog."""

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

        from quiz.tui.messages import BanksLoading  # not before the first paint: see QuizApp

        def progress(done: LoadProgress) -> None:
            self.post_message(BanksLoading(done))

        with self._load_lock:
            self._load_and_write(paths, reload, progress)

    def _load_and_write(self, paths: list[str], reload: bool,
                        progress: Callable[[LoadProgress], None]) -> None:
        from quiz.bank.load import load_for_study
        from quiz.study.recorder import QuestionIndex

        writes: list[Callable[[], None]] = []
        try:
            report = load_for_study(paths, progress=progress, cache_writes=writes)
            index = QuestionIndex.of(report.library) if report.library is not None else None
        except Exception as exc:  # a bug must be a message, never a traceback
            from quiz.bank.library import Diagnostic, LoadReport
            from quiz.debug import HINT, show_traceback

            show_traceback(exc)
            report = LoadReport(None, [Diagnostic(
                ", ".join(paths), 0, 0, f"internal error while loading the banks "
                f"({type(exc).__name__}: {exc}); please report it ({HINT})")])
            index = None
        shown = threading.Event()
        from quiz.tui.messages import BanksLoaded

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

    def _served_by_cache(self, paths: list[str],
                         writes: list[Callable[[], None]]) -> LoadReport | None:
        """The library of ``paths`` when the validated-bank cache serves every bank, read now,
        before the first paint (:func:`quiz.bank.cached_start.library_from_cache`; what it
        leaves to write to the cache is appended to ``writes``); ``None`` (the worker loads
        them) otherwise, or should reading the cache fail unexpectedly."""
        from quiz.bank.cached_start import library_from_cache

        try:
            return library_from_cache(paths, cache_writes=writes)
        except Exception as exc:  # the cache only saves time: the worker loads in full
            from quiz.debug import show_traceback

            show_traceback(exc)
            return None

    @work(thread=True, group="load", exit_on_error=False)
    def _decode_served(self, library: Library, shown: threading.Event,
                       writes: list[Callable[[], None]]) -> None:
        """Once the start screen shows a library the cache served (``shown`` is set, or after
        :data:`SHOWN_WAIT_S`), decode its questions behind it (a session then starts without
        waiting for them) and move them out of the garbage collector's way
        (:func:`quiz.bank.load.load_for_study` does the same for the worker's load), then run
        ``writes`` (the cache entries the start left to write). A reload waits for this. A
        decode that fails costs the first session a full load of that file
        (:class:`~quiz.bank.library.LoadedBank`), nothing else; a write that fails, the next
        start the time it would have saved."""
        with self._load_lock:
            shown.wait(SHOWN_WAIT_S)
            if get_current_worker().is_cancelled:  # the app ends: nothing to decode for
                return
            try:
                # Imported only now: the full loader is no part of the first frame.
                from quiz.bank.load import _decode_and_freeze

                _decode_and_freeze(library)
            except Exception as exc:
                from quiz.debug import show_traceback

                show_traceback(exc)
            for write in writes:
                try:
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
        if self._refused(report):
            return
        assert report.library is not None
        self._take_library(report.library, message.index)
        start = self._start_screen()
        if start is not None:
            await start.show_library(self.library, self._remembered())
        self._say_loaded(report)
        self._library_ready()

    def _refused(self, report: LoadReport) -> bool:
        """End the app (and say why in :attr:`failure`) when a load at start-up gave no
        library (status 1) or :attr:`check` refuses the library (status 2); True when it
        ends."""
        if report.library is None:
            self.failure = LoadFailure(report.diagnostics)
            self.exit(return_code=1)
            return True
        problem = self.check(report.library) if self.check is not None else None
        if problem is not None:
            self.failure = LoadFailure(report.diagnostics, usage=problem)
            self.exit(return_code=2)
            return True
        return False

    def _take_library(self, library: Library, index: QuestionIndex | None) -> None:
        """Study ``library`` from now on (``index``: its questions' index, when built)."""
        self.library = library
        self._index = index
        self.loaded = True
        self.title = terminal_safe(self.library.title)

    def _say_loaded(self, report: LoadReport) -> None:
        """Say what a load at start-up found besides the library: its warnings (counted) and
        what the cache refused."""
        warnings = len(report.warnings)
        if warnings:
            self.notify(f"The banks loaded with {warnings} warning{'s' * (warnings != 1)} "
                        "(quiz validate lists them).", markup=False)
        for note in report.notes:  # the cache refused an entry: said, never silent
            self.notify(note, title="Validated-bank cache", severity="warning", timeout=15,
                        markup=False)

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
        self.study.forget_drawn()
        # What the form showed (an unsaved mode, topics, count) is shown again, not the last
        # session's settings.
        remembered = {**self._remembered(), **(start.form_now() if start is not None else {})}
        fresh = StartScreen(self.library, shuffle=self.shuffle, seed=self.seed,
                            remembered=remembered)
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
