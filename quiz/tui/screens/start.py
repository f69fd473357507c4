"""The start screen: bank title, question count, topics to include, number of questions, shuffle.

While the banks load (in a worker, after the first paint) it shows the load's progress instead
of the form, with Start disabled; the form is composed once the library is there. A start that
the validated-bank cache serves composes the form at once, in the first frame."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import (
    Button,
    Input,
    Label,
    RadioSet,
    SelectionList,
    Static,
    Switch,
)
from textual.widgets.selection_list import Selection

from quiz.tui.content import assemble, literal
from quiz.tui.screens.covered import HiddenWhenCovered
from quiz.tui.textual_internals import DrawsOnlyWhatIsShown, StyledOnceWhenFirstShown
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.mode_button import ModeButton
from quiz.tui.widgets.prose import Prose
from quiz.tui.widgets.start_button import StartButton
from quiz.tui.widgets.title_bar import TitleBar
from quiz.tui.widgets.topic_list import TopicList

if TYPE_CHECKING:
    from quiz.bank.library import Library
    from quiz.bank.load_progress import LoadProgress
    from quiz.study.launch import Launch
    from quiz.study.session import SessionConfig

MODE_CHOICES = (
    ("practice", "Practice: answer, then see why (moves your review schedule)"),
    ("exam", "Exam: timed, no feedback until you submit, then a score report"),
    ("review", "Review: questions due now, then the ones you miss most"),
    ("cram", "Cram: last time's misses and flagged ones (schedule untouched)"),
)
"""The start screen's modes, in order, with what each does."""


def _on_off(value: bool) -> str:
    return "on" if value else "off"








def progress_text(progress: LoadProgress) -> str:
    """Two lines saying how far a load has got: the file (n of m) and what is being done to
    it, then the questions read so far."""
    from pathlib import Path

    questions = f"{progress.questions:,} question{'s' * (progress.questions != 1)}"
    if progress.stage == "done" or not progress.path:
        files = f"{progress.files} file{'s' * (progress.files != 1)}"
        return f"Every file read\n{questions} from {files}"
    doing = {"opening": "opening", "reading": "reading", "checking": "checking its questions",
             "cached": "unchanged since last time"}.get(progress.stage, progress.stage)
    return (f"File {progress.file} of {progress.files}, {Path(progress.path).name}: {doing}\n"
            f"{questions} so far")


class StartScreen(HiddenWhenCovered, StyledOnceWhenFirstShown, DrawsOnlyWhatIsShown,
                  Screen[None]):
    """Choose what to study, then start. Enter on the focused Start button begins.

    Made with ``library`` ``None`` while the banks load: it shows the progress
    (:meth:`show_progress`) with Start disabled, until :meth:`show_library` composes the form."""

    AUTO_FOCUS = "#start"
    """Start has the focus at first (outside the scroll, so the bank's title stays in view)."""

    BINDINGS = [
        Binding("ctrl+s", "start", "Start"),
        # "Reload", not "Reload banks": the start screen's keys then fit 80 columns whole.
        Binding("r", "app.reload_banks", "Reload",
                tooltip="Load the question banks again from their files"),
        Binding("ctrl+t", "app.stats", "Statistics"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.request_quit", "Quit"),
        Binding("escape", "app.request_quit", "Quit", show=False),
    ]

    def __init__(self, library: Library | None, *, shuffle: bool = True,
                 seed: int | None = None, launch: Launch | None = None,
                 remembered: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.seed = seed
        self.launch = launch
        self.shuffle_default = shuffle
        self.loading_banks = library is None
        """True while the banks load: the progress shows and Start is disabled."""
        self.composing = False
        """True while :meth:`show_library` composes the form: its fields are not there yet,
        so nothing may read it (the form's session drawn ahead, Start)."""
        from quiz.bank.library import Library  # with the banks, not with this module

        self.library = Library(banks=())
        self.topic_counts: Counter[str] = Counter()
        self.shuffle = shuffle
        self.strict = bool(launch is not None and launch.strict)
        self.default_topics: set[str] | None = None
        """Topics ticked at first: the command line's, else last run's (if any still exist)."""
        self.default_count = 0
        self.default_mode = MODE_CHOICES[0][0]
        """The mode chosen at first: Practice, or the one a reload found chosen."""
        self.default_minutes: str | None = None
        """The exam minutes typed before a reload (the command line's win)."""
        if library is not None:
            self._take(library, remembered)

    def _take(self, library: Library, remembered: dict[str, Any] | None) -> None:
        """Use ``library`` and the settings kept from the last run for the form."""
        launch = self.launch
        self.library = library
        self.topic_counts = library.topic_counts()
        remembered = remembered or {}
        self.shuffle = bool(remembered.get("shuffle", self.shuffle_default))
        self.strict = bool(remembered.get("strict", False)) or bool(
            launch is not None and launch.strict)
        kept_topics = remembered.get("topics")
        self.default_topics = None
        if launch is not None and launch.topics is not None:
            self.default_topics = set(launch.topics)
        elif isinstance(kept_topics, list) and set(kept_topics) & set(self.topic_counts):
            self.default_topics = set(kept_topics)
        mode = remembered.get("mode")
        self.default_mode = mode if mode in dict(MODE_CHOICES) else MODE_CHOICES[0][0]
        minutes = remembered.get("minutes")
        self.default_minutes = minutes if isinstance(minutes, str) else None
        kept_count = remembered.get("count")
        self.default_count = library.question_count
        if launch is not None and launch.count:
            self.default_count = launch.count
        elif isinstance(kept_count, int) and kept_count > 0:
            self.default_count = kept_count

    def compose(self) -> ComposeResult:
        lib = self.library
        yield TitleBar()
        if self.loading_banks and not lib.banks:
            # Imported only for a load's progress (1.7 ms): a start the cache serves has none.
            from textual.widgets import ProgressBar

            with VerticalScroll(id="start-body", can_focus=False):
                yield Static(literal("Loading the question banks", "bold"), id="bank-title",
                             markup=False)
                yield ProgressBar(id="load-bar", show_eta=False)
                yield Static("Opening the banks", id="load-status", markup=False)
            with Horizontal(id="start-actions"):
                yield StartButton(disabled=True)
            yield KeyBar()
            return
        # Not a focus stop itself: Tab goes from field to field, each scrolled into view.
        with VerticalScroll(id="start-body", can_focus=False):
            yield Static(literal(lib.title, "bold"), id="bank-title", markup=False)
            yield Static(self._count_text(), id="bank-count", markup=False)
            # One bank's description introduces it; several banks' go below the form, so the
            # mode, topics and count stay in view at 80x24.
            descriptions = [b.header.description for b in lib.banks if b.header.description]
            if len(lib.banks) == 1 and descriptions:
                yield Prose(descriptions[0], id="bank-description")
            yield Label("Mode", classes="field-label")
            with RadioSet(id="mode"):
                for key, text in MODE_CHOICES:
                    yield ModeButton(text, value=key == self.default_mode, id=f"mode-{key}")
            yield Label("Topics to include", classes="field-label")
            yield TopicList(
                *(
                    Selection(assemble(lib.topic_name(t), f"  ({c})"), t,
                              self.default_topics is None or t in self.default_topics)
                    for t, c in self.topic_counts.items()
                ),
                id="topics",
            )
            count = self.default_count
            with Horizontal(classes="field-row"):
                yield Label("Number of questions", classes="field-label")
                # Empty means every question that matches (config()): valid, and says so.
                yield Input(str(count), type="integer", id="count", max_length=6,
                            placeholder="all", valid_empty=True)
            yield Static(id="count-note", markup=False)
            # The exam's own settings: shown only while Exam is the mode chosen, their fields
            # made when first shown (_exam_fields), not for the first frame.
            yield Horizontal(classes="field-row exam-only", id="minutes-row")
            yield Horizontal(classes="field-row exam-only", id="strict-row")
            with Horizontal(classes="field-row"):
                yield Label("Shuffle questions and options", classes="field-label")
                yield Switch(value=self.shuffle, id="shuffle")
                yield Label(_on_off(self.shuffle), id="shuffle-state")
            yield Static(id="start-error", markup=False)
            if len(lib.banks) > 1 and descriptions:
                yield Label("About these banks", classes="field-label")
                yield Prose(
                    "\n\n".join(
                        f"{b.header.title}. {b.header.description}"
                        for b in lib.banks if b.header.description
                    ),
                    id="bank-description",
                )
        # Outside the scroll, so focusing it never scrolls the bank's title out of view.
        with Horizontal(id="start-actions"):
            yield StartButton(disabled=self.loading_banks)
        yield KeyBar()

    def _count_text(self) -> str:
        n = self.library.question_count
        topics = len(self.topic_counts)
        return f"{n:,} question{'s' * (n != 1)} in {topics:,} topic{'s' * (topics != 1)}"

    def on_resize(self) -> None:
        self.set_class(self.size.width < 60, "-narrow")

    def on_mount(self) -> None:
        if self.loading_banks and not self.library.banks:
            return
        self.query_one("#start", Button).focus()
        self._update_count_note()
        self._show_exam_fields()

    def _show_exam_fields(self) -> None:
        """The exam's minutes and strict switch show only in Exam mode."""
        exam = self.mode == "exam"
        if exam:
            self._exam_fields()
        for row in self.query(".exam-only"):
            row.display = exam

    def _exam_fields(self) -> None:
        """Put the exam's minutes (the command line's, if given) and strict switch in their
        rows, the first time they are needed: hidden in every other mode, they are not made
        for the first frame."""
        minutes_row = self.query_one("#minutes-row", Horizontal)
        if minutes_row.children:
            return
        launch = self.launch
        minutes = launch.minutes if launch is not None and launch.minutes else None
        typed = f"{minutes:g}" if minutes is not None else self.default_minutes or ""
        minutes_row.mount(
            Label("Exam minutes (empty: bank's limit or 1.2 per question)",
                  classes="field-label"),
            Input(typed, type="number", id="minutes", max_length=6, valid_empty=True))
        self.query_one("#strict-row", Horizontal).mount(
            Label("Strict: no pause, the clock runs through a quit", classes="field-label"),
            Switch(value=self.strict, id="strict"),
            Label(_on_off(self.strict), id="strict-state"))

    # -- loading ------------------------------------------------------------------------------
    def show_progress(self, progress: LoadProgress) -> None:
        """Show how far the load has got (the progress bar counts bytes of bank files; the line
        says the file, n of m, and the questions so far)."""
        if not self.loading_banks:
            return
        text = progress_text(progress)
        if not self.library.banks:
            from textual.widgets import ProgressBar

            bar = self.query_one("#load-bar", ProgressBar)
            bar.update(total=max(progress.total_bytes, 1), progress=progress.done_bytes)
            self.query_one("#load-status", Static).update(text)
        else:  # reloading: the form stays; the count line says how far the load has got
            self.query_one("#bank-count", Static).update(text)

    async def show_library(self, library: Library,
                           remembered: dict[str, Any] | None = None) -> None:
        """The library has loaded: compose the form for it, Start enabled and focused."""
        self._take(library, remembered)
        self.loading_banks = False
        self.composing = True
        try:
            await self.recompose()
        finally:
            self.composing = False
        self.query_one("#start", Button).focus()
        self._update_count_note()
        self._show_exam_fields()
        self.refresh_bindings()
        self.post_message(self.FormChanged())  # the form is there: its session can be drawn

    def begin_loading(self) -> None:
        """A reload starts: Start is disabled and the count line shows the progress."""
        self.loading_banks = True
        self.query_one("#start", Button).disabled = True
        self.refresh_bindings()

    def end_loading(self) -> None:
        """A reload ended without a library: the form is as it was."""
        self.loading_banks = False
        self.query_one("#bank-count", Static).update(self._count_text())
        start = self.query_one("#start", Button)
        start.disabled = False
        start.focus()
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Start waits for the banks (shown dimmed while they load)."""
        if action == "start" and (self.loading_banks or self.composing):
            return None
        return True

    class FormChanged(Message):
        """The form was shown again or changed: the app draws its session ahead of Enter."""

    def on_screen_resume(self) -> None:
        self.post_message(self.FormChanged())

    def on_radio_set_changed(self) -> None:
        self._show_exam_fields()
        self.post_message(self.FormChanged())

    def on_switch_changed(self, event: Switch.Changed) -> None:
        if event.switch.id == "shuffle":
            self.query_one("#shuffle-state", Label).update(_on_off(event.value))
        elif event.switch.id == "strict":
            self.query_one("#strict-state", Label).update(_on_off(event.value))
        self.post_message(self.FormChanged())

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "count":
            self._update_count_note()
        self.post_message(self.FormChanged())

    def on_selection_list_selected_changed(self, event: SelectionList.SelectedChanged[str]) -> None:
        self._update_count_note()
        self.post_message(self.FormChanged())

    @property
    def count_is_all(self) -> bool:
        """True when the count asks for every question: empty, or the bank's whole count as
        first shown (then it is remembered as "all", and grows with the bank)."""
        raw = self.query_one("#count", Input).value.strip()
        n = self.library.question_count
        return not raw or (raw.isdigit() and int(raw) >= n and self.default_count == n)

    def _available(self) -> int:
        topics = self.query_one("#topics", SelectionList).selected
        return sum(self.topic_counts[t] for t in topics)

    def _update_count_note(self) -> None:
        """Under the count, as it is typed: how many questions the session will have when
        fewer match the topics than asked for (said here, not in a notification that would
        outlive the start screen)."""
        available = self._available()
        raw = self.query_one("#count", Input).value.strip()
        note = ""
        if raw.isdigit() and int(raw) > available:
            note = (f"Only {available:,} question{'s' * (available != 1)} "
                    f"{'match' if available != 1 else 'matches'} the chosen topics: the session "
                    f"will have {available:,}.") if available else ""
        widget = self.query_one("#count-note", Static)
        widget.update(note)
        widget.display = bool(note)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    @property
    def form_ready(self) -> bool:
        """True when the form's fields are there to be read: not while :meth:`show_library`
        composes it, and not once the screen is being torn down (a draw-ahead timer can fire
        as the app ends, after the fields are removed)."""
        return not self.composing and self.is_attached and bool(self.query("#mode"))

    @property
    def mode(self) -> str:
        """The chosen mode key (practice, exam, review or cram)."""
        index = self.query_one("#mode", RadioSet).pressed_index
        return MODE_CHOICES[max(index, 0)][0]

    def config(self) -> SessionConfig | str:
        """The session configuration from the form, or a message saying what to fix."""
        from quiz.study.session import SessionConfig

        topics = frozenset(self.query_one("#topics", SelectionList).selected)
        if not topics:
            return "Choose at least one topic."
        available = sum(self.topic_counts[t] for t in topics)
        raw = self.query_one("#count", Input).value.strip()
        try:
            count = int(raw) if raw else available
        except ValueError:
            return "The number of questions must be a whole number."
        if count < 1:
            return "The number of questions must be at least 1."
        launch = self.launch
        return SessionConfig(
            topics=topics,
            count=min(count, available),
            shuffle=self.query_one("#shuffle", Switch).value,
            seed=self.seed,
            tags=launch.tags if launch is not None else None,
            difficulties=launch.difficulties if launch is not None else None,
        )

    def form_now(self) -> dict[str, Any]:
        """The form's choices now, in the shape of the remembered settings the screen is made
        with (``topics``, ``count``, ``shuffle``, ``strict``; ``None`` for every topic and for
        every question), with the ``mode`` and the exam ``minutes`` as typed: a reload shows
        them again rather than the last session's. Empty while there is no form (the banks'
        first load)."""
        if self.composing or not self.query("#topics"):
            return {}
        ticked = set(self.query_one("#topics", SelectionList).selected)
        form: dict[str, Any] = {
            "mode": self.mode,
            # Every topic (or none: no session starts so) stays "every topic", and a count of
            # the whole bank stays "all", as when they are remembered: a topic or questions a
            # reload brings in are ticked and counted (what r is pressed for after an edit).
            "topics": None if not ticked or ticked >= set(self.topic_counts) else sorted(ticked),
            "count": None,
            "shuffle": self.query_one("#shuffle", Switch).value,
        }
        raw = self.query_one("#count", Input).value.strip()
        if not self.count_is_all and raw.isdigit() and int(raw) > 0:
            form["count"] = int(raw)
        if self.query("#minutes"):
            form["minutes"] = self.query_one("#minutes", Input).value.strip()
            form["strict"] = self.query_one("#strict", Switch).value
        return form

    def minutes(self) -> float | None | str:
        """The exam minutes typed, ``None`` when empty, or a message saying what to fix."""
        self._exam_fields()
        raw = self.query_one("#minutes", Input).value.strip()
        if not raw:
            return None
        try:
            value = float(raw)
        except ValueError:
            return "Exam minutes must be a number."
        if not 0 < value <= 1440:
            return "Exam minutes must be more than 0 and at most 1440 (a day)."
        return value

    def action_start(self) -> None:
        """Start a session with the chosen settings (not while the banks load or the form is
        composed)."""
        if self.loading_banks or self.composing:
            return
        config = self.config()
        error = self.query_one("#start-error", Static)
        if isinstance(config, str):
            error.update(config)
            self.notify(config, severity="warning", markup=False)
            return
        mode = self.mode
        minutes = self.minutes() if mode == "exam" else None
        if isinstance(minutes, str):
            error.update(minutes)
            self.notify(minutes, severity="warning", markup=False)
            return
        if error.content:  # an empty Static updated to "" would still lay out this screen
            error.update("")
        if mode in ("review", "cram"):
            # A review queue decides its own questions; the count only caps it.
            from quiz.study.session import SessionConfig

            config = SessionConfig(topics=config.topics, count=config.count,
                                   shuffle=config.shuffle, seed=config.seed, tags=config.tags,
                                   difficulties=config.difficulties)
        # To the app directly: the screen has nothing to add on the way (one hop, not two).
        if mode == "exam":
            self._exam_fields()
        strict = mode == "exam" and self.query_one("#strict", Switch).value
        from quiz.tui.messages import StartSession  # with the first Start, not with this module

        self.app.post_message(StartSession(config, mode, minutes, strict=strict))
