"""One answer option: its letter and text, and how it stands (highlighted, chosen, right, wrong)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from quiz.study.session import ShownOption
from quiz.tui.content import assemble
from quiz.tui.widgets.prose import Prose


class OptionItem(Horizontal):
    """An option as the student sees it: a marker column (letter, tick box or radio, verdict)
    and the option text, wrapped under itself. Clicking it posts :class:`OptionItem.Clicked`;
    its look comes from CSS classes set by its reactives."""

    DEFAULT_CSS = """
    OptionItem {
        height: auto;
        padding: 0 1 0 0;
    }
    OptionItem > .marker {
        width: 7;
        padding: 0 0 0 1;
    }
    OptionItem > .option-text {
        width: 1fr;
    }
    OptionItem > .verdict-mark {
        width: auto;
        padding: 0 0 0 1;
        text-style: bold;
    }
    """

    highlighted: reactive[bool] = reactive(False)
    """The keyboard cursor is on this option (arrows move it)."""
    chosen: reactive[bool] = reactive(False)
    """The student has chosen (or, for multiple response, ticked) this option."""
    verdict: reactive[str] = reactive("")
    """After the answer: "right" (a right option), "wrong" (chosen but wrong) or ""."""

    class Clicked(Message):
        """The option was clicked."""

        def __init__(self, letter: str) -> None:
            self.letter = letter
            super().__init__()

    def __init__(self, option: ShownOption, *, multiple: bool = False, id: str | None = None,
                 classes: str | None = None) -> None:
        self.option = option
        self.multiple = multiple
        super().__init__(id=id, classes=classes)

    def compose(self) -> ComposeResult:
        yield Static(self._marker(), classes="marker", markup=False)
        yield Prose(self.option.text, classes="option-text")
        yield Static("", classes="verdict-mark", markup=False)

    def set_option(self, option: ShownOption, *, multiple: bool = False) -> None:
        """Show ``option`` instead, neither highlighted, chosen nor marked (the widgets stay:
        moving to the next question updates them in place)."""
        self.option = option
        self.multiple = multiple
        self.highlighted = False
        self.chosen = False
        self.verdict = ""
        for marker in self.query(".marker").results(Static):
            marker.update(self._marker())
        self.query_one(".option-text", Prose).set_text(option.text)

    @property
    def text(self) -> str:
        """The option text as shown."""
        visual = self.query_one(".option-text", Static).visual
        return visual.plain if isinstance(visual, Content) else str(visual)

    def watch_highlighted(self, value: bool) -> None:
        self.set_class(value, "-highlighted")

    def watch_chosen(self, value: bool) -> None:
        self.set_class(value, "-chosen")
        for marker in self.query(".marker").results(Static):
            marker.update(self._marker())

    def watch_verdict(self, value: str) -> None:
        self.set_class(value == "right", "-right")
        self.set_class(value == "wrong", "-wrong")
        mark = {"right": "✓ right", "wrong": "✗ your choice"}.get(value, "")
        for widget in self.query(".verdict-mark").results(Static):
            widget.update(mark)

    def on_mount(self) -> None:
        self.watch_verdict(self.verdict)

    def on_click(self) -> None:
        self.post_message(self.Clicked(self.option.letter))

    def _marker(self) -> Content:
        if self.multiple:
            mark = "[x]" if self.chosen else "[ ]"
        else:
            mark = "(•)" if self.chosen else "( )"
        return assemble((self.option.letter, "bold"), f" {mark}")
