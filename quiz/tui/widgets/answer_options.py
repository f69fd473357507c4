"""The options of one question as the student answers them: a cursor, letters that choose,
ticks for multiple response, and after the answer the verdict marks."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from textual import events
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.reactive import reactive

from quiz.bank.model import OPTION_KEYS
from quiz.study.session import Outcome, ShownQuestion
from quiz.tui.widgets.option_item import OptionItem

SETTLE_TIMEOUT = 1.0
"""Seconds to wait at most for the screen to act on what this widget passed up (see
:meth:`AnswerOptions.settled`) before taking the next key anyway."""


class AnswerOptions(Vertical, can_focus=True):
    """The options of a :class:`~quiz.study.session.ShownQuestion`, shaped like Textual's
    ``OptionList``: ``↑``/``↓`` move a highlight, ``Enter`` selects it, and each option also
    answers to its letter (``A``–``H``, either case) and its number (``1``–``8``). For a
    multiple-response question a letter or ``Space`` ticks, and ``Enter`` submits once as many
    are ticked as the question asks.

    Nothing is highlighted until the student moves the highlight, so an ``Enter`` that the
    student did not aim (a held or bounced key) never answers: it posts :class:`Hint` instead.

    The widget decides nothing about right and wrong: it posts :class:`Answered` with the
    letters chosen; the screen asks the study session and calls :meth:`reveal`. Once revealed
    it takes no more keys, so they reach the screen (scrolling, next question).

    Keys are handled in this widget's own message queue, in the order typed. Everything it
    passes up — a message, or a key it does not take (``n`` for next) — may change what it
    shows, so before taking the next key it waits until the screen calls :meth:`settled`
    (at most :data:`SETTLE_TIMEOUT` seconds). That keeps ``b n b n`` typed faster than the
    screen redraws applied in order, each to the right question.
    """

    BINDINGS = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("enter", "select", "Choose", show=False),
        Binding("space", "tick", "Tick", show=False),
        *(Binding(f"{k.lower()},{k}", f"pick('{k}')", k, show=False) for k in OPTION_KEYS),
        *(Binding(str(n), f"pick('{n}')", str(n), show=False) for n in range(1, 9)),
    ]

    DEFAULT_CSS = """
    AnswerOptions { height: auto; }
    """

    highlighted: reactive[int | None] = reactive(None)
    """Index of the highlighted option; ``None`` until the student moves the highlight."""

    class _Posted(Message):
        """What every message of this widget carries: the widget that posted it."""

        def __init__(self, answer_options: AnswerOptions) -> None:
            self.answer_options = answer_options
            super().__init__()

        @property
        def control(self) -> AnswerOptions:
            """The widget that posted the message."""
            return self.answer_options

    class Answered(_Posted):
        """The student chose these letters (one, or the ticked ones of a multiple-response
        question)."""

        def __init__(self, answer_options: AnswerOptions, letters: frozenset[str]) -> None:
            self.letters = letters
            super().__init__(answer_options)

    class Highlighted(_Posted):
        """The student moved the highlight to the option at ``index``."""

        def __init__(self, answer_options: AnswerOptions, index: int) -> None:
            self.index = index
            super().__init__(answer_options)

    class Ticked(_Posted):
        """The ticks of a multiple-response question changed; ``letters`` are all ticked ones."""

        def __init__(self, answer_options: AnswerOptions, letters: frozenset[str]) -> None:
            self.letters = letters
            super().__init__(answer_options)

    class Hint(_Posted):
        """A key did nothing; ``text`` says what would (one line, for the student)."""

        def __init__(self, answer_options: AnswerOptions, text: str) -> None:
            self.text = text
            super().__init__(answer_options)

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None, disabled: bool = False) -> None:
        super().__init__(name=name, id=id, classes=classes, disabled=disabled)
        self.shown: ShownQuestion | None = None
        self.ticked: set[str] = set()
        self.revealed = False
        self._settled = asyncio.Event()
        self._settled.set()

    # -- what is shown --------------------------------------------------------------------
    async def show(self, shown: ShownQuestion, *, ticked: Iterable[str] = (),
                   outcome: Outcome | None = None) -> None:
        """Show ``shown``'s options with ``ticked`` ones ticked, or, with ``outcome``, as
        answered (see :meth:`reveal`)."""
        self.shown = shown
        self.ticked = set(ticked)
        self.revealed = False
        self.highlighted = None
        multiple = shown.question.multiple_response
        # The option rows are updated in place; only a different number of options mounts or
        # removes rows (a new widget costs far more than new text in an old one).
        items = self.items
        for item, opt in zip(items, shown.options, strict=False):
            item.set_option(opt, multiple=multiple)
        if len(items) > len(shown.options):
            await self.remove_children(items[len(shown.options):])
        elif len(items) < len(shown.options):
            await self.mount_all(OptionItem(opt, multiple=multiple, id=f"option-{opt.letter}")
                                 for opt in shown.options[len(items):])
        for item in self.items:
            item.chosen = item.option.letter in self.ticked
        if outcome is not None:
            self.reveal(outcome)

    def reveal(self, outcome: Outcome) -> None:
        """Mark the right options and the wrong choices; take no more keys."""
        right = {o.letter for o in outcome.right}
        chosen = {o.letter for o in outcome.chosen}
        self.revealed = True
        self.highlighted = None
        for item in self.items:
            item.chosen = item.option.letter in chosen
            item.verdict = ("right" if item.option.letter in right
                            else "wrong" if item.option.letter in chosen else "")

    @property
    def items(self) -> list[OptionItem]:
        """The option rows, in the order shown."""
        return list(self.query_children(OptionItem))

    def watch_highlighted(self, value: int | None) -> None:
        for i, item in enumerate(self.items):
            item.highlighted = i == value
        if value is not None and value < len(self.items):
            self.items[value].scroll_visible(animate=False)

    # -- keys -----------------------------------------------------------------------------
    def settled(self) -> None:
        """Called by the screen once it has acted on what this widget passed up."""
        self._settled.set()

    async def _wait_settled(self) -> None:
        try:
            await asyncio.wait_for(self._settled.wait(), SETTLE_TIMEOUT)
        except TimeoutError:
            self._settled.set()

    def _pass_up(self, message: Message) -> None:
        # Straight to the screen, not into this widget's own queue behind keys still waiting
        # there: the screen then sees messages and passed-up keys in the order typed.
        self._settled.clear()
        self.screen.post_message(message)

    async def _on_key(self, event: events.Key) -> None:
        await self._wait_settled()
        if not self.revealed and self.shown is not None:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                event.stop()
                event.prevent_default()
                await self.run_action(binding.action)
                return
        self._settled.clear()  # the key bubbles to the screen, which calls settled()

    def on_option_item_clicked(self, message: OptionItem.Clicked) -> None:
        message.stop()
        if not self.revealed:
            self._choose(message.letter)

    # -- actions --------------------------------------------------------------------------
    def action_cursor_up(self) -> None:
        """Move the highlight up (from nothing: to the last option)."""
        self._move(-1)

    def action_cursor_down(self) -> None:
        """Move the highlight down (from nothing: to the first option)."""
        self._move(1)

    def _move(self, delta: int) -> None:
        if self.shown is None or self.revealed:
            return
        n = len(self.shown.options)
        if self.highlighted is None:
            self.highlighted = 0 if delta > 0 else n - 1
        else:
            self.highlighted = (self.highlighted + delta) % n
        self._pass_up(self.Highlighted(self, self.highlighted))

    def action_pick(self, key: str) -> None:
        """Choose (or, for multiple response, tick) the option shown under letter or number
        ``key``."""
        if self.shown is None or self.revealed:
            return
        letters = self.shown.letters
        index = OPTION_KEYS.index(key) if key in OPTION_KEYS else int(key) - 1
        if index >= len(letters):
            self._pass_up(self.Hint(self, f"There is no option {key} here: the options are "
                                          f"{letters[0]}–{letters[-1]}."))
            return
        self.highlighted = index
        self._choose(letters[index])

    def action_tick(self) -> None:
        """Space: tick or untick the highlighted option of a multiple-response question."""
        if self.shown is None or self.revealed or not self.shown.question.multiple_response:
            return
        if self.highlighted is None:
            self._pass_up(self.Hint(self, "Move to an option with ↑↓ first, or press its "
                                          "letter."))
            return
        self._choose(self.shown.options[self.highlighted].letter)

    def action_select(self) -> None:
        """Enter: choose the highlighted option, or submit the ticked ones."""
        if self.shown is None or self.revealed:
            return
        shown = self.shown
        if shown.question.multiple_response:
            if len(self.ticked) != shown.choose:
                self._pass_up(self.Hint(self, _tick_count_hint(shown.choose, len(self.ticked))))
                return
            self._pass_up(self.Answered(self, frozenset(self.ticked)))
            return
        if self.highlighted is None:
            letters = shown.letters
            self._pass_up(self.Hint(self, f"Press {letters[0]}–{letters[-1]} to choose, or "
                                          "move with ↑↓ and then press Enter."))
            return
        self._pass_up(self.Answered(self, frozenset({shown.options[self.highlighted].letter})))

    def _choose(self, letter: str) -> None:
        assert self.shown is not None
        for i, opt in enumerate(self.shown.options):
            if opt.letter == letter:
                self.highlighted = i
        if not self.shown.question.multiple_response:
            self._pass_up(self.Answered(self, frozenset({letter})))
            return
        self.ticked.symmetric_difference_update({letter})
        for item in self.items:
            item.chosen = item.option.letter in self.ticked
        self._pass_up(self.Ticked(self, frozenset(self.ticked)))


def _tick_count_hint(choose: int, ticked: int) -> str:
    """What to do when Enter is pressed with the wrong number of ticks."""
    if ticked < choose:
        more = choose - ticked
        return f"Tick {more} more option{'s' * (more != 1)}, then press Enter ({choose} in all)."
    fewer = ticked - choose
    return f"Untick {fewer} option{'s' * (fewer != 1)}: this question asks for {choose}."
