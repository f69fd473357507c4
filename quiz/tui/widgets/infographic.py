"""The infographic of a question: a table, a preformatted diagram, or a footprint chart drawn by
the calculator."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.geometry import Size
from textual.visual import Visual
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
    (training and inference on one scale); with ``compute``, the time and throughput beside
    them. Like :class:`~quiz.tui.widgets.prose.Prose`, it draws for a width when the layout asks
    its height there (one layout, not two)."""

    DEFAULT_CSS = """
    FootprintChart { text-wrap: nowrap; }
    """

    def __init__(self, spec: FootprintSpec, *, compute: bool = False, id: str | None = None,
                 classes: str | None = None) -> None:
        from quiz.footprint import estimate

        self.spec = spec
        self.compute = compute
        self.report = estimate(spec)
        self._width: int | None = None
        self._chart = Content("")
        super().__init__(id=id, classes=classes, markup=False)

    @property
    def visual(self) -> Visual:
        """The chart as drawn for the widget's width."""
        return self._chart

    def _draw(self, width: int) -> bool:
        """Draw the chart for ``width`` cells; True if that changed it."""
        if width == self._width:
            return False
        self._width = width
        self._chart = literal(self.render_chart(max(width, 30)))
        self._layout_cache.clear()  # Textual's cached visual and height (see Prose._lay_out)
        self.clear_cached_dimensions()
        return True

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width:
            self._draw(width)
        return super().get_content_height(container, viewport, width)

    def on_resize(self) -> None:
        if self.size.width and self._draw(self.size.width):
            self.refresh(layout=True)

    def set_spec(self, spec: FootprintSpec, *, compute: bool = False) -> None:
        """Chart ``spec`` instead (with its time and throughput when ``compute``)."""
        from quiz.footprint import estimate

        self.spec = spec
        self.compute = compute
        self.report = estimate(spec)
        width, self._width = self._width, None
        if width:
            self._draw(width)
        self.refresh(layout=True)

    def render_chart(self, width: int) -> str:
        """The chart as plain text at ``width`` columns."""
        from quiz.footprint import render_bars

        return render_bars(self.report, width=width, units=self.spec.units, timing=self.compute)


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

    async def show(self, infographic: Infographic) -> None:
        """Show ``infographic`` instead: in the same widgets when it is of the same kind (a
        table, a diagram or a chart, with or without a caption), else in new ones."""
        old, self.infographic = self.infographic, infographic
        if _shape(old) != _shape(infographic):
            await self.recompose()
            return
        body = self.children[0]
        if infographic.table is not None:
            assert isinstance(body, Static)
            body.update(table_renderable(list(infographic.table.columns),
                                         [list(r) for r in infographic.table.rows]))
        elif infographic.text is not None:
            assert isinstance(body, Static)
            body.update(literal(infographic.text))
        else:
            assert isinstance(body, FootprintChart) and infographic.footprint is not None
            body.set_spec(infographic.footprint, compute=infographic.compute)
        caption = _caption(infographic)
        if caption:
            prose = self.children[1]
            assert isinstance(prose, Prose)
            prose.set_text(caption)

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
            yield FootprintChart(info.footprint, compute=info.compute, classes="footprint")
            caption = info.caption
        if caption:
            yield Prose(caption, classes="caption")


def _caption(info: Infographic) -> str | None:
    """The caption shown under ``info`` (a table's own caption first)."""
    if info.table is not None:
        return info.table.caption or info.caption
    return info.caption


def _shape(info: Infographic) -> tuple[str, bool]:
    """What decides the widgets of an infographic: its kind, and whether it has a caption."""
    kind = "table" if info.table is not None else "text" if info.text is not None else "chart"
    return kind, bool(_caption(info))
