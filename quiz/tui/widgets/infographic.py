"""The infographic of a question: a table, a preformatted diagram, or a footprint chart drawn by
the calculator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from quiz.bank.model import Infographic
from quiz.bank.terminal import terminal_safe
from quiz.tui.content import literal
from quiz.tui.widgets.prose import Prose

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec


def _cell(text: str) -> Text:
    # Rich would parse a plain str cell as console markup: always hand it a Text.
    return Text(terminal_safe(text))


def table_renderable(columns: list[str], rows: list[list[str]]) -> Table:
    """A Rich table of literal cells (never markup), sized to the terminal."""
    table = Table(expand=False, show_lines=False, header_style="bold", pad_edge=True)
    for col in columns:
        table.add_column(_cell(col), overflow="fold")
    for row in rows:
        table.add_row(*(_cell(c) for c in row))
    return table


class FootprintChart(Static):
    """Stacked bars for a footprint scenario, drawn by the calculator at the widget's width
    (training and inference on one scale)."""

    DEFAULT_CSS = """
    FootprintChart { text-wrap: nowrap; }
    """

    def __init__(self, spec: FootprintSpec, *, id: str | None = None,
                 classes: str | None = None) -> None:
        from quiz.footprint import estimate

        self.spec = spec
        self.report = estimate(spec)
        super().__init__(id=id, classes=classes, markup=False)

    def on_resize(self) -> None:
        self.update(literal(self.render_chart(max(self.size.width, 30))))

    def render_chart(self, width: int) -> str:
        """The chart as plain text at ``width`` columns."""
        from quiz.footprint import render_bars

        return render_bars(self.report, width=width, units=self.spec.units)


class InfographicView(Vertical):
    """Shows an :class:`~quiz.bank.model.Infographic` of any kind, with its caption."""

    DEFAULT_CSS = """
    InfographicView { height: auto; }
    InfographicView .preformatted { width: 100%; }
    InfographicView .caption { color: $text-muted; text-style: italic; }
    """

    def __init__(self, infographic: Infographic, *, id: str | None = None,
                 classes: str | None = None) -> None:
        self.infographic = infographic
        super().__init__(id=id, classes=classes)

    def compose(self) -> ComposeResult:
        info = self.infographic
        if info.table is not None:
            yield Static(table_renderable(list(info.table.columns),
                                          [list(r) for r in info.table.rows]), classes="table")
            caption = info.table.caption or info.caption
        elif info.text is not None:
            yield Static(literal(info.text), classes="preformatted", markup=False)
            caption = info.caption
        else:
            assert info.footprint is not None
            yield FootprintChart(info.footprint, classes="footprint")
            caption = info.caption
        if caption:
            yield Prose(caption, classes="caption")
