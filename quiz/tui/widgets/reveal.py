"""The reveal after an answer, in the source documents' order: verdict → short explanation →
infographic → full explanation → distractor review (then worked example and references)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from quiz.study.session import DistractorNote, Outcome
from quiz.tui.content import assemble
from quiz.tui.widgets.infographic import InfographicView
from quiz.tui.widgets.prose import Prose


def _verdict(out: Outcome) -> Content:
    return assemble(("✓ " if out.correct else "✗ ", "bold"), out.verdict)


def _right_answers(out: Outcome) -> tuple[str, int]:
    """The "Right answer(s):" lines of a wrong answer, and their hanging indent."""
    label = "Right answers:" if len(out.right) > 1 else "Right answer:"
    sep = "\n" if len(out.right) > 1 else " "
    return (label + "".join(f"{sep}{o.letter}  {o.text}" for o in out.right),
            3 if len(out.right) > 1 else len(label) + 4)


def _note_heading(note: DistractorNote) -> str:
    mark = "  (your choice)" if note.chosen else ""
    return f"{note.option.letter}  {note.option.text}{mark}"


def _references(out: Outcome) -> str:
    return "\n".join(f"• {r}" for r in out.references)


@dataclass(frozen=True)
class _Part:
    """One part of the reveal: whether an outcome has it, how to build it, how to show
    another outcome in it."""

    key: str
    present: Callable[[Outcome], bool]
    make: Callable[[Outcome], Widget]
    update: Callable[[Widget, Outcome], Awaitable[None] | None] | None = None
    """None: the part never changes (a section title)."""


def _title(text: str) -> Callable[[Outcome], Widget]:
    return lambda out: Static(text, classes="section-title", markup=False)


def _always(out: Outcome) -> bool:
    return True


def _update_verdict(widget: Widget, out: Outcome) -> None:
    assert isinstance(widget, Static)
    widget.update(_verdict(out))
    widget.set_classes("-correct" if out.correct else "-wrong")


def _make_verdict(out: Outcome) -> Widget:
    return Static(_verdict(out), id="verdict", classes="-correct" if out.correct else "-wrong",
                  markup=False)


def _make_detail(out: Outcome) -> Widget:
    text, hang = _right_answers(out)
    return Prose(text, lines=True, hang=hang, id="verdict-detail")


def _update_detail(widget: Widget, out: Outcome) -> None:
    assert isinstance(widget, Prose)
    text, hang = _right_answers(out)
    widget.set_text(text, hang=hang)


def _set_text(get: Callable[[Outcome], str]) -> Callable[[Widget, Outcome], None]:
    def update(widget: Widget, out: Outcome) -> None:
        assert isinstance(widget, Prose)
        widget.set_text(get(out))
    return update


def _note_widgets(note: DistractorNote) -> tuple[Prose, Prose]:
    # The option's text hangs under itself, not under its letter.
    return (Prose(_note_heading(note), lines=True, hang=3, classes="distractor-option"),
            Prose(note.review, classes="distractor-why"))


def _make_review(out: Outcome) -> Widget:
    return Vertical(*(w for note in out.distractor_review for w in _note_widgets(note)),
                    id="distractor-review")


async def _update_review(widget: Widget, out: Outcome) -> None:
    notes = out.distractor_review
    rows = list(widget.children)
    for i, note in enumerate(notes[: len(rows) // 2]):
        heading, why = rows[2 * i], rows[2 * i + 1]
        assert isinstance(heading, Prose) and isinstance(why, Prose)
        heading.set_text(_note_heading(note))
        why.set_text(note.review)
    if len(rows) > 2 * len(notes):
        await widget.remove_children(rows[2 * len(notes):])
    elif len(rows) < 2 * len(notes):
        await widget.mount_all([w for note in notes[len(rows) // 2:]
                                for w in _note_widgets(note)])


def _make_infographic(out: Outcome) -> Widget:
    assert out.infographic is not None
    return InfographicView(out.infographic, id="infographic")


async def _update_infographic(widget: Widget, out: Outcome) -> None:
    assert isinstance(widget, InfographicView) and out.infographic is not None
    await widget.show(out.infographic)


def _make_worked_example(out: Outcome) -> Widget:
    from quiz.tui.widgets.worked_example import WorkedExampleView

    assert out.worked_example is not None
    return WorkedExampleView(out.worked_example, id="worked-example")


async def _update_worked_example(widget: Widget, out: Outcome) -> None:
    from quiz.tui.widgets.worked_example import WorkedExampleView

    assert isinstance(widget, WorkedExampleView) and out.worked_example is not None
    await widget.show(out.worked_example)


def _has_infographic(out: Outcome) -> bool:
    return out.infographic is not None


def _has_worked_example(out: Outcome) -> bool:
    return out.worked_example is not None


def _has_references(out: Outcome) -> bool:
    return bool(out.references)


PARTS = (
    _Part("verdict", _always, _make_verdict, _update_verdict),
    _Part("verdict-detail", lambda out: not out.correct, _make_detail, _update_detail),
    _Part("short-title", _always, _title("Short explanation")),
    _Part("short-explanation", _always,
          lambda out: Prose(out.short_explanation, id="short-explanation"),
          _set_text(lambda out: out.short_explanation)),
    _Part("infographic-title", _has_infographic, _title("Infographic")),
    _Part("infographic", _has_infographic, _make_infographic, _update_infographic),
    _Part("full-title", _always, _title("Full explanation")),
    _Part("full-explanation", _always,
          lambda out: Prose(out.full_explanation, id="full-explanation"),
          _set_text(lambda out: out.full_explanation)),
    _Part("review-title", _always, _title("Distractor review")),
    _Part("distractor-review", _always, _make_review, _update_review),
    _Part("worked-title", _has_worked_example, _title("Worked example")),
    _Part("worked-example", _has_worked_example, _make_worked_example, _update_worked_example),
    _Part("references-title", _has_references, _title("References")),
    _Part("references", _has_references,
          lambda out: Prose(_references(out), lines=True, hang=2, id="references"),
          _set_text(_references)),
)
"""The parts of a reveal, in the order shown."""


class Reveal(Vertical):
    """Everything an :class:`~quiz.study.session.Outcome` reveals. Letters are the ones the
    student saw, so shuffled options never contradict their explanations.

    :meth:`show` puts another outcome in the same widgets: the texts are replaced in place and
    a part the new outcome lacks (an infographic, a worked example) is hidden, not removed, so
    answering a question does not build the reveal's widgets again.
    """

    DEFAULT_CSS = """
    Reveal { height: auto; }
    """

    def __init__(self, outcome: Outcome | None = None, *, id: str | None = None,
                 classes: str | None = None) -> None:
        """``outcome``: what to reveal (``None``: nothing yet, until :meth:`show`)."""
        self.outcome = outcome
        self._parts: dict[str, Widget] = {}
        super().__init__(id=id, classes=classes)

    def compose(self) -> ComposeResult:
        out = self.outcome
        if out is None:
            return
        for part in PARTS:
            if part.present(out):
                widget = self._parts[part.key] = part.make(out)
                yield widget

    async def show(self, outcome: Outcome) -> None:
        """Reveal ``outcome`` in these widgets (see the class docstring)."""
        self.outcome = outcome
        if not self._parts:  # the first outcome: every part it has, mounted at once
            widgets = [part.make(outcome) for part in PARTS if part.present(outcome)]
            self._parts = {part.key: w for part, w in zip(
                (p for p in PARTS if p.present(outcome)), widgets, strict=True)}
            await self.mount_all(widgets)
            return
        for i, part in enumerate(PARTS):
            wanted = part.present(outcome)
            widget = self._parts.get(part.key)
            if widget is None:
                if wanted:
                    widget = self._parts[part.key] = part.make(outcome)
                    before = next((self._parts[p.key] for p in PARTS[i + 1:]
                                   if p.key in self._parts), None)
                    await (self.mount(widget, before=before) if before is not None
                           else self.mount(widget))
                continue
            widget.display = wanted
            if wanted and part.update is not None:
                result = part.update(widget, outcome)
                if inspect.isawaitable(result):
                    await result
