"""The text tests of the lint rules (:mod:`quiz.bank.lint`): pure functions of strings, no models
and no places.

The linter runs them on every text of every question (a 10,000-question bank has about 170,000),
so each is written to decide the common case at C speed: a cheap test that every match needs
(a substring, a regular expression anchored on a literal) runs first, and the exact test runs
only on the few texts that pass it. The answers are those of the plain definitions given in each
docstring; tests/bank/test_lint_text.py compares them with those definitions on a generated
bank and on made-up texts.
"""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"[\w][\w'’.,/+-]*")
"""A word, as rules Q108 and Q109 count them: runs of letters, digits and the characters that
join them."""

_NORMAL_WORD = re.compile(r"\w+")


def nfkc(text: str) -> str:
    """``text`` in Unicode normal form NFKC (ASCII text is already: returned as it is)."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def words(text: str) -> list[str]:
    """The words of ``text`` (see :data:`_WORD`), after NFKC normalisation."""
    return _WORD.findall(nfkc(text))


_AT_LEAST: dict[int, re.Pattern[str]] = {}
"""By count n: a pattern that matches the first n words of a text when it has n or more. Its
possessive quantifiers take each word whole and the gap before it whole, never giving back, so
it splits a text into words exactly as :data:`_WORD`'s ``finditer`` does (a gap is a run of
characters that start no word: not ``\\w``)."""


def word_count(text: str, limit: int) -> int:
    """How many words ``text`` has (``len(words(text))``), counted up to ``limit`` only: a rule
    that wants at least ``limit`` words need not count the rest. Most texts have enough; one
    match of a regular expression says so."""
    pattern = _AT_LEAST.get(limit)
    if pattern is None:
        pattern = _AT_LEAST[limit] = re.compile(r"(?:\W*+\w[\w'’.,/+-]*+){%d}" % limit)
    text = nfkc(text)
    if limit < 1:
        return min(len(_WORD.findall(text)), 1)  # the first word already reaches the limit
    if pattern.match(text) is not None:
        return limit
    return len(_WORD.findall(text))


def normal_words(text: str) -> list[str]:
    """Casefolded words without punctuation, for comparing texts."""
    return _NORMAL_WORD.findall(nfkc(text).casefold())


_NOT_WORD = re.compile(r"\W+")

_ASCII_GAPS = str.maketrans({c: " " for c in map(chr, range(128))
                             if not (c.isalnum() or c == "_")})
"""Every ASCII character that is not ``\\w`` to a space: an ASCII text so translated and split
at white space is its ``\\w+`` words."""


def normal_text(text: str) -> str:
    """:func:`normal_words` joined by single spaces (every run of other characters is one
    space, none at either end)."""
    if text.isascii():  # NFKC leaves ASCII as it is; its case folding is lower()
        return " ".join(text.lower().translate(_ASCII_GAPS).split())
    return _NOT_WORD.sub(" ", nfkc(text).casefold()).strip(" ")


def read_stem(stem: str) -> tuple[str, int | None, str | None]:
    """What the rules ask of a stem, read together: its :func:`normal_text` (rule Q101), its
    :func:`choose_count` (Q105, Q106) and its :func:`unemphasised_negative` (Q107). An ASCII
    stem is lowered and split into words once, and each pattern runs only when a word every
    match of it needs is among them."""
    if not stem.isascii():
        return normal_text(stem), choose_count(stem), unemphasised_negative(stem)
    lower = stem.lower()
    words = lower.translate(_ASCII_GAPS).split()
    present = _STEM_WORDS.intersection(words)
    return (" ".join(words), _choose_count_lower(lower, present) if present else None,
            unemphasised_negative(stem) if not present.isdisjoint(_NEGATIVE_WORDS)
            or "n't" in lower else None)


# --- Q102: placeholder text ------------------------------------------------------------------

_PLACEHOLDER_WORDS = re.compile(r"\b(TODO|FIXME|TBD|XXX)\b|\b(lorem ipsum|lorem)\b",
                                re.IGNORECASE)
_ELLIPSIS_ONLY = re.compile(r"^\s*(?:\.\.\.|…|\[\s*(?:\.\.\.|…)\s*\]|\(\s*(?:\.\.\.|…)\s*\)|"
                            r"<\s*(?:\.\.\.|…)\s*>)\s*$", re.MULTILINE)


_QUOTED = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"|“[^”\n]*”|‘[^’\n]*’|(?<!\w)'[^'\n]*'(?!\w)")
"""Literal text: a code span (`` `...` ``) or a quotation ("...", “...”, ‘...’, '...' not
inside a word, so an apostrophe opens none)."""


def may_hold_placeholder(text: str) -> bool:
    """False when ``text`` surely holds no placeholder (:func:`placeholders` finds none): it
    has none of the words in capitals and no ellipsis. Texts joined by line breaks can be tested
    at once (none of those holds a line break)."""
    upper = text.upper()
    return ("TODO" in upper or "FIXME" in upper or "TBD" in upper or "XXX" in upper
            or "LOREM" in upper or "..." in upper or "…" in upper)


def placeholders(text: str) -> list[str]:
    """The placeholders in ``text``: the words TODO, FIXME, TBD, XXX (in capitals), lorem
    (ipsum), and a line that is only ``...`` (or ``…``, ``[...]``, ``(...)``, ``<...>``). An
    ellipsis inside a sentence or a formula ("1, 2, ..., n") is not a placeholder, nor is a
    word quoted as literal text (``the `[TODO]` markers``, ``a "TODO" comment``): the author
    wrote it on purpose."""
    if not may_hold_placeholder(text):
        return []  # most texts: a few substring scans (each word once in capitals, an
        # ellipsis) find none: the exact patterns below run on the few left
    found = []
    literal = [m.span() for m in _QUOTED.finditer(text)]
    for match in _PLACEHOLDER_WORDS.finditer(text):
        word = match.group(0)
        if match.group(1) and word != word.upper():
            continue  # "todo" and "Xxx" are words; the placeholders are written in capitals
        if any(start < match.start() and match.end() < end for start, end in literal):
            continue
        found.append(repr(word))
    bare = _ELLIPSIS_ONLY.search(text)
    if bare:
        found.append(repr(bare.group(0).strip()))
    return list(dict.fromkeys(found))


# --- Q105, Q106: how many options to choose --------------------------------------------------

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, **{str(n): n for n in range(1, 9)}}
_NUMBER = r"(one|two|three|four|five|six|seven|eight|[1-8])"
_COUNT_PATTERNS = (
    re.compile(r"\b(?:choose|select|pick|mark|tick|identify|name|give)\s+(?:the\s+|any\s+)?"
               + _NUMBER + r"\b", re.IGNORECASE),
    re.compile(r"\b(?:which|what)\s+" + _NUMBER + r"\b", re.IGNORECASE),
    re.compile(r"\b" + _NUMBER + r"\s+(?:of\s+(?:these|the\s+following|the\s+options)|"
               r"(?:correct\s+|right\s+)?(?:answers|options|statements|choices))\b",
               re.IGNORECASE),
)


_COUNT_PATTERNS_LOWER = tuple(re.compile(p.pattern) for p in _COUNT_PATTERNS)
""":data:`_COUNT_PATTERNS` matching case, for ASCII text in lower case (faster)."""


_VERBS = frozenset("choose select pick mark tick identify name give".split())
_ASKING = frozenset(("which", "what"))
_ENDINGS = frozenset("these following options answers statements choices".split())
"""The words one of which every match of each of :data:`_COUNT_PATTERNS` holds, whole: its
verb, its question word, or a word of its ending."""
_NEGATIVE_WORDS = frozenset("not except least false incorrect untrue never cannot".split())
"""The negative words of :data:`_NEGATIVE` but ``...n't``."""
_STEM_WORDS = _VERBS | _ASKING | _ENDINGS | _NEGATIVE_WORDS


def choose_count(stem: str) -> int | None:
    """How many options ``stem`` asks the student to choose ("Choose two.", "Which three of
    these ...", "Select 2"), or None when it does not say. When it says several numbers, the
    last one counts (the instruction usually closes the stem)."""
    if stem.isascii():  # the same matches at the same places, without ignoring case
        lower = stem.lower()
        return _choose_count_lower(lower, _STEM_WORDS.intersection(
            lower.translate(_ASCII_GAPS).split()))
    found: list[tuple[int, int]] = []
    for pattern in _COUNT_PATTERNS:
        found += [(m.start(), NUMBERS[m.group(1).lower()]) for m in pattern.finditer(stem)]
    return max(found)[1] if found else None


def _choose_count_lower(lower: str, present: set[str] | frozenset[str]) -> int | None:
    """:func:`choose_count` of an ASCII stem in lower case, whose words of :data:`_STEM_WORDS`
    are ``present``: each pattern runs only when a word every match of it holds is there (most
    stems hold none)."""
    first, second, third = _COUNT_PATTERNS_LOWER
    found: list[tuple[int, int]] = []
    for pattern, needs in ((first, _VERBS), (second, _ASKING), (third, _ENDINGS)):
        if not needs.isdisjoint(present):
            found += [(m.start(), NUMBERS[m.group(1)]) for m in pattern.finditer(lower)]
    return max(found)[1] if found else None


# --- Q107: negative stems --------------------------------------------------------------------

_NEGATIVE = re.compile(r"\b(not|except|least|false|incorrect|untrue|never|cannot|\w+n['’]t)\b",
                       re.IGNORECASE)
_SENTENCE = re.compile(r"[^.?!]+[.?!]?")
_ASKS = re.compile(r"(?i)(which|what|choose|select)\b")
_ONLY = re.compile(r"\s+only\b", re.I)
_CONTRAST = re.compile(r"\b(but|and|or|if)\s+$", re.I)


def unemphasised_negative(stem: str) -> str | None:
    """The first negative word (not, except, least, false, incorrect, never, cannot, ...n't)
    written in lower case in the stem's question sentences (those ending in '?' or starting
    with which, what, choose or select); None when there is none. A contrast ("during training
    but not during inference", "not only") does not negate the question."""
    if stem.isascii():
        lower = stem.lower()  # every negative word is one of these, or ends in n't
        if _NEGATIVE_WORDS.isdisjoint(lower.translate(_ASCII_GAPS).split()) and (
                "n't" not in lower):
            return None
    for sentence in _SENTENCE.findall(stem):
        text = sentence.strip()
        asks = text.endswith("?") or _ASKS.match(text)
        if not asks:
            continue
        for match in _NEGATIVE.finditer(text):
            word = match.group(1)
            if word.isupper() and len(word) > 1:
                continue
            if word.lower() == "not" and (
                    _ONLY.match(text, match.end())
                    or _CONTRAST.search(text[:match.start()])):
                continue  # "not only", "but not", "and not", "whether or not": no negated ask
            return word
    return None


# --- Q110: a review that repeats its option --------------------------------------------------

_BOILERPLATE = frozenset(
    "this that the a an it is are was were be option options answer choice distractor wrong "
    "incorrect not right correct false true because so and or of here".split())


_REVIEW_START = 80
"""How many characters of a review :func:`repeats` reads first (a dozen words or so)."""


def repeats(review: str, option: str) -> bool:
    """True when ``review`` adds fewer than 3 words of its own to ``option``'s (ignoring words
    such as "this option is wrong")."""
    if review.isascii() and option.isascii():
        # Most reviews add words of their own within their first few: a word of the review's
        # start that is not even part of the option's text is surely none of its words. Three
        # such words decide; otherwise every word is compared below.
        option_text = option.lower()
        start = _NORMAL_WORD.findall(review[:_REVIEW_START].lower())
        if start and len(review) > _REVIEW_START:
            start.pop()  # it may be cut short
        own: set[str] = set()
        for word in start:
            if word not in _BOILERPLATE and word not in option_text:
                own.add(word)
                if len(own) >= 3:
                    return False
    option_words = set(normal_words(option))
    new: set[str] = set()
    for match in _NORMAL_WORD.finditer(nfkc(review).casefold()):
        word = match.group(0)
        if word not in option_words and word not in _BOILERPLATE:
            new.add(word)
            if len(new) >= 3:
                return False  # most reviews: decided within their first words
    return True
