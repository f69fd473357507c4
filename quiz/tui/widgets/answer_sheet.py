"""The exam report's answer sheet: one row per question — number, topic, your answer, the
key, right or wrong, flagged, and the time spent on it — with filters (issue 23)."""

from __future__ import annotations

from enum import StrEnum

from rich.text import Text
from textual.widgets import DataTable

from quiz.bank.terminal import terminal_safe
from quiz.study.exam import ExamItem
from quiz.tui.widgets.bars import clock_text


class SheetFilter(StrEnum):
    """Which questions the answer sheet lists."""

    ALL = "all"
    WRONG = "wrong"
    FLAGGED = "flagged"
    UNANSWERED = "unanswered"

    def keeps(self, item: ExamItem) -> bool:
        """True when ``item`` is listed under this filter."""
        if self is SheetFilter.WRONG:
            return item.outcome is not None and not item.correct
        if self is SheetFilter.FLAGGED:
            return item.flagged
        if self is SheetFilter.UNANSWERED:
            return item.outcome is None
        return True


COLUMNS = ("#", "Topic", "Yours", "Key", "Result", "⚑", "Time")
"""The answer sheet's columns."""


def result_text(item: ExamItem) -> str:
    """``✓ right``, ``✗ wrong``, ``– incomplete`` (a multiple-response question with fewer
    ticks than it asks for: not an answer) or ``– none`` (nothing chosen)."""
    if item.outcome is None:
        return "– incomplete" if item.incomplete else "– none"
    return "✓ right" if item.correct else "✗ wrong"


def yours_text(item: ExamItem) -> str:
    """The letters chosen (``A,C``), the letters ticked on an incomplete question with how
    many it asks for (``A of 2``), or ``–`` when nothing was chosen."""
    if item.outcome is not None:
        return ",".join(o.letter for o in item.outcome.chosen)
    if item.incomplete:
        return f"{','.join(sorted(item.ticked))} of {item.shown.choose}"
    return "–"


def sheet_row(item: ExamItem, topic_names: dict[str, str]) -> tuple[str, ...]:
    """The answer sheet's cells for ``item``, as plain text (bank text made terminal-safe)."""
    shown = item.shown
    yours = yours_text(item)
    key = ",".join(shown.letter_of(k) for k in sorted(shown.question.answer_keys))
    topic = topic_names.get(shown.question.topic, shown.question.topic)
    return (str(shown.number), terminal_safe(topic), yours, key, result_text(item),
            "⚑" if item.flagged else "", clock_text(item.seconds))


OTHER_COLUMNS = 40
"""Cells the columns other than the topic take (their text and padding, the scrollbar) when
"Yours" holds at most 5 characters and "Result" at most 7 (``✓ right``)."""


class AnswerSheet(DataTable[Text]):
    """Every question of the exam on one line each, in exam order; Enter on a row opens that
    question's full reveal (``RowSelected``, the row's key is the question's 0-based index in
    :attr:`items`)."""

    def __init__(self, items: tuple[ExamItem, ...], topic_names: dict[str, str], *,
                 id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=False)
        self.items = tuple(sorted(items, key=lambda it: it.shown.number))
        """Every question, in exam order."""
        self.topic_names = topic_names
        self.filter = SheetFilter.ALL
        self._topic_width = -1
        self.listed: list[int] = []
        """Indexes in :attr:`items` of the rows listed, in order."""

    def on_mount(self) -> None:
        self._columns_for(self.size.width)

    def on_resize(self) -> None:
        self._columns_for(self.size.width)

    def _columns_for(self, width: int) -> None:
        """Lay the columns out for ``width`` cells: the topic column takes what the others
        leave, so the answer, the key and the result stay in view on a narrow terminal."""
        rows = self._rows()
        longest = max([len(row[1]) for row in rows] + [len("Topic")])
        wider = (max([len(row[2]) for row in rows] + [5]) - 5
                 + max([len(row[4]) for row in rows] + [7]) - 7)
        topic = max(8, min(longest, width - OTHER_COLUMNS - wider))
        if topic == self._topic_width:
            return
        self._topic_width = topic
        self.clear(columns=True)
        for label in COLUMNS:
            self.add_column(Text(label, style="bold"), key=label,
                            width=topic if label == "Topic" else None)
        self.show(self.filter)

    def _rows(self) -> list[tuple[str, ...]]:
        return [sheet_row(item, self.topic_names) for item in self.items]

    def show(self, which: SheetFilter) -> None:
        """List the questions ``which`` keeps (the cursor on the first)."""
        self.filter = which
        self.clear()
        self.listed = [i for i, item in enumerate(self.items) if which.keeps(item)]
        for i in self.listed:
            item = self.items[i]
            style = "" if item.correct else ("dim" if item.outcome is None else "")
            cells = [Text(cell, style=style, no_wrap=True, overflow="ellipsis")
                     for cell in sheet_row(item, self.topic_names)]
            if not item.correct and item.outcome is not None:
                cells[4].stylize("bold")
            self.add_row(*cells, key=str(i))

    def count(self, which: SheetFilter) -> int:
        """How many questions ``which`` keeps."""
        return sum(which.keeps(item) for item in self.items)
