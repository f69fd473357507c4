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
            _keep(match, letters, found)
    return sorted(found)


def _keep(match: re.Match[str], letters: Collection[str], found: list[LetterReference]) -> None:
    """Append ``match`` to ``found`` as a reference unless it names a letter that is not one
    of ``letters`` or overlaps a reference already found."""
    named = match.groupdict().get("letters")
    if named is not None and not set(re.findall(r"[A-H]", named)) <= set(letters):
        return
    if any(match.start() < r.end and r.start < match.end() for r in found):
        return
    found.append(LetterReference(match.start(), match.end(), match.group()))


_WORD_CLASSES = bytes(ord("L") if 0x41 <= c <= 0x48 else
                      ord("w") if chr(c).isalnum() or c == 0x5F else ord(" ") for c in range(256))
"""A ``bytes.translate`` table for ASCII text: ``L`` for a capital A–H, ``w`` for any other word
character (``\\w``: a letter, a digit or ``_``), a space for the rest."""

_STANDING = re.compile(rb"L(?<![wL]L)(?![wL])")
"""In text translated by :data:`_WORD_CLASSES`: a capital A–H standing as a word. It starts
with one byte, which the regex engine finds at C speed."""


def references_in(texts: Sequence[str],
                  letters: Collection[str]) -> list[tuple[int, LetterReference]]:
    """:func:`letter_references` of each of ``texts`` (a question's), as ``(the text's number
    in texts, reference)``, in the order of the texts.

    The same as calling :func:`letter_references` on every text, faster: a question's texts are
    looked at together, at C speed, for the capitals A–H standing as words and the words of
    position that references need (a bank's texts rarely have either), and each pattern is
    tried only where one of its matches could start (see :func:`_ascii_references`). Text
    that is not ASCII is searched text by text."""
    joined = "\n".join(texts)
    if not joined.isascii():
        return [(i, ref) for i, text in enumerate(texts)
                for ref in letter_references(text, letters)]
    data = joined.encode("ascii")
    starts: list[int] = []
    """Where each text starts in ``joined`` (made at the first capital or word found)."""
    standing: dict[int, list[int]] = {}
    """Text number → where its capitals A–H standing as words are, in the text."""
    for match in _STANDING.finditer(data.translate(_WORD_CLASSES)):
        at = _text_at(match.start(), texts, starts)
        standing.setdefault(at, []).append(match.start() - starts[at])
    positioned: set[int] = set()
    """The numbers of the texts with a word of position."""
    folded = data.lower()
    for word in _POSITION_WORDS:
        needle = word.encode("ascii")
        index = folded.find(needle)
        while index != -1:
            positioned.add(_text_at(index, texts, starts))
            index = folded.find(needle, index + 1)
    if not standing and not positioned:
        return []
    return [(i, ref) for i in sorted({*standing, *positioned})
            for ref in _ascii_references(texts[i], letters, standing.get(i, []),
                                         i in positioned)]


def _text_at(index: int, texts: Sequence[str], starts: list[int]) -> int:
    """The number of the text in which ``index`` of ``"\\n".join(texts)`` falls (``starts``,
    where each text starts, is filled in at the first call)."""
    if not starts:
        offset = 0
        for text in texts:
            starts.append(offset)
            offset += len(text) + 1
    return bisect_right(starts, index) - 1


_OPTION_FORMS = ("option", "options", "answer", "answers", "choice", "choices")
"""The words of the first pattern, as it matches them (in lower case)."""

_OPTION_ENDS = frozenset("nNsSrReE")
"""The last letters of :data:`_OPTION_FORMS`, in either case."""

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
    option_words: set[int] = set()
    for at in standing:
        end = at
        while end > 0 and text[end - 1].isspace():
            end -= 1
        if end < at and text[end - 1: end] in _OPTION_ENDS:
            tail = text[max(0, end - 7):end].lower()
            option_words.update(end - len(form) for form in _OPTION_FORMS
                                if tail.endswith(form))
    parens = [at - 1 for at in standing if at and text[at - 1] == "("]
    if not (option_words or parens or positioned or len(standing) > 1):
        return []  # a lone capital, such as the article "A"
    list_words: set[int] = set()
    if positioned:
        lowered = text.lower()
        for word in _LIST_WORDS:
            index = lowered.find(word)
            while index != -1:
                list_words.add(index)
                index = lowered.find(word, index + 1)
    tried = (sorted(option_words), parens, standing if len(standing) > 1 else [],
             sorted(list_words))
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
            _keep(match, letters, found)
    return sorted(found)
