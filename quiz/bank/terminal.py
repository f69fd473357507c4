"""Bank text is data: helpers that keep it from ever acting on a terminal, and measure it as a
terminal does.

Bank text is shown literally (never parsed as markup); these helpers deal with the other dangers:
characters that a terminal would act on, characters that are invisible or reorder text on screen,
and widths, which are counted in terminal cells, not in code points.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

FLAGGED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})
"""Unicode general categories of the characters that must never reach a terminal from bank
text as they are: controls (``Cc``: C0 and C1 controls, DEL; ESC starts CSI and OSC sequences, CR
rewrites a line), format characters (``Cf``: every ``Bidi_Control`` character, the "Trojan
Source" overrides and isolates of CVE-2021-42574, U+061C ARABIC LETTER MARK, the zero-width
space, joiners and marks, the soft hyphen, tag characters) and the line and paragraph separators
(``Zl``, ``Zp``), which terminals drop or treat as breaks. Tab and line feed are the two
controls that bank text may hold."""

_ALLOWED = frozenset("\t\n")

_SCANNED = (range(0, 0x20000), range(0xE0000, 0xE1000))
"""The planes that hold characters of :data:`FLAGGED_CATEGORIES` (the Basic and Supplementary
Multilingual Planes, and plane 14's tags); a test checks every code point against this."""

_JOINERS = frozenset("\u200c\u200d")
"""ZERO WIDTH NON-JOINER and JOINER: part of the spelling of Persian and Indic words and of emoji
sequences (👩‍💻), so they are left alone between two non-ASCII letters, marks or symbols."""

_JOINABLE = ("L", "M", "So", "Sk")
_TAGS = range(0xE0020, 0xE0080)
_BLACK_FLAG = "\U0001F3F4"  # tag characters after it spell a subdivision flag (🏴󠁧󠁢󠁳󠁣󠁴󠁿)


_ASCII_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f]")
"""The flagged characters of ASCII text: C0 controls but tab and line feed, and DEL."""


@cache
def flagged_pattern() -> re.Pattern[str]:
    """A regular expression matching one character of :data:`FLAGGED_CATEGORIES` (tab and line
    feed excepted), derived from :mod:`unicodedata` on first use (about 15 ms)."""
    ranges: list[tuple[int, int]] = []
    for block in _SCANNED:
        for code in block:
            char = chr(code)
            if unicodedata.category(char) in FLAGGED_CATEGORIES and char not in _ALLOWED:
                if ranges and ranges[-1][1] == code - 1:
                    ranges[-1] = (ranges[-1][0], code)
                else:
                    ranges.append((code, code))
    parts = "".join(re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
                    for a, b in ranges)
    return re.compile(f"[{parts}]")


def flagged_characters(text: str) -> list[tuple[int, str]]:
    """Every character of ``text`` that :func:`terminal_safe` replaces, as ``(index, char)``.

    Joiners inside non-Latin words and emoji sequences, and the tag characters of a flag emoji,
    are part of the text's spelling and are not flagged."""
    found = []
    pattern = _ASCII_CONTROLS if text.isascii() else flagged_pattern()
    for match in pattern.finditer(text):
        index, char = match.start(), match.group()
        if _spelling(text, index, char):
            continue
        found.append((index, char))
    return found


def _spelling(text: str, index: int, char: str) -> bool:
    if char in _JOINERS:
        if 0 < index < len(text) - 1:
            before, after = text[index - 1], text[index + 1]
            return all(not c.isascii() and unicodedata.category(c).startswith(_JOINABLE)
                       for c in (before, after))
        return False
    if ord(char) in _TAGS:
        start = index
        while start > 0 and ord(text[start - 1]) in _TAGS:
            start -= 1
        return start > 0 and text[start - 1] == _BLACK_FLAG
    return False


def character_name(char: str) -> str:
    """``U+XXXX NAME`` for a character, e.g. ``"U+200B ZERO WIDTH SPACE"``; controls, which have
    no Unicode name, by their usual one (``"U+001B ESCAPE"``)."""
    name = unicodedata.name(char, "") or _C0_NAMES.get(char, "CONTROL")
    return f"U+{ord(char):04X} {name}"


def terminal_safe(text: str) -> str:
    """Return ``text`` with every flagged character (see :func:`flagged_characters`) replaced by
    a visible symbol: C0 controls by their Unicode "control picture" (ESC → ␛, NUL → ␀), DEL by ␡,
    the others (C1 controls, invisible and bidi format characters, separators) by ``�``. Tabs are
    expanded to stops every four columns, so layout does not depend on the terminal's tab
    stops."""
    if text.isascii() and text.isprintable():
        return text.expandtabs(TAB_SIZE) if "\t" in text else text
    found = flagged_characters(text)
    if found:
        out = list(text)
        for index, char in found:
            out[index] = _picture(char)
        text = "".join(out)
    return expand_tabs(text)


TAB_SIZE = 4
"""Tab stops every this many terminal cells (FORMAT.md: "a tab reaches the next multiple of
4")."""


def expand_tabs(text: str, size: int = TAB_SIZE) -> str:
    """``text`` with each tab replaced by the spaces that reach the next multiple of ``size``
    terminal cells on its line. Unlike :meth:`str.expandtabs`, which counts characters, a wide
    character counts two cells and a combining mark none, so columns after a tab line up on
    screen. Flagged characters should be replaced first (:func:`terminal_safe` does)."""
    if "\t" not in text:
        return text
    if text.isascii():
        return text.expandtabs(size)
    lines = []
    for row in text.split("\n"):
        parts = row.split("\t")
        out, column = [parts[0]], cell_width(parts[0])
        for part in parts[1:]:
            pad = size - column % size
            out += [" " * pad, part]
            column += pad + cell_width(part)
        lines.append("".join(out))
    return "\n".join(lines)


def _picture(char: str) -> str:
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)
    if code == 0x7F:
        return "\u2421"
    return "\ufffd"


def cell_width(text: str) -> int:
    """The number of terminal cells ``text`` (one line, tabs already expanded) takes, as Rich
    and wcwidth count them: 2 for East Asian wide and full-width characters, 0 for combining
    marks, format characters and controls, 1 for the rest.

    Rich's ``rich.cells.cell_len`` would do, but the core never imports Rich (it must load
    without a terminal library); a test checks that both agree. Characters assigned after the
    Unicode version of this Python's :mod:`unicodedata` count as one cell."""
    if text.isascii():
        if text.isprintable():  # the common case, counted in C
            return len(text)
        return sum(1 for c in text if " " <= c <= "~")
    return sum(_char_width(c) for c in text)


_PREPENDED = frozenset("\u0600\u0601\u0602\u0603\u0604\u0605\u06dd\u070f\u0890\u0891\u08e2"
                       "\U000110bd\U000110cd\u00ad")
"""Format characters that are drawn (Arabic number signs and the like, the soft hyphen)."""

_ZERO_WIDTH_LETTERS = ((0x1160, 0x11FF), (0x3164, 0x3164), (0xD7B0, 0xD7FF), (0xFFA0, 0xFFA0),
                       (0x1F3FB, 0x1F3FF))
"""Hangul medial and final jamo and fillers (they join the syllable before them) and the emoji
skin-tone modifiers (they join the emoji before them): zero cells, as in wcwidth."""


@cache
def _char_width(char: str) -> int:
    code = ord(char)
    category = unicodedata.category(char)
    if category in ("Cc", "Zl", "Zp", "Mn", "Me", "Mc"):
        return 0
    if category == "Cf":
        return 1 if char in _PREPENDED else 0
    if any(low <= code <= high for low, high in _ZERO_WIDTH_LETTERS):
        return 0
    if category != "Cn" and unicodedata.east_asian_width(char) in ("W", "F"):
        return 2
    return 1


_C0_NAMES = {
    "\x00": "NULL", "\x07": "BELL", "\x08": "BACKSPACE", "\x0b": "LINE TABULATION",
    "\x0c": "FORM FEED", "\x0d": "CARRIAGE RETURN", "\x1b": "ESCAPE", "\x7f": "DELETE",
}

