"""The question screen: progress, stem, options; after the answer, the reveal.

On this screen the letters A–H and digits 1–8 belong to the options, so no action key here is a
letter from A to H (next is ``n``, previous ``p``, quit ``q``, help ``?``).
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
from textual.widgets import Footer, Header, Static

from quiz.bank.model import OPTION_KEYS
from quiz.bank.terminal import terminal_safe
from quiz.study.scheduling import RATING_NAMES
from quiz.study.session import Outcome, SessionError, StudySession
from quiz.tui.content import assemble, literal
from quiz.tui.widgets.option_item import OptionItem
from quiz.tui.widgets.reveal import Reveal


class QuestionScreen(Screen[None]):
    """Asks the session's questions one at a time and reveals each answer's explanations."""

    BINDINGS = [
        Binding("n", "next", "Next"),
        Binding("p", "previous", "Previous"),
        Binding("s", "app.summary", "Summary"),
        Binding("u", "undo", "Undo"),
        Binding("question_mark", "app.help", "Help"),
        Binding("q", "app.request_quit", "Quit"),
        Binding("escape", "app.request_quit", "Quit", show=False),
        Binding("pageup", "scroll(-1)", "Page up", show=False),
        Binding("pagedown", "scroll(1)", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
    ]

    def __init__(self, session: StudySession, *, title: str = "quiz") -> None:
        super().__init__()
        self.session = session
        self.bank_title = title
        self.highlight = 0
        self.ticked: set[str] = set()
        self._ticks_by_question: dict[str, set[str]] = {}
        """Ticks of unsubmitted multiple-response questions, kept while the student browses."""
        self._input_lock = asyncio.Lock()

    # -- layout -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="status"):
            yield Static(id="status-left", markup=False)
            yield Static(id="status-right", markup=False)
        # Not focusable: its own up/down bindings would steal the option cursor's keys.
        with VerticalScroll(id="body", can_focus=False):
            yield Static(id="stem", markup=False)
            yield Static(id="hint", markup=False)
            yield Vertical(id="options")
            yield Vertical(id="reveal")
        yield Footer()

    async def on_mount(self) -> None:
        self.title = terminal_safe(self.bank_title)
        await self.show_question()

    # -- drawing ----------------------------------------------------------------------------
    async def show_question(self) -> None:
        """Draw the current question: answered ones with their reveal, others without."""
        shown = self.session.current
        outcome = self.session.outcome()
        self.highlight = 0
        self.ticked = self._ticks_by_question.setdefault(shown.question.id, set())
        self._draw_status()
        self.query_one("#stem", Static).update(literal(shown.question.stem))
        self.query_one("#hint", Static).update(self._hint(outcome))
        options = self.query_one("#options", Vertical)
        await options.remove_children()
        items = [
            OptionItem(opt, multiple=shown.question.multiple_response, id=f"option-{opt.letter}")
            for opt in shown.options
        ]
        await options.mount_all(items)
        reveal = self.query_one("#reveal", Vertical)
        await reveal.remove_children()
        if outcome is not None:
            self._mark_options(items, outcome)
            await reveal.mount(Reveal(outcome))
        else:
            items[0].highlighted = True
            for item in items:
                item.chosen = item.option.letter in self.ticked
        self.query_one("#body", VerticalScroll).scroll_home(animate=False)

    def _draw_status(self) -> None:
        shown = self.session.current
        score = self.session.score
        q = shown.question
        parts = [f"Question {shown.number}/{shown.total}", self.session.topic_names.get(q.topic,
                                                                                          q.topic)]
        if self.session.mode != "practice":
            parts.insert(0, self.session.mode.capitalize())
        if q.difficulty:
            parts.append(q.difficulty)
        self.query_one("#status-left", Static).update(literal(" · ".join(parts), "bold"))
        self.query_one("#status-right", Static).update(
            f"Score {score.correct}/{score.answered}")

    def _hint(self, outcome: Outcome | None) -> Content:
        shown = self.session.current
        letters = shown.letters
        span = f"{letters[0]}–{letters[-1]}"
        if outcome is not None:
            last = "s Summary" if self.session.at_last else "n Next"
            rating = self.session.ratings.get(shown.question.id)
            rated = ""
            if rating is not None:
                rated = (f" · rated {RATING_NAMES[rating]}: 1 Again 2 Hard 3 Good 4 Easy "
                         "change it · u Undo")
            return assemble(("Answered. ", "bold"), f"{last} · p Previous · ↑↓ scroll{rated}")
        if shown.question.multiple_response:
            return assemble((f"Choose {shown.choose}. ", "bold"),
                            f"Toggle with {span} or 1–{len(letters)} (or ↑↓ Space), "
                            "then press Enter.")
        return assemble(("Choose one. ", "bold"),
                        f"Press {span} or 1–{len(letters)}, or ↑↓ and Enter, or click.")

    def _items(self) -> list[OptionItem]:
        return list(self.query(OptionItem))

    def _mark_options(self, items: list[OptionItem], outcome: Outcome) -> None:
        right = {o.letter for o in outcome.right}
        chosen = {o.letter for o in outcome.chosen}
        for item in items:
            item.highlighted = False
            item.chosen = item.option.letter in chosen
            if item.option.letter in right:
                item.verdict = "right"
            elif item.option.letter in chosen:
                item.verdict = "wrong"

    # -- input ------------------------------------------------------------------------------
    # Every key of this screen is handled here, in this screen's own message queue, one at a
    # time and under one lock: as bindings, "n" would run in the app's queue, and a letter typed
    # right after it could answer the question being replaced. The bindings above stay for the
    # footer (a click on one runs the same step under the same lock).
    async def on_key(self, event: events.Key) -> None:
        """Letters A–H and digits 1–8 pick the option shown under that letter or number; the
        navigation keys move, submit and scroll."""
        step = self._step_for(event)
        if step is None:
            return
        event.stop()
        event.prevent_default()
        async with self._input_lock:
            await step()

    def _step_for(self, event: events.Key) -> Callable[[], Awaitable[None]] | None:
        steps: dict[str, Callable[[], Awaitable[None]]] = {
            "n": self._next, "right": self._next, "p": self._previous, "left": self._previous,
            "enter": self._submit, "space": self._toggle_option,
            "up": partial(self._move, -1), "down": partial(self._move, 1),
            "u": self._undo,
        }
        if event.key in steps:
            return steps[event.key]
        char = (event.character or "").upper()
        if len(char) == 1 and (char in OPTION_KEYS or char in "12345678"):
            return partial(self._pick_by_key, char)
        return None

    async def _pick_by_key(self, char: str) -> None:
        shown = self.session.current
        if self.session.outcome() is not None:
            if char in "1234" and shown.question.id in self.session.ratings:
                self.session.rate(int(char))
                self.query_one("#hint", Static).update(self._hint(self.session.outcome()))
                self.notify(f"Rated {RATING_NAMES[int(char)]}: the review schedule follows it.",
                            markup=False)
            return
        index = OPTION_KEYS.index(char) if char in OPTION_KEYS else int(char) - 1
        if index < len(shown.options):
            await self.pick(shown.options[index].letter)
        elif self.session.outcome() is None:
            self.notify(f"There is no option {char} here (options: "
                        f"{', '.join(shown.letters)}).", severity="warning", markup=False)

    async def on_option_item_clicked(self, message: OptionItem.Clicked) -> None:
        async with self._input_lock:
            await self.pick(message.letter)

    async def pick(self, letter: str) -> None:
        """Answer with ``letter`` (single answer) or toggle it (multiple response)."""
        if self.session.outcome() is not None:
            return
        items = self._items()
        for i, item in enumerate(items):
            item.highlighted = item.option.letter == letter
            if item.highlighted:
                self.highlight = i
        if self.session.current.question.multiple_response:
            self.ticked.symmetric_difference_update({letter})
            for item in items:
                item.chosen = item.option.letter in self.ticked
        else:
            await self._answer({letter})

    async def _answer(self, letters: set[str]) -> None:
        try:
            outcome = self.session.answer(letters)
        except SessionError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self._mark_options(self._items(), outcome)
        self._draw_status()
        self.query_one("#hint", Static).update(self._hint(outcome))
        await self.query_one("#reveal", Vertical).mount(Reveal(outcome))
        self.call_after_refresh(self._scroll_to_verdict)

    def _scroll_to_verdict(self) -> None:
        verdict = self.query("#verdict")
        if verdict:
            self.query_one("#body", VerticalScroll).scroll_to_widget(
                verdict.first(), animate=False, top=True)

    # -- actions ----------------------------------------------------------------------------
    async def _move(self, delta: int) -> None:
        """Move the option cursor (before the answer) or scroll the reveal (after)."""
        if self.session.outcome() is not None:
            body = self.query_one("#body", VerticalScroll)
            (body.scroll_down if delta > 0 else body.scroll_up)(animate=False)
            return
        items = self._items()
        self.highlight = (self.highlight + delta) % len(items)
        for i, item in enumerate(items):
            item.highlighted = i == self.highlight
        items[self.highlight].scroll_visible(animate=False)

    async def _toggle_option(self) -> None:
        """Space: toggle the highlighted option of a multiple-response question."""
        if self.session.current.question.multiple_response:
            await self.pick(self.session.current.options[self.highlight].letter)

    async def _submit(self) -> None:
        """Enter: answer with the highlighted option, or submit the ticked ones; once answered,
        go on to the next question."""
        shown = self.session.current
        if self.session.outcome() is not None:
            await self._next()
        elif shown.question.multiple_response:
            if len(self.ticked) != shown.choose:
                self.notify(f"Choose {shown.choose} options ({len(self.ticked)} chosen so far).",
                            severity="warning", markup=False)
                return
            await self._answer(set(self.ticked))
        else:
            await self._answer({shown.options[self.highlight].letter})

    async def _next(self) -> None:
        """Go to the next question; after the last one, to the summary."""
        if self.session.at_last:
            if self.session.outcome() is not None:
                self.app.action_summary()  # type: ignore[attr-defined]
            else:
                self.notify("This is the last question.", markup=False)
            return
        self.session.next()
        await self.show_question()

    async def _previous(self) -> None:
        """Go back one question (answered ones show their reveal)."""
        if self.session.position == 0:
            self.notify("This is the first question.", markup=False)
            return
        self.session.previous()
        await self.show_question()

    async def _undo(self) -> None:
        """Take back the last answer of this session (with its schedule change) and ask that
        question again."""
        try:
            self.session.undo()
        except SessionError as exc:
            self.notify(str(exc), severity="warning", markup=False)
            return
        self._ticks_by_question.pop(self.session.current.question.id, None)
        await self.show_question()
        self.notify("Answer undone: answer this question again.", markup=False)

    async def action_undo(self) -> None:
        """Undo the last answer (the footer's Undo)."""
        async with self._input_lock:
            await self._undo()

    async def action_next(self) -> None:
        """Next question (the footer's Next)."""
        async with self._input_lock:
            await self._next()

    async def action_previous(self) -> None:
        """Previous question (the footer's Previous)."""
        async with self._input_lock:
            await self._previous()

    def action_scroll(self, pages: int) -> None:
        """Scroll the body by a page."""
        body = self.query_one("#body", VerticalScroll)
        (body.scroll_page_down if pages > 0 else body.scroll_page_up)(animate=False)

    def action_scroll_home(self) -> None:
        """Scroll to the top."""
        self.query_one("#body", VerticalScroll).scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        """Scroll to the bottom."""
        self.query_one("#body", VerticalScroll).scroll_end(animate=False)
