"""The reveal after an answer, in the source documents' order: verdict → short explanation →
infographic → full explanation → distractor review (then worked example and references)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quiz.study.session import Outcome
from quiz.tui.content import assemble
from quiz.tui.widgets.infographic import InfographicView
from quiz.tui.widgets.prose import Prose


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
            yield Prose(label + "".join(f"{sep}{o.letter}  {o.text}" for o in out.right),
                        lines=True, hang=3 if len(out.right) > 1 else len(label) + 4,
                        id="verdict-detail")
        yield Static("Short explanation", classes="section-title", markup=False)
        yield Prose(out.short_explanation, id="short-explanation")
        if out.infographic is not None:
            yield Static("Infographic", classes="section-title", markup=False)
            yield InfographicView(out.infographic, id="infographic")
        yield Static("Full explanation", classes="section-title", markup=False)
        yield Prose(out.full_explanation, id="full-explanation")
        yield Static("Distractor review", classes="section-title", markup=False)
        with Vertical(id="distractor-review"):
            for note in out.distractor_review:
                mark = "  (your choice)" if note.chosen else ""
                # The option's text hangs under itself, not under its letter.
                yield Prose(f"{note.option.letter}  {note.option.text}{mark}", lines=True,
                            hang=3, classes="distractor-option")
                yield Prose(note.review, classes="distractor-why")
        if out.worked_example is not None:
            from quiz.tui.widgets.worked_example import WorkedExampleView

            yield Static("Worked example", classes="section-title", markup=False)
            yield WorkedExampleView(out.worked_example, id="worked-example")
        if out.references:
            yield Static("References", classes="section-title", markup=False)
            yield Prose("\n".join(f"• {r}" for r in out.references), lines=True, hang=2,
                        id="references")
