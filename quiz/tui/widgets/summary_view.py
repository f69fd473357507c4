"""The summary's body as one widget: the score, the first attempt beside a retry, the pass
verdict, the per-topic table, the questions to review and the closing hint.

It is a :class:`~quiz.tui.widgets.document.Document` (Textual's line API), as the question
body is: showing a summary sets its blocks once and Textual draws only the lines on screen.
Seven widgets (Statics and an OptionList) cost three layouts of the screen per ``s``: each
update and ``display`` change asked for one, then the widgets' new virtual sizes and the
list's scrollbar asked for more (issue 13).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import ClassVar
from weakref import ref

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.message import Message
from textual.strip import Strip

from quiz.bank.terminal import cell_width, terminal_safe
from quiz.study.score import Score
from quiz.study.session import StudySession
from quiz.study.shown import ShownQuestion
from quiz.tui.textual_internals.widget_hooks import ChecksScrollUpdates
from quiz.tui.widgets.document import Block, Document, Pen, Runs, line, runs_text
from quiz.wording import plural

REVIEW_LIST_LIMIT = 100
"""The review list shows at most this many questions; a line after it counts the rest (``r``
retries them all)."""

STEM_PREVIEW = 90
"""Characters of a stem (its whitespace collapsed) shown in the review list."""


def score_line(score: Score, pass_mark: float | None) -> str:
    """``2 right of 3 answered (66.7%); all 3 answered`` — the percentage of a finished session
    is shown with the precision :meth:`Score.percents` picks against ``pass_mark``. A finished
    one-question session says no more than ``1 right of 1 answered (100%)``."""
    if score.answered == score.total and score.total:
        pct = score.percents(pass_mark if pass_mark is not None else 1.0)[0]
        text = f"{score.correct:,} right of {score.total:,} answered ({pct})"
        return text if score.total == 1 else f"{text}; all {score.total:,} answered"
    if not score.answered:
        return f"none of {plural(score.total, 'question')} answered yet"
    pct = Score(score.correct, score.answered, score.answered).percents(1.0)[0]
    return (f"{score.correct:,} right of {score.answered:,} answered ({pct}); "
            f"{score.total - score.answered:,} of {score.total:,} not answered yet")


def pass_line(score: Score, pass_mark: float) -> str:
    """``Pass: 2 right needed of 3 (pass mark 67%)`` or ``Below the pass mark: ...``."""
    needed = score.needed(pass_mark)
    mark = score.percents(pass_mark)[1]
    verdict = "Pass" if score.passed(pass_mark) else "Below the pass mark"
    return f"{verdict}: {needed:,} right of {score.total:,} needed (pass mark {mark})"


def closing_line(missed: int) -> str:
    """The hint under the review list, for ``missed`` questions to review (those beyond
    :data:`REVIEW_LIST_LIMIT` are counted)."""
    if not missed:
        return "Nothing missed. Ctrl+N starts a new session."
    more = missed - REVIEW_LIST_LIMIT
    shown_more = f"… and {plural(more, 'more question')}. " if more > 0 else ""
    return f"{shown_more}r retries {'all ' * (more > 0)}these; Ctrl+N starts a new session."


def stem_preview(shown: ShownQuestion) -> str:
    """``shown``'s stem on one line — every run of whitespace (line breaks of a ``question: |``
    block included) made one space — cut to :data:`STEM_PREVIEW` characters (with an
    ellipsis), terminal-safe."""
    text = " ".join(shown.question.stem.split())
    if len(text) > STEM_PREVIEW:
        text = text[: STEM_PREVIEW - 1].rstrip() + "…"
    return terminal_safe(text)


_CONSOLE = Console(width=80, legacy_windows=False, force_terminal=False, color_system=None)
"""Only its text settings are used: :meth:`rich.text.Text.wrap` asks a console for them."""


def entry_lines(label: str, text: str, width: int) -> list[str]:
    """A review entry at ``width`` cells: ``label``, a space, then ``text`` (terminal-safe)
    wrapping under itself, not under the label — as a two-column Rich grid lays it out (a word
    longer than its column ends in an ellipsis, as a table column does). Lines carry no
    trailing spaces; wide characters count as two cells."""
    indent = cell_width(label) + 1
    if cell_width(text) <= width - indent:  # fits on the first line: what the wrap would give
        return [f"{label} {text}".rstrip()]
    lines = Text(text).wrap(_CONSOLE, max(1, width - indent), overflow="ellipsis")
    first, *rest = [row.plain.rstrip() for row in lines] or [""]
    return [f"{label} {first}".rstrip(), *(" " * indent + row for row in rest)]


TOPIC_COLUMNS = ("Topic", "Right", "Answered", "Questions")
"""The per-topic table's headings; every column but the first is right-justified."""


def topic_table(rows: Sequence[Sequence[str]]) -> Table:
    """The per-topic table as a Rich table: a row per topic (name, right, answered,
    questions), literal (terminal-safe text), bold headings, heavy head box."""
    table = Table(title=None, header_style="bold", expand=False)
    for i, heading in enumerate(TOPIC_COLUMNS):
        table.add_column(heading, justify="right" if i else "left")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    return table


def topic_table_lines(rows: Sequence[Sequence[str]], width: int
                      ) -> list[list[tuple[str, bool]]] | None:
    """The lines :func:`topic_table` draws, as Rich draws them, when the table fits in
    ``width`` cells at its natural width (every cell on one line): each line as pieces of
    text, each ``True`` when bold (the headings). ``None`` when it does not fit, or a cell
    holds a line break, or there are no rows: then only Rich knows how it shrinks.

    Drawing it here costs a few hundredths of a millisecond; Rich measures and renders the
    table in about 3 ms, on every ``s`` after an answer (issue 13)."""
    if not rows or any("\n" in cell for row in rows for cell in row):
        return None
    widths = [max(cell_width(cell) for cell in column)
              for column in zip(TOPIC_COLUMNS, *rows, strict=True)]
    if sum(widths) + 3 * len(widths) + 1 > width:
        return None

    def rule(left: str, fill: str, cross: str, right: str) -> list[tuple[str, bool]]:
        return [(left + cross.join(fill * (w + 2) for w in widths) + right, False)]

    def cells(row: Sequence[str], edge: str, bold: bool) -> list[tuple[str, bool]]:
        out: list[tuple[str, bool]] = []
        for i, (cell, w) in enumerate(zip(row, widths, strict=True)):
            gap = " " * (w - cell_width(cell))
            out += [(edge, False), (f" {cell}{gap} " if i == 0 else f" {gap}{cell} ", bold)]
        return [*out, (edge, False)]

    return [rule("┏", "━", "┳", "┓"), cells(TOPIC_COLUMNS, "┃", True),
            rule("┡", "━", "╇", "┩"), *(cells(row, "│", False) for row in rows),
            rule("└", "─", "┴", "┘")]


def _draw_runs(runs: Runs, component: str) -> Callable[[Pen], list[Strip]]:
    """Draws literal ``runs`` in ``component``'s style, wrapped at word boundaries."""
    pieces = [(terminal_safe(run[0]), run[1]) if isinstance(run, tuple)
              else (terminal_safe(run), "") for run in runs]

    def draw(pen: Pen) -> list[Strip]:
        style = pen.style(component)
        text = "".join(piece for piece, _ in pieces)
        if "\n" in text or cell_width(text) > pen.width:
            return pen.renderable(runs_text(runs), pen.width, style)
        # One line: drawn directly, as Rich would draw it (a tenth of the time).
        return [Strip([Segment(piece, style + Style.parse(look) if look else style)
                       for piece, look in pieces if piece]).crop_extend(0, pen.width, style)]
    return draw


def _draw_topics(rows: tuple[tuple[str, ...], ...]) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        style = pen.style("summary-view--text")
        lines = topic_table_lines(rows, pen.width)
        if lines is None:
            return pen.renderable(topic_table(rows), pen.width, style)
        bold = style + Style(bold=True)
        return [Strip([Segment(text, bold if strong else style) for text, strong in pieces])
                .crop_extend(0, pen.width, style) for pieces in lines]
    return draw


def _draw_title(title: str) -> Callable[[Pen], list[Strip]]:
    """Draws the review list's title, wrapped at word boundaries (a narrow terminal cut it:
    ``... opens a questio``)."""
    def draw(pen: Pen) -> list[Strip]:
        style, fill = pen.style("summary-view--title"), pen.style("summary-view--text")
        rows = [title] if cell_width(title) <= pen.width else [
            row.plain.rstrip() for row in Text(title).wrap(_CONSOLE, pen.width)]
        # Only the words are underlined, not the rest of the line.
        return [line(row, style, pen.width, fill=fill) for row in rows]
    return draw


def _draw_entry(label: str, text: str, highlighted: bool) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        names = ["summary-view--entry"]
        if highlighted:
            names.append("summary-view--entry-highlighted")
        style = pen.style(*names)
        return [line(row, style, pen.width) for row in entry_lines(label, text, pen.width)]
    return draw


class SummaryView(ChecksScrollUpdates, Document, can_focus=True):
    """The summary of a :class:`~quiz.study.session.StudySession` (see :meth:`show`), with its
    review list: one entry per question missed or not answered (at most
    :data:`REVIEW_LIST_LIMIT`), a label (``  3. (wrong)``) and the stem on one line
    (:func:`stem_preview`).

    One entry is highlighted (the first when shown): ``↑``/``↓``, ``Home``/``End`` and
    ``PgUp``/``PgDn`` move the highlight and scroll as little as needed to keep it in view;
    ``Enter`` or a click on an entry posts :class:`EntryChosen`. Without entries the same keys
    scroll. Other keys (``r``, ``Esc``, ...) go to the screen.

    Blocks (keys for :meth:`~quiz.tui.widgets.document.Document.text_of`): ``score``,
    ``first-attempt`` (a retry), ``verdict`` (a finished session with a pass mark, not a
    retry), ``topics``, ``review-title``, one ``missed-P`` per entry (``P``: the question's
    0-based position in the session; :meth:`entry_key`), ``closing``.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("home", "go(0)", "First", show=False),
        Binding("end", "go(-1)", "Last", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("enter", "choose", "Open", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "summary-view--text", "summary-view--score", "summary-view--pass",
        "summary-view--fail", "summary-view--title", "summary-view--entry",
        "summary-view--entry-highlighted", "summary-view--hint",
    }

    DEFAULT_CSS = """
    /* A fixed height and an ever-present scrollbar: a new summary needs no layout of the
       screen (showing or hiding the scrollbar would lay it out: issue 13). */
    SummaryView { height: 1fr; overflow-y: scroll; }
    SummaryView > .summary-view--score { text-style: bold; }
    SummaryView > .summary-view--pass { color: $success; }
    SummaryView > .summary-view--fail { color: $error; }
    SummaryView > .summary-view--title { color: $accent; text-style: bold underline; }
    SummaryView > .summary-view--entry-highlighted {
        color: $block-cursor-foreground;
        background: $block-cursor-background;
        text-style: $block-cursor-text-style;
    }
    SummaryView > .summary-view--hint { color: $text-muted; }
    """

    _FIXED_HEIGHT = True

    class EntryChosen(Message):
        """The student chose the review entry of the question at 0-based ``position`` in the
        session."""

        def __init__(self, position: int) -> None:
            self.position = position
            super().__init__()

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.highlighted: int | None = None
        """Index in the review list of the highlighted entry; ``None``: no entries."""
        self.positions: list[int] = []
        """The 0-based session position of each review entry, in list order."""
        self._entries: list[tuple[str, str]] = []
        """Label and stem preview of each review entry, in list order."""
        self._kept: dict[str, tuple[Hashable, Block]] = {}
        """The blocks of the last summary shown by key, with what they show: a block showing
        the same again is reused with the lines it has drawn."""
        self._scrolled_for: tuple[object, ...] | None = None
        """What the scrollbar was last updated for (see :meth:`scrollbars_stale`)."""
        self._session: ref[StudySession] | None = None
        self._entry_blocks: dict[tuple[int, str, bool], Block] = {}
        """Review entries drawn for the session last shown, by position, label and
        highlight."""

    def scrollbars_stale(self, virtual_size: Size) -> bool:
        # Textual repaints the scrollbar on every update of the virtual size, even to the same
        # size: a summary shown again as long as the last (a 100-entry list) redrew its
        # scrollbar, about a millisecond of each `s` (issue 13). Nothing changes for it here.
        styles = self.styles
        key = (virtual_size, self.container_size, styles.overflow_y,
               styles.scrollbar_size_vertical)
        if key == self._scrolled_for:
            return False
        self._scrolled_for = key
        return True

    # -- what is shown ------------------------------------------------------------------------
    def show(self, session: StudySession, *, pass_mark: float | None = None,
             first_attempt: Score | None = None) -> None:
        """Show the summary of ``session`` as it stands now, from the top, the first review
        entry highlighted. ``first_attempt``: the score of the session this one retries, shown
        under this one's (the pass verdict then belongs to it); ``pass_mark`` (0-1): the bank's
        pass mark, if it has one."""
        if self._session is None or self._session() is not session:
            self._session, self._entry_blocks = ref(session), {}
        score = session.score
        label = "This retry " if first_attempt is not None else "Score "
        blocks = [self._block("score", _draw_runs(((label, "bold"), score_line(score, pass_mark)),
                                                  "summary-view--score"),
                              (label, score_line(score, pass_mark)), top=1)]
        if first_attempt is not None:
            # The first attempt is over: what it left unanswered is not "not answered yet".
            text = score_line(first_attempt, pass_mark).replace(" not answered yet",
                                                                 " left unanswered")
            if pass_mark is not None and first_attempt.answered == first_attempt.total:
                text += ". " + pass_line(first_attempt, pass_mark)
            blocks.append(self._block("first-attempt", _draw_runs(
                (("First attempt ", "bold"), text), "summary-view--text"), text))
        elif pass_mark is not None and session.finished:
            kind = "pass" if score.passed(pass_mark) else "fail"
            text = pass_line(score, pass_mark)
            blocks.append(self._block("verdict", _draw_runs((text,), f"summary-view--{kind}"),
                                      (kind, text)))
        rows = tuple((terminal_safe(session.topic_names.get(topic, topic)), str(t.correct),
                      str(t.answered), str(t.total))
                     for topic, t in session.score_by_topic().items())
        blocks.append(self._block("topics", _draw_topics(rows), rows, top=1))
        missed = session.missed()
        listed = missed[:REVIEW_LIST_LIMIT]
        self.positions = [shown.number - 1 for shown in listed]
        self._entries = [(f"{shown.number:>3}. "
                          f"({'wrong' if session.outcome(shown) else 'not answered'})",
                          stem_preview(shown)) for shown in listed]
        self.highlighted = 0 if listed else None
        if missed:
            title = f"To review ({len(missed):,}): Enter opens a question"
            blocks.append(self._block("review-title", _draw_title(title), title, top=1))
            blocks += [self._entry_block(i) for i in range(len(listed))]
        closing = closing_line(len(missed))
        blocks.append(self._block("closing", _draw_runs((closing,), "summary-view--hint"),
                                  closing, top=1))
        self.set_blocks(blocks)
        self.scroll_to(y=0, animate=False, force=True)

    def _block(self, key: str, draw: Callable[[Pen], list[Strip]], shows: Hashable, *,
               top: int = 0) -> Block:
        """The block ``key`` showing ``shows``: the one shown last time if it showed the
        same, else a new one drawn by ``draw``."""
        kept = self._kept.get(key)
        if kept is not None and kept[0] == shows and kept[1].top == top:
            return kept[1]
        block = Block(key, draw, top=top)
        self._kept[key] = (shows, block)
        return block

    def _entry_block(self, index: int) -> Block:
        """The block of review entry ``index``, highlighted or not (made once per session,
        question, state and highlight: the same entry shown again reuses its lines)."""
        highlighted = index == self.highlighted
        label, text = self._entries[index]
        made = (self.positions[index], label, highlighted)
        block = self._entry_blocks.get(made)
        if block is None:
            block = Block(self.entry_key(index), _draw_entry(label, text, highlighted))
            self._entry_blocks[made] = block
        return block

    def entry_key(self, index: int) -> str:
        """The block key of review entry ``index`` (in list order)."""
        return f"missed-{self.positions[index]}"

    @property
    def entry_count(self) -> int:
        """How many review entries are listed."""
        return len(self.positions)

    def entry_at(self, y: int) -> int | None:
        """The index (in list order) of the review entry drawn at document line ``y``, if
        any."""
        key = self.block_at(y)
        if not key or not key.startswith("missed-"):
            return None
        return self.positions.index(int(key.removeprefix("missed-")))

    # -- the highlight ------------------------------------------------------------------------
    def _set_highlight(self, index: int) -> None:
        index = max(0, min(index, self.entry_count - 1))
        old = self.highlighted
        if index != old:
            self.highlighted = index
            self.replace(*(self._entry_block(i) for i in {index, old} if i is not None))
        self._scroll_to_entry(index)

    def _scroll_to_entry(self, index: int, *, if_hidden: bool = False) -> None:
        """Scroll as little as needed to show every line of entry ``index``; the first entry
        brings the top of the summary (the score) into view when both fit, the last one the
        closing hint. With ``if_hidden``, an entry already wholly in view scrolls nothing."""
        span = self.span(self.entry_key(index))
        if span is None:
            return
        start, end = span
        height = self.scrollable_content_region.height
        if if_hidden and self.scroll_y <= start and end <= self.scroll_y + height:
            return
        bottom = max(0, len(self._lines) - height)
        if index == 0 and end <= height:
            self.scroll_to(y=0, animate=False, force=True)
        elif index == self.entry_count - 1 and start >= bottom:
            self.scroll_to(y=bottom, animate=False, force=True)
        elif start < self.scroll_y:
            self.scroll_to(y=start, animate=False, force=True)
        elif end > self.scroll_y + height:
            self.scroll_to(y=min(start, end - height), animate=False, force=True)

    def on_resize(self) -> None:
        """Wrap again at the new width, then bring the highlighted entry back into view if the
        new size left it off screen (Enter must open a question the student can see); an entry
        still in view keeps the scroll."""
        # Textual calls Document.on_resize after this one too; it finds the width drawn.
        super().on_resize()
        if self.highlighted is not None:
            self._scroll_to_entry(self.highlighted, if_hidden=True)

    def action_move(self, delta: int) -> None:
        """Move the highlight ``delta`` entries (stopping at the ends); without entries, scroll
        ``delta`` lines."""
        if self.highlighted is None:
            self.scroll_to(y=self.scroll_y + delta, animate=False, force=True)
        else:
            self._set_highlight(self.highlighted + delta)

    def action_go(self, index: int) -> None:
        """Highlight entry ``index`` (negative: from the end); without entries, scroll to the
        top (0) or the end (-1)."""
        if self.highlighted is None:
            self.scroll_to(y=0 if index >= 0 else len(self._lines), animate=False, force=True)
        else:
            self._set_highlight(index % self.entry_count)

    def action_page(self, delta: int) -> None:
        """Move the highlight a screenful of lines down (1) or up (-1): to the entry drawn that
        far from the highlighted one (at least one entry); without entries, scroll a page."""
        height = max(1, self.scrollable_content_region.height)
        if self.highlighted is None:
            self.scroll_to(y=self.scroll_y + delta * height, animate=False, force=True)
            return
        span = self.span(self.entry_key(self.highlighted))
        if span is None:
            return
        target = span[0] + delta * height
        index = self.highlighted
        while 0 <= index + delta < self.entry_count:
            next_span = self.span(self.entry_key(index + delta))
            if next_span is None or (next_span[0] - target) * delta > 0:
                break
            index += delta
        self._set_highlight(index if index != self.highlighted else index + delta)

    def action_choose(self) -> None:
        """Open the highlighted entry's question."""
        if self.highlighted is not None:
            self.post_message(self.EntryChosen(self.positions[self.highlighted]))

    def on_click(self, event: events.Click) -> None:
        """A click on an entry highlights it and opens its question."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.entry_at(offset.y + round(self.scroll_y))
        if index is not None:
            event.stop()
            self._set_highlight(index)
            self.post_message(self.EntryChosen(self.positions[index]))

    def style_of(self, key: str) -> Style | None:
        """The style of the first character of block ``key`` (``None``: not shown)."""
        strips = self.strips_of(key)
        for strip in strips:
            for segment in strip:
                if segment.text.strip():
                    return segment.style
        return None
