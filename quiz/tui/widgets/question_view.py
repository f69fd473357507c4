"""The body of the question screen as one widget: the stem, the hint line, the options as the
student answers them (a cursor, letters that choose, ticks for multiple response, after the
answer the verdict marks) and the reveal.

It is a :class:`~quiz.tui.widgets.document.Document` (Textual's line API): a key press changes
the blocks it touches — an option's marker, the hint, the reveal — and Textual draws only the
lines on screen, instead of laying out dozens of widgets.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable
from functools import partial
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip
from textual.timer import Timer

from quiz.bank.model import OPTION_KEYS
from quiz.study.shown import Outcome, ShownOption, ShownQuestion, build_outcome
from quiz.tui.textual_internals import bindings_for_key
from quiz.tui.textual_internals.widget_hooks import TakesKeysItself
from quiz.tui.widgets.document import Block, Pen, Runs, prose, runs_text, segments
from quiz.tui.widgets.reveal import (
    QUESTION_PARTS,
    REVEAL_COMPONENTS,
    REVEAL_CSS,
    RevealView,
    reveal_blocks,
)

SETTLE_TIMEOUT = 1.0
"""Seconds to wait at most for the screen to act on what this widget passed up (see
:meth:`QuestionView.settled`); a screen that never answers cannot freeze the keys."""

MARKER_WIDTH = 7
"""Cells before an option's text: a space, the letter, its tick box or radio, a space."""

DRAW_AHEAD_DELAY = 0.15
"""Seconds after a question is shown, unanswered, before the parts of its reveal that do not
depend on the answer are drawn (while the student reads; a key before then cancels nothing but
the drawing ahead, which the answer then does)."""

KEPT_REVEALS = 16
"""How many questions' reveals (their drawn lines) are kept for going back to them."""

VERDICT_MARKS = {"right": " ✓ right", "wrong": " ✗ your choice"}
"""What follows an option's text after the answer."""


def _option_block(option: ShownOption, *, multiple: bool, highlighted: bool, chosen: bool,
                  verdict: str, top: int) -> Block:
    """The block of one option: its marker column (letter, tick box or radio), its text wrapped
    under itself, and after the answer its verdict mark."""
    def draw(pen: Pen) -> list[Strip]:
        names = ["question-view--option"]
        if highlighted:
            names.append("question-view--option-highlighted")
        if chosen:
            names.append("question-view--option-chosen")
        if verdict:
            names.append(f"question-view--option-{verdict}")
        style = pen.style(*names)
        bold = style + Style(bold=True)
        mark = VERDICT_MARKS.get(verdict, "")
        box = ("[x]" if chosen else "[ ]") if multiple else ("(•)" if chosen else "( )")
        text_width = max(pen.width - MARKER_WIDTH - 1 - len(mark), 10)
        rows = prose(option.text, text_width, style)
        rest = pen.width - MARKER_WIDTH - text_width - len(mark)
        out: list[Strip] = []
        for i, row in enumerate(rows):
            if i == 0:
                parts = [Segment(f" {option.letter}", bold), Segment(f" {box} ", style), *row,
                         *segments(mark, bold, len(mark) + rest, fill=style)]
            else:
                parts = [Segment(" " * MARKER_WIDTH, style), *row,
                         Segment(" " * (len(mark) + rest), style)]
            out.append(Strip(parts).crop_extend(0, pen.width, style))
        return out
    return Block(f"option-{option.letter}", draw, top=top)


class QuestionView(TakesKeysItself, RevealView, inherit_bindings=False):
    """Shows a :class:`~quiz.study.session.ShownQuestion` and takes the keys that answer it.

    Letters (either case) and digits choose an option; ``↑``/``↓`` move a highlight and
    ``Enter`` chooses the highlighted option; a click on an option chooses it. For multiple
    response they tick (``Space`` ticks the highlighted one) and ``Enter`` submits once as many
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

    can_focus = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
        Binding("enter", "select", "Choose", show=False),
        Binding("space", "tick", "Tick", show=False),
        *(Binding(f"{k.lower()},{k}", f"pick('{k}')", k, show=False) for k in OPTION_KEYS),
        *(Binding(str(n), f"pick('{n}')", str(n), show=False) for n in range(1, 9)),
    ]

    _FIXED_HEIGHT = True

    DRAWS_REVEAL_AHEAD: ClassVar[bool] = True
    """Draw the answer-independent parts of a question's reveal while the student reads it
    (``False`` where no reveal follows the answer: the exam)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = REVEAL_COMPONENTS | {
        "question-view--stem", "question-view--hint", "question-view--hint-warning",
        "question-view--option", "question-view--option-highlighted",
        "question-view--option-chosen", "question-view--option-right",
        "question-view--option-wrong",
    }

    DEFAULT_CSS = """
    /* The scrollbar is always there: showing or hiding it lays out the whole screen, which
       would cost every answer and every next question a few milliseconds (issue 13). */
    QuestionView { height: 1fr; overflow-y: scroll; }
    QuestionView > .question-view--stem { text-style: bold; }
    QuestionView > .question-view--hint { color: $text-muted; }
    QuestionView > .question-view--hint-warning { color: $warning; }
    QuestionView > .question-view--option-highlighted { background: $accent 30%; }
    QuestionView > .question-view--option-chosen { text-style: bold; }
    QuestionView > .question-view--option-right { background: $success 25%; color: $text; }
    QuestionView > .question-view--option-wrong { background: $error 25%; color: $text; }
    """ + REVEAL_CSS.format(widget="QuestionView")

    class _Posted(Message):
        """What every message of this widget carries: the widget that posted it."""

        def __init__(self, view: QuestionView) -> None:
            self.view = view
            super().__init__()

        @property
        def control(self) -> QuestionView:
            """The widget that posted the message."""
            return self.view

    class Answered(_Posted):
        """The student chose these letters (one, or the ticked ones of a multiple-response
        question)."""

        def __init__(self, view: QuestionView, letters: frozenset[str]) -> None:
            self.letters = letters
            super().__init__(view)

    class Highlighted(_Posted):
        """The student moved the highlight to the option at ``index``."""

        def __init__(self, view: QuestionView, index: int) -> None:
            self.index = index
            super().__init__(view)

    class Ticked(_Posted):
        """The ticks of a multiple-response question changed; ``letters`` are all ticked ones."""

        def __init__(self, view: QuestionView, letters: frozenset[str]) -> None:
            self.letters = letters
            super().__init__(view)

    class Hint(_Posted):
        """A key did nothing; ``text`` says what would (one line, for the student)."""

        def __init__(self, view: QuestionView, text: str) -> None:
            self.text = text
            super().__init__(view)

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        # No outcome yet: the blocks come with show().
        super(RevealView, self).__init__(id=id, classes=classes)
        self.shown: ShownQuestion | None = None
        self.outcome: Outcome | None = None
        self.ticked: set[str] = set()
        self.revealed = False
        self.highlighted: int | None = None
        """Index of the highlighted option; ``None`` until the student moves the highlight."""
        self.verdicts: dict[str, str] = {}
        """After the answer: "right" or "wrong" (chosen but wrong) per letter marked."""
        self.hint_warning = False
        """The hint line says why the last key did nothing."""
        self._hint: Runs = ()
        self._rating: Runs | None = None
        self._reveals: OrderedDict[str, tuple[Outcome, list[Block]]] = OrderedDict()
        """The reveal blocks of the last questions answered or shown (by question id, with
        the outcome they show), drawn lines included: going back to one draws nothing."""
        self._shared: OrderedDict[str, dict[str, Block]] = OrderedDict()
        """Per question id, the reveal's blocks that do not depend on the answer (drawn ahead
        while the student reads the question)."""
        self._ahead: Timer | None = None
        self._prepared: tuple[ShownQuestion, tuple[str | tuple[str, str], ...],
                              list[Block]] | None = None
        """A question drawn ahead (:meth:`prepare`): the question, its hint and its blocks."""
        self._settled = asyncio.Event()
        self._settled.set()

    # -- what is shown --------------------------------------------------------------------
    def show(self, shown: ShownQuestion, *, hint: Runs, ticked: Iterable[str] = (),
             outcome: Outcome | None = None, rating: Runs | None = None) -> None:
        """Show ``shown`` from its top with ``hint`` above its options and ``ticked`` ones
        ticked, or, with ``outcome``, as answered with its reveal (see :meth:`reveal`) and
        the ``rating`` line under the verdict."""
        self._rating = rating
        self.shown = shown
        self.ticked = set(ticked)
        self.revealed = outcome is not None
        self.outcome = outcome
        self.highlighted = None
        self.verdicts = self._verdicts(outcome)
        if outcome is not None:
            self.ticked = {o.letter for o in outcome.chosen}
        self._hint = hint
        self.hint_warning = False
        prepared, self._prepared = self._prepared, None
        if (prepared is not None and outcome is None and not self.ticked
                and prepared[0] is shown and prepared[1] == tuple(hint)):
            blocks = prepared[2]
        else:
            blocks = [self._stem_block(shown), self._hint_block(), *self._option_blocks()]
        if outcome is not None:
            blocks += self._with_rating(self._reveal_blocks(outcome))
        self.set_blocks(blocks)
        self.scroll_to(y=0, animate=False, force=True)
        if self._ahead is not None:
            self._ahead.stop()
            self._ahead = None
        if outcome is None and self.DRAWS_REVEAL_AHEAD:
            self._ahead = self.set_timer(DRAW_AHEAD_DELAY, partial(self._draw_ahead, shown))

    def prepare(self, shown: ShownQuestion, *, hint: Runs) -> None:
        """Draw ``shown`` unanswered (stem, ``hint`` line, options; nothing ticked or
        highlighted) at the view's width now, without showing it: the next :meth:`show` of
        that question in that state, with that hint, takes these lines (the first question of
        a session drawn ahead while the start screen waits, issue 13)."""
        current = (self.shown, self.ticked, self.highlighted, self.verdicts, self._hint,
                   self.hint_warning)
        self.shown, self.ticked, self.highlighted, self.verdicts = shown, set(), None, {}
        self._hint, self.hint_warning = hint, False
        try:
            blocks = [self._stem_block(shown), self._hint_block(), *self._option_blocks()]
        finally:
            (self.shown, self.ticked, self.highlighted, self.verdicts, self._hint,
             self.hint_warning) = current
        self._prepared = (shown, tuple(hint), blocks)
        self.draw_prepared()

    def draw_prepared(self) -> None:
        """Draw the question :meth:`prepare` keeps at the view's width now. A view not laid
        out yet has no width and draws nothing: its first layout calls this again (the
        question screen laid out off screen, :mod:`quiz.tui.ahead`, and :meth:`on_resize`),
        so the prepared lines are there, at the real width, before Enter shows them."""
        if self._prepared is not None:
            self.draw_ahead(self._prepared[2])

    def on_resize(self) -> None:
        # Document's handler first (Textual then calls it again, finding nothing to do): the
        # lines shown are drawn at the new width, which draw_ahead then draws at.
        super().on_resize()
        self.draw_prepared()  # a question drawn ahead at another width (or at none) follows

    @staticmethod
    def _stem_block(shown: ShownQuestion) -> Block:
        stem = shown.question.stem

        def draw_stem(pen: Pen) -> list[Strip]:
            return prose(stem, pen.width, pen.style("question-view--stem"))
        return Block("stem", draw_stem, top=1)

    def _draw_ahead(self, shown: ShownQuestion) -> None:
        """Draw the parts of ``shown``'s reveal that do not depend on the answer, if it is
        still the question shown and unanswered."""
        self._ahead = None
        if self.shown is not shown or self.revealed:
            return
        blocks = reveal_blocks(build_outcome(shown, ()), self._shared_blocks(shown))
        self.draw_ahead(b for b in blocks if b.key in QUESTION_PARTS)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """After the answer the options take no keys: their bindings step aside, so the
        screen's own (1–4 Rate) show in the key bar."""
        if self.revealed and action == "pick":
            return False
        return True

    def set_hint(self, hint: Runs, *, warning: bool = False) -> None:
        """Say ``hint`` on the line above the options (``warning``: why a key did nothing)."""
        self._hint = hint
        self.hint_warning = warning
        self.replace(self._hint_block())

    def reveal(self, outcome: Outcome, *, hint: Runs | None = None,
               rating: Runs | None = None) -> None:
        """Mark the right options and the wrong choices, show the reveal of ``outcome`` with its
        verdict at the top, the ``rating`` line under it (and ``hint`` on the hint line); take
        no more keys."""
        self._rating = rating
        if hint is not None:
            self._hint, self.hint_warning = hint, False
        self.revealed = True
        self.outcome = outcome
        self.highlighted = None
        self.ticked = {o.letter for o in outcome.chosen}
        self.verdicts = self._verdicts(outcome)
        blocks = [b for b in self.blocks if b.key == "stem"]
        self.set_blocks([*blocks, self._hint_block(), *self._option_blocks(),
                         *self._with_rating(self._reveal_blocks(outcome))])
        # The stem, the marked options and the verdict (with its rating line) stay in view
        # together when they fit (a tall terminal); else the verdict is scrolled to the top.
        top = self.top_of("verdict")
        ends = [span[1] for key in ("rating", "verdict-detail", "verdict")
                if (span := self.span(key)) is not None]
        height = self.scrollable_content_region.height
        if ends and height and max(ends) <= height:
            self.scroll_to(y=0, animate=False, force=True)
        elif top is not None:
            self.scroll_to(y=top, animate=False, force=True)

    def set_rating(self, rating: Runs | None) -> None:
        """Say ``rating`` on the line under the verdict (a new rating given)."""
        self._rating = rating
        if rating is not None and self.span("rating") is not None:
            self.replace(self._rating_block(rating))

    def _with_rating(self, blocks: list[Block]) -> list[Block]:
        """``blocks`` of a reveal with the rating line after the verdict (and its detail)."""
        if self._rating is None:
            return blocks
        keys = [b.key for b in blocks]
        at = keys.index("verdict-detail") + 1 if "verdict-detail" in keys else 1
        return [*blocks[:at], self._rating_block(self._rating), *blocks[at:]]

    @staticmethod
    def _rating_block(rating: Runs) -> Block:
        def draw(pen: Pen) -> list[Strip]:
            return pen.renderable(runs_text(rating), pen.width, pen.style("reveal--text"))
        return Block("rating", draw, top=0)

    def _shared_blocks(self, shown: ShownQuestion) -> dict[str, Block]:
        key = shown.question.id
        shared = self._shared.setdefault(key, {})
        self._shared.move_to_end(key)
        while len(self._shared) > KEPT_REVEALS:
            self._shared.popitem(last=False)
        return shared

    def _reveal_blocks(self, outcome: Outcome) -> list[Block]:
        key = outcome.shown.question.id
        kept = self._reveals.get(key)
        if kept is None or kept[0] is not outcome:
            blocks = reveal_blocks(outcome, self._shared_blocks(outcome.shown))
            kept = self._reveals[key] = (outcome, blocks)
        self._reveals.move_to_end(key)
        while len(self._reveals) > KEPT_REVEALS:
            self._reveals.popitem(last=False)
        return kept[1]

    @staticmethod
    def _verdicts(outcome: Outcome | None) -> dict[str, str]:
        if outcome is None:
            return {}
        marks = {o.letter: "wrong" for o in outcome.chosen}
        return marks | {o.letter: "right" for o in outcome.right}

    def _hint_block(self) -> Block:
        hint, warning = self._hint, self.hint_warning

        def draw(pen: Pen) -> list[Strip]:
            name = "question-view--hint-warning" if warning else "question-view--hint"
            text = runs_text((("! ", "bold"), *hint) if warning else hint)
            return pen.renderable(text, pen.width, pen.style(name))
        return Block("hint", draw, top=1)

    def _option_blocks(self) -> list[Block]:
        shown = self.shown
        if shown is None:
            return []
        multiple = shown.question.multiple_response
        return [_option_block(opt, multiple=multiple, highlighted=i == self.highlighted,
                              chosen=opt.letter in self.ticked,
                              verdict=self.verdicts.get(opt.letter, ""), top=int(i == 0))
                for i, opt in enumerate(shown.options)]

    def redraw_options(self) -> None:
        """Draw the options again from this widget's state (highlight, ticks, verdicts)."""
        self.replace(*self._option_blocks())

    def option_at(self, y: int) -> str | None:
        """The letter of the option drawn at document line ``y``, if any."""
        key = self.block_at(y)
        return key.removeprefix("option-") if key and key.startswith("option-") else None

    def _scroll_to_option(self, index: int) -> None:
        """Scroll as little as needed to show every line of the option at ``index``."""
        if self.shown is None:
            return
        span = self.span(f"option-{self.shown.options[index].letter}")
        if span is None:
            return
        start, end = span
        height = self.scrollable_content_region.height
        if start < self.scroll_y:
            self.scroll_to(y=start, animate=False, force=True)
        elif end > self.scroll_y + height:
            self.scroll_to(y=min(start, end - height), animate=False, force=True)

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

    async def take_key(self, event: events.Key) -> None:
        """Take the option keys (before the answer), one at a time, after the screen has
        settled the key before; pass the others up."""
        await self._wait_settled()
        if not self.revealed and self.shown is not None:
            for binding in bindings_for_key(self, event.key):
                event.stop()
                event.prevent_default()
                await self.run_action(binding.action)
                return
        self._settled.clear()  # the key bubbles to the screen, which calls settled()

    def on_click(self, event: events.Click) -> None:
        """A click on an option's lines chooses it (before the answer)."""
        offset = event.get_content_offset(self)
        if offset is None or self.revealed or self.shown is None:
            return
        letter = self.option_at(offset.y + round(self.scroll_y))
        if letter is not None:
            event.stop()
            self._choose(letter)

    # -- actions --------------------------------------------------------------------------
    def action_cursor_up(self) -> None:
        """Move the highlight up (from nothing: to the last option)."""
        self._move(-1)

    def action_cursor_down(self) -> None:
        """Move the highlight down (from nothing: to the first option)."""
        self._move(1)

    def _set_highlight(self, index: int | None) -> None:
        if index != self.highlighted:
            self.highlighted = index
            self.redraw_options()
        if index is not None:
            self._scroll_to_option(index)

    def _move(self, delta: int) -> None:
        if self.shown is None or self.revealed:
            return
        n = len(self.shown.options)
        if self.highlighted is None:
            index = 0 if delta > 0 else n - 1
        else:
            index = (self.highlighted + delta) % n
        self._set_highlight(index)
        self._pass_up(self.Highlighted(self, index))

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
        index = self.shown.letters.index(letter)
        if not self.shown.question.multiple_response:
            # The screen reveals at once (redrawing the options): no separate highlight draw.
            self.highlighted = index
            self._pass_up(self.Answered(self, frozenset({letter})))
            return
        self.ticked.symmetric_difference_update({letter})
        self.highlighted = index
        self.redraw_options()
        self._scroll_to_option(index)
        self._pass_up(self.Ticked(self, frozenset(self.ticked)))


def _tick_count_hint(choose: int, ticked: int) -> str:
    """What to do when Enter is pressed with the wrong number of ticks."""
    if ticked < choose:
        more = choose - ticked
        return f"Tick {more} more option{'s' * (more != 1)}, then press Enter ({choose} in all)."
    fewer = ticked - choose
    return f"Untick {fewer} option{'s' * (fewer != 1)}: this question asks for {choose}."

