"""A study session: which questions, in which order, and what each answer reveals.

The TUI presents what this module decides; it never decides anything itself. One
:class:`StudySession` per run (practice, review or cram; an exam is
:class:`quiz.study.exam.ExamSession`): it draws the questions (topic filter, count, question
and option shuffling from a seeded RNG), takes answers by the letters the student saw and
returns an :class:`~quiz.study.shown.Outcome` — the verdict plus everything to reveal.
"""

from __future__ import annotations

import bisect
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, overload

from quiz.bank.model import Question
from quiz.study.mode import AnswerSink, Mode
from quiz.study.score import Score
from quiz.study.shown import (
    Outcome,
    PreparedQuestions,
    SessionError,
    ShownQuestion,
    build_outcome,
    checked_index,
)


@dataclass(frozen=True)
class SessionConfig:
    """How to draw a session from a library.

    Attributes:
        topics: topic keys to include; ``None`` means every topic.
        count: how many questions at most; ``None`` means all that match.
        shuffle: shuffle the question order and each question's options (a question with
            ``shuffle: false``, or whose text names options by letter, keeps its options in
            bank order: :attr:`quiz.bank.model.Question.keeps_order`).
        seed: seed of the random generator, for a reproducible order; ``None`` draws one.
        question_ids: restrict to these ids, in this order (e.g. "retry what I missed").
        tags: keep questions with at least one of these tags; ``None`` means any.
        difficulties: keep questions of these difficulties (``easy``, ``medium``, ``hard``);
            ``None`` means any.
        ordered: keep the order of ``question_ids`` even when shuffling (a review queue: due
            first); options are still shuffled.
    """

    topics: frozenset[str] | None = None
    count: int | None = None
    shuffle: bool = True
    seed: int | None = None
    question_ids: tuple[str, ...] | None = None
    tags: frozenset[str] | None = None
    difficulties: frozenset[str] | None = None
    ordered: bool = False

    @property
    def filters_nothing(self) -> bool:
        """True when no topic, tag or difficulty filter is set (every question matches)."""
        return self.topics is None and self.tags is None and self.difficulties is None

    def matches(self, question: Question) -> bool:
        """True when ``question`` passes the topic, tag and difficulty filters."""
        return ((self.topics is None or question.topic in self.topics)
                and (self.tags is None or not self.tags.isdisjoint(question.tags))
                and (self.difficulties is None or question.difficulty in self.difficulties))


def draw_questions(questions: Sequence[Question],
                   config: SessionConfig = SessionConfig()) -> PreparedQuestions:
    """Draw a practice, review or cram session's questions from ``questions`` according to
    ``config`` (no question is prepared: options are shuffled when each is first read). The
    costly part of starting a session (shuffling the library is O(n)), so it can be done
    ahead of time and given to :class:`StudySession`.

    Raises:
        SessionError: when no question matches the topics or ids asked for, or the count is
            below 1.
    """
    rng = random.Random(config.seed)
    pool = list(questions)
    if config.question_ids is not None:
        by_id = {q.id: q for q in pool}
        pool = [by_id[i] for i in config.question_ids if i in by_id]
    if not config.filters_nothing:  # a session of everything reads no question here
        pool = [q for q in pool if config.matches(q)]
    if not pool:
        raise SessionError("no question matches: choose at least one topic with questions"
                           + (" (and check the tag and difficulty filters)"
                              if config.tags or config.difficulties else ""))
    if config.count is not None and config.count < 1:
        raise SessionError("the number of questions must be at least 1")
    if config.shuffle and not (config.ordered and config.question_ids is not None):
        rng.shuffle(pool)
    if config.count is not None:
        pool = pool[: config.count]
    # Each question's options are shuffled when it is first read, by its own generator
    # (this seed and its id): a seed gives the same letters whichever questions are visited,
    # and starting a session costs nothing per question.
    option_seed = rng.getrandbits(64) if config.shuffle else None
    # Computed questions with vary: one variant each, drawn as it is first read (this seed
    # and its id), kept in the plan (issue 20 §3).
    variant_seed = rng.getrandbits(63)
    return PreparedQuestions(pool, option_seed=option_seed, variant_seed=variant_seed)


@dataclass
class StudySession:
    """A practice, review or cram session over a list of questions.

    Build it with :meth:`from_questions` (or :meth:`from_plan` to resume). ``position`` is the
    0-based index of the current question; ``outcomes`` maps question id → :class:`Outcome` for
    answered questions, ``ratings`` question id → review rating (1 Again … 4 Easy) for the
    answers that moved the schedule, ``flags`` the ids flagged for review. ``clock`` (seconds,
    monotonic) times each answer from the moment its question became current; ``sink``
    receives every answer and flag as it is given. ``mode``, ``sink`` and ``clock`` are given
    when the session is made (:class:`quiz.study.lifecycle.Lifecycle` makes every session).
    """

    shown: Sequence[ShownQuestion]
    topic_names: dict[str, str] = field(default_factory=dict)
    position: int = 0
    outcomes: dict[str, Outcome] = field(default_factory=dict)
    mode: Mode = Mode.PRACTICE
    ratings: dict[str, int] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)
    sink: AnswerSink | None = None
    clock: Callable[[], float] = time.monotonic
    _shown_at: float | None = None
    _answer_order: list[str] = field(default_factory=list)
    _topic_totals: dict[str, int] | None = field(default=None, init=False, repr=False,
                                                 compare=False)
    """Questions per topic, in the order topics first appear (counted once: they never
    change)."""
    _plan: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)
    """The :meth:`plan`, made once: what was drawn never changes."""

    def __post_init__(self) -> None:
        if self._shown_at is None:
            self._shown_at = self.clock()

    @classmethod
    def from_questions(
        cls,
        questions: Sequence[Question],
        config: SessionConfig = SessionConfig(),
        topic_names: dict[str, str] | None = None,
        *,
        mode: Mode = Mode.PRACTICE,
        sink: AnswerSink | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> StudySession:
        """Draw a session from ``questions`` according to ``config`` (:func:`draw_questions`).

        Raises:
            SessionError: when no question matches the topics or ids asked for, or the count
                is below 1.
        """
        return cls(shown=draw_questions(questions, config), topic_names=dict(topic_names or {}),
                   mode=mode, sink=sink, clock=clock)

    @classmethod
    def from_plan(cls, questions: Sequence[Question], plan: dict[str, Any],
                  topic_names: dict[str, str] | None = None, *, mode: Mode = Mode.PRACTICE,
                  sink: AnswerSink | None = None,
                  clock: Callable[[], float] = time.monotonic) -> StudySession:
        """Rebuild a session from its stored :meth:`plan` (to resume it): the same questions in
        the same order, with the same option letters. Questions no longer in ``questions``
        are left out.

        Raises:
            SessionError: when none of the plan's questions is left.
        """
        by_id = {q.id: q for q in questions}
        kept = [(by_id[qid], keys) for qid, keys in plan_entries(plan) if qid in by_id]
        if not kept:
            raise SessionError("none of this session's questions is in the bank any more")
        seed = plan.get("option_seed")
        option_seed = int(seed) if isinstance(seed, int | str) and str(seed).isdigit() else None

        def order(q: Question, keys: str) -> tuple[str, ...] | None:
            if keys and sorted(keys) == sorted(q.options):
                return tuple(keys)
            if not keys and option_seed is not None:
                return None  # drawn from the seed, as when the session began
            return tuple(q.options)  # the question's options changed since: bank order

        orders = [order(q, keys) for q, keys in kept]
        seed = plan.get("variant_seed")
        variant_seed = int(seed) if isinstance(seed, int | str) and str(seed).isdigit() else None
        variants = plan.get("variants")
        shown = PreparedQuestions([q for q, _ in kept], orders, option_seed=option_seed,
                                  variant_seed=variant_seed,
                                  variants=variants if isinstance(variants, dict) else None)
        return cls(shown=shown, topic_names=dict(topic_names or {}), mode=mode, sink=sink,
                   clock=clock)

    def plan(self) -> dict[str, Any]:
        """What was drawn, as JSON data for the store (read back by :func:`plan_entries`).

        When no question has a given option order, ``ids`` is the question ids in session
        order, one per line (a 100,000-question session's plan is one string, written in a
        few milliseconds); otherwise ``questions`` is a list of ``[question id, option keys in
        the order shown]``. Keys are ``""`` for a question whose order is drawn when it is
        shown: from ``option_seed`` (a string of digits: some JSON readers lose 64-bit
        integers), or bank order without one. ``variant_seed`` and ``variants`` (question id →
        the values drawn, keyed as in its ``vary:``) keep the variant of each computed question
        with ``vary:``, so a resumed session shows the same numbers. Made once (reading every
        question, about 100 ms at 100,000 questions), then copied."""
        if self._plan is None:
            self._plan = self._make_plan()
        return dict(self._plan)

    def _make_plan(self) -> dict[str, Any]:
        shown = self.shown
        if isinstance(shown, PreparedQuestions):  # without preparing or drawing any question
            plan: dict[str, Any] = (
                {"ids": "\n".join([q.id for q in shown.questions])}
                if not shown.has_given_orders else
                {"questions": [[q.id, "".join(shown.keys_shown(i)) if shown.given_order(i)
                                else ""] for i, q in enumerate(shown.questions)]})
            if shown.option_seed is not None:
                plan["option_seed"] = str(shown.option_seed)
            variants = {q.id: shown.variant_of(i) for i, q in enumerate(shown.questions)
                        if q.vary}
            if variants:
                plan["variants"] = variants
                if shown.variant_seed is not None:
                    plan["variant_seed"] = str(shown.variant_seed)
            return plan
        return {"questions": [[s.question.id, "".join(o.key for o in s.options)]
                              for s in shown]}

    # -- navigation -------------------------------------------------------------------------
    @property
    def current(self) -> ShownQuestion:
        """The question at ``position``."""
        return self.shown[self.position]

    @property
    def total(self) -> int:
        """Number of questions in the session."""
        return len(self.shown)

    def go(self, position: int) -> ShownQuestion:
        """Move to ``position`` (clamped to the session) and return that question; its answer
        time starts now."""
        self.position = max(0, min(position, self.total - 1))
        self._shown_at = self.clock()
        return self.current

    def next(self) -> ShownQuestion:
        """Move to the next question (stays on the last one)."""
        return self.go(self.position + 1)

    def previous(self) -> ShownQuestion:
        """Move to the previous question (stays on the first one)."""
        return self.go(self.position - 1)

    @property
    def at_last(self) -> bool:
        """True on the last question."""
        return self.position == self.total - 1

    # -- answering --------------------------------------------------------------------------
    def outcome(self, shown: ShownQuestion | None = None) -> Outcome | None:
        """The outcome of a question (default: the current one), or None if unanswered."""
        return self.outcomes.get((shown or self.current).question.id)

    def answer(self, letters: Iterable[str]) -> Outcome:
        """Answer the current question with the letters the student saw.

        A single-answer question takes one letter; a multiple-response question takes exactly
        :attr:`ShownQuestion.choose` distinct letters. Scored right only when the chosen set is
        exactly the answer key.

        Raises:
            SessionError: already answered, a letter not shown, or the wrong number chosen.
        """
        shown = self.current
        if shown.question.id in self.outcomes:
            raise SessionError("this question is already answered; move on with next")
        chosen_letters = sorted({letter.upper() for letter in letters})
        chosen = tuple(shown.option(letter) for letter in chosen_letters)
        if len(chosen) != shown.choose:
            raise SessionError(
                f"choose {shown.choose} option{'s' if shown.choose > 1 else ''} "
                f"(you chose {len(chosen)})"
            )
        outcome = build_outcome(shown, chosen)
        q = shown.question
        now = self.clock()
        seconds = max(0.0, now - (self._shown_at if self._shown_at is not None else now))
        if self.sink is not None:
            rating = self.sink.record(outcome, seconds)
            if rating is not None:
                self.ratings[q.id] = rating
        self.outcomes[q.id] = outcome
        self._answer_order.append(q.id)
        return outcome

    def rate(self, rating: int) -> None:
        """Override the review rating of the current question's answer (1 Again, 2 Hard,
        3 Good, 4 Easy), as the student may after the reveal.

        Raises:
            SessionError: the question is not answered, or its answer does not move the
                review schedule (exam and cram answers), or the rating is not 1–4.
        """
        qid = self.current.question.id
        if not 1 <= rating <= 4:
            raise SessionError("a rating is 1 (Again), 2 (Hard), 3 (Good) or 4 (Easy)")
        if qid not in self.ratings or self.sink is None:
            raise SessionError("only practice and review answers have a review rating")
        self.sink.rerate(qid, rating)
        self.ratings[qid] = rating

    def toggle_flag(self) -> bool:
        """Flag the current question for review (a cram session goes over flagged ones), or
        unflag it. Returns the new state."""
        qid = self.current.question.id
        flagged = qid not in self.flags
        (self.flags.add if flagged else self.flags.discard)(qid)
        if self.sink is not None:
            self.sink.flag(qid, flagged)
        return flagged

    def undo(self) -> ShownQuestion:
        """Take back the most recent answer (its record and its schedule change together) and
        go back to that question.

        Raises:
            SessionError: nothing answered yet in this session.
        """
        if not self._answer_order:
            raise SessionError("nothing to undo: no answer given in this session yet")
        qid = self._answer_order.pop()
        if self.sink is not None:
            self.sink.undo(qid)
        del self.outcomes[qid]
        self.ratings.pop(qid, None)
        return self.go(self._index_of(qid))

    def restore(self, question_id: str, keys: Iterable[str]) -> None:
        """Put back an answer given before an interruption (by the bank's option keys),
        without recording it again. Unknown questions are ignored."""
        try:
            shown = self.shown[self._index_of(question_id)]
        except ValueError:
            return
        chosen = tuple(o for o in shown.options if o.key in set(keys))
        self.outcomes[question_id] = build_outcome(shown, chosen)
        self._answer_order.append(question_id)

    def _index_of(self, question_id: str) -> int:
        """Position of a question in the session (``ValueError`` if absent), without preparing
        the questions on the way."""
        if isinstance(self.shown, PreparedQuestions):
            return self.shown.index_of(question_id)
        for i, s in enumerate(self.shown):
            if s.question.id == question_id:
                return i
        raise ValueError(f"no question {question_id!r} in this session")

    # -- scoring ----------------------------------------------------------------------------
    @property
    def score(self) -> Score:
        """The running score over the whole session."""
        return Score(
            correct=sum(o.correct for o in self.outcomes.values()),
            answered=len(self.outcomes),
            total=self.total,
        )

    def score_by_topic(self) -> dict[str, Score]:
        """Score per topic key, in the order topics first appear in the session. The questions
        per topic are counted once, in one pass over the session's questions (none prepared);
        after that the score costs one step per answer."""
        if self._topic_totals is None:
            totals: dict[str, int] = {}
            for q in self.questions:
                totals[q.topic] = totals.get(q.topic, 0) + 1
            self._topic_totals = totals
        tallies = {topic: [0, 0] for topic in self._topic_totals}
        for out in self.outcomes.values():
            tally = tallies[out.shown.question.topic]
            tally[1] += 1
            tally[0] += out.correct
        return {topic: Score(correct=c, answered=a, total=self._topic_totals[topic])
                for topic, (c, a) in tallies.items()}

    @property
    def finished(self) -> bool:
        """True when every question is answered."""
        return len(self.outcomes) == self.total

    def missed_ids(self) -> tuple[str, ...]:
        """Ids of questions answered wrongly or left unanswered, in session order."""
        questions = self.questions
        return tuple(questions[i].id for i in self.missed_positions())

    def missed_positions(self) -> Sequence[int]:
        """0-based positions of the questions answered wrongly or left unanswered, in session
        order: every position but those answered right, found from the answers alone (none
        prepared, no pass over the session's questions)."""
        if isinstance(self.shown, PreparedQuestions):  # numbers are positions + 1
            right = sorted(o.shown.number - 1 for o in self.outcomes.values() if o.correct)
            return _AllBut(self.total, right)
        outcomes = self.outcomes
        return [i for i, q in enumerate(self.questions)
                if not (o := outcomes.get(q.id)) or not o.correct]

    def missed(self) -> Sequence[ShownQuestion]:
        """The questions answered wrongly or left unanswered, in session order. Each is
        prepared only when read: a summary of a 100,000-question session that shows the first
        100 prepares 100."""
        return _Selected(self.shown, self.missed_positions())

    @property
    def questions(self) -> Sequence[Question]:
        """The session's questions in session order, without preparing them."""
        if isinstance(self.shown, PreparedQuestions):
            return self.shown.questions
        return [s.question for s in self.shown]


def plan_entries(plan: dict[str, Any]) -> list[tuple[str, str]]:
    """``(question id, option keys shown)`` for each question of a stored :meth:`StudySession.plan`
    (or an exam's), in session order: keys ``""`` where the order is drawn when shown. Reads
    both forms: ``ids`` (ids one per line) and ``questions`` (``[id, keys]`` pairs)."""
    ids = plan.get("ids")
    if isinstance(ids, str):
        return [(qid, "") for qid in ids.split("\n")] if ids else []
    return [(str(entry[0]), str(entry[1]) if len(entry) > 1 else "")
            for entry in plan.get("questions", ())]


class _AllBut(Sequence[int]):
    """The integers ``0 … total - 1`` except the sorted ``excluded`` ones, without listing
    them: the k-th is found by stepping over the excluded ones before it."""

    def __init__(self, total: int, excluded: list[int]) -> None:
        self._total = total
        self._excluded = excluded

    def __len__(self) -> int:
        return self._total - len(self._excluded)

    def __iter__(self) -> Iterator[int]:
        excluded = iter(self._excluded)
        skip = next(excluded, None)
        for i in range(self._total):
            if i == skip:
                skip = next(excluded, None)
            else:
                yield i

    @overload
    def __getitem__(self, index: int) -> int: ...

    @overload
    def __getitem__(self, index: slice) -> list[int]: ...

    def __getitem__(self, index: int | slice) -> int | list[int]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        k = checked_index(index, len(self), "position")
        skipped = 0
        while True:  # k plus the excluded numbers up to it; they only grow, so this ends
            now = bisect.bisect_right(self._excluded, k + skipped)
            if now == skipped:
                return k + skipped
            skipped = now


class _Selected(Sequence[ShownQuestion]):
    """The questions of ``shown`` at ``positions``, read (and so prepared) one at a time."""

    def __init__(self, shown: Sequence[ShownQuestion], positions: Sequence[int]) -> None:
        self._shown = shown
        self.positions = positions
        """0-based positions in the session, in session order."""

    def __len__(self) -> int:
        return len(self.positions)

    @overload
    def __getitem__(self, index: int) -> ShownQuestion: ...

    @overload
    def __getitem__(self, index: slice) -> list[ShownQuestion]: ...

    def __getitem__(self, index: int | slice) -> ShownQuestion | list[ShownQuestion]:
        if isinstance(index, slice):
            return [self._shown[i] for i in self.positions[index]]
        return self._shown[self.positions[index]]

