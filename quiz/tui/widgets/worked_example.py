"""A question's worked example: the calculator's derivation steps, one line per item."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from quiz.bank.model import WorkedExample
from quiz.tui.widgets.prose import Prose


class WorkedExampleView(Vertical):
    """Derivation steps for a :class:`~quiz.bank.model.WorkedExample`, computed by the footprint
    calculator (never hand-typed numbers)."""

    DEFAULT_CSS = """
    WorkedExampleView { height: auto; }
    WorkedExampleView .caption { color: $text-muted; text-style: italic; }
    """

    def __init__(self, example: WorkedExample, *, id: str | None = None,
                 classes: str | None = None) -> None:
        self.example = example
        super().__init__(id=id, classes=classes)

    def _steps(self) -> str:
        from quiz.footprint import derivation_steps, estimate

        spec = self.example.footprint
        return "\n".join(derivation_steps(estimate(spec), units=spec.units))

    async def show(self, example: WorkedExample) -> None:
        """Show ``example`` instead, in the same widgets when both have a caption or neither
        has."""
        old, self.example = self.example, example
        if bool(old.caption) != bool(example.caption):
            await self.recompose()
            return
        if example.caption:
            self.query_one(".caption", Prose).set_text(example.caption)
        self.query_one(".steps", Prose).set_text(self._steps())

    def compose(self) -> ComposeResult:
        if self.example.caption:
            yield Prose(self.example.caption, classes="caption")
        # One step per line; a long step wraps under itself, never between a number and its unit.
        yield Prose(self._steps(), lines=True, hang=4, classes="steps")
