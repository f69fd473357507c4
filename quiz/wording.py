"""Small helpers for the words the command line and the app print about counts."""

from __future__ import annotations


def plural(n: int, noun: str) -> str:
    """``n`` (with thousands separators) and ``noun``, with an ``s`` unless ``n`` is 1:
    ``plural(1, "answer")`` is ``"1 answer"``, ``plural(0, "answer")`` is ``"0 answers"``,
    ``plural(1000, "question")`` is ``"1,000 questions"``. ``noun`` is an English noun (or
    phrase) whose plural adds ``s`` (every noun the app counts: question, answer, session,
    file...)."""
    return f"{n:,} {noun}{'s' * (n != 1)}"
