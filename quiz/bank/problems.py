"""The shared shape of a problem found in a bank file, and the position helpers that place it.

:class:`Problem` is what every check in :mod:`quiz.bank` returns; :func:`line_col` and
:func:`mark_position` turn a text index or a PyYAML mark into the 1-based line and column it names.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
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




_BLANK = " \t\n"
"""What YAML folds, drops or adds between a scalar's written and loaded characters."""

_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v",
            "f": "\f", "r": "\r", "e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\",
            "N": "\x85", "_": "\xa0", "L": "\u2028", "P": "\u2029"}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}


def _source_chars(text: str, start: int) -> Iterator[tuple[str, int]]:
    """The characters of the scalar written at ``start`` as ``(character, index in text)``, in
    order: for a double-quoted scalar each escape is one character at its backslash; a block
    scalar starts after its header line. Characters that the scalar drops or folds (quotes,
    indentation, line breaks) may be among them: :func:`value_positions` steps over blanks."""
    style = text[start:start + 1]
    if style in ("|", ">"):
        index = text.find("\n", start) + 1 or len(text)
        while index < len(text):
            yield text[index], index
            index += 1
        return
    if style not in ('"', "'"):
        for index in range(start, len(text)):
            yield text[index], index
        return
    index = start + 1
    while index < len(text):
        char = text[index]
        if char == style:
            if style == "'" and text[index + 1:index + 2] == "'":
                yield "'", index
                index += 2
                continue
            return
        if style == '"' and char == "\\":
            code = text[index + 1:index + 2]
            if code in _HEX_LENGTH:
                digits = text[index + 2:index + 2 + _HEX_LENGTH[code]]
                try:
                    yield chr(int(digits, 16)), index
                except (ValueError, OverflowError):
                    return
                index += 2 + _HEX_LENGTH[code]
                continue
            if code in _ESCAPES:
                yield _ESCAPES[code], index
            index += 2  # an escaped line break (or an unknown escape) adds no character
            continue
        yield char, index
        index += 1


def value_positions(text: str, start: int, value: str, offsets: Sequence[int]) -> list[int | None]:
    """Where in ``text`` the characters at ``offsets`` of a scalar's ``value`` were written.

    ``start`` is the index where the scalar starts in ``text`` (its mark's ``index``: the quote,
    the ``|``/``>`` indicator or the first character). Works for every style, multi-line ones
    included: the value's non-blank characters are found in the source in order, stepping over
    what YAML folds or drops (indentation, line breaks, the quote of ``''``); an escape in a
    double-quoted value stands at its backslash. ``offsets`` must be ascending; a space, tab or line
    break in the value maps to the next other character. Returns one index per offset, or None
    when the source does not match the value (the caller falls back to the scalar's start).
    """
    found: list[int | None] = []
    source = _source_chars(text, start)
    wanted = iter(offsets)
    target = next(wanted, None)
    for offset, char in enumerate(value):
        if target is None:
            break
        if char in _BLANK:
            continue
        for written, index in source:  # noqa: B007 - index is used after the break
            if written == char:
                break
            if written not in _BLANK:
                return found + [None] * (len(offsets) - len(found))
        else:
            break
        while target is not None and target <= offset:
            found.append(index)
            target = next(wanted, None)
    return found + [None] * (len(offsets) - len(found))
