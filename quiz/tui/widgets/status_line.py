"""The status line under the title bar of the question and exam screens, drawn as one line by
one widget of fixed size.

It shows a left part (``Question 3/20 · hard · Memory``) and a right part (``Score 2/3``, or the
exam's ``1/5 answered · ⏱ 9:12 left``). Two ``Static`` s in a row, the right one sized to its
text, laid out the whole screen whenever the right part changed its width — and the first
time a screen made ahead was shown, when both were filled: a second layout of the screen on
Enter (issue 13). Here a new text is only a repaint of this one line.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.app import RenderResult
from textual.content import Content
from textual.widget import Widget

GAP = 2
"""Blank cells at least between the left part and the right part."""
PAD = 1
"""Blank cells at each end of the line."""


class StatusLine(Widget, can_focus=False):
    """One line: :attr:`left` (cut with an ellipsis when the line is too narrow) and
    :attr:`right` (whole, at the right end; in the ``status-line--alert`` look when
    :meth:`show` is told so). The left part's first item (up to the first ``" · "``, e.g.
    ``Question 3/20``) is kept whole: when the right part leaves no room for it, the right
    part's ``narrow`` form is shown instead, and when even that does not fit, the right part
    is cut. Both are shown literally: give :class:`~textual.content.Content` made with
    :func:`quiz.tui.content.literal` for bank text."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"status-line--alert"}
    DEFAULT_CSS = """
    StatusLine {
        height: 1;
        width: 1fr;
        background: $boost;
        color: $text;
        text-wrap: nowrap;
        .status-line--alert {
            color: $error;
            text-style: bold;
        }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._left = Content("")
        self._right = ""
        self._narrow = ""
        self._alert = False

    def show(self, left: Content, right: str = "", *, alert: bool = False,
             narrow: str | None = None) -> None:
        """Show ``left`` and ``right`` (plain text, shown literally); ``narrow``: a shorter
        form of ``right`` for a line too narrow for both (default: ``right``); ``alert``
        gives the right part the alert look (an exam's last minute). Only this line is drawn
        again."""
        narrow = right if narrow is None else narrow
        if (left, right, narrow, alert) == (self._left, self._right, self._narrow, self._alert):
            return
        self._left, self._right, self._narrow, self._alert = left, right, narrow, alert
        self.refresh()

    @property
    def left(self) -> str:
        """The left part's plain text (whole, as given; the line may show it cut)."""
        return self._left.plain

    @property
    def right(self) -> str:
        """The right part's plain text."""
        return self._right

    @property
    def alert(self) -> bool:
        """Whether the right part has the alert look."""
        return self._alert

    def render(self) -> RenderResult:
        width = self.size.width
        plain = self._left.plain
        first = cell_len(plain.split(" · ", 1)[0])
        need = first + (cell_len(plain) > first)  # its cells, and the "…" after it if cut
        text = self._right
        if text and width - 2 * PAD - GAP - cell_len(text) < need:
            text = self._narrow
        if text and width - 2 * PAD - GAP - cell_len(text) < need:
            keep = max(1, width - 2 * PAD - GAP - need)
            text = Content(text).truncate(keep, ellipsis=True).plain
        right = Content(text)
        if self._alert and text:
            right = right.stylize(self.get_visual_style("status-line--alert", partial=True))
        right_cells = cell_len(text)
        room = width - 2 * PAD - right_cells - (GAP if right_cells else 0)
        left = self._left.truncate(room, ellipsis=True) if room > 0 else Content("")
        gap = max(0, width - 2 * PAD - left.cell_length - right_cells)
        return Content.assemble(" " * PAD, left, " " * gap, right, " " * PAD)[:width]
