"""How bank prose is laid out on screen: paragraphs reflowed to the width, lines indented deeper
than their paragraph kept as written, continuation lines hung under the text, and a number
never split from its unit.

Plain Python (no Textual), so the rules are tested on their own; the widgets call
:func:`layout` with their width. The rules are the ones FORMAT.md documents for authors:

- A single line break inside a paragraph is a space: the paragraph is reflowed to the screen.
- A blank line separates paragraphs; it is kept (one blank line).
- A line starting with a list marker (``-``, ``*``, ``•``, ``1.``, ``1)``) starts a list item
  on a line of its own; the lines indented under its text continue it and are reflowed with
  it, as prose is, hanging under its text.
- Any other line indented deeper than the text's least indented line (a formula, a small
  table) stays on a line of its own with its spacing as written. When it is wider than the
  screen it wraps, and its continuation lines hang under its text.
- No markup and no Markdown: the characters are the author's; only line breaks and the spaces
  around them change.
"""

from __future__ import annotations

import re
from functools import lru_cache

from quiz.bank.terminal import cell_width

GLUE = "\x00"
"""Stands for a space that must not break while a line is wrapped (terminal-safe text never
holds a NUL, so it cannot clash with the author's characters)."""

MIN_WIDTH = 10
"""Narrower widths are laid out at this width (the terminal then cuts or scrolls)."""

# Compiled as every start's first frame lays text out: a character set that mixes ASCII with
# characters past U+00FF in more than two runs compiles to a 64k-entry table (0.1 ms each), so
# such sets are written as two (the same characters match).
_MARKER = re.compile(r"(?:[-*]|[•‣◦]|\d{1,3}[.)]|[A-Za-z][.)])\s+")
"""A list marker at the start of a line, with the spaces after it."""

_NUMBER_UNIT = re.compile(
    r"(?<![\w.])((?:[-+~±]|[−≈])?\d(?:[\d,.]*\d)?(?:[eE][-+]?\d+)?[%×x]?) "
    r"(?=[A-Za-zµ%°/][\w/%°·^²³-]{0,11}(?:\b|$))"
)
"""A number followed by one space and a unit or counted noun (``14.00 GB``, ``2 bytes``,
``32 layers``, ``7B params``): the space is glued."""

_TOKEN = re.compile(r"[^ ]+| +")


def glue_numbers(line: str) -> str:
    """``line`` with the space between each number and its unit replaced by :data:`GLUE`."""
    return _NUMBER_UNIT.sub(lambda m: m.group(1) + GLUE, line)


@lru_cache(maxsize=8192)
def _width(text: str) -> int:
    """Terminal cells of ``text`` as shown (a glued space is one cell). Kept per text: the
    same words come back line after line."""
    return cell_width(text.replace(GLUE, " "))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def blocks(text: str) -> list[tuple[str, int] | None]:
    """``text`` as its layout blocks, in order: ``(line, hang)`` for each line to wrap —
    a reflowed paragraph run or a line kept as written, with the column its continuation
    lines hang at — and ``None`` for a blank line between paragraphs."""
    out: list[tuple[str, int] | None] = []
    paragraph: list[str] = []

    def flush() -> None:
        if not paragraph:
            return
        if out:
            out.append(None)
        base = text_base
        run: list[str] = []
        item: list[str] = []
        """A list item and the lines that continue it (indented under its text)."""
        item_hang = 0

        def end_item() -> None:
            if item:
                out.append((" ".join([item[0].rstrip(" ")] + [x.strip(" ") for x in item[1:]]),
                            item_hang))
                item.clear()

        for line in paragraph:
            stripped = line.strip(" ")
            marker = _MARKER.match(stripped)
            if item and marker is None and _indent(line) == item_hang:
                item.append(line)  # the item's text goes on: reflowed with it, as prose is
                continue
            end_item()
            kept = _indent(line) > base or marker is not None
            if kept:
                if run:
                    out.append((" " * base + " ".join(run), base))
                    run = []
                hang = _indent(line) + (marker.end() if marker else 2)
                if marker is not None:
                    item.append(line)
                    item_hang = hang
                else:
                    out.append((line.rstrip(" "), hang))
            else:
                run.append(stripped)
        end_item()
        if run:
            out.append((" " * base + " ".join(run), base))
        paragraph.clear()

    lines = [line.replace("\t", "    ") for line in text.rstrip("\n").split("\n")]
    text_base = min((_indent(line) for line in lines if line.strip(" ")), default=0)
    for line in lines:
        if line.strip(" "):
            paragraph.append(line)
        else:
            flush()
    flush()
    return out


_ZWJ = "\u200d"


def cut_cells(text: str, room: int) -> tuple[str, str]:
    """``text`` cut in two where its first part takes at most ``room`` terminal cells, at a
    character boundary a terminal shows as one: a combining mark or another zero-width character
    stays with the character before it, and so does the character after a zero-width joiner
    (emoji sequences). The first part holds at least one such cluster, even a wide one that
    does not fit, so that cutting always moves on. A :data:`GLUE` space counts one cell."""
    used = i = 0
    n = len(text)
    while i < n:
        j = i + 1
        while j < n and (_width(text[j]) == 0 or text[j - 1] == _ZWJ):
            j += 1
        cells = _width(text[i:j])
        if i and used + cells > room:
            break
        used += cells
        i = j
    return text[:i], text[i:]


def wrap_line(line: str, width: int, hang: int) -> list[str]:
    """Wrap one line at ``width`` terminal cells, breaking only at spaces (never between a
    number and its unit); continuation lines start at column ``hang``. A word wider than the
    width is cut."""
    width = max(width, MIN_WIDTH)
    hang = min(hang, width // 2)
    glued = glue_numbers(line)
    if _width(glued) <= width:
        return [line]
    lines: list[str] = []
    # Widths add up character by character, so each token is measured once.
    used = _indent(glued)
    current = " " * used
    for token in _TOKEN.findall(glued.lstrip(" ")):
        cells = _width(token)
        if token.startswith(" "):
            current += token
            used += cells
            continue
        if current.strip() and used + cells > width:
            lines.append(current.rstrip(" "))
            current, used = " " * hang, hang
        while used + cells > width:  # a word wider than the line: cut it at a cell
            head, token = cut_cells(token, width - used)
            if _width(head) > width - used:
                current = ""  # one cluster wider than the room after the indent: from column 0
            lines.append(current + head)
            cells = _width(token)
            current, used = " " * hang, hang
        current += token
        used += cells
    if current.strip():
        lines.append(current.rstrip(" "))
    return [part.replace(GLUE, " ") for part in lines]


def layout(text: str, width: int) -> str:
    """``text`` laid out at ``width`` terminal cells by the rules in this module's docstring."""
    lines: list[str] = []
    for block in blocks(text):
        if block is None:
            lines.append("")
        else:
            lines.extend(wrap_line(block[0], width, block[1]))
    return "\n".join(lines)


def reflow(text: str) -> str:
    """``text`` with its paragraphs joined but not wrapped (what :func:`layout` shows on a
    screen wide enough for every line)."""
    return "\n".join("" if b is None else b[0] for b in blocks(text))
