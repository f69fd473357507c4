"""A one-line choice for a form: one widget where Textual's ``Select`` composes five (its
current value, its arrow and a hidden option list each), so a form of twenty choices mounts,
styles and draws a quarter of the widgets (issue 26: the calculator opened in 4 × A, most of it
the Selects' widgets).

The field shows its current choice's short text and a ``▾``. Enter, space or a click opens the
list of choices (:class:`~quiz.tui.screens.choice_picker.ChoicePicker`) under the field; ←/→
step through the choices in place. Setting :attr:`ChoiceField.value` posts
:class:`ChoiceField.Changed`, as ``Select`` and ``Input`` post theirs.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual import events
from textual.app import RenderResult
from textual.binding import Binding
from textual.content import Content
from textual.message import Message
from textual.widget import Widget

from quiz.bank.terminal import terminal_safe
from quiz.tui.screens.choice_picker import Choice, ChoicePicker

ARROW = " ▾"


class ChoiceField(Widget, can_focus=True):
    """A choice among ``choices`` (at least one), starting at ``value`` (the first choice when
    ``value`` is not among them).

    Raises:
        ValueError: when ``choices`` is empty, or when :attr:`value` is set to a value that is
            not among them.
    """

    DEFAULT_CSS = """
    ChoiceField {
        width: 1fr;
        height: 1;
        padding: 0 1;
        background: $boost;
    }
    ChoiceField:focus {
        background: $accent 45%;
        text-style: bold;
    }
    """

    BINDINGS = [
        Binding("enter,space", "open", "Choose", show=False),
        Binding("left", "step(-1)", "Previous choice", show=False),
        Binding("right", "step(1)", "Next choice", show=False),
    ]

    class Changed(Message):
        """The choice of ``choice`` changed to ``value``."""

        def __init__(self, choice: ChoiceField, value: str) -> None:
            super().__init__()
            self.choice = choice
            self.value = value

        @property
        def control(self) -> ChoiceField:
            """The field whose choice changed."""
            return self.choice

    def __init__(self, choices: tuple[Choice, ...], value: str, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        if not choices:
            raise ValueError("a choice field needs at least one choice")
        self.choices = choices
        self._index = {c.value: i for i, c in enumerate(choices)}
        self._value = value if value in self._index else choices[0].value

    @property
    def value(self) -> str:
        """The value of the current choice; setting it to another posts :class:`Changed`."""
        return self._value

    @value.setter
    def value(self, value: str) -> None:
        if value not in self._index:
            raise ValueError(f"{value!r} is not one of the choices of {self.id or 'this field'}")
        if value == self._value:
            return
        self._value = value
        self.refresh()
        self.post_message(self.Changed(self, value))

    @property
    def choice(self) -> Choice:
        """The current choice."""
        return self.choices[self._index[self._value]]

    def render(self) -> RenderResult:
        width = self.content_size.width
        text = terminal_safe(self.choice.short)
        room = max(width - cell_len(ARROW), 0)
        if cell_len(text) > room:
            text = text[: max(room - 1, 0)] + "…" if room else ""
        return Content(text + " " * max(room - cell_len(text), 0) + ARROW)

    def action_step(self, step: int) -> None:
        """←/→: the previous or next choice (stops at either end)."""
        index = self._index[self._value] + step
        if 0 <= index < len(self.choices):
            self.value = self.choices[index].value

    def action_open(self) -> None:
        """Enter, space or a click: the list of choices under the field; choosing one sets
        it, Escape leaves the choice as it was."""
        def chosen(value: str | None) -> None:
            if value is not None:
                self.value = value
            self.focus()

        self.app.push_screen(ChoicePicker(self.choices, self._value, self.region), chosen)

    async def _on_click(self, event: events.Click) -> None:
        event.stop()
        self.focus()
        self.action_open()
