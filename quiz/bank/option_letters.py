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
:func:`references_in` finds them in all of a question's texts at once, faster.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Collection, Sequence
from typing import NamedTuple, TypeVar

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


_STANDALONE = re.compile(r"[A-H](?<!\w[A-H])(?!\w)")
"""A capital A–H standing as a word of its own (``\\b[A-H]\\b``: no word character either
side). Written to start with the letter, which the regex engine scans for in C (written
``(?<!\\w)[A-H](?!\\w)``, it tries the lookbehind at every position: three times slower)."""


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
    # Quick tests first (this runs on every text of every question as a bank loads): the
    # patterns that need a capital letter standing as a word, or a word of position, are
    # skipped without one; most texts have neither.
    folded = text.casefold()
    first = _STANDALONE.search(text)
    words = 0 if first is None else 1 if _STANDALONE.search(text, first.end()) is None else 2
    return _search(text, letters, words,
                   words > 0 and (not text.isascii() or _has(folded, _OPTION_WORDS)),
                   _has(folded, _POSITION_WORDS))


def _has(folded: str, words: tuple[str, ...]) -> bool:
    return any(word in folded for word in words)


def _search(text: str, letters: Collection[str], words: int, option_word: bool,
            position_word: bool) -> list[LetterReference]:
    """The references in ``text``, which has ``words`` capitals A–H standing as words (counted
    up to 2), an option word (:data:`_OPTION_WORDS`, or might have: text that is not ASCII)
    or not, and a word of position (:data:`_POSITION_WORDS`) or not. Every match of the first
    three patterns has such a capital, of the third (a list such as "A and B") two."""
    patterns = []
    if words:
        if option_word:
            patterns.append(_PATTERNS[0])
        patterns.append(_PATTERNS[1])
        if words > 1:
            patterns.append(_PATTERNS[2])
    if position_word:
        patterns.append(_PATTERNS[3])
    if not patterns:
        return []
    found: list[LetterReference] = []
    for pattern in patterns:
        for match in pattern.finditer(text):
            named = match.groupdict().get("letters")
            if named is not None and not set(re.findall(r"[A-H]", named)) <= set(letters):
                continue
            if any(match.start() < r.end and r.start < match.end() for r in found):
                continue
            found.append(LetterReference(match.start(), match.end(), match.group()))
    return sorted(found)


Where = TypeVar("Where")

_WORD_CLASSES = bytes(ord("L") if 0x41 <= c <= 0x48 else
                      ord("w") if chr(c).isalnum() or c == 0x5F else ord(" ") for c in range(256))
"""A ``bytes.translate`` table for ASCII text: ``L`` for a capital A–H, ``w`` for any other word
character (``\\w``: a letter, a digit or ``_``), a space for the rest."""

_STANDING = re.compile(rb"L(?<![wL]L)(?![wL])")
"""In text translated by :data:`_WORD_CLASSES`: a capital A–H standing as a word. It starts
with one byte, which the regex engine finds at C speed."""


def references_in(texts: Sequence[tuple[Where, str]],
                  letters: Collection[str]) -> list[tuple[Where, LetterReference]]:
    """:func:`letter_references` of each text, with the text's ``where`` (a question's field,
    say): ``(where, reference)``, texts in the order given.

    The same as calling :func:`letter_references` on every text, faster: a question's texts are
    looked at together, at C speed, for the capitals A–H standing as words and the words of
    position that references need (a bank's texts rarely have either), and each pattern is
    tried only where one of its matches could start (see :func:`_ascii_references`). Text
    that is not ASCII is searched text by text."""
    joined = "\n".join(["", *(text for _, text in texts), ""])
    if not joined.isascii():
        return [(where, ref) for where, text in texts for ref in letter_references(text, letters)]
    starts = []
    offset = 1
    for _, text in texts:
        starts.append(offset)
        offset += len(text) + 1
    data = joined.encode("ascii")
    standing: dict[int, list[int]] = {}
    """Text number → where its capitals A–H standing as words are, in the text."""
    for match in _STANDING.finditer(data.translate(_WORD_CLASSES)):
        at = bisect_right(starts, match.start()) - 1
        standing.setdefault(at, []).append(match.start() - starts[at])
    positioned = _texts_with(data.lower(), _POSITION_WORDS, starts)
    if not standing and not positioned:
        return []
    return [(texts[i][0], ref) for i in sorted({*standing, *positioned})
            for ref in _ascii_references(texts[i][1], letters, standing.get(i, []),
                                         i in positioned)]


def _texts_with(folded: bytes, words: tuple[str, ...], starts: list[int]) -> set[int]:
    """The numbers of the texts (starting at ``starts`` in ``folded``) that hold a word."""
    found: set[int] = set()
    for word in words:
        needle = word.encode("ascii")
        index = folded.find(needle)
        while index != -1:
            found.add(bisect_right(starts, index) - 1)
            index = folded.find(needle, index + 1)
    return found


_OPTION_FORMS = ("option", "options", "answer", "answers", "choice", "choices")
"""The words of the first pattern, as it matches them (in lower case)."""

_LIST_WORDS = ("all", "none", "both", "neither")
"""The first words of the last pattern (in lower case)."""


def _ascii_references(text: str, letters: Collection[str], standing: list[int],
                      positioned: bool) -> list[LetterReference]:
    """:func:`letter_references` of an ASCII ``text`` whose capitals A–H standing as words are
    at ``standing`` (in order), which has a word of position (:data:`_POSITION_WORDS`, in any
    case) if ``positioned``.

    Each pattern is tried only where one of its matches can start, as ``finditer`` would meet
    them (from the end of the last match on): the first at an option word followed by spaces
    and a capital standing as a word; the second at a ``(`` before one; the third at one (when
    there are two); the last at a word of :data:`_LIST_WORDS` (when there is a word of
    position). In ASCII text the patterns' ``\\s`` is ``str.isspace`` and ``(?i:...)`` matches
    what ``lower()`` does."""
    lowered = text.lower()
    option_words: set[int] = set()
    for at in standing:
        end = at
        while end > 0 and lowered[end - 1].isspace():
            end -= 1
        if end < at:
            option_words.update(end - len(form) for form in _OPTION_FORMS
                                if lowered.endswith(form, 0, end))
    list_words: set[int] = set()
    if positioned:
        for word in _LIST_WORDS:
            index = lowered.find(word)
            while index != -1:
                list_words.add(index)
                index = lowered.find(word, index + 1)
    tried = (sorted(option_words), [at - 1 for at in standing if at and text[at - 1] == "("],
             standing if len(standing) > 1 else [], sorted(list_words))
    found: list[LetterReference] = []
    for pattern, where in zip(_PATTERNS, tried, strict=True):
        end = 0
        for start in where:
            if start < end:
                continue
            match = pattern.match(text, start)
            if match is None:
                continue
            end = match.end()
            named = match.groupdict().get("letters")
            if named is not None and not set(re.findall(r"[A-H]", named)) <= set(letters):
                continue
            if any(match.start() < r.end and r.start < match.end() for r in found):
                continue
            found.append(LetterReference(match.start(), match.end(), match.group()))
    return sorted(found)
