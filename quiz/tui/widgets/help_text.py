"""The list of keys laid out at the dialog's width."""

from __future__ import annotations

from textual.content import Content

from quiz.tui.text_layout import wrap_line
from quiz.tui.widgets.prose import Prose

KEY_COLUMN = 17
"""The column where :data:`HELP_TEXT`'s descriptions start."""


def _key_line(line: str) -> bool:
    """A line with a key column: the key, then at least two spaces up to :data:`KEY_COLUMN`."""
    return (line.startswith("  ") and len(line) > KEY_COLUMN
            and line[KEY_COLUMN - 2:KEY_COLUMN] == "  " and line[KEY_COLUMN] != " ")


def help_entries(text: str) -> list[str]:
    """``text`` (:data:`HELP_TEXT`) as one line per entry: a description's continuation lines
    (indented to :data:`KEY_COLUMN`) and a note's (indented 2 after a note line) joined to it,
    so that the help is wrapped for the screen it is shown on, not for the one it was typed in."""
    out: list[str] = []
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        if out and line.strip() and (
                indent >= KEY_COLUMN
                or (indent == 2 and not _key_line(line) and out[-1].startswith("  ")
                    and not _key_line(out[-1]))):
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


class HelpText(Prose):
    """:data:`HELP_TEXT` laid out at the dialog's width: each entry wraps under its description
    column (a note under itself), never back to the left edge as a plain ``Static`` would."""

    def _content(self, width: int | None) -> Content:
        entries = help_entries(self.source)
        if width is None:
            return Content("\n".join(entries))
        rows = [row for line in entries for row in wrap_line(
            line, width, KEY_COLUMN if _key_line(line) else len(line) - len(line.lstrip(" ")))]
        return Content("\n".join(rows))
