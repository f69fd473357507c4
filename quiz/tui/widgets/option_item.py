"""One answer option: its letter and text, and how it stands (highlighted, chosen, right, wrong)."""

from __future__ import annotations

from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

from quiz.study.session import ShownOption
from quiz.tui.text import assemble


class OptionItem(Static):
    """An option as the student sees it: ``letter`` and text. Clicking it posts
    :class:`OptionItem.Clicked`; its look comes from CSS classes set by its reactives."""

    DEFAULT_CSS = """
    OptionItem {
        padding: 0 1;
        margin: 0 0 0 0;
        height: auto;
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
        super().__init__(id=id, classes=classes, markup=False)

    def watch_highlighted(self, value: bool) -> None:
        self.set_class(value, "-highlighted")

    def watch_chosen(self, value: bool) -> None:
        self.set_class(value, "-chosen")
        self.update(self._label())

    def watch_verdict(self, value: str) -> None:
        self.set_class(value == "right", "-right")
        self.set_class(value == "wrong", "-wrong")
        self.update(self._label())

    def on_mount(self) -> None:
        self.update(self._label())

    def on_click(self) -> None:
        self.post_message(self.Clicked(self.option.letter))

    def _label(self):
        if self.multiple:
            mark = "[x]" if self.chosen else "[ ]"
        else:
            mark = "(•)" if self.chosen else "( )"
        suffix = ""
        if self.verdict == "right":
            suffix = "  ✓ right"
        elif self.verdict == "wrong":
            suffix = "  ✗ your choice"
        return assemble((f"{self.option.letter}", "bold"), f" {mark} ", self.option.text,
                        (suffix, "bold"))
