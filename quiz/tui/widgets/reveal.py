"""The reveal after an answer, in the source documents' order: verdict → short explanation →
infographic → full explanation → distractor review (then worked example and references).

:func:`reveal_blocks` is the one place that decides the reveal's parts, their order and texts;
the question screen's :class:`~quiz.tui.widgets.question_view.QuestionView` and the exam
report's :class:`RevealView` both show what it builds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, ClassVar

from textual.strip import Strip

from quiz.bank.model import Infographic, WorkedExample
from quiz.bank.terminal import terminal_safe
from quiz.study.shown import DistractorNote, Outcome
from quiz.tui.widgets.document import Block, Document, Pen, fold, line, prose
from quiz.tui.widgets.infographic import table_renderable

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec

REVEAL_COMPONENTS = {
    "reveal--text", "reveal--verdict-correct", "reveal--verdict-correct-edge",
    "reveal--verdict-wrong", "reveal--verdict-wrong-edge", "reveal--section-title",
    "reveal--distractor-option", "reveal--caption",
}
"""The component classes a reveal is drawn with (see :class:`RevealView`'s CSS)."""

REVEAL_CSS = """
{widget} > .reveal--verdict-correct {{ background: $success 30%; text-style: bold; }}
{widget} > .reveal--verdict-correct-edge {{ background: $success 30%; color: $success; }}
{widget} > .reveal--verdict-wrong {{ background: $error 30%; text-style: bold; }}
{widget} > .reveal--verdict-wrong-edge {{ background: $error 30%; color: $error; }}
{widget} > .reveal--section-title {{ color: $accent; text-style: bold underline; }}
{widget} > .reveal--distractor-option {{ text-style: bold; }}
{widget} > .reveal--caption {{ color: $text-muted; text-style: italic; }}
"""
"""The reveal's look, for a document widget named ``widget``."""


def verdict_text(out: Outcome) -> str:
    """The verdict line: a mark, then what the session says about the answer."""
    return ("✓ " if out.correct else "✗ ") + out.verdict


def _right_answers(out: Outcome) -> tuple[str, int]:
    """The "Right answer(s):" lines of a wrong answer, and their hanging indent."""
    label = "Right answers:" if len(out.right) > 1 else "Right answer:"
    sep = "\n" if len(out.right) > 1 else " "
    # Each option's text is made terminal-safe on its own, so its tabs expand as in its row.
    return (label + "".join(f"{sep}{o.letter}  {terminal_safe(o.text)}" for o in out.right),
            3 if len(out.right) > 1 else len(label) + 4)


def note_heading(note: DistractorNote) -> str:
    """A distractor review entry's heading: the letter and text the student saw."""
    mark = "  (your choice)" if note.chosen else ""
    return f"{note.option.letter}  {terminal_safe(note.option.text)}{mark}"


def _references(out: Outcome) -> str:
    return "\n".join(f"• {r}" for r in out.references)


# -- drawing the parts ----------------------------------------------------------------------
def _draw_verdict(out: Outcome) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        kind = "correct" if out.correct else "wrong"
        style = pen.style(f"reveal--verdict-{kind}")
        edge = pen.style(f"reveal--verdict-{kind}-edge")
        # A thick edge on the left, then the text with one cell of padding on either side.
        rows = prose(verdict_text(out), pen.width - 3, style, lines=True, hang=2)
        return [Strip.join([line("█", edge, 1), line(" ", style, 1), row, line(" ", style, 1)])
                for row in rows]
    return draw


def _draw_prose(text: Callable[[], str], component: str = "reveal--text", *,
                lines: bool = False, hang: int = 4, indent: int = 0
                ) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        return prose(text(), pen.width, pen.style(component), lines=lines, hang=hang,
                     indent=indent, fill=pen.style("reveal--text"))
    return draw


def _draw_title(title: str) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        # Only the words are underlined, not the rest of the line.
        return [line(title, pen.style("reveal--section-title"), pen.width,
                     fill=pen.style("reveal--text"))]
    return draw


def _draw_review(notes: tuple[DistractorNote, ...]) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        text, heading = pen.style("reveal--text"), pen.style("reveal--distractor-option")
        out: list[Strip] = []
        for note in notes:
            out.append(Strip.blank(pen.width, text))
            # The option's text hangs under itself, not under its letter.
            out += prose(note_heading(note), pen.width, heading, lines=True, hang=3, fill=text)
            out += prose(note.review, pen.width, text, indent=3)
        return out
    return draw


def _draw_infographic(info: Infographic) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        text = pen.style("reveal--text")
        if info.table is not None:
            table = table_renderable(list(info.table.columns),
                                     [list(r) for r in info.table.rows])
            body = pen.renderable(table, pen.width, text)
            caption = info.table.caption or info.caption
        elif info.text is not None:
            body = fold(info.text, pen.width, text)
            caption = info.caption
        else:
            assert info.footprint is not None
            body = [line(row, text, pen.width)
                    for row in chart_text(info.footprint, info.compute, pen.width).split("\n")]
            caption = info.caption
        if caption:
            body += prose(caption, pen.width, pen.style("reveal--caption"), fill=text)
        return body
    return draw


def chart_text(spec: FootprintSpec, compute: bool, width: int) -> str:
    """A footprint scenario's stacked bars at ``width`` columns (at least 30), drawn by the
    calculator (training and inference on one scale; with ``compute``, time and throughput)."""
    from quiz.footprint import estimate, render_bars

    return terminal_safe(render_bars(estimate(spec), width=max(width, 30), units=spec.units,
                                     timing=compute))


def worked_steps(example: WorkedExample) -> str:
    """A worked example's derivation steps, one per line, computed by the footprint
    calculator (never hand-typed numbers)."""
    from quiz.footprint import derivation_steps, estimate

    spec = example.footprint
    return "\n".join(derivation_steps(estimate(spec), units=spec.units))


def _draw_worked_example(example: WorkedExample) -> Callable[[Pen], list[Strip]]:
    def draw(pen: Pen) -> list[Strip]:
        text = pen.style("reveal--text")
        out: list[Strip] = []
        if example.caption:
            out += prose(example.caption, pen.width, pen.style("reveal--caption"), fill=text)
        # One step per line; a long step wraps under itself, never between a number and its unit.
        return out + prose(worked_steps(example), pen.width, text, lines=True, hang=4)
    return draw


QUESTION_PARTS = frozenset({
    "short-title", "short-explanation", "infographic-title", "infographic", "full-title",
    "full-explanation", "review-title", "worked-title", "worked-example", "references-title",
    "references", "reveal-end",
})
"""The reveal's blocks that depend on the question alone, not on the answer: they can be drawn
before the student answers (see ``shared`` in :func:`reveal_blocks`)."""


def reveal_blocks(out: Outcome, shared: dict[str, Block] | None = None) -> list[Block]:
    """The blocks of the reveal of ``out``, in the order shown; each block's key names the part
    (``verdict``, ``verdict-detail``, ``short-explanation``, ``infographic``,
    ``full-explanation``, ``distractor-review``, ``worked-example``, ``references``; section
    titles end in ``-title``). Letters are the ones the student saw, so shuffled options never
    contradict their explanations. A part the outcome lacks (an infographic, a worked example,
    references, the right answers of a right answer) has no block.

    ``shared`` (per question) keeps the blocks of :data:`QUESTION_PARTS`: a block already there
    is used instead of a new one, with the lines it has drawn; a new one is put there."""
    blocks = [Block("verdict", _draw_verdict(out), top=1)]

    def keep(block: Block) -> Block:
        if shared is None or block.key not in QUESTION_PARTS:
            return block
        return shared.setdefault(block.key, block)
    if not out.correct:
        text, hang = _right_answers(out)
        blocks.append(Block("verdict-detail", _draw_prose(lambda: text, lines=True, hang=hang,
                                                          indent=1)))

    def section(key: str, title: str, body: Block) -> None:
        blocks.append(keep(Block(f"{key}-title", _draw_title(title), top=1)))
        blocks.append(keep(body))

    section("short", "Short explanation",
            Block("short-explanation", _draw_prose(lambda: out.short_explanation)))
    if out.infographic is not None:
        section("infographic", "Infographic",
                Block("infographic", _draw_infographic(out.infographic)))
    section("full", "Full explanation",
            Block("full-explanation", _draw_prose(lambda: out.full_explanation)))
    section("review", "Distractor review",
            Block("distractor-review", _draw_review(out.distractor_review)))
    if out.worked_example is not None:
        section("worked", "Worked example",
                Block("worked-example", _draw_worked_example(out.worked_example)))
    if out.references:
        section("references", "References",
                Block("references", _draw_prose(lambda: _references(out), lines=True, hang=2)))
    blocks.append(keep(Block("reveal-end", lambda pen: [], top=1)))
    return blocks


class RevealView(Document):
    """Everything an :class:`~quiz.study.session.Outcome` reveals, as one document widget
    (the exam report shows one per question; its height is its lines)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = REVEAL_COMPONENTS
    DEFAULT_CSS = """
    RevealView { height: auto; overflow-y: hidden; scrollbar-gutter: auto; }
    """ + REVEAL_CSS.format(widget="RevealView")

    def __init__(self, outcome: Outcome, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.outcome: Outcome | None = outcome
        self.set_blocks(reveal_blocks(outcome))

