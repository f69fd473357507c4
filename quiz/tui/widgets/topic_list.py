"""The start screen's list of topics, ticked with a ✓ that reads without colour."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip
from textual.widgets import SelectionList
from textual.widgets.option_list import OptionDoesNotExist

from quiz.tui.textual_internals import selection_glyph


class TopicList(SelectionList[str]):
    """A :class:`SelectionList` whose boxes show a tick (✓) when selected and nothing when not,
    so the state reads without colour (monochrome terminals, colour-blind users)."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        _, scroll_y = self.scroll_offset
        try:
            selection = self.get_option_at_index(scroll_y + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)
        if len(segments) > 1 and segments[1].text == selection_glyph():
            mark = "✓" if selection.value in self.selected else " "
            segments[1] = Segment(mark, segments[1].style, segments[1].control)
        return Strip(segments, strip.cell_length)
