"""The reveal after an answer, in the source documents' order: verdict → short explanation →
infographic → full explanation → distractor review (then worked example and references)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quiz.study.session import Outcome
from quiz.tui.content import assemble, literal
from quiz.tui.widgets.infographic import InfographicView


class Reveal(Vertical):
    """Everything an :class:`~quiz.study.session.Outcome` reveals. Letters are the ones the
    student saw, so shuffled options never contradict their explanations."""

    DEFAULT_CSS = """
    Reveal { height: auto; }
    """

    def __init__(self, outcome: Outcome, *, id: str | None = None,
                 classes: str | None = None) -> None:
        self.outcome = outcome
        super().__init__(id=id, classes=classes)

    def compose(self) -> ComposeResult:
        out = self.outcome
        yield Static(
            assemble(("✓ " if out.correct else "✗ ", "bold"), out.verdict),
            id="verdict", classes="-correct" if out.correct else "-wrong", markup=False,
        )
        if not out.correct:
            label = "Right answers:" if len(out.right) > 1 else "Right answer:"
            sep = "\n" if len(out.right) > 1 else " "
            yield Static(
                assemble((label, "bold"),
                         *(part for o in out.right for part in (sep, (o.letter, "bold"),
                                                                f"  {o.text}"))),
                id="verdict-detail", markup=False,
            )
        yield Static("Short explanation", classes="section-title", markup=False)
        yield Static(literal(out.short_explanation), id="short-explanation", markup=False)
        if out.infographic is not None:
            yield Static("Infographic", classes="section-title", markup=False)
            yield InfographicView(out.infographic, id="infographic")
        yield Static("Full explanation", classes="section-title", markup=False)
        yield Static(literal(out.full_explanation), id="full-explanation", markup=False)
        yield Static("Distractor review", classes="section-title", markup=False)
        with Vertical(id="distractor-review"):
            for note in out.distractor_review:
                mark = "  (your choice)" if note.chosen else ""
                yield Static(
                    assemble((f"{note.option.letter}", "bold"), "  ", note.option.text,
                             (mark, "bold")),
                    classes="distractor-option", markup=False,
                )
                yield Static(literal(note.review), classes="distractor-why", markup=False)
        if out.worked_example is not None:
            from quiz.tui.widgets.worked_example import WorkedExampleView

            yield Static("Worked example", classes="section-title", markup=False)
            yield WorkedExampleView(out.worked_example, id="worked-example")
        if out.references:
            yield Static("References", classes="section-title", markup=False)
            yield Static(literal("\n".join(f"• {r}" for r in out.references)),
                         id="references", markup=False)
