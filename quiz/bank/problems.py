"""The shared shape of a problem found in a bank file, and the position helpers that place it.

:class:`Problem` is what every check in :mod:`quiz.bank` returns; :func:`line_col` and
:func:`mark_position` turn a text index or a PyYAML mark into the 1-based line and column it names.
"""

from __future__ import annotations

from typing import Any, NamedTuple

MAX_REPORTED = 20
"""At most this many problems of one kind are listed per file; the rest are counted."""


class Problem(NamedTuple):
    """One problem in one file: 1-based ``line`` and ``column`` (0 = the whole file)."""

    line: int
    column: int
    message: str
    severity: str = "error"


class Span(NamedTuple):
    """Where a scalar lies in the text: ``kind`` is ``"plain"``, ``"quoted"`` or ``"block"``;
    ``start``/``end`` are character indices (end exclusive)."""

    kind: str
    start: int
    end: int


def line_col(text: str, index: int) -> tuple[int, int]:
    """Return the 1-based (line, column) of character ``index`` in ``text`` (LF line breaks)."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def mark_position(mark: Any) -> tuple[int, int]:
    """Return the 1-based (line, column) of a PyYAML mark (0-based), or (1, 1) for ``None``."""
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


