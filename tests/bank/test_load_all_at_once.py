"""Every error of a file in one run, each check that can run, and no error that only follows
from another (issue 6 §1); options that cannot be told apart (§3)."""

from __future__ import annotations

import pytest

from quiz.bank.load import load_bank_text
from quiz.bank.model import Question

from .helpers import HEAD, bank, found, only_error, question

# Ten independent mistakes over three questions: a typo'd key, a bad answer letter, an undeclared
# topic, a bad footprint value (question 1); a duplicate id, an empty option, a missing review
# (question 2); a misspelt difficulty, two options that read the same, a short table row
# (question 3).
TEN = """\
bank:
  id: demo
  title: Demo bank
  topics: {memory: Memory footprint, precision: Precision}
questions:
  - id: q1
    topic: networking
    dificulty: easy
    question: How many bytes per parameter does mixed-precision Adam keep?
    options: {A: "2", B: "4", C: "8", D: "16"}
    answer: E
    short_explanation: Weights, gradients and optimizer states.
    full_explanation: 2 + 2 + 12.
    distractor_review: {A: Weights only., B: No optimizer., C: Half.}
    worked_example:
      footprint: {model: llama-2-7b, training: {zero: 5}}
  - id: q1
    topic: memory
    question: Which format stores a weight in one byte?
    options: {A: BF16, B: INT8, C: "", D: FP32}
    answer: B
    short_explanation: Eight bits.
    full_explanation: INT8 is one byte.
    distractor_review: {A: Two bytes., C: Nothing.}
  - id: q3
    topic: precision
    difficulty: medum
    question: How big are the weights of a 7B model in BF16?
    options: {A: 14 GB, B: 7 GB, C: "14 GB "}
    answer: A
    short_explanation: Two bytes each.
    full_explanation: 7e9 x 2 bytes.
    distractor_review: {B: One byte each., C: Same as A.}
    infographic:
      table: {columns: [Format, Bytes], rows: [[BF16, "2"], [INT8]]}
"""


def test_ten_mistakes_are_reported_in_one_run_in_line_order_and_nothing_else(pure: bool) -> None:
    report = load_bank_text(TEN, "f.yaml", pure_python=pure)
    assert [str(d) for d in report.diagnostics] == [
        "f.yaml:7:12: error: topic 'networking' is not declared in bank.topics (memory, "
        "precision)",
        "f.yaml:8:5: error: unknown key 'dificulty'; did you mean 'difficulty'?",
        "f.yaml:11:13: error: the answer E is not one of the options (A, B, C, D)",
        "f.yaml:16:55: error: worked_example.footprint.training.zero: ZeRO stage must be 0, 1, 2 "
        "or 3 (got 5)",
        "f.yaml:17:9: error: duplicate question id 'q1': already used at f.yaml:6",
        "f.yaml:20:36: error: options.C: must not be empty",
        "f.yaml:24:24: error: add a review for each wrong option: missing D",
        "f.yaml:27:17: error: difficulty: expected one of easy, medium, hard, found 'medum'; did "
        "you mean 'medium'?",
        "f.yaml:29:37: error: options A and C read the same ('14 GB'): a student cannot tell "
        "them apart; make this option different (option A is on line 29)",
        "f.yaml:35:61: error: this row has 1 cell but the table has 2 columns",
    ]


BAD_FOOTPRINT = "    worked_example:\n      footprint: {model: llama-2-7b, training: {zero: 5}}\n"
ZERO = (15, 55, "error", "worked_example.footprint.training.zero: ZeRO stage must be 0, 1, 2 or 3 "
                         "(got 5)")


def test_a_bad_footprint_hides_neither_the_answer_nor_the_topic(pure: bool) -> None:
    text = bank(question(topic="networking", answer="E", extra=BAD_FOOTPRINT))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (7, 12, "error", "topic 'networking' is not declared in bank.topics (memory, precision)"),
        (10, 13, "error", "the answer E is not one of the options (A, B)"),
        ZERO,
    ]


def test_a_bad_answer_does_not_hide_the_undeclared_topic(pure: bool) -> None:
    text = bank(question(topic="networking", answer="E"))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (7, 12, "error", "topic 'networking' is not declared in bank.topics (memory, precision)"),
        (10, 13, "error", "the answer E is not one of the options (A, B)"),
    ]


def test_an_unknown_key_does_not_skip_the_questions_cross_field_checks(pure: bool) -> None:
    text = bank(question(review="{A: x, B: y}", extra="    referenes: [x]\n"))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (13, 31, "error", "B is a right answer: the distractor review is only for wrong options; "
                          "remove this entry"),
        (14, 5, "error", "unknown key 'referenes'; did you mean 'references'?"),
    ]


def test_an_error_elsewhere_in_the_file_does_not_skip_the_topic_check(pure: bool) -> None:
    text = bank(question(topic="networking"), question("q2", stem="[not, text]"))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (7, 12, "error", "topic 'networking' is not declared in bank.topics (memory, precision)"),
        (16, 15, "error", "question: expected text, found a list"),
    ]


@pytest.mark.parametrize(("answer", "review", "expected"), [
    # B is right and E a slip: the answer is wrong, so which options need a review is unknown.
    ("E", "{A: a, C: c, D: d}", (10, 13, "the answer E is not one of the options (A, B, C, D)")),
    ("[A]", "{A: a, C: c, D: d}",
     (10, 13, "a list answer is for multiple response and needs 2 or more keys; write a single "
              "key as 'answer: A'")),
    ("[B, B]", "{A: a, C: c, D: d}", (10, 17, "B is listed twice")),
])
def test_a_wrong_answer_does_not_cascade_into_review_errors(answer: str, review: str,
                                                            expected: tuple[int, int, str],
                                                            pure: bool) -> None:
    text = bank(question(options="{A: a, B: b, C: c, D: d}", answer=answer, review=review))
    assert only_error(load_bank_text(text, pure_python=pure)) == expected


def test_a_wrong_answer_still_lets_reviews_of_no_option_be_found(pure: bool) -> None:
    text = bank(question(answer="E", review="{A: a, F: f}"))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (10, 13, "error", "the answer E is not one of the options (A, B)"),
        (13, 31, "error", "there is no option F to review (options: A, B)"),
    ]


def test_an_infographic_with_an_unknown_key_still_needs_one_kind(pure: bool) -> None:
    text = bank(question(extra="    infographic: {caption: x, colour: red}\n"))
    assert found(load_bank_text(text, pure_python=pure)) == [
        (14, 18, "error", "an infographic needs exactly one of 'table', 'text' or 'footprint' "
                          "(found none)"),
        (14, 31, "error", "unknown key 'colour' (allowed here: table, text, footprint, caption, "
                          "compute)"),
    ]


# --- §3: options that cannot be told apart -------------------------------------------------------

@pytest.mark.parametrize("second", ['"14 GB "', '" 14  GB"', '"14\\tGB"',
                                    "|-\n        14\n        GB"])
def test_options_equal_after_collapsing_white_space_are_an_error_at_the_second(
        second: str, pure: bool) -> None:
    text = bank(question(options=f"\n      A: 14 GB\n      B: {second}", review="{A: x}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        11, 10, "options A and B read the same ('14 GB'): a student cannot tell them apart; "
                "make this option different (option A is on line 10)")


def test_options_that_differ_in_case_or_punctuation_are_fine(pure: bool) -> None:
    text = bank(question(options="{A: 14 GB, B: 14 gb, C: 14 GB.}", review="{A: x, C: y}"))
    assert load_bank_text(text, pure_python=pure).ok


def test_the_model_refuses_options_that_read_the_same() -> None:
    with pytest.raises(ValueError, match="options A and C read the same"):
        Question.model_validate({
            "id": "q", "topic": "t", "question": "?", "options": {"A": "x", "B": "y", "C": " x"},
            "answer": "B", "short_explanation": "s", "full_explanation": "f",
            "distractor_review": {"A": "a", "C": "c"}})


def test_a_header_error_does_not_hide_question_errors(pure: bool) -> None:
    head = HEAD.replace("  title: Demo bank\n", "  title: [Demo]\n")
    assert found(load_bank_text(bank(question(answer="E"), head=head), pure_python=pure)) == [
        (3, 10, "error", "bank.title: expected text, found a list"),
        (10, 13, "error", "the answer E is not one of the options (A, B)"),
    ]


def test_compute_beside_the_chart_needs_a_footprint(pure: bool) -> None:
    # issue 12 §5: `compute: true` draws time and throughput beside a footprint chart only
    text = bank(question(extra="    infographic: {text: x, compute: true}\n"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        14, 37, "'compute: true' shows the time and throughput of a 'footprint' chart; this "
                "infographic is a text")
    text = bank(question(extra="    infographic: {footprint: {model: llama-2-7b, gpu: l4}, "
                               "compute: true}\n"))
    assert found(load_bank_text(text, pure_python=pure)) == []


@pytest.mark.parametrize("second", ['" Training  "', '"training"', '"Training"'])
def test_options_that_differ_in_a_first_letter_case_and_spacing_are_duplicates(
        second: str, pure: bool) -> None:
    # Issue 19 §4: "training" and " Training  " read the same to a student, who picking
    # the other one would be marked wrong; the error names both lines.
    text = bank(question(options=f"\n      A: Training\n      B: {second}", review="{A: x}"))
    assert only_error(load_bank_text(text, pure_python=pure)) == (
        11, 10, f"options A and B read the same ({' '.join(second.strip(chr(34)).split())!r}): "
                "a student cannot tell them apart; make this option different (option A is on "
                "line 10)")


@pytest.mark.parametrize(("options", "same"), [
    ({"A": "14 GB", "B": "14 Gb"}, []),  # case inside a word is meaning
    ({"A": "14 GB", "B": "14 Gb", "C": "14 gb"}, ["C"]),  # "Gb" and "gb" differ by an initial
    ({"A": "Straße", "B": "strasse"}, []),  # equal only wholly case-folded: not the same
    ({"A": "Ärger  im Büro", "B": "ärger im büro"}, ["B"]),
    ({"A": "one", "B": "two", "C": " One "}, ["C"]),
    ({"A": "one", "B": "two", "C": "three"}, []),
])
def test_same_options_are_found_with_or_without_the_quick_test(
        options: dict[str, str], same: list[str]) -> None:
    """same_options_errors passes over options whose texts differ wholly case-folded (no two
    can then read the same); texts equal that way are compared initial by initial."""
    from quiz.bank.rules import same_options_errors

    assert [e["loc"][-1] for e in same_options_errors(options)] == same
