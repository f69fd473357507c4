"""Counts in words, as the command line and the app print them."""

from __future__ import annotations

from quiz.wording import plural


def test_plural_adds_s_unless_one_and_separates_thousands() -> None:
    assert plural(1, "answer") == "1 answer"
    assert plural(0, "answer") == "0 answers"
    assert plural(2, "more question") == "2 more questions"
    assert plural(1000, "question") == "1,000 questions"
    assert plural(1_234_567, "session") == "1,234,567 sessions"
