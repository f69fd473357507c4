"""Text that names options by their letter, which shuffling makes false.

Options are shown in a random order, under new letters. An option that says "Both A and B", an
explanation that says "Option C is right because ...", or "All of the above" (placed first, it no
longer means the others) are then wrong. :func:`letter_references` finds them:

- an option word and letters: ``option C``, ``options A and B``, ``answer D``, ``choice B``;
- a letter in parentheses: ``(B)``;
- a list of option letters: ``A and B``, ``B or C``, ``A, B and C``, ``A & B``;
- ``all``/``none``/``both``/``neither`` ``of the above``/``of the below``/``of these``.

Only letters that are keys of the question's options count, and only as words of their own in
capitals, so ordinary words ("A GPU", "a batch", "A100", "the E4M3 format") never match. A
question with such a reference keeps its options in bank order
(:attr:`quiz.bank.model.Question.keeps_order`), and the loader warns at each reference.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import NamedTuple

_LETTER = r"(?<![\w'’&/.-])[A-H](?![\w'’/-]|\.\w)"
"""A capital letter A–H standing as a word of its own (not "A100", "E4M3", "I/O", "A.I.")."""

_JOIN = r"\s*(?:,\s*(?:and\s+|or\s+)?|\s(?:and|or)\s+|&\s*|/\s*)"

_PATTERNS = [
    # option C; options A and B; answer D; choice B
    re.compile(rf"\b(?i:options?|answers?|choices?)\s+(?P<letters>{_LETTER}(?:{_JOIN}{_LETTER})*)"),
    # (B)
    re.compile(r"\((?P<letters>[A-H])\)"),
    # A and B; B or C; A, B and C; A & B
    re.compile(rf"(?P<letters>{_LETTER}(?:\s*,\s*{_LETTER})*{_JOIN}{_LETTER})"),
    # all of the above; none of these; both of the below
    re.compile(r"\b(?i:(?:all|none|both|neither)\s+of\s+(?:the\s+)?(?:above|below)\b|"
               r"(?:all|none|both|neither)\s+of\s+these\b(?!\s+[a-z]))"),
]


_LETTER_END = re.compile(r"[A-H](?!\w)")
"""A capital A–H that ends a word (searched fast: the pattern starts with a character set)."""


def _letter_words(text: str) -> int:
    """How many capitals A–H stand as words of their own (``\\b[A-H]\\b``), counted up to 2:
    every match of the first three patterns has one, and of the third (a list such as "A and
    B") two, so most texts skip them."""
    found = 0
    for match in _LETTER_END.finditer(text):
        start = match.start()
        if start == 0 or not (text[start - 1].isalnum() or text[start - 1] == "_"):  # not \w
            found += 1
            if found == 2:
                break
    return found


_OPTION_WORDS = ("option", "answer", "choice")
"""One of these is in every match of the first pattern: in an ASCII text, in its lower case."""

_POSITION_WORDS = ("above", "below", "these")
"""One of these, case-folded, is in every match of the last pattern (``re.IGNORECASE`` matches a
character to a letter of these words only when its ``casefold()`` holds that letter)."""


class LetterReference(NamedTuple):
    """One reference in a text: ``start``/``end`` character indices (end exclusive) and the text
    itself."""

    start: int
    end: int
    text: str


def letter_references(text: str, letters: Collection[str]) -> list[LetterReference]:
    """Every place in ``text`` that names options by letter or by position, in text order, not
    overlapping. ``letters`` are the question's option keys (``"ABCD"``): a letter that is no
    option (``E`` in a four-option question) is an ordinary word."""
    found: list[LetterReference] = []
    # Quick tests first (this runs on every text of every question as a bank loads): the
    # patterns that need a capital letter, or a word of position, are skipped without one.
    words = _letter_words(text)
    folded = text.casefold()
    patterns = []
    if words:
        if not text.isascii() or any(word in folded for word in _OPTION_WORDS):
            patterns.append(_PATTERNS[0])
        patterns.append(_PATTERNS[1])
        if words > 1:
            patterns.append(_PATTERNS[2])
    if any(word in folded for word in _POSITION_WORDS):
        patterns.append(_PATTERNS[3])
    for pattern in patterns:
        for match in pattern.finditer(text):
            named = match.groupdict().get("letters")
            if named is not None and not set(re.findall(r"[A-H]", named)) <= set(letters):
                continue
            if any(match.start() < r.end and r.start < match.end() for r in found):
                continue
            found.append(LetterReference(match.start(), match.end(), match.group()))
    return sorted(found)
