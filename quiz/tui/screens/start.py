"""The start screen: bank title, question count, topics to include, number of questions, shuffle."""

from __future__ import annotations

from collections import Counter

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, Label, SelectionList, Static, Switch
from textual.widgets.selection_list import Selection

from quiz.bank.library import Library
from quiz.bank.terminal import terminal_safe
from quiz.study.session import SessionConfig
from quiz.tui.content import assemble, literal
from quiz.tui.messages import StartSession


class StartScreen(Screen[None]):
    """Choose what to study, then start. Enter on the focused Start button begins."""

    BINDINGS = [
        Binding("ctrl+s", "start", "Start"),
        Binding("r", "app.reload_banks", "Reload banks"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.request_quit", "Quit"),
        Binding("escape", "app.request_quit", "Quit", show=False),
    ]

    def __init__(self, library: Library, *, shuffle: bool = True, seed: int | None = None) -> None:
        super().__init__()
        self.library = library
        self.shuffle = shuffle
        self.seed = seed
        self.topic_counts = Counter(q.topic for q in library.questions)

    def compose(self) -> ComposeResult:
        lib = self.library
        n = len(lib.questions)
        yield Header()
        with VerticalScroll(id="start-body"):
            yield Static(literal(lib.title, "bold"), id="bank-title", markup=False)
            yield Static(
                f"{n} question{'s' * (n != 1)} in {len(self.topic_counts)} "
                f"topic{'s' * (len(self.topic_counts) != 1)}",
                id="bank-count", markup=False,
            )
            descriptions = [b.info.description for b in lib.banks if b.info.description]
            if descriptions:
                yield Static(literal("\n\n".join(descriptions)), id="bank-description",
                             markup=False)
            yield Label("Topics to include", classes="field-label")
            yield SelectionList[str](
                *(
                    Selection(assemble(lib.topic_name(t), f"  ({c})"), t, True)
                    for t, c in self.topic_counts.items()
                ),
                id="topics",
            )
            with Horizontal(classes="field-row"):
                yield Label("Number of questions", classes="field-label")
                yield Input(str(n), type="integer", id="count", max_length=6)
            with Horizontal(classes="field-row"):
                yield Label("Shuffle questions and options", classes="field-label")
                yield Switch(value=self.shuffle, id="shuffle")
            yield Static(id="start-error", markup=False)
        # Outside the scroll, so focusing it never scrolls the bank's title out of view.
        with Horizontal(id="start-actions"):
            yield Button("Start", id="start", variant="primary")
        yield Footer()

    def on_resize(self) -> None:
        self.set_class(self.size.width < 60, "-narrow")

    def on_mount(self) -> None:
        self.title = terminal_safe(self.library.title)
        self.query_one("#start", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "start":
            self.action_start()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_start()

    def config(self) -> SessionConfig | str:
        """The session configuration from the form, or a message saying what to fix."""
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
        if count > available:
            self.notify(f"Only {available} question{'s' * (available != 1)} match the chosen "
                        f"topics: starting with {available}.", markup=False)
        return SessionConfig(
            topics=topics,
            count=min(count, available),
            shuffle=self.query_one("#shuffle", Switch).value,
            seed=self.seed,
        )

    def action_start(self) -> None:
        """Start a session with the chosen settings."""
        config = self.config()
        error = self.query_one("#start-error", Static)
        if isinstance(config, str):
            error.update(config)
            self.notify(config, severity="warning", markup=False)
            return
        error.update("")
        self.post_message(StartSession(config))
