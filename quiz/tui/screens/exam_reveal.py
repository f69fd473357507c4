"""One question of the exam report, opened from the answer sheet: its stem, the options as
shown, your answer and its full reveal. Esc goes back to the answer sheet; n and p move
through the questions listed there."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen

from quiz.study.exam import ExamItem
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.report_item import ReportItem
from quiz.tui.widgets.title_bar import TitleBar


class ExamRevealScreen(Screen[None]):
    """The full reveal of ``items[index]`` (the questions the answer sheet lists)."""

    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("n", "step(1)", "Next"),
        Binding("p", "step(-1)", "Previous"),
        Binding("pageup", "scroll(-1)", "Page up", show=False),
        Binding("pagedown", "scroll(1)", "Page down", show=False),
        Binding("question_mark", "app.help", "Help", show=False),
        Binding("q", "app.request_quit", "Quit"),
    ]

    def __init__(self, items: list[ExamItem], index: int) -> None:
        super().__init__()
        self.items = items
        self.index = index

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield self._body()
        yield KeyBar()

    def _body(self) -> ReportItem:
        item = self.items[self.index]
        return ReportItem(item, id="exam-reveal",
                          classes="report-item " + ("-right" if item.correct else "-wrong"))

    @property
    def body(self) -> ReportItem:
        """The question shown."""
        return self.query_one("#exam-reveal", ReportItem)

    def on_mount(self) -> None:
        self.title = f"Exam report · question {self.items[self.index].shown.number}"
        self.body.focus()

    async def action_step(self, by: int) -> None:
        """The next (``by`` 1) or previous (-1) question listed on the answer sheet."""
        index = self.index + by
        if not 0 <= index < len(self.items):
            self.notify("That was the " + ("last" if by > 0 else "first") + " one listed.",
                        markup=False)
            return
        self.index = index
        await self.body.remove()
        await self.mount(self._body(), before=self.query_one(KeyBar))
        self.on_mount()

    def action_scroll(self, pages: int) -> None:
        """Scroll by a page."""
        body = self.body
        (body.scroll_page_down if pages > 0 else body.scroll_page_up)(animate=False)

    def action_back(self) -> None:
        """Back to the answer sheet."""
        self.dismiss(None)
