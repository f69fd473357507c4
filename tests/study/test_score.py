"""Pass or fail compared exactly, and percentages that never contradict the verdict
(issue 7 item 11; issue 8 §5: the verdict lives in the core)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from quiz.study.score import Score


@pytest.mark.parametrize(("correct", "total", "mark", "needed", "passed", "shown"), [
    (2, 3, 0.67, 3, False, ("66.7%", "67%")),
    (67, 100, 0.67, 67, True, ("67%", "67%")),
    (66, 100, 0.67, 67, False, ("66%", "67%")),
    (2, 3, 0.667, 3, False, ("66.67%", "66.7%")),
    (7, 10, 0.7, 7, True, ("70%", "70%")),
    (6, 10, 0.7, 7, False, ("60%", "70%")),
    (1, 3, 0.333, 1, True, ("33%", "33%")),
    (0, 3, 0.7, 3, False, ("0%", "70%")),
    (3, 3, 1.0, 3, True, ("100%", "100%")),
    (0, 5, 0.0, 0, True, ("0%", "0%")),
    (5, 8, 0.625, 5, True, ("63%", "63%")),
    (4, 8, 0.625, 5, False, ("50%", "63%")),
    (199, 300, 0.6634, 200, False, ("66.33%", "66.34%")),
])
def test_pass_is_exact_and_the_percentages_agree_with_it(
        correct: int, total: int, mark: float, needed: int, passed: bool,
        shown: tuple[str, str]) -> None:
    score = Score(correct=correct, answered=total, total=total)
    assert score.needed(mark) == needed
    assert score.passed(mark) is passed
    assert score.percents(mark) == shown


@pytest.mark.parametrize("mark", [0.5, 0.6, 0.65, 0.66, 0.67, 0.7, 0.75, 0.8, 0.9, 0.95, 0.999])
def test_at_every_boundary_a_fail_never_shows_a_percentage_at_or_above_the_mark(
        mark: float) -> None:
    for total in range(1, 41):
        for correct in range(total + 1):
            score = Score(correct=correct, answered=total, total=total)
            exact = Fraction(correct, total) >= Fraction(repr(mark))
            assert score.passed(mark) is exact, (correct, total, mark)
            shown_score, shown_mark = (float(p.rstrip("%")) for p in score.percents(mark))
            assert (shown_score >= shown_mark) is exact, (correct, total, mark)
