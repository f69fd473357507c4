"""Bank prose on screen, laid out at the widget's width (:mod:`quiz.tui.text_layout`)."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from quiz.bank.terminal import terminal_safe
from quiz.tui.text_layout import layout, reflow, wrap_line


class Prose(Static):
    """Literal bank text (never markup, terminal-safe) whose paragraphs are reflowed to the
    width, with indented lines kept, hanging indents and numbers kept with their units.

    With ``lines=True`` every line of ``text`` is its own block (derivation steps): nothing is
    joined, long lines wrap with a hanging indent of ``hang`` cells.
    """

    def __init__(self, text: str, *, style: str = "", lines: bool = False, hang: int = 4,
                 id: str | None = None, classes: str | None = None) -> None:
        self.source = terminal_safe(text.rstrip("\n"))
        self._text_style = style
        self._per_line = lines
        self._hang = hang
        super().__init__(self._content(None), id=id, classes=classes, markup=False)

    def _content(self, width: int | None) -> Content:
        if self._per_line:
            text = "\n".join(
                part for line in self.source.split("\n")
                for part in ([line] if width is None else wrap_line(line, width, self._hang)))
        else:
            text = reflow(self.source) if width is None else layout(self.source, width)
        content = Content(text)
        return content.stylize(self._text_style) if self._text_style else content

    def on_resize(self) -> None:
        if self.size.width:
            self.update(self._content(self.size.width))

    def set_text(self, text: str) -> None:
        """Show ``text`` instead."""
        self.source = terminal_safe(text.rstrip("\n"))
        self.update(self._content(self.size.width or None))
