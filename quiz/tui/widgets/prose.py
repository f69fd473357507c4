"""Bank prose on screen, laid out at the widget's width (:mod:`quiz.tui.text_layout`)."""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size
from textual.visual import Visual
from textual.widgets import Static

from quiz.bank.terminal import terminal_safe
from quiz.tui.text_layout import layout, reflow, wrap_line
from quiz.tui.textual_internals import clear_layout_cache


class Prose(Static):
    """Literal bank text (never markup, terminal-safe) whose paragraphs are reflowed to the
    width, with indented lines kept, hanging indents and numbers kept with their units.

    With ``lines=True`` every line of ``text`` is its own block (derivation steps): nothing is
    joined, long lines wrap with a hanging indent of ``hang`` cells.

    The text is laid out for a width when Textual asks the widget's height at that width
    (:meth:`get_content_height`, during the layout), so a new text or a new width costs one
    layout, not a layout, a resize and another layout.
    """

    def __init__(self, text: str, *, style: str = "", lines: bool = False, hang: int = 4,
                 id: str | None = None, classes: str | None = None) -> None:
        self.source = terminal_safe(text.rstrip("\n"))
        self._text_style = style
        self._per_line = lines
        self._hang = hang
        self._width: int | None = None
        """The width the text is laid out for (None: not laid out yet)."""
        self._height: int | None = None
        """Its lines when each fits that width (None: Textual measures them)."""
        self._laid_out = self._content(None)
        super().__init__(id=id, classes=classes, markup=False)

    @property
    def visual(self) -> Visual:
        """The text as laid out for the widget's width."""
        return self._laid_out

    def _content(self, width: int | None) -> Content:
        if self._per_line:
            text = "\n".join(
                part for line in self.source.split("\n")
                for part in ([line] if width is None else wrap_line(line, width, self._hang)))
        else:
            text = reflow(self.source) if width is None else layout(self.source, width)
        self._height = _height_if_fitting(text, width)
        content = Content(text)
        return content.stylize(self._text_style) if self._text_style else content

    def _lay_out(self, width: int) -> bool:
        """Lay the text out for ``width`` cells; True if that changed it."""
        if width == self._width:
            return False
        self._width = width
        self._laid_out = self._content(width)
        # Textual's caches of this widget's visual and height: refresh() would clear them too,
        # but during a layout it would also look the widget up on screen, which costs more
        # than the layout of the text.
        clear_layout_cache(self)
        self.clear_cached_dimensions()
        return True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width:
            self._lay_out(width)
            if (self._height is not None and width == self._width
                    and self.styles.text_wrap == "wrap" and not self.styles.line_pad):
                # Each line fits: Textual's wrap would keep them as they are (and count them
                # again, wrapping every line: the most of a layout of the start screen).
                return self._height
        return super().get_content_height(container, viewport, width)

    def on_resize(self) -> None:
        if self.size.width and self._lay_out(self.size.width):
            self.refresh(layout=True)

    def set_text(self, text: str, *, lines: bool | None = None, hang: int | None = None) -> None:
        """Show ``text`` instead (optionally one block per line, with hanging indent
        ``hang``), laid out for the width it was last laid out at."""
        self.source = terminal_safe(text.rstrip("\n"))
        if lines is not None:
            self._per_line = lines
        if hang is not None:
            self._hang = hang
        self._laid_out = self._content(self._width)
        self.refresh(layout=True)


def _height_if_fitting(text: str, width: int | None) -> int | None:
    """How many lines ``text`` has when each fits in ``width`` cells (no tab, which Textual
    expands); ``None`` when one does not, when it is empty, or with no width."""
    if not width or not text or "\t" in text:
        return None
    lines = text.split("\n")
    return len(lines) if all(cell_len(line) <= width for line in lines) else None
