"""The list of choices of a :class:`~quiz.tui.widgets.choice_field.ChoiceField`, opened under the
field: as wide as its longest choice (within the terminal), the current choice highlighted;
Enter or a click chooses, Escape or a click outside leaves the choice as it was."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.geometry import Region
from textual.screen import ModalScreen
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from quiz.tui.content import literal


@dataclass(frozen=True, slots=True)
class Choice:
    """One choice: its ``value``, the ``short`` text the field shows, the ``long`` text the list
    of choices shows (the short one when empty)."""

    value: str
    short: str
    long: str = ""

    @property
    def listed(self) -> str:
        """The text of the choice in the list."""
        return self.long or self.short


FRAME = 4
"""Columns the list adds to its longest choice: its border (2) and padding (2)."""
SCROLLBAR = 1
"""Columns of the list's vertical scrollbar (when its choices do not all fit)."""


def placement(field: Region, widest: int, count: int, screen: tuple[int, int]) -> Region:
    """Where the list of ``count`` choices, the widest ``widest`` cells, goes for a field at
    ``field`` on a ``screen`` of (columns, rows): under the field (over it when there is more
    room above), as wide as its widest choice and at least the field, moved left to stay on
    the screen, and as tall as its choices where they fit."""
    columns, rows = screen
    height = min(count + 2, max(rows - 2, 3))
    width = min(max(widest + FRAME + (SCROLLBAR if count + 2 > height else 0), field.width),
                columns)
    below = rows - (field.y + 1)
    if below >= height or below >= field.y:
        y = field.y + 1
        height = min(height, below)
    else:
        y = max(field.y - height, 0)
        height = min(height, field.y)
    x = max(min(field.x, columns - width), 0)
    return Region(x, y, width, max(height, 3))


class ChoicePicker(ModalScreen[str | None]):
    """Choose one of ``choices`` (the current one is ``value``) in a list placed under the
    field's ``region`` (screen coordinates); dismissed with the value chosen, or ``None``."""

    DEFAULT_CSS = """
    ChoicePicker > OptionList {
        border: round $accent;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    HIDES_CALCULATOR_KEY = True
    """Opened from the calculator's fields: ``m`` is not offered over it (the app's
    ``check_action`` reads this, so that the first frame need not import this module)."""

    def __init__(self, choices: tuple[Choice, ...], value: str, region: Region) -> None:
        super().__init__()
        self.choices = choices
        self.value = value
        self.field_region = region

    def compose(self) -> ComposeResult:
        yield OptionList(*(Option(literal(c.listed), id=c.value) for c in self.choices))

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        widest = max(cell_len(c.listed) for c in self.choices)
        place = placement(self.field_region, widest, len(self.choices), self.app.size)
        options.styles.offset = (place.x, place.y)
        options.styles.width = place.width
        options.styles.height = place.height
        options.highlighted = next(
            (i for i, c in enumerate(self.choices) if c.value == self.value), 0)
        options.focus()

    @on(OptionList.OptionSelected)
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option_id)

    def action_cancel(self) -> None:
        """Escape: the choice stays as it was."""
        self.dismiss(None)

    def on_click(self, event: events.Click) -> None:
        """A click outside the list closes it, changing nothing."""
        if event.widget is self:
            self.dismiss(None)
