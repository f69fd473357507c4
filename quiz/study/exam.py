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
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, ClassVar

from quiz.bank.model import Question
from quiz.study.mode import AnswerSink, Mode
from quiz.study.score import Score
from quiz.study.session import SessionConfig, StudySession
from quiz.study.shown import (
    Outcome,
    SessionError,
    ShownQuestion,
    build_outcome,
    option_order,
    shown_question,
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
    if config.question_ids is not None:  # a retake of some questions (the ones missed)
        wanted = set(config.question_ids)
        pool = [q for q in pool if q.id in wanted]
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
    return [shown_question(q, i + 1, len(drawn),
                           option_order(q, rng if config.shuffle else None))
            for i, q in enumerate(drawn)]


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
    seconds: float = 0.0
    """Seconds spent on the question during the exam (every visit, pauses left out)."""
    ticked: frozenset[str] = frozenset()
    """Letters ticked on a multiple-response question left incomplete (fewer ticks than it
    asks for, so not an answer: ``outcome`` is ``None``); empty otherwise."""

    @property
    def incomplete(self) -> bool:
        """True when some options were ticked but not as many as the question asks for."""
        return self.outcome is None and bool(self.ticked)

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
    pauses: tuple[float, ...] = ()
    """Seconds of each pause taken (the clock stopped, the question hidden; a quit and a
    resumption count as one). An exam with pauses was not taken in one timed sitting."""
    strict: bool = False
    """The clock ran in wall time, with no pause (``--strict``)."""

    @property
    def sheet(self) -> tuple[ExamItem, ...]:
        """Every question in exam order (the answer sheet)."""
        return tuple(sorted(self.items, key=lambda it: it.shown.number))

    @property
    def paused_s(self) -> float:
        """Seconds paused in all."""
        return sum(self.pauses)

    @property
    def fraction(self) -> float:
        """Right answers over all questions (0.0 for an empty exam)."""
        return self.score.correct / self.score.total if self.score.total else 0.0

    @property
    def passed(self) -> bool:
        """True when right/total reaches the pass mark (:func:`quiz.study.score.passes`, the
        one rule: exact, and an exam of 0 questions does not pass)."""
        return self.score.passed(self.pass_mark)


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
    strict: bool = False
    """A strict exam: no pause, and its clock runs in wall time (``wall_clock``) through a
    quit or a crash, as at a test centre."""
    wall_clock: Callable[[], float] | None = None
    """Seconds since the epoch, for a strict exam's clock (default :func:`time.time`)."""
    started_wall: float | None = None
    """When a strict exam began, in ``wall_clock`` seconds."""
    time_on: dict[str, float] = field(default_factory=dict)
    """Seconds spent on each question so far, by question id (pauses left out)."""
    pauses: list[float] = field(default_factory=list)
    """Seconds of each pause ended so far."""
    paused_at: float | None = None
    """When the pause under way began (``clock`` seconds), or ``None``."""
    sink: AnswerSink | None = None
    position: int = 0
    answers: dict[str, frozenset[str]] = field(default_factory=dict)
    ticks: dict[str, frozenset[str]] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    report: ExamReport | None = None
    _started: float = 0.0
    _shown_at: float = 0.0
    _credited_at: float = 0.0
    _paused_this_run: float = field(default=0.0, init=False, repr=False)

    def __post_init__(self) -> None:
        self._started = self._shown_at = self._credited_at = self.clock()
        if self.strict and self.started_wall is None:
            self.started_wall = self._wall()

    mode: ClassVar[Mode] = Mode.EXAM

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def draw(cls, questions: Sequence[Question], config: SessionConfig, *,
             minutes: float | None = None, bank_minutes: float | None = None,
             pass_mark: float = 0.7, topic_names: dict[str, str] | None = None,
             clock: Callable[[], float] = time.monotonic,
             sink: AnswerSink | None = None, strict: bool = False,
             wall_clock: Callable[[], float] | None = None) -> ExamSession:
        """Draw a new exam (see :func:`draw_exam` and :func:`time_limit_seconds`);
        ``strict``: its clock runs in ``wall_clock`` time, with no pause."""
        shown = draw_exam(questions, config)
        return cls(shown=shown, time_limit_s=time_limit_seconds(len(shown), minutes,
                                                                bank_minutes),
                   pass_mark=pass_mark, topic_names=dict(topic_names or {}), clock=clock,
                   sink=sink, strict=strict, wall_clock=wall_clock)

    def plan(self) -> dict[str, Any]:
        """What was drawn and the exam's settings, as JSON data for the store (a strict
        exam's start in wall-clock seconds too)."""
        plan: dict[str, Any] = {
            "questions": [[s.question.id, "".join(o.key for o in s.options)]
                          for s in self.shown],
            "time_limit_s": self.time_limit_s, "pass_mark": self.pass_mark}
        if self.strict:
            plan["strict"] = True
            plan["started_wall"] = self.started_wall
        return plan

    def _wall(self) -> float:
        return (self.wall_clock or time.time)()

    @classmethod
    def resume(cls, questions: Sequence[Question], plan: dict[str, Any], state: dict[str, Any],
               answers: Iterable[tuple[str, Iterable[str]]], flags: Iterable[str], *,
               topic_names: dict[str, str] | None = None,
               clock: Callable[[], float] = time.monotonic,
               sink: AnswerSink | None = None,
               wall_clock: Callable[[], float] | None = None) -> ExamSession:
        """Rebuild an interrupted exam with the time it had left: the same questions and
        letters, the answers (by bank option keys) and flags given so far, the time spent
        on each question and the pauses. The time between the quit and now counts as a
        pause; a strict exam's clock ran on meanwhile (wall time).

        Raises:
            SessionError: none of its questions is in the bank any more.
        """
        shown = list(StudySession.from_plan(questions, plan).shown)
        strict = bool(plan.get("strict", False))
        started_wall = plan.get("started_wall")
        exam = cls(shown=shown, time_limit_s=float(plan["time_limit_s"]),
                   pass_mark=float(plan.get("pass_mark", 0.7)),
                   topic_names=dict(topic_names or {}), clock=clock,
                   elapsed_before=float(state.get("elapsed_s", 0.0)), strict=strict,
                   wall_clock=wall_clock,
                   started_wall=float(started_wall) if started_wall is not None else None)
        exam.time_on = {str(k): float(v) for k, v in dict(state.get("time_on", {})).items()}
        exam.pauses = [float(p) for p in state.get("pauses", ())]
        saved_wall = state.get("saved_wall")
        if not strict and isinstance(saved_wall, int | float):
            exam.pauses.append(max(0.0, exam._wall() - float(saved_wall)))
        # The sink is given once the answers are back: resuming records nothing again.
        exam.sink = sink
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

    @classmethod
    def stored_report(cls, questions: Sequence[Question], plan: dict[str, Any],
                      state: dict[str, Any], answers: Iterable[tuple[str, Iterable[str]]],
                      flags: Iterable[str], *,
                      topic_names: dict[str, str] | None = None) -> ExamReport:
        """The report of a submitted exam, rebuilt from what the store kept (its plan, its
        last state, answers and flags): the same score, time used, time per question and
        pauses as when it was submitted.

        Raises:
            SessionError: none of its questions is in the bank any more.
        """
        saved = state.get("saved_wall")
        exam = cls.resume(questions, {**plan, "strict": False}, state, answers, flags,
                          topic_names=topic_names, clock=lambda: 0.0,
                          wall_clock=lambda: float(saved) if isinstance(saved, int | float)
                          else 0.0)
        exam.pauses = [float(p) for p in state.get("pauses", ())]
        return replace(exam.submit(), strict=bool(plan.get("strict", False)))

    # -- clock ------------------------------------------------------------------------------
    @property
    def elapsed(self) -> float:
        """Seconds used so far (frozen once submitted)."""
        if self.report is not None:
            return self.report.time_used_s
        if self.strict and self.started_wall is not None:
            return max(0.0, self._wall() - self.started_wall)
        now = self.clock() if self.paused_at is None else self.paused_at
        return self.elapsed_before + (now - self._started) - self._paused_this_run

    @property
    def paused(self) -> bool:
        """True while a pause is under way (the clock stopped, the question hidden)."""
        return self.paused_at is not None

    def pause(self) -> None:
        """Stop the clock and hide the question until :meth:`unpause`.

        Raises:
            SessionError: a strict exam (no pause), or the exam is submitted.
        """
        if self.strict:
            raise SessionError("a strict exam has no pause: its clock runs as at a test centre")
        if self.report is not None:
            raise SessionError("the exam is submitted")
        if self.paused_at is None:
            self._credit()
            self.paused_at = self.clock()
            self.save()

    def unpause(self) -> None:
        """Start the clock again after :meth:`pause`; the pause is counted in the report."""
        if self.paused_at is None:
            return
        now = self.clock()
        length = max(0.0, now - self.paused_at)
        self.pauses.append(length)
        self._paused_this_run += length
        self.paused_at = None
        self._credited_at = now
        self._shown_at += length
        self.save()

    def _credit(self) -> None:
        """Add the time since it was last counted to the current question's time."""
        now = self.clock()
        if self.paused_at is None and self.report is None and self.shown:
            qid = self.current.question.id
            self.time_on[qid] = self.time_on.get(qid, 0.0) + max(0.0, now - self._credited_at)
        self._credited_at = now

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
            self._credit()
            self.sink.save_state(self._state(self.elapsed, self._partial_ticks()))

    def _state(self, elapsed: float, ticks: dict[str, list[str]]) -> dict[str, Any]:
        return {"elapsed_s": round(elapsed, 3), "position": self.position, "ticks": ticks,
                "time_on": {k: round(v, 3) for k, v in self.time_on.items()},
                "pauses": [round(p, 3) for p in self.pauses], "saved_wall": self._wall()}

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
        self._credit()
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

    def answer(self, letters: Iterable[str]) -> frozenset[str]:
        """Make ``letters`` the current question's choice (a multiple-response question's
        ticks): the question counts as answered while exactly as many are chosen as it asks
        for, and the answer can be changed until the exam is submitted. Returns the choice. No
        verdict is given. The exam's one way to answer (:meth:`choose` toggles through it).

        Raises:
            SessionError: submitted, time up, a letter not shown, or more than one letter for
                a single-answer question.
        """
        self._check_open()
        shown = self.current
        ticks = frozenset(letter.upper() for letter in letters)
        for letter in ticks:
            shown.option(letter)
        if len(ticks) > shown.choose and not shown.question.multiple_response:
            raise SessionError("choose one option")
        qid = shown.question.id
        if self.ticks.get(qid, frozenset()) == ticks:
            return ticks  # the choice it already has: nothing to record again
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

    def choose(self, letter: str) -> frozenset[str]:
        """Choose ``letter`` on the current question: a single-answer question takes it as its
        answer (replacing an earlier one); a multiple-response question toggles the tick
        (:meth:`answer` with the ticks changed). Returns the ticks.

        Raises:
            SessionError: submitted, time up, or a letter not shown.
        """
        self._check_open()
        shown = self.current
        shown.option(letter)
        if shown.question.multiple_response:
            return self.answer(self.ticks.get(shown.question.id, frozenset()) ^ {letter})
        return self.answer({letter})

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
        self.unpause()
        self._credit()
        used = min(self.elapsed, self.time_limit_s)
        timed_out = self.expired
        if self.sink is not None:  # incomplete ticks stay, for the report read again later
            self.sink.save_state(self._state(used, self._partial_ticks()))
        items = []
        for s in self.shown:
            letters = self.answers.get(s.question.id)
            outcome = None
            if letters is not None:
                outcome = build_outcome(s, tuple(o for o in s.options if o.letter in letters))
            ticked = frozenset() if outcome else self.ticks.get(s.question.id, frozenset())
            items.append(ExamItem(s, outcome, s.question.id in self.flags,
                                  round(self.time_on.get(s.question.id, 0.0), 3), ticked))

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
            items=tuple(ordered), pauses=tuple(self.pauses), strict=self.strict)
        return self.report
