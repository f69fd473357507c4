"""The calculator's results: what is wrong with the input (if anything) above the report, drawn
with Textual's line API in one scrolling widget.

The report comes already laid out to its width (:func:`quiz.footprint.render_report`), so the
widget only cuts it into lines. A new report changes the widget's scrollable height without a
layout of the screen (Textual lays the whole screen out for a widget's new virtual size, twice
for a ``Static`` in a scroll: about two thirds of what opening the calculator cost, issue 26);
only the scrollbar depends on it, and it is updated directly.
"""

from __future__ import annotations

import textwrap

from rich.cells import cell_len
from rich.segment import Segment
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from quiz.bank.terminal import terminal_safe
from quiz.tui.textual_internals import update_scrollbars


class ReportView(ScrollView, can_focus=False):
    """The error (bold, in the error colour; with a note that the report below is for the last
    valid input) and the report (dimmed while an error stands), line by line."""

    COMPONENT_CLASSES = {"report-view--error", "report-view--stale"}

    DEFAULT_CSS = """
    ReportView {
        scrollbar-size-vertical: 1;
        scrollbar-gutter: stable;
    }
    ReportView > .report-view--error {
        color: $error;
        text-style: bold;
    }
    ReportView > .report-view--stale {
        color: $text-disabled;
    }
    """

    STALE_NOTE = "(The result below is for the last valid input.)"

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.report = ""
        """The report's text, as given (lines no wider than the width it was laid out for)."""
        self.error = ""
        """What is wrong with the input, or empty."""
        self._error_lines: list[str] = []
        self._report_lines: list[str] = []
        self._strips: dict[int, Strip] = {}

    @property
    def stale(self) -> bool:
        """True while an error stands: the report is for the last valid input."""
        return bool(self.error)

    @property
    def error_text(self) -> str:
        """The error as shown, with its note (empty when there is none)."""
        return f"{self.error}\n{self.STALE_NOTE}" if self.error else ""

    def show_report(self, report: str) -> None:
        """Show ``report`` (and no error)."""
        self.report = report
        self.error = ""
        self._report_lines = [terminal_safe(line) for line in report.rstrip("\n").split("\n")]
        self._error_lines = []
        self._changed()

    def show_error(self, error: str, width: int) -> None:
        """Show ``error`` above the report kept from the last valid input, wrapped to
        ``width`` columns."""
        self.error = error
        lines: list[str] = []
        for line in f"{error}\n{self.STALE_NOTE}".split("\n"):
            lines.extend(textwrap.wrap(terminal_safe(line), max(width, 10)) or [""])
        self._error_lines = [*lines, ""]
        self._changed()

    def _changed(self) -> None:
        self._strips.clear()
        width = max((cell_len(line) for line in (*self._error_lines, *self._report_lines)),
                    default=0)
        size = Size(width, len(self._error_lines) + len(self._report_lines))
        if self.is_mounted and self.container_size:
            # Only the scrollbar depends on the height: no layout of the screen for it.
            self.set_reactive(ReportView.virtual_size, size)
            update_scrollbars(self, size)
        else:
            self.virtual_size = size
        self.refresh()

    def notify_style_update(self) -> None:
        """The look changed (a theme): the lines are drawn again in it."""
        super().notify_style_update()
        self._strips.clear()

    def render_line(self, y: int) -> Strip:
        index = y + self.scroll_offset.y
        width = self.scrollable_content_region.width
        base = self.rich_style
        strip = self._strips.get(index)
        if strip is None:
            errors = len(self._error_lines)
            if index < errors:
                text = self._error_lines[index]
                style = base + self.get_component_rich_style("report-view--error")
            elif index - errors < len(self._report_lines):
                text = self._report_lines[index - errors]
                style = (base + self.get_component_rich_style("report-view--stale")
                         if self.stale else base)
            else:
                text, style = "", base
            strip = Strip([Segment(text, style)])
            self._strips[index] = strip
        return strip.crop_extend(self.scroll_offset.x, self.scroll_offset.x + width, base)
