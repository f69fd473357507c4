"""An infographic's table as Rich draws it (the reveal, :mod:`quiz.tui.widgets.reveal`, draws
the table, a preformatted diagram or a footprint chart into its lines)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from quiz.bank.terminal import terminal_safe


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
