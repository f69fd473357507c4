"""The exam's question map and review-before-submit list: one line-API widget (issue 13)."""

from __future__ import annotations

from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.strip import Strip

from quiz.bank.terminal import cell_width
from quiz.study.exam import ExamSession, MapEntry
from quiz.tui.widgets.document import Block, Document, Pen, prose, segments

SHOWN_NUMBERS = 15
"""At most this many question numbers are listed in a warning; the rest are counted (the map
below shows every one)."""


LEGEND = "● answered  ○ unanswered  ⚑ flagged"
"""What the marks of a cell mean (the current question's cell is drawn reversed)."""


CELL_GAP = 1
"""Blank cells between two cells of the grid."""


def _numbers(numbers: list[int]) -> str:
    shown = ", ".join(str(n) for n in numbers[:SHOWN_NUMBERS])
    rest = len(numbers) - SHOWN_NUMBERS
    return f"{shown} and {rest} more" if rest > 0 else shown


def cell_label(cell: MapEntry) -> str:
    """A cell's text: the question's number, ⚑ when flagged, then ● answered or ○ not."""
    return f"{cell.number}{'⚑' if cell.flagged else ''}{'●' if cell.answered else '○'}"


def summary_lines(exam: ExamSession, *, submitting: bool) -> list[tuple[str, str]]:
    """The lines above the grid, each with its kind ("text", "muted" or "warning"): how many
    are answered and flagged, the legend, and when ``submitting`` what is left to do."""
    unanswered, flagged = exam.unanswered(), exam.flagged()
    lines = [(f"{len(exam.answers)} of {exam.total} answered · {len(flagged)} flagged", "text"),
             (LEGEND, "muted")]
    if submitting:
        if unanswered:
            n = len(unanswered)
            lines.append((f"Warning: {n} question{'s' * (n != 1)} not answered "
                           f"({_numbers(unanswered)}); each counts as wrong.", "warning"))
            partial = [s.number for s in exam.shown if s.question.id not in exam.answers
                       and exam.ticks.get(s.question.id)]
            if partial:  # some ticks, fewer than asked for: not an answer yet
                lines.append((f"Only partly ticked (not counted until complete): "
                              f"{_numbers(partial)}.", "warning"))
        else:
            lines.append(("Every question is answered.", "text"))
        if flagged:
            lines.append((f"Flagged for review: {_numbers(flagged)}.", "text"))
    return lines


class MapView(Document, can_focus=True):
    """The map's summary lines and its grid of cells, one per question, in one widget.

    A cell shows the question's number and marks (see :func:`cell_label`); answered cells have
    the answered colour, flagged ones the flag's, the current question's is reversed. With the
    focus, a cursor sits on one cell (at first the current question's): ``←→↑↓`` move it,
    ``Home``/``End`` go to the first/last, ``Enter`` or ``Space`` choose it, and so does a
    click on a cell; choosing posts :class:`Chosen`.
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1, 0)", "Left", show=False),
        Binding("right", "move(1, 0)", "Right", show=False),
        Binding("up", "move(0, -1)", "Up", show=False),
        Binding("down", "move(0, 1)", "Down", show=False),
        Binding("home", "go(0)", "First", show=False),
        Binding("end", "go(-1)", "Last", show=False),
        Binding("enter,space", "choose", "Go to", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "map-view--text", "map-view--muted", "map-view--warning", "map-view--cell",
        "map-view--answered", "map-view--flagged", "map-view--current", "map-view--cursor",
    }

    DEFAULT_CSS = """
    /* No horizontal scrollbar (Textual adds its height to an auto height with a stable
       gutter: a blank line under the grid). */
    MapView {
        height: auto; max-height: 60vh; overflow-y: auto;
        scrollbar-size-vertical: 1; scrollbar-size-horizontal: 0;
    }
    MapView > .map-view--muted { color: $text-muted; }
    MapView > .map-view--warning { color: $warning; text-style: bold; }
    MapView > .map-view--answered { background: $success 30%; }
    MapView > .map-view--flagged { color: $warning; text-style: bold; }
    MapView > .map-view--current { text-style: bold reverse; }
    MapView > .map-view--cursor { background: $accent; color: $text; text-style: bold; }
    """

    class Chosen(Message):
        """The student chose the cell of the question at 0-based ``position``."""

        def __init__(self, position: int) -> None:
            self.position = position
            super().__init__()

    def __init__(self, exam: ExamSession, *, submitting: bool = False, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.cells = exam.question_map()
        """One entry per question, in order."""
        self.cursor = exam.position
        """0-based position of the cell under the cursor."""
        self.cell_width = max(6, max((cell_width(cell_label(c)) for c in self.cells),
                                     default=0) + 2)
        """Cells a grid cell takes (its label centred), the gap not included."""
        lines = summary_lines(exam, submitting=submitting)

        def draw_summary(pen: Pen) -> list[Strip]:
            return [row for text, kind in lines
                    for row in prose(text, pen.width, pen.style(f"map-view--{kind}"),
                                     lines=True, hang=0)]

        self.set_blocks([Block("summary", draw_summary), self._grid_block()])

    # -- drawing ------------------------------------------------------------------------------
    def columns(self, width: int | None = None) -> int:
        """Cells per row of the grid at ``width`` (default: the width drawn)."""
        width = self._drawn_width if width is None else width
        return max(1, (width + CELL_GAP) // (self.cell_width + CELL_GAP))

    def _grid_block(self) -> Block:
        cells, cursor, cell = self.cells, self.cursor if self.has_focus else None, self.cell_width

        def draw(pen: Pen) -> list[Strip]:
            columns = self.columns(pen.width)
            gap = pen.style("map-view--text")
            rows: list[Strip] = []
            for start in range(0, len(cells), columns):
                parts: list[Segment] = []
                for i, entry in enumerate(cells[start:start + columns], start):
                    names = ["map-view--cell"]
                    names += [f"map-view--{state}" for state, on in (
                        ("answered", entry.answered), ("flagged", entry.flagged),
                        ("current", entry.current), ("cursor", i == cursor)) if on]
                    label = cell_label(entry)
                    left = (cell - cell_width(label)) // 2
                    style: Style = pen.style(*names)
                    if i > start:
                        parts.append(Segment(" " * CELL_GAP, gap))
                    parts += segments(" " * left + label, style, cell)
                rows.append(Strip(parts).crop_extend(0, pen.width, gap))
            return rows
        return Block("grid", draw, top=1)

    def cell_at(self, x: int, y: int) -> int | None:
        """The 0-based position of the cell drawn at column ``x`` of document line ``y``."""
        span = self.span("grid")
        if span is None or not span[0] <= y < span[1]:
            return None
        column, offset = divmod(x, self.cell_width + CELL_GAP)
        columns = self.columns()
        index = (y - span[0]) * columns + column
        if offset >= self.cell_width or column >= columns or index >= len(self.cells):
            return None
        return index

    def cell_offset(self, position: int) -> tuple[int, int]:
        """Column and document line of the first cell of the cell at 0-based ``position``."""
        span = self.span("grid")
        assert span is not None, "the map is not drawn yet"
        row, column = divmod(position, self.columns())
        return column * (self.cell_width + CELL_GAP), span[0] + row

    def _redraw_grid(self) -> None:
        self.replace(self._grid_block())

    def on_focus(self) -> None:
        self._redraw_grid()  # the cursor is drawn while the map has the focus

    def on_blur(self) -> None:
        self._redraw_grid()

    # -- keys and clicks ----------------------------------------------------------------------
    def on_mount(self) -> None:
        self.call_after_refresh(self._scroll_to_cursor)  # once laid out at its width

    def _set_cursor(self, position: int) -> None:
        self.cursor = max(0, min(position, len(self.cells) - 1))
        self._redraw_grid()
        self._scroll_to_cursor()

    def _scroll_to_cursor(self) -> None:
        """Scroll as little as needed to show the cursor's row (the first row: from the top)."""
        span = self.span("grid")
        if span is None:
            return
        if self.cursor < self.columns():
            self.scroll_to(y=0, animate=False, force=True)  # the summary comes into view too
            return
        line = self.cell_offset(self.cursor)[1]
        height = self.scrollable_content_region.height
        if line < self.scroll_y:
            self.scroll_to(y=line, animate=False, force=True)
        elif line >= self.scroll_y + height:
            self.scroll_to(y=line - height + 1, animate=False, force=True)

    def action_move(self, dx: int, dy: int) -> None:
        """Move the cursor ``dx`` cells along and ``dy`` rows down (stopping at the ends)."""
        target = self.cursor + dx + dy * self.columns()
        if 0 <= target < len(self.cells):
            self._set_cursor(target)

    def action_go(self, position: int) -> None:
        """Put the cursor on the cell at ``position`` (negative: from the end)."""
        self._set_cursor(position % len(self.cells))

    def action_choose(self) -> None:
        """Choose the cell under the cursor."""
        self.post_message(self.Chosen(self.cursor))

    def on_click(self, event: events.Click) -> None:
        """A click on a cell chooses it."""
        offset = event.get_content_offset(self)
        if offset is None:
            return
        index = self.cell_at(offset.x, offset.y + round(self.scroll_y))
        if index is not None:
            event.stop()
            self.post_message(self.Chosen(index))
