"""The fast text tests of the lint rules (quiz.bank.lint_text) answer as their plain definitions
do (the linter's code before it was made fast, kept here), on every text of a generated bank of
varied questions and on made-up texts full of the cases the fast paths must not get wrong."""

from __future__ import annotations

import random
import re
import unicodedata
from functools import cache

import pytest

from benchmarks.banks import bank_text
from quiz.bank import lint_text
from quiz.bank.load import load_bank_text
from quiz.bank.model import Question

# --- The definitions (the linter's code before the fast paths) ---------------------------------

_WORD = re.compile(r"[\w][\w'’.,/+-]*")
_NORMAL_WORD = re.compile(r"\w+")


def _nfkc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def word_count(text: str, limit: int) -> int:
    count = 0
    for _ in _WORD.finditer(_nfkc(text)):
        count += 1
        if count >= limit:
            break
    return count


def normal_words(text: str) -> list[str]:
    return _NORMAL_WORD.findall(_nfkc(text).casefold())


def may_hold_placeholder(text: str) -> bool:
    upper = text.upper()
    return ("TODO" in upper or "FIXME" in upper or "TBD" in upper or "XXX" in upper
            or "LOREM" in upper or "..." in upper or "…" in upper)


def choose_count(stem: str) -> int | None:
    found: list[tuple[int, int]] = []
    if stem.isascii():
        stem, patterns = stem.lower(), lint_text._COUNT_PATTERNS_LOWER
    else:
        patterns = lint_text._COUNT_PATTERNS
    for pattern in patterns:
        found += [(m.start(), lint_text.NUMBERS[m.group(1).lower()])
                  for m in pattern.finditer(stem)]
    return max(found)[1] if found else None


def unemphasised_negative(stem: str) -> str | None:
    for sentence in lint_text._SENTENCE.findall(stem):
        text = sentence.strip()
        if not (text.endswith("?") or lint_text._ASKS.match(text)):
            continue
        for match in lint_text._NEGATIVE.finditer(text):
            word = match.group(1)
            if word.isupper() and len(word) > 1:
                continue
            if word.lower() == "not" and (lint_text._ONLY.match(text, match.end())
                                          or lint_text._CONTRAST.search(text[:match.start()])):
                continue
            return word
    return None


def repeats(review: str, option: str) -> bool:
    option_words = set(normal_words(option))
    new: set[str] = set()
    for match in _NORMAL_WORD.finditer(_nfkc(review).casefold()):
        word = match.group(0)
        if word not in option_words and word not in lint_text._BOILERPLATE:
            new.add(word)
            if len(new) >= 3:
                return False
    return True


# --- The texts ----------------------------------------------------------------------------------

@cache
def generated() -> tuple[Question, ...]:
    """The questions of a generated bank of 300 varied questions (computed ones included)."""
    report = load_bank_text(bank_text(300, bank_id="lint-text"))
    assert report.library is not None, [str(d) for d in report.diagnostics[:3]]
    return report.library.questions


_PIECES = [
    " ", "  ", "\n", "\t", ".", ",", "...", "…", "?", "!", "'", "’", "-", "/", "+", "(", ")",
    "\"", "`", "[", "]", "<", ">", "_", "0", "1", "2", "8", "9", "12", "one", "two", "Two",
    "eight", "nine", "Choose", "choose", "select", "SELECT", "pick", "mark", "tick", "identify",
    "name", "give", "which", "Which", "what", "WHAT", "the", "any", "of", "these", "following",
    "options", "answers", "correct", "right", "statements", "choices", "not", "NOT", "Not",
    "cannot", "except", "EXCEPT", "least", "false", "incorrect", "untrue", "never", "don't",
    "isn’t", "can't", "but", "and", "or", "if", "only", "TODO", "todo", "FIXME", "TBD", "XXX",
    "Xxx", "lorem", "Lorem ipsum", "LOREM", "ſelect", "whİch", "ﬁxme", "Kelvin \u212a",
    "café", "naïve", "Straße", "İstanbul", "ﬀ", "①", "²", "٣", "this", "option", "is", "wrong",
    "GPU", "memory", "weights", "bytes", "word", "words", "a", "an", "it",
]


def made_up(count: int, seed: int) -> list[str]:
    """``count`` texts strung together from :data:`_PIECES`, 0 to 40 pieces each, mostly
    with a space between two."""
    rng = random.Random(seed)
    between = [" "] * 6 + ["", "", "\n", "  ", "\t"]
    return ["".join(rng.choice(_PIECES) + rng.choice(between)
                    for _ in range(rng.randint(0, 40))) for _ in range(count)]


def question_texts(q: Question) -> list[str]:
    return [q.stem, q.short_explanation, q.full_explanation, *q.options.values(),
            *q.distractor_review.values(), *q.references]


def every_text() -> list[str]:
    return [t for q in generated() for t in question_texts(q)] + made_up(4000, 1)


# --- The comparisons ------------------------------------------------------------------------------

def test_word_counts_are_the_definitions() -> None:
    for text in every_text():
        for limit in (0, 1, 2, 5, 6, 12, 25, 40):
            assert lint_text.word_count(text, limit) == word_count(text, limit), (text, limit)


def test_normal_text_is_the_normal_words_joined() -> None:
    for text in every_text():
        assert lint_text.normal_text(text) == " ".join(normal_words(text)), text
        assert lint_text.normal_words(text) == normal_words(text)


def test_a_question_tested_at_once_for_placeholders_is_each_text_tested() -> None:
    questions = [question_texts(q) for q in generated()]
    rng = random.Random(2)
    texts = made_up(3000, 3)
    questions += [rng.sample(texts, rng.randint(1, 12)) for _ in range(600)]
    held = 0
    for texts in questions:
        at_once = lint_text.may_hold_placeholder("\n".join(texts))
        assert at_once == any(may_hold_placeholder(t) for t in texts), texts
        held += at_once
    assert 0 < held < len(questions)  # both answers were tried


def test_choose_counts_are_the_definition() -> None:
    stems = [q.stem for q in generated()] + made_up(6000, 4)
    said = 0
    for stem in stems:
        assert lint_text.choose_count(stem) == choose_count(stem), stem
        said += choose_count(stem) is not None
    assert said > 100


def test_negative_stems_are_the_definition() -> None:
    stems = [q.stem for q in generated()] + [t + "?" for t in made_up(6000, 5)]
    negative = 0
    for stem in stems:
        assert lint_text.unemphasised_negative(stem) == unemphasised_negative(stem), stem
        negative += unemphasised_negative(stem) is not None
    assert negative > 100


@pytest.mark.parametrize("seed", [6, 7])
def test_reviews_that_repeat_their_option_are_the_definition(seed: int) -> None:
    pairs = [(review, q.options[key]) for q in generated()
             for key, review in q.distractor_review.items()]
    rng = random.Random(seed)
    options = made_up(3000, seed)
    for option in options:
        # A review made of the option's words, a few others and boilerplate, often longer than
        # what the fast path reads first.
        words = normal_words(option) or ["word"]
        review = " ".join(rng.choice([*words, *rng.sample(sorted(lint_text._BOILERPLATE), 3),
                                      rng.choice(_PIECES)]) for _ in range(rng.randint(0, 30)))
        pairs += [(review, option), (option, option), (option + " " + review, option)]
    repeated = 0
    for review, option in pairs:
        assert lint_text.repeats(review, option) == repeats(review, option), (review, option)
        repeated += repeats(review, option)
    assert 0 < repeated < len(pairs)


def test_a_stem_read_at_once_is_each_rule_on_it() -> None:
    stems = [q.stem for q in generated()] + made_up(6000, 8) + [
        t + "?" for t in made_up(3000, 9)]
    for stem in stems:
        assert lint_text.read_stem(stem) == (
            " ".join(normal_words(stem)), choose_count(stem), unemphasised_negative(stem)), stem
