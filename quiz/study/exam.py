"""Exam mode: a timed run with no feedback until the end, then an honest score report.

An :class:`ExamSession` draws N questions across the chosen topics in proportion to the topics'
sizes (largest-remainder apportionment, seeded), runs a countdown on an injected monotonic
clock, lets the student flag questions, jump anywhere and change answers, and reveals nothing —
no verdict, no explanation — until :meth:`ExamSession.submit` (by the student, or when the time
is up). Then :class:`ExamReport` holds the score against the pass mark, the time used, per-topic
and per-difficulty scores, and every question with its full reveal, flagged and wrong first.

Exam answers are recorded as they are given (the session's ``sink``) but never move the review
schedule.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from quiz.bank.model import Question
from quiz.study.session import (
    Outcome,
    Score,
    SessionConfig,
    SessionError,
    ShownQuestion,
    StudySession,
    _shown_options,
    build_outcome,
)

MINUTES_PER_QUESTION = 1.2
"""Default exam time per question when neither ``--minutes`` nor the bank's ``time_limit``
says otherwise (72 seconds, about what certification exams allow)."""


def proportional_counts(sizes: dict[str, int], n: int) -> dict[str, int]:
    """Split ``n`` questions over topics in proportion to ``sizes`` (topic → questions
    available), by the largest-remainder (Hamilton) method: each topic gets the floor of its
    quota ``n × size / total``; the seats left go to the largest remainders (ties: the larger
    topic, then the topic's order). No topic gets more than it has.

    Raises:
        ValueError: ``n`` is below 1 or above the questions available.
    """
    total = sum(sizes.values())
    if n < 1 or n > total:
        raise ValueError(f"cannot draw {n} questions from {total}")
    quotas = {t: Fraction(n * s, total) for t, s in sizes.items()}
    counts = {t: math.floor(q) for t, q in quotas.items()}
    order = list(sizes)
    left = n - sum(counts.values())
    by_remainder = sorted(order, key=lambda t: (-(quotas[t] - counts[t]), -sizes[t],
                                                order.index(t)))
    for t in by_remainder[:left]:
        counts[t] += 1
    return counts


def time_limit_seconds(count: int, minutes: float | None = None,
                       bank_minutes: float | None = None) -> float:
    """The exam's time in seconds: ``minutes`` if given, else the bank's ``time_limit``, else
    :data:`MINUTES_PER_QUESTION` per question."""
    chosen = minutes if minutes is not None else bank_minutes
    if chosen is None:
        chosen = MINUTES_PER_QUESTION * count
    return float(chosen) * 60.0


def draw_exam(questions: Sequence[Question], config: SessionConfig) -> list[ShownQuestion]:
    """Draw the exam's questions: filter by ``config`` (topics, tags, difficulties), take
    ``config.count`` (default: all) in proportion to each topic's size, then shuffle the order
    and each question's options with ``config.seed``.

    Raises:
        SessionError: nothing matches, or the count is below 1.
    """
    pool = [q for q in questions if config.matches(q)]
    if not pool:
        raise SessionError("no question matches: choose at least one topic with questions")
    n = len(pool) if config.count is None else min(config.count, len(pool))
    if n < 1:
        raise SessionError("the number of questions must be at least 1")
    rng = random.Random(config.seed)
    by_topic: dict[str, list[Question]] = {}
    for q in pool:
        by_topic.setdefault(q.topic, []).append(q)
    counts = proportional_counts({t: len(qs) for t, qs in by_topic.items()}, n)
    drawn = [q for t, qs in by_topic.items() for q in rng.sample(qs, counts[t])]
    if config.shuffle:
        rng.shuffle(drawn)
    else:
        position = {q.id: i for i, q in enumerate(pool)}
        drawn.sort(key=lambda q: position[q.id])
    return [ShownQuestion(number=i + 1, total=len(drawn), question=q,
                          options=_shown_options(q, rng if config.shuffle else None))
            for i, q in enumerate(drawn)]


class ExamSink(Protocol):
    """Where an exam's progress goes as it happens (the store, through
    :class:`quiz.study.progress.Recorder`)."""

    def record(self, outcome: Outcome, seconds: float) -> int | None:
        """Keep the answer (not shown to the student)."""

    def undo(self, question_id: str) -> None:
        """Forget an answer withdrawn by the student."""

    def flag(self, question_id: str, flagged: bool) -> None:
        """Keep a flag for review."""

    def save_state(self, state: dict[str, Any]) -> None:
        """Keep the clock and position, for resumption."""


@dataclass(frozen=True)
class MapEntry:
    """One cell of the question map: 1-based ``number``, ``answered``, ``flagged`` and whether
    it is the ``current`` question."""

    number: int
    answered: bool
    flagged: bool
    current: bool


@dataclass(frozen=True)
class ExamItem:
    """One question in the report: as shown, its outcome (``None`` if unanswered) and whether
    it was flagged."""

    shown: ShownQuestion
    outcome: Outcome | None
    flagged: bool

    @property
    def correct(self) -> bool:
        """True when answered right."""
        return self.outcome is not None and self.outcome.correct


@dataclass(frozen=True)
class ExamReport:
    """The score report of a submitted exam.

    Attributes:
        score: right answers, answered questions and total questions. The exam's fraction is
            right over *total*: an unanswered question counts as wrong.
        pass_mark: the fraction needed (0–1).
        time_used_s, time_limit_s: seconds.
        timed_out: True when the clock ran out before the student submitted.
        by_topic, by_difficulty: scores per topic key and per difficulty (``"unrated"`` for
            questions without one), in exam order of first appearance.
        items: every question, flagged or wrong ones first, then the rest, each group in exam
            order.
    """

    score: Score
    pass_mark: float
    time_used_s: float
    time_limit_s: float
    timed_out: bool
    by_topic: dict[str, Score]
    by_difficulty: dict[str, Score]
    items: tuple[ExamItem, ...]

    @property
    def fraction(self) -> float:
        """Right answers over all questions (0.0 for an empty exam)."""
        return self.score.correct / self.score.total if self.score.total else 0.0

    @property
    def passed(self) -> bool:
        """True when right/total reaches the pass mark, compared exactly (7 of 10 passes a
        0.7 mark: the mark is read as the decimal the author wrote, not a binary float)."""
        if not self.score.total:
            return False
        return Fraction(self.score.correct, self.score.total) >= Fraction(repr(self.pass_mark))


@dataclass
class ExamSession:
    """A running (or submitted) exam.

    ``clock`` is monotonic seconds (tests inject one); ``elapsed_before`` is the time used
    before a resumption. ``answers`` maps question id → the chosen letters (complete answers
    only); ``ticks`` keeps partial multiple-response ticks.
    """

    shown: list[ShownQuestion]
    time_limit_s: float
    pass_mark: float = 0.7
    topic_names: dict[str, str] = field(default_factory=dict)
    clock: Callable[[], float] = time.monotonic
    elapsed_before: float = 0.0
    sink: ExamSink | None = None
    position: int = 0
    answers: dict[str, frozenset[str]] = field(default_factory=dict)
    ticks: dict[str, frozenset[str]] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    report: ExamReport | None = None
    _started: float = 0.0
    _shown_at: float = 0.0

    def __post_init__(self) -> None:
        self._started = self._shown_at = self.clock()

    mode = "exam"

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def draw(cls, questions: Sequence[Question], config: SessionConfig, *,
             minutes: float | None = None, bank_minutes: float | None = None,
             pass_mark: float = 0.7, topic_names: dict[str, str] | None = None,
             clock: Callable[[], float] = time.monotonic) -> ExamSession:
        """Draw a new exam (see :func:`draw_exam` and :func:`time_limit_seconds`)."""
        shown = draw_exam(questions, config)
        return cls(shown=shown, time_limit_s=time_limit_seconds(len(shown), minutes,
                                                                bank_minutes),
                   pass_mark=pass_mark, topic_names=dict(topic_names or {}), clock=clock)

    def plan(self) -> dict[str, Any]:
        """What was drawn and the exam's settings, as JSON data for the store."""
        return {"questions": [[s.question.id, "".join(o.key for o in s.options)]
                              for s in self.shown],
                "time_limit_s": self.time_limit_s, "pass_mark": self.pass_mark}

    @classmethod
    def resume(cls, questions: Sequence[Question], plan: dict[str, Any], state: dict[str, Any],
               answers: Iterable[tuple[str, Iterable[str]]], flags: Iterable[str], *,
               topic_names: dict[str, str] | None = None,
               clock: Callable[[], float] = time.monotonic) -> ExamSession:
        """Rebuild an interrupted exam with the time it had left: the same questions and
        letters, the answers (by bank option keys) and flags given so far.

        Raises:
            SessionError: none of its questions is in the bank any more.
        """
        shown = list(StudySession.from_plan(questions, plan).shown)
        exam = cls(shown=shown, time_limit_s=float(plan["time_limit_s"]),
                   pass_mark=float(plan.get("pass_mark", 0.7)),
                   topic_names=dict(topic_names or {}), clock=clock,
                   elapsed_before=float(state.get("elapsed_s", 0.0)))
        by_id = {s.question.id: s for s in shown}
        for qid, keys in answers:
            if qid in by_id:
                key_set = set(keys)
                letters = frozenset(o.letter for o in by_id[qid].options if o.key in key_set)
                exam.answers[qid] = exam.ticks[qid] = letters
        for qid, keys in dict(state.get("ticks", {})).items():
            if qid in by_id and qid not in exam.answers:
                exam.ticks[qid] = frozenset(o.letter for o in by_id[qid].options
                                            if o.key in set(keys))
        exam.flags = {qid for qid in flags if qid in by_id}
        exam.position = max(0, min(int(state.get("position", 0)), len(shown) - 1))
        return exam

    # -- clock ------------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        """Seconds used so far (frozen once submitted)."""
        if self.report is not None:
            return self.report.time_used_s
        return self.elapsed_before + (self.clock() - self._started)

    @property
    def remaining(self) -> float:
        """Seconds left (never below 0)."""
        return max(0.0, self.time_limit_s - self.elapsed)

    @property
    def expired(self) -> bool:
        """True when the time is up."""
        return self.remaining <= 0.0

    def save(self) -> None:
        """Hand the clock and position to the sink (called on every action and periodically,
        so an interrupted exam resumes with the time it had left)."""
        if self.sink is not None and self.report is None:
            self.sink.save_state({"elapsed_s": round(self.elapsed, 3), "position": self.position,
                                  "ticks": self._partial_ticks()})

    def _partial_ticks(self) -> dict[str, list[str]]:
        """Ticks of multiple-response questions not complete yet, by bank option keys (kept
        with the clock, so they survive an interruption too)."""
        result = {}
        for s in self.shown:
            qid = s.question.id
            ticks = self.ticks.get(qid)
            if ticks and qid not in self.answers:
                result[qid] = sorted(o.key for o in s.options if o.letter in ticks)
        return result

    # -- navigation -------------------------------------------------------------------------
    @property
    def total(self) -> int:
        """Number of questions."""
        return len(self.shown)

    @property
    def current(self) -> ShownQuestion:
        """The question at ``position``."""
        return self.shown[self.position]

    def go(self, position: int) -> ShownQuestion:
        """Jump to a 0-based ``position`` (clamped)."""
        self.position = max(0, min(position, self.total - 1))
        self._shown_at = self.clock()
        self.save()
        return self.current

    def question_map(self) -> list[MapEntry]:
        """Every question's state, for the map."""
        return [MapEntry(number=s.number, answered=s.question.id in self.answers,
                         flagged=s.question.id in self.flags, current=i == self.position)
                for i, s in enumerate(self.shown)]

    def unanswered(self) -> list[int]:
        """1-based numbers of the questions not answered yet."""
        return [s.number for s in self.shown if s.question.id not in self.answers]

    def flagged(self) -> list[int]:
        """1-based numbers of the flagged questions."""
        return [s.number for s in self.shown if s.question.id in self.flags]

    # -- answering --------------------------------------------------------------------------
    def _check_open(self) -> None:
        if self.report is not None:
            raise SessionError("the exam is submitted: answers can no longer change")
        if self.expired:
            raise SessionError("the time is up: submit the exam to see the report")

    def choose(self, letter: str) -> frozenset[str]:
        """Choose ``letter`` on the current question: a single-answer question takes it as its
        answer (replacing an earlier one); a multiple-response question toggles the tick, and is
        answered while exactly as many are ticked as it asks for. Returns the ticks. No verdict
        is given.

        Raises:
            SessionError: submitted, time up, or a letter not shown.
        """
        self._check_open()
        shown = self.current
        shown.option(letter)
        qid = shown.question.id
        if shown.question.multiple_response:
            ticks = self.ticks.get(qid, frozenset()) ^ {letter}
        else:
            ticks = frozenset({letter})
        self.ticks[qid] = ticks
        seconds = max(0.0, self.clock() - self._shown_at)
        if len(ticks) == shown.choose:
            self.answers[qid] = ticks
            if self.sink is not None:
                chosen = tuple(o for o in shown.options if o.letter in ticks)
                self.sink.record(build_outcome(shown, chosen), seconds)
        elif qid in self.answers:
            del self.answers[qid]
            if self.sink is not None:
                self.sink.undo(qid)
        self.save()
        return ticks

    def toggle_flag(self) -> bool:
        """Flag the current question for review, or unflag it. Returns the new state."""
        if self.report is not None:
            raise SessionError("the exam is submitted")
        qid = self.current.question.id
        flagged = qid not in self.flags
        (self.flags.add if flagged else self.flags.discard)(qid)
        if self.sink is not None:
            self.sink.flag(qid, flagged)
        self.save()
        return flagged

    # -- the end ----------------------------------------------------------------------------
    def submit(self) -> ExamReport:
        """End the exam (the student submits, or the time is up) and build the report. Calling
        it again returns the same report."""
        if self.report is not None:
            return self.report
        used = min(self.elapsed, self.time_limit_s)
        timed_out = self.expired
        if self.sink is not None:
            self.sink.save_state({"elapsed_s": round(used, 3), "position": self.position,
                                  "ticks": {}})
        items = []
        for s in self.shown:
            letters = self.answers.get(s.question.id)
            outcome = None
            if letters is not None:
                outcome = build_outcome(s, tuple(o for o in s.options if o.letter in letters))
            items.append(ExamItem(s, outcome, s.question.id in self.flags))

        def tally(key: Callable[[ExamItem], str]) -> dict[str, Score]:
            result: dict[str, Score] = {}
            for item in items:
                k = key(item)
                prev = result.get(k, Score())
                result[k] = Score(correct=prev.correct + item.correct,
                                  answered=prev.answered + (item.outcome is not None),
                                  total=prev.total + 1)
            return result

        ordered = sorted(items, key=lambda it: (not (it.flagged or not it.correct),
                                                it.shown.number))
        self.report = ExamReport(
            score=Score(correct=sum(it.correct for it in items),
                        answered=sum(it.outcome is not None for it in items), total=len(items)),
            pass_mark=self.pass_mark, time_used_s=used, time_limit_s=self.time_limit_s,
            timed_out=timed_out,
            by_topic=tally(lambda it: it.shown.question.topic),
            by_difficulty=tally(lambda it: it.shown.question.difficulty or "unrated"),
            items=tuple(ordered))
        return self.report
