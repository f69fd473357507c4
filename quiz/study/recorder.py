"""A study session's link to the store (:mod:`quiz.study.store`).

:class:`Recorder` is the :class:`~quiz.study.mode.AnswerSink` of a session: it commits each
answer as it is given and, in practice and review, moves the question's fsrs card in the same
transaction. Exam and cram answers are recorded without touching the schedule.
"""

from __future__ import annotations

from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from quiz.bank.library import Library
from quiz.study import owners
from quiz.study.mode import Mode
from quiz.study.store import Store, utc_now
from quiz.study.store_records import AnswerRecord, SessionRecord, StoredCard

if TYPE_CHECKING:
    from fsrs import Scheduler

    from quiz.study.shown import Outcome

# fsrs, the question model (pydantic) and the session are imported where they are used: the
# study app builds the QuestionIndex while its start screen is not yet ready, without them.

SCHEDULING_MODES = frozenset({Mode.PRACTICE, Mode.REVIEW})
"""Modes whose answers move the review schedule (exam and cram do not; :attr:`Mode.schedules`)."""


@dataclass(frozen=True)
class QuestionIndex:
    """For each question id of a library: the bank it comes from and its content hash."""

    bank_of: dict[str, str]
    hash_of: dict[str, str]

    @classmethod
    def of(cls, library: Library) -> QuestionIndex:
        """Index every question of ``library``. Hashes are computed once, by the loader, and
        kept in the validated-bank cache: nothing is decoded or hashed here for a library that
        :mod:`quiz.bank.load` loaded (a library built otherwise has its hashes computed)."""
        bank_of: dict[str, str] = {}
        hash_of: dict[str, str] = {}
        for bank in library.banks:
            ids = bank.question_ids
            bank_of.update(dict.fromkeys(ids, bank.header.id))
            hash_of.update(zip(ids, bank.question_hashes(), strict=True))
        return cls(bank_of, hash_of)


@dataclass
class Recorder:
    """Commits one session's answers to ``store`` (each when given) and schedules them.

    Attributes:
        store: the open progress store.
        session_id: the stored session's id.
        mode: the session's mode; only :data:`SCHEDULING_MODES` move the schedule.
        index: bank id and content hash of each question.
        now: the clock for time stamps (UTC-aware); tests inject one.
        scheduler: the fsrs scheduler (default parameters, 90 % desired retention).
    """

    store: Store
    session_id: int
    mode: str
    index: QuestionIndex
    now: Callable[[], datetime] = utc_now
    scheduler: Scheduler = field(default_factory=lambda: _scheduler())

    def __post_init__(self) -> None:
        # A resumed session is this process's now: another quiz must not offer it meanwhile.
        owners.claim(self.store.path, self.session_id)
        self._given: dict[str, tuple[AnswerRecord, StoredCard | None]] = {}
        """This run's answers with the card each replaced: what :meth:`rerate` needs, and the
        cards the next answers start from, even while the store cannot save them."""
        self._cards: dict[str, StoredCard] = {}
        """The cards this run's answers made, by question id."""

    @property
    def schedules(self) -> bool:
        """True when this session's answers move the review schedule."""
        return self.mode in SCHEDULING_MODES

    def record(self, outcome: Outcome, seconds: float) -> int | None:
        """Commit the answer (and its schedule change); return the fsrs rating given, or
        ``None`` when the mode does not schedule."""
        from quiz.bank.identity import content_hash
        from quiz.study.scheduling import rating_for, review

        q = outcome.shown.question
        when = self.now()
        qhash = self.index.hash_of.get(q.id) or content_hash(q)
        rating = rating_for(q, outcome.correct, seconds) if self.schedules else None
        card = None
        before = self._cards.get(q.id) if q.id in self._cards else self.store.card(q.id)
        if rating is not None:
            card = review(self.scheduler, before, q.id, qhash, rating, when, seconds)
            self._cards[q.id] = card
        answer = AnswerRecord(
            session_id=self.session_id, question_id=q.id,
            bank_id=self.index.bank_of.get(q.id, ""), content_hash=qhash,
            chosen=tuple(sorted(o.key for o in outcome.chosen)), correct=outcome.correct,
            seconds=round(seconds, 3), answered_at=when,
            rating=int(rating) if rating is not None else None, scheduled=card is not None,
            variant=q.variant or None)
        self._given[q.id] = (answer, before)
        self.store.record_answer(answer, card)  # kept in memory by the store if not saved
        return int(rating) if rating is not None else None

    def rerate(self, question_id: str, rating: int) -> None:
        """Re-review the question from the card it had before this answer, with ``rating``."""
        from fsrs import Rating

        from quiz.study.scheduling import review

        if question_id in self._given:
            answer, before = self._given[question_id]
        else:
            stored = next((a for a in self.store.answers(self.session_id)
                           if a.question_id == question_id), None)
            if stored is None:
                return
            answer, before = stored, self.store.card_before(self.session_id, question_id)
        if not answer.scheduled:
            return
        card = review(self.scheduler, before, question_id, answer.content_hash, Rating(rating),
                      answer.answered_at, answer.seconds)
        self._cards[question_id] = card
        self.store.rerate(self.session_id, question_id, rating, card)

    def undo(self, question_id: str) -> None:
        """Delete the answer and restore the card it replaced."""
        given = self._given.pop(question_id, None)
        if given is not None:
            before = given[1]
            if before is None:
                self._cards.pop(question_id, None)
            else:
                self._cards[question_id] = before
        self.store.undo_answer(self.session_id, question_id)

    def flag(self, question_id: str, flagged: bool) -> None:
        """Keep (or drop) a flag for review on a question of this session."""
        self.store.set_flag(self.session_id, question_id, flagged, now=self.now())

    def save_state(self, state: dict[str, Any]) -> None:
        """Keep the session's resumable state (position; an exam's clock)."""
        self.store.save_state(self.session_id, state)


def _scheduler() -> Scheduler:
    """An fsrs scheduler with default parameters (90 % desired retention)."""
    from fsrs import Scheduler

    return Scheduler()


def cram_ids(store: Store, index: QuestionIndex) -> list[str]:
    """What a cram session goes over: the questions whose latest answer was wrong, then the
    ones flagged in any session, each in bank order; only questions of the library."""
    tallies = store.tallies()
    flagged = store.flags()
    order = list(index.hash_of)
    missed = [qid for qid in order if qid in tallies and not tallies[qid].last_correct]
    return missed + [qid for qid in order if qid in flagged and qid not in set(missed)]


@dataclass(frozen=True)
class Interrupted:
    """An open session left by a run that ended without finishing it: the session and how many
    answers it has."""

    record: SessionRecord
    answered: int

    @property
    def total(self) -> int:
        """Questions drawn."""
        return len(self.record.question_ids)

    @property
    def time_left_s(self) -> float | None:
        """Seconds left on an exam's clock (``None`` for other modes)."""
        if self.record.mode != "exam":
            return None
        limit = float(self.record.plan.get("time_limit_s", 0.0))
        return max(0.0, limit - float(self.record.state.get("elapsed_s", 0.0)))

    def describe(self) -> str:
        """One sentence for the resume dialog, in the user's local time."""
        started = self.record.started_at.astimezone().strftime("%d %b %H:%M")
        text = (f"An unfinished {self.record.mode} session from {started}: {self.answered} of "
                f"{self.total} answered")
        left = self.time_left_s
        if left is not None:
            text += f", {int(left) // 60}:{int(left) % 60:02d} left on the clock"
        return text + "."


def interrupted_sessions(store: Store, bank_ids: AbstractSet[str] | None = None
                         ) -> list[Interrupted]:
    """Open sessions that no running quiz owns (holds the session's lock:
    :mod:`quiz.study.owners`), newest first. Sessions with nothing to resume
    (no answer given, and not an exam; or a practice session whose plan was never written)
    are closed as abandoned on the way. With ``bank_ids`` (the banks loaded), only sessions
    drawn from those banks are returned: a session of other banks is left open, to be offered
    when its banks are studied again."""
    result = []
    for rec in store.open_sessions():
        if owners.owned_elsewhere(store.path, rec.id):  # another quiz is studying it now
            continue
        if bank_ids is not None and not set(rec.bank_ids) <= bank_ids:
            continue
        answered = len(store.answers(rec.id))
        # A practice session's plan is written once its first question is on screen
        # (QuizApp._write_plan): one that ended before has nothing to resume from.
        # (Read here, not with quiz.study.session.plan_entries: importing that module builds
        # the bank's pydantic models, about 90 ms, and this runs before the library shows.)
        unplanned = rec.mode != "exam" and not (rec.plan.get("ids") or rec.plan.get("questions"))
        if (answered == 0 and rec.mode != "exam") or unplanned:
            store.end_session(rec.id, "abandoned")
            continue
        result.append(Interrupted(rec, answered))
    return result
