"""The progress store's records: sessions, answers, review cards, tallies, each made from a
row checked by :mod:`quiz.study.store_rows`.

Their own module, imported when a record is first made or read: opening the store and reading
its settings (before the app's first paint) makes none, and four frozen dataclasses take
about as long to create as the rest of the store's row checks to import.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class SessionRecord:
    """A stored session.

    Attributes:
        id: row id.
        mode: ``practice``, ``exam``, ``review`` or ``cram``.
        bank_ids: ids of the banks it drew from.
        seed: the random seed of the draw (``None``: unseeded).
        plan: what was drawn, as JSON data: ``questions`` (a list of ``[question id, option keys
            in the order shown]``) plus mode-specific settings (``time_limit_s``, ``pass_mark``).
        state: the resumable state (``position``; for an exam ``elapsed_s``).
        started_at, ended_at: UTC times; ``ended_at`` is ``None`` while the session is open.
        status: ``open``, ``finished``, ``abandoned`` or ``retried`` (left unfinished and
            continued as a retry of what it missed).
    """

    id: int
    mode: str
    bank_ids: tuple[str, ...]
    seed: int | None
    plan: dict[str, Any]
    state: dict[str, Any]
    started_at: datetime
    ended_at: datetime | None
    status: str

    @property
    def question_ids(self) -> tuple[str, ...]:
        """The drawn question ids, in the order shown."""
        ids = self.plan.get("ids")  # StudySession.plan's compact form: ids one per line
        if isinstance(ids, str):
            return tuple(ids.split("\n")) if ids else ()
        return tuple(str(entry[0]) for entry in self.plan.get("questions", ()))


@dataclass(frozen=True)
class AnswerRecord:
    """One stored answer.

    ``chosen`` holds the bank's option keys (not the letters shown), sorted; ``seconds`` is the
    time from showing the question to answering it; ``rating`` is the fsrs rating (1–4) when the
    answer moved the review schedule (``scheduled``).
    """

    session_id: int
    question_id: str
    bank_id: str
    content_hash: str
    chosen: tuple[str, ...]
    correct: bool
    seconds: float
    answered_at: datetime
    rating: int | None = None
    scheduled: bool = False
    variant: dict[str, Any] | None = None
    """The variant of a computed question with ``vary:`` (its drawn values, keyed as in
    ``vary``); ``None`` for any other question."""


@dataclass(frozen=True)
class StoredCard:
    """A question's review schedule: the fsrs card as its ``to_dict`` data, its due time and the
    content hash of the question it was scheduled for."""

    question_id: str
    content_hash: str
    card: dict[str, Any]
    due: datetime


@dataclass(frozen=True)
class QuestionTally:
    """All recorded answers to one question: ``right`` and ``wrong`` counts and the last time
    and verdict."""

    question_id: str
    right: int
    wrong: int
    last_correct: bool
    last_at: datetime
