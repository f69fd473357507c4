"""A study session: which questions, in which order, with which option letters, and what each
answer reveals.

The TUI presents what this module decides; it never decides anything itself. One
:class:`StudySession` per run: it draws the questions (topic filter, count, question and option
shuffling from a seeded RNG), takes answers by the letters the student saw and returns an
:class:`Outcome` — the verdict plus everything to reveal, already translated to those letters, so
shuffled options can never contradict their explanations.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from quiz.bank.model import OPTION_KEYS, Infographic, Question, WorkedExample


class SessionError(ValueError):
    """An action the session cannot take (answering twice, choosing the wrong number of
    options, a letter that is not shown). The message says what to do instead."""


@dataclass(frozen=True)
class SessionConfig:
    """How to draw a session from a library.

    Attributes:
        topics: topic keys to include; ``None`` means every topic.
        count: how many questions at most; ``None`` means all that match.
        shuffle: shuffle the question order and each question's options (a question with
            ``shuffle: false`` keeps its options in bank order).
        seed: seed of the random generator, for a reproducible order; ``None`` draws one.
        question_ids: restrict to these ids, in this order (e.g. "retry what I missed").
    """

    topics: frozenset[str] | None = None
    count: int | None = None
    shuffle: bool = True
    seed: int | None = None
    question_ids: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ShownOption:
    """An option as the student sees it: the ``letter`` shown, the bank's ``key`` behind it,
    and its text."""

    letter: str
    key: str
    text: str


@dataclass(frozen=True)
class ShownQuestion:
    """A question as presented: its 1-based ``number`` of ``total``, and its options in the
    order and under the letters shown."""

    number: int
    total: int
    question: Question
    options: tuple[ShownOption, ...]

    @property
    def choose(self) -> int:
        """How many options the student must choose (1 for a single-answer question)."""
        return len(self.question.answer_keys)

    @property
    def letters(self) -> str:
        """The letters shown, in order, e.g. ``"ABCD"``."""
        return "".join(o.letter for o in self.options)

    def option(self, letter: str) -> ShownOption:
        """The option shown under ``letter``. Raises :class:`SessionError` if none is."""
        for o in self.options:
            if o.letter == letter:
                return o
        raise SessionError(f"there is no option {letter} (options: {', '.join(self.letters)})")

    def letter_of(self, key: str) -> str:
        """The letter under which the bank's option ``key`` is shown."""
        for o in self.options:
            if o.key == key:
                return o.letter
        raise KeyError(key)


@dataclass(frozen=True)
class DistractorNote:
    """One wrong option in the reveal: the option as shown, why it is wrong, and whether the
    student chose it."""

    option: ShownOption
    review: str
    chosen: bool


@dataclass(frozen=True)
class Outcome:
    """The result of answering: the verdict and everything the reveal shows, in the order the
    source documents use (verdict → short explanation → infographic → full explanation →
    distractor review)."""

    shown: ShownQuestion
    chosen: tuple[ShownOption, ...]
    right: tuple[ShownOption, ...]
    correct: bool
    distractor_review: tuple[DistractorNote, ...]

    @property
    def short_explanation(self) -> str:
        """The question's short explanation (plain, with an analogy)."""
        return self.shown.question.short_explanation

    @property
    def infographic(self) -> Infographic | None:
        """The question's infographic, if it has one."""
        return self.shown.question.infographic

    @property
    def full_explanation(self) -> str:
        """The question's full explanation."""
        return self.shown.question.full_explanation

    @property
    def worked_example(self) -> WorkedExample | None:
        """The question's worked example (a calculator scenario), if it has one."""
        return self.shown.question.worked_example

    @property
    def references(self) -> tuple[str, ...]:
        """The question's references."""
        return tuple(self.shown.question.references)

    @property
    def verdict(self) -> str:
        """One line: right or wrong, which option was right and what was chosen, by letter."""
        right = ", ".join(o.letter for o in self.right)
        chosen = ", ".join(o.letter for o in self.chosen)
        if self.correct:
            return f"Correct: {right}."
        noun = "answers were" if len(self.right) > 1 else "answer was"
        return f"Not quite: the right {noun} {right}; you chose {chosen}."


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


@dataclass
class StudySession:
    """A practice session over a list of questions.

    Build it with :meth:`from_library`. ``position`` is the 0-based index of the current
    question; ``outcomes`` maps question id → :class:`Outcome` for answered questions.
    """

    shown: list[ShownQuestion]
    topic_names: dict[str, str] = field(default_factory=dict)
    position: int = 0
    outcomes: dict[str, Outcome] = field(default_factory=dict)

    @classmethod
    def from_questions(
        cls,
        questions: Sequence[Question],
        config: SessionConfig = SessionConfig(),
        topic_names: dict[str, str] | None = None,
    ) -> StudySession:
        """Draw a session from ``questions`` according to ``config``.

        Raises:
            SessionError: when no question matches the topics or ids asked for, or the count
                is below 1.
        """
        rng = random.Random(config.seed)
        pool = list(questions)
        if config.question_ids is not None:
            by_id = {q.id: q for q in pool}
            pool = [by_id[i] for i in config.question_ids if i in by_id]
        if config.topics is not None:
            pool = [q for q in pool if q.topic in config.topics]
        if not pool:
            raise SessionError("no question matches: choose at least one topic with questions")
        if config.count is not None and config.count < 1:
            raise SessionError("the number of questions must be at least 1")
        if config.shuffle:
            rng.shuffle(pool)
        if config.count is not None:
            pool = pool[: config.count]
        shown = [
            ShownQuestion(
                number=i + 1,
                total=len(pool),
                question=q,
                options=_shown_options(q, rng if config.shuffle and q.shuffle else None),
            )
            for i, q in enumerate(pool)
        ]
        return cls(shown=shown, topic_names=dict(topic_names or {}))

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
        """Move to ``position`` (clamped to the session) and return that question."""
        self.position = max(0, min(position, self.total - 1))
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
        q = shown.question
        chosen_keys = {o.key for o in chosen}
        right = tuple(o for o in shown.options if o.key in q.answer_keys)
        outcome = Outcome(
            shown=shown,
            chosen=chosen,
            right=right,
            correct=chosen_keys == q.answer_keys,
            distractor_review=tuple(
                DistractorNote(option=o, review=q.distractor_review[o.key],
                               chosen=o.key in chosen_keys)
                for o in shown.options
                if o.key not in q.answer_keys
            ),
        )
        self.outcomes[q.id] = outcome
        return outcome

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
        """Score per topic key, in the order topics first appear in the session."""
        result: dict[str, Score] = {}
        for s in self.shown:
            topic = s.question.topic
            prev = result.get(topic, Score())
            out = self.outcomes.get(s.question.id)
            result[topic] = Score(
                correct=prev.correct + (1 if out is not None and out.correct else 0),
                answered=prev.answered + (1 if out is not None else 0),
                total=prev.total + 1,
            )
        return result

    @property
    def finished(self) -> bool:
        """True when every question is answered."""
        return len(self.outcomes) == self.total

    def missed_ids(self) -> tuple[str, ...]:
        """Ids of questions answered wrongly or left unanswered, in session order."""
        return tuple(
            s.question.id
            for s in self.shown
            if not (o := self.outcomes.get(s.question.id)) or not o.correct
        )


def _shown_options(question: Question, rng: random.Random | None) -> tuple[ShownOption, ...]:
    """Assign shown letters A, B, … to the question's options, shuffled when ``rng`` is given."""
    keys = list(question.options)
    if rng is not None:
        rng.shuffle(keys)
    return tuple(
        ShownOption(letter=OPTION_KEYS[i], key=key, text=question.options[key])
        for i, key in enumerate(keys)
    )
