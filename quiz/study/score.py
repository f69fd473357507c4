"""Scores and the pass mark: right answers out of those asked, compared with the pass mark
exactly (:func:`passes`), and percentages that never contradict that verdict."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Score:
    """``correct`` out of ``answered``, with ``total`` questions in the session."""

    correct: int = 0
    answered: int = 0
    total: int = 0

    @property
    def fraction(self) -> float:
        """Correct answers as a fraction of answered ones (0.0 when none answered)."""
        return self.correct / self.answered if self.answered else 0.0

    def needed(self, pass_mark: float) -> int:
        """How many right answers out of ``total`` reach ``pass_mark`` (a fraction 0–1),
        computed exactly: the mark is read as the decimal it was written as (0.67 is 67/100,
        not the nearest binary float), so 2 of 3 is below 0.67 and 67 of 100 is not."""
        exact = Fraction(self.total) * exact_fraction(pass_mark)
        return -(-exact.numerator // exact.denominator)  # ceiling, in integers

    def passed(self, pass_mark: float) -> bool:
        """True when ``correct`` reaches ``pass_mark`` of ``total`` questions (exactly; see
        :func:`passes`, the one pass-mark rule: nothing asked is nothing passed)."""
        return passes(self.correct, self.total, pass_mark)

    def percents(self, pass_mark: float) -> tuple[str, str]:
        """The score (``correct`` of ``total``) and the pass mark as percentages, e.g.
        ``("66.7%", "67%")``, with as many decimals as it takes for the two to compare as the
        exact verdict does: a score below the mark never shows the mark's own percentage.
        Both are rounded half up, at the same number of decimals (at most 6), with trailing
        zeros dropped."""
        score = Fraction(self.correct, self.total) if self.total else Fraction(0)
        mark = exact_fraction(pass_mark)
        passed = self.passed(pass_mark)
        for decimals in range(7):
            shown_score, shown_mark = _round_percent(score, decimals), _round_percent(mark,
                                                                                    decimals)
            if (shown_score >= shown_mark) == passed:
                break
        return _percent_text(shown_score), _percent_text(shown_mark)


def exact_fraction(value: float) -> Fraction:
    """``value`` as the decimal fraction it prints as (``0.67`` → 67/100)."""
    return Fraction(repr(value))


def _round_percent(value: Fraction, decimals: int) -> Fraction:
    scaled = value * 100 * 10**decimals
    return Fraction(int(scaled + Fraction(1, 2)), 10**decimals)  # half up (values are >= 0)


def _percent_text(value: Fraction) -> str:
    text = f"{float(value):.6f}".rstrip("0").rstrip(".")
    return f"{text}%"


def passes(correct: int, total: int, pass_mark: float) -> bool:
    """The pass-mark rule of every mode and report: ``correct`` of ``total`` reaches
    ``pass_mark`` (a fraction 0–1), compared exactly, the mark read as the decimal it was
    written as (0.7 is 7/10: 7 of 10 passes). A session of 0 questions never passes: nothing
    was asked, so no score can be read as a pass."""
    if total <= 0:
        return False
    return Fraction(correct, total) >= exact_fraction(pass_mark)
