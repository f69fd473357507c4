"""A scrolling document of blocks drawn with Textual's line API: one widget for what would
otherwise be dozens (a stem, options, every part of a reveal).

Each :class:`Block` draws itself to :class:`~textual.strip.Strip` lines at a width, once per
width and look (the lines are kept until the block changes, the width changes or the theme
does). The :class:`Document` concatenates its blocks' lines and draws only the lines on screen,
so a key press that changes one block costs the drawing of that block, not a layout of the
screen. Bank text is laid out by :mod:`quiz.tui.text_layout` and shown literally (made
terminal-safe, never parsed as markup).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from rich.console import RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from quiz.bank.terminal import cell_width, terminal_safe
from quiz.tui.text_layout import MIN_WIDTH, cut_cells, layout, wrap_line
from quiz.tui.textual_internals import update_scrollbars

Styler = Callable[..., Style]
"""Gives the Rich style of component classes of the document (their CSS rules combined, over
the document's own colours), e.g. ``styler("reveal--section-title")``."""

Runs = Sequence[str | tuple[str, str]]
"""Literal text in pieces, each optionally with a Rich style (``("A", "bold")``): the pieces
are made terminal-safe and never parsed as markup."""


class Pen:
    """What a block draws with: the width in cells, the component styles, and the Rich console
    (for tables)."""

    def __init__(self, width: int, styler: Styler, render: Callable[[RenderableType, int,
                                                                       Style], list[Strip]],
                 look: int = 0):
        self.width = width
        self.look = look
        """Counts the document's changes of look (theme): lines drawn for another are stale."""
        self.style = styler
        self._render = render

    def renderable(self, renderable: RenderableType, width: int, style: Style) -> list[Strip]:
        """``renderable`` (a Rich table, a Text) drawn at ``width`` cells over ``style``."""
        return self._render(renderable, width, style)


def segments(text: str, style: Style, width: int, *, fill: Style | None = None
             ) -> list[Segment]:
    """Literal ``text`` (already terminal-safe) in ``style``, padded to ``width`` cells with
    ``fill`` (default: ``style``) and cut at ``width``, as Rich segments."""
    cells = cell_width(text)
    if cells > width:
        return list(Strip([Segment(text, style)], cells).crop(0, width))
    out = [Segment(text, style)] if text else []
    if cells < width:
        out.append(Segment(" " * (width - cells), fill if fill is not None else style))
    return out


def line(text: str, style: Style, width: int, *, fill: Style | None = None) -> Strip:
    """One line of literal ``text`` (already terminal-safe) in ``style``, padded to ``width``
    cells with ``fill`` (default: ``style``) and cut at ``width``."""
    return Strip(segments(text, style, width, fill=fill), width)


def prose(text: str, width: int, style: Style, *, lines: bool = False, hang: int = 4,
          indent: int = 0, fill: Style | None = None) -> list[Strip]:
    """Bank prose laid out at ``width`` cells (:func:`~quiz.tui.text_layout.layout`: paragraphs
    reflowed, indented lines kept, numbers kept with their units) after ``indent`` blank cells.
    With ``lines``, every line of ``text`` is its own block and wraps with a hanging indent of
    ``hang`` cells (derivation steps, references)."""
    safe = terminal_safe(text.rstrip("\n"))
    room = max(width - indent, MIN_WIDTH)
    if lines:
        laid = [part for row in safe.split("\n") for part in wrap_line(row, room, hang)]
    else:
        laid = layout(safe, room).split("\n")
    pad = " " * indent
    return [line(pad + row if row else "", style, width, fill=fill) for row in laid]


def fold(text: str, width: int, style: Style) -> list[Strip]:
    """Preformatted text (a diagram): every line kept as written, a line wider than ``width``
    folded at ``width`` cells (never reflowed, so columns stay aligned)."""
    out: list[Strip] = []
    for row in terminal_safe(text.rstrip("\n")).split("\n"):
        while True:  # cut at whole characters: a wide one that would straddle the fold moves down
            part, row = cut_cells(row, width) if cell_width(row) > width else (row, "")
            strip = Strip([Segment(part, style)], cell_width(part)) if part else Strip([], 0)
            out.append(strip.crop_extend(0, width, style))
            if not row:
                break
    return out


def runs_text(runs: Runs, style: str = "") -> Text:
    """``runs`` as a Rich :class:`~rich.text.Text` (literal: never markup)."""
    text = Text(style=style)
    for run in runs:
        if isinstance(run, tuple):
            text.append(terminal_safe(run[0]), run[1])
        else:
            text.append(terminal_safe(run))
    return text


@dataclass(eq=False)
class Block:
    """One part of a document: ``draw`` makes its lines for a :class:`Pen` (every line exactly
    ``pen.width`` cells); ``top`` blank lines come before it. ``key`` names it (tests and the
    screens find a block's lines by it)."""

    key: str
    draw: Callable[[Pen], list[Strip]]
    top: int = 0
    _drawn_for: tuple[int, int] = field(default=(-1, -1), repr=False)
    _strips: list[Strip] = field(default_factory=list, repr=False)

    def strips(self, pen: Pen) -> list[Strip]:
        """The block's lines at ``pen.width`` (drawn once per width and look)."""
        if self._drawn_for != (pen.width, pen.look):
            self._strips = self.draw(pen)
            self._drawn_for = (pen.width, pen.look)
        return self._strips


class Document(ScrollView, can_focus=False):
    """A scrolling view of :class:`Block` s. :meth:`set_blocks` replaces them,
    :meth:`replace` changes some, :meth:`span` says where a block's lines are.

    The widget's own CSS colours are the page; its component classes (``COMPONENT_CLASSES`` of
    subclasses) style the parts. Text can be selected with the mouse and copied.
    """

    ALLOW_SELECT = True
    DEFAULT_CSS = """
    Document {
        scrollbar-gutter: stable;
        overflow-x: hidden;
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._blocks: list[Block] = []
        self._lines: list[Strip] = []
        self._spans: dict[str, tuple[int, int]] = {}
        self._tops: dict[str, int] = {}
        self._drawn_width = 0
        self._look = 0
        self._look_key: tuple[Style, str] | None = None
        """The page's style and the theme the blocks were last drawn for."""
        self._restyle_pending = False
        """A change of look waits to be drawn (see :meth:`notify_style_update`)."""
        self._shown: LRUCache[int, tuple[Strip, tuple[int, int], Strip]] = LRUCache(256)
        """Lines as last drawn on screen, by document line: the line drawn, its scroll offset
        and width, and what was sent (moving to a question and back sends the same strips)."""
        self._base: Style | None = None
        """The page's style (the widget's colours), kept until the look changes."""

    # -- content ------------------------------------------------------------------------------
    def set_blocks(self, blocks: Iterable[Block]) -> None:
        """Show ``blocks`` instead of what is shown."""
        self._blocks = list(blocks)
        self._assemble()

    def replace(self, *blocks: Block) -> None:
        """Put each of ``blocks`` in place of the block with the same key (a key not shown is
        ignored), then draw again."""
        new = {b.key: b for b in blocks}
        self._blocks = [new.get(b.key, b) for b in self._blocks]
        self._assemble()

    @property
    def blocks(self) -> list[Block]:
        """The blocks shown, in order."""
        return list(self._blocks)

    def span(self, key: str) -> tuple[int, int] | None:
        """First line and end line (exclusive) of block ``key``, without its blank lines above;
        ``None`` when no such block is shown or nothing is drawn yet."""
        return self._spans.get(key)

    def top_of(self, key: str) -> int | None:
        """The line where block ``key`` starts, its blank lines above included."""
        return self._tops.get(key)

    def text_of(self, key: str) -> str:
        """The plain text block ``key`` shows (its lines, trailing spaces dropped), ``""``
        when it is not shown."""
        span = self._spans.get(key)
        if span is None:
            return ""
        return "\n".join(s.text.rstrip() for s in self._lines[span[0]:span[1]])

    def strips_of(self, key: str) -> list[Strip]:
        """The lines drawn for block ``key`` (styles included), ``[]`` when it is not shown."""
        span = self._spans.get(key)
        return [] if span is None else self._lines[span[0]:span[1]]

    @property
    def plain(self) -> str:
        """The whole document as plain text, one line per line drawn."""
        return "\n".join(s.text.rstrip() for s in self._lines)

    def block_at(self, y: int) -> str | None:
        """The key of the block drawn at document line ``y`` (``None``: a blank line between)."""
        for key, (start, end) in self._spans.items():
            if start <= y < end:
                return key
        return None

    # -- drawing ------------------------------------------------------------------------------
    def _content_width(self) -> int:
        return self.scrollable_content_region.width

    def _styler(self, *names: str) -> Style:
        return self.get_component_rich_style(*names)

    def _draw_renderable(self, renderable: RenderableType, width: int, style: Style) -> list[Strip]:
        console = self.app.console
        lines = console.render_lines(renderable, console.options.update_width(width),
                                     style=style, pad=True)
        return [Strip(segments, width) for segments in lines]

    _FIXED_HEIGHT = False
    """True when the widget's height does not follow its lines (``height: 1fr``): then new
    lines need no layout of the screen unless the scrollbar appears or goes."""

    def draw_ahead(self, blocks: Iterable[Block]) -> None:
        """Draw ``blocks`` (not shown) at the document's width now, so that showing them later
        costs nothing more (once the document has been laid out: before, nothing is drawn)."""
        width = self._drawn_width or self._content_width()
        if width > 0:
            pen = Pen(width, self._styler, self._draw_renderable, self._look)
            for block in blocks:
                block.strips(pen)

    def _assemble(self, width: int | None = None) -> None:
        """Draw the blocks at the document's width (blocks already drawn there are reused)."""
        width = self._content_width() if width is None else width
        if width <= 0:
            self._lines, self._spans, self._tops = [], {}, {}
            return  # not laid out yet: on_resize draws
        self._drawn_width = width
        pen = Pen(width, self._styler, self._draw_renderable, self._look)
        blank = Strip.blank(width)
        lines: list[Strip] = []
        spans: dict[str, tuple[int, int]] = {}
        tops: dict[str, int] = {}
        for block in self._blocks:
            tops[block.key] = len(lines)
            lines.extend([blank] * block.top)
            strips = block.strips(pen)
            spans[block.key] = (len(lines), len(lines) + len(strips))
            lines.extend(strips)
        self._lines, self._spans, self._tops = lines, spans, tops
        size = Size(width, len(lines))
        if self._FIXED_HEIGHT and self.is_mounted and self.container_size:
            # Textual would lay out the whole screen for a new virtual size; only the scrollbar
            # depends on it (showing or hiding it still lays out, through its own reactive).
            self.set_reactive(Document.virtual_size, size)
            update_scrollbars(self, size)
        else:
            self.virtual_size = size
        self.refresh()

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        # With ``height: auto`` (a reveal in the exam report) the height is the lines drawn at
        # the width the layout offers.
        if width and width != self._drawn_width:
            self._assemble(width)
        return len(self._lines)

    def on_resize(self) -> None:
        width = self._content_width()
        if width != self._drawn_width:
            self._assemble(width)

    def notify_style_update(self) -> None:
        """Draw again when the look changed (a theme; not a class that only touches the
        scrollbar or the focus).

        Textual calls this before it restyles the component classes (the parts' colours: a
        highlight, a heading), so the blocks are drawn again just after, once those hold the
        new look: drawn now, every part kept the old theme's colours, and blocks reused later
        (a summary opened again) kept them too."""
        super().notify_style_update()
        look = (self.rich_style, self.app.theme)
        if look == self._look_key:
            return
        self._look_key = look
        self._base = None
        self._shown.clear()
        if not self._drawn_width:
            self._look += 1  # nothing drawn yet: the first drawing comes after the restyle
        elif not self._restyle_pending:
            self._restyle_pending = True
            self.call_next(self._restyle)

    def _restyle(self) -> None:
        """Draw every block again in the look its component classes now have."""
        self._restyle_pending = False
        self._base = None
        self._shown.clear()
        self._look += 1
        if self._drawn_width:
            self._assemble(self._drawn_width)

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width = self.size.width
        base = self._base
        if base is None:
            base = self._base = self.rich_style
        if index >= len(self._lines):
            return Strip.blank(width, base)
        strip = self._lines[index]
        selection = self.text_selection
        if selection is not None:
            strip = self._select(strip, selection, index)
        elif (kept := self._shown.get(index)) is not None and kept[0] is strip \
                and kept[1] == (scroll_x, width):
            return kept[2]  # the same line at the same place: drawn last frame
        shown = strip.apply_style(base).crop_extend(scroll_x, scroll_x + width, base) \
            .apply_offsets(scroll_x, index)
        if selection is None:
            self._shown[index] = (strip, (scroll_x, width), shown)
        return shown

    # -- selection ----------------------------------------------------------------------------
    def _select(self, strip: Strip, selection: Selection, y: int) -> Strip:
        span = selection.get_span(y)
        if span is None:
            return strip
        start, end = span
        end = strip.cell_length if end == -1 else end
        if end <= start:
            return strip
        mark = self.screen.get_component_rich_style("screen--selection")
        middle = [Segment(t, (s + mark) if s else mark, c)
                  for t, s, c in strip.crop(start, end)]
        return Strip([*strip.crop(0, start), *middle, *strip.crop(end)], strip.cell_length)

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under ``selection`` (for copying)."""
        return selection.extract("\n".join(s.text.rstrip() for s in self._lines)), "\n"

    def selection_updated(self, selection: Selection | None) -> None:
        self.refresh()
