"""One question of the exam report: its title line and its full reveal."""

from __future__ import annotations

from typing import ClassVar

from textual.strip import Strip

from quiz.study.exam import ExamItem
from quiz.study.shown import build_outcome
from quiz.tui.widgets.document import Block, Pen, Runs, prose, runs_text
from quiz.tui.widgets.reveal import RevealView


def item_title(item: ExamItem) -> Runs:
    """A report entry's heading: the question's number, right / wrong / not answered (or
    incomplete, with the letters ticked), and whether it was flagged."""
    state = "right" if item.correct else ("not answered" if item.outcome is None else "wrong")
    if item.incomplete:
        state = (f"incomplete: {', '.join(sorted(item.ticked))} ticked of "
                 f"{item.shown.choose} asked for, not answered")
    flag = " · ⚑ flagged" if item.flagged else ""
    return (f"Question {item.shown.number}", "bold"), f" · {state}{flag}"


class ReportItem(RevealView):
    """One question of the report as one widget: its heading (:func:`item_title`), stem and
    options as they were shown, then its reveal (from the same parts as the question screen's;
    an unanswered question's as if nothing was chosen). Blocks ``title``, ``stem``, ``options``,
    then the reveal's."""

    COMPONENT_CLASSES: ClassVar[set[str]] = RevealView.COMPONENT_CLASSES | {
        "report-item--options"}
    DEFAULT_CSS = """
    ReportItem > .report-item--options { color: $text-muted; }
    """

    def __init__(self, item: ExamItem, *, id: str | None = None,
                 classes: str | None = None) -> None:
        shown = item.shown
        super().__init__(item.outcome or build_outcome(shown, ()), id=id, classes=classes)
        self.item = item
        title, stem = item_title(item), shown.question.stem
        options = "\n".join(f"{o.letter}  {o.text}" for o in shown.options)

        def draw_title(pen: Pen) -> list[Strip]:
            return pen.renderable(runs_text(title), pen.width, pen.style("reveal--text"))

        def draw_stem(pen: Pen) -> list[Strip]:
            return prose(stem, pen.width, pen.style("reveal--text"))

        def draw_options(pen: Pen) -> list[Strip]:
            return prose(options, pen.width, pen.style("report-item--options"), lines=True,
                         hang=3)

        self.set_blocks([Block("title", draw_title), Block("stem", draw_stem, top=1),
                         Block("options", draw_options, top=1), *self.blocks])
