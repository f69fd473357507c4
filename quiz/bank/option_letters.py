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
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            named = match.groupdict().get("letters")
            if named is not None and not set(re.findall(r"[A-H]", named)) <= set(letters):
                continue
            if any(match.start() < r.end and r.start < match.end() for r in found):
                continue
            found.append(LetterReference(match.start(), match.end(), match.group()))
    return sorted(found)
