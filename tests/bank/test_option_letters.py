"""Letter references that shuffling breaks (issue 6 §4): found in options, explanations and
reviews, never in ordinary words; such a question keeps its options in bank order, and the
validator warns at each reference."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.bank.library import Library
from quiz.bank.load import load_bank_text
from quiz.bank.option_letters import letter_references, references_in
from quiz.study.exam import draw_exam
from quiz.study.session import SessionConfig, StudySession
from tests.conftest import make_library, question_data

from .helpers import bank, found, question


@pytest.mark.parametrize(("text", "expected"), [
    ("Both A and B", ["A and B"]),
    ("Option C is right because it counts the optimizer.", ["Option C"]),
    ("options A and D both", ["options A and D"]),
    ("the answer B, not choice C", ["answer B", "choice C"]),
    ("(B) is the classic mistake", ["(B)"]),
    ("A, B and C", ["A, B and C"]),
    ("B or C.", ["B or C"]),
    ("A & B", ["A & B"]),
    ("All of the above", ["All of the above"]),
    ("none of the below", ["none of the below"]),
    ("Neither of these.", ["Neither of these"]),
])
def test_references_are_found(text: str, expected: list[str]) -> None:
    assert [r.text for r in letter_references(text, "ABCD")] == expected


@pytest.mark.parametrize("text", [
    "A GPU holds a batch", "a and b", "A100 and H100", "E4M3 and E5M2", "A/B testing", "Type A",
    "Plan A: keep it", "A. Smith and B. Jones", "all of these techniques shrink the weights",
    "A and E",  # E is no option of a four-option question
    "(E) and F or G",
])
def test_ordinary_words_are_not_references(text: str) -> None:
    assert letter_references(text, "ABCD") == []


HINT = ("names options by letter or position, which shuffling changes: this question keeps its "
        "options in bank order; write 'shuffle: false' to say so, or name the option by its "
        "content")


def test_the_validator_warns_at_each_reference(pure: bool) -> None:
    text = bank(question(options="{A: Alpha, B: Bravo, C: Both A and B}", answer="C",
                         full="|\n      First line.\n      Option C is right.",
                         review="{A: x, B: All of the above is wrong}"))
    report = load_bank_text(text, pure_python=pure)
    assert report.ok
    assert found(report) == [
        (9, 43, "warning", f"'A and B' {HINT}"),
        (14, 7, "warning", f"'Option C' {HINT}"),
        (15, 34, "warning", f"'All of the above' {HINT}"),
    ]


def test_no_warning_when_shuffle_is_false(pure: bool) -> None:
    text = bank(question(options="{A: Alpha, B: Both A and B}",
                         extra="    shuffle: false\n"))
    assert load_bank_text(text, pure_python=pure).diagnostics == []


def _library() -> Library:
    plain = question_data("plain")
    both = question_data("both", options={"A": "Alpha", "B": "Bravo", "C": "Charlie",
                                          "D": "Both A and C"})
    return make_library(*[dict(plain, id=f"p{i}") for i in range(4)],
                        *[dict(both, id=f"b{i}") for i in range(4)])


def test_a_question_with_a_reference_keeps_bank_order_when_shuffled() -> None:
    lib = _library()
    assert [q.keeps_order for q in lib.questions] == [False] * 4 + [True] * 4
    moved = set()
    for seed in range(6):
        practice = StudySession.from_questions(lib.questions, SessionConfig(seed=seed),
                                               lib.topics).shown
        exam = draw_exam(lib.questions, SessionConfig(seed=seed))
        for shown in [*practice, *exam]:
            keys = "".join(o.key for o in shown.options)
            if shown.question.id.startswith("b"):
                assert keys == "ABCD"
            elif keys != "ABCD":
                moved.add(shown.question.id)
    assert moved == {"p0", "p1", "p2", "p3"}  # the other questions are still shuffled


# Words and characters the patterns turn on: letters standing alone or not, joins, every kind of
# space (\x1c is one to Python), option and position words in any case, non-ASCII text.
PIECES = ["A", "B", "C", "D", "E", "H", "I", "a", " ", "  ", "\t", "\n", "\x0b", "\x1c", ",",
          ", ", "&", "/", "-", ".", "'", "(", ")", "_", "0", "x", " and ", " or ", " of ", "the ",
          "above", "ABOVE", "below", "these", "These", "all", "All", "none", "both", "neither",
          "small", "option", "Options", "ANSWER", "answers", "choice", "Choices", "soption",
          "A100", "GB", "(A)", "options A", "all of the above", "none of these", "’", "é",
          "\u017f"]


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map("".join), max_size=5),
       st.sampled_from(["AB", "ABCD", "ABCDEFGH"]))
def test_references_in_a_question_are_those_of_each_text(texts: list[str],
                                                          letters: str) -> None:
    assert references_in(texts, letters) == [
        (i, ref) for i, text in enumerate(texts) for ref in letter_references(text, letters)]
