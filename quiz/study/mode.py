"""What every session shares: its :class:`Mode`, and the :class:`AnswerSink` its answers,
flags and resumable state go to as they happen."""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from quiz.study.shown import Outcome


class Mode(StrEnum):
    """A session's mode. Its value is the word stored and shown (``"practice"``…); a
    :class:`Mode` compares equal to that word."""

    PRACTICE = "practice"
    """Answer, then see why; moves the review schedule."""
    EXAM = "exam"
    """Timed, no feedback until submitted, then a score report; schedule untouched."""
    REVIEW = "review"
    """The questions due now, then the most missed; moves the review schedule."""
    CRAM = "cram"
    """Last time's misses and the flagged questions; schedule untouched."""

    @property
    def schedules(self) -> bool:
        """True when this mode's answers move the review schedule (practice and review)."""
        return self in (Mode.PRACTICE, Mode.REVIEW)

    @property
    def title(self) -> str:  # type: ignore[override]
        """The mode's word with a capital (``"Exam"``)."""
        return self.value.capitalize()

    @classmethod
    def of(cls, value: str | Mode) -> Mode:
        """The mode named ``value``. Raises ``ValueError`` for a word that names none."""
        return cls(value)


class AnswerSink(Protocol):
    """Where a session's answers, flags and resumable state go as they happen (the progress
    store through :class:`quiz.study.recorder.Recorder`); tests may pass their own. Practice,
    review, cram and exam sessions all use this one protocol."""

    def record(self, outcome: Outcome, seconds: float) -> int | None:
        """Keep one answer given after ``seconds`` on its question; return its review rating
        (1–4) if it moved the schedule, else ``None``."""

    def rerate(self, question_id: str, rating: int) -> None:
        """Replace the rating of an answer given in this session."""

    def undo(self, question_id: str) -> None:
        """Forget an answer given in this session (withdrawn, or taken back), with its
        schedule change."""

    def flag(self, question_id: str, flagged: bool) -> None:
        """Keep (or drop) a flag for review on a question of this session."""

    def save_state(self, state: dict[str, Any]) -> None:
        """Keep the session's resumable state (position; an exam's clock and ticks)."""
