"""Questions as the student sees them: option letters, what an answer reveals.

:class:`ShownQuestion` is a question with its options in the order and under the letters
shown (:func:`shown_question`, the one drawing of options for every mode);
:class:`PreparedQuestions` prepares a session's questions as they are read; :class:`Outcome`
is what an answer reveals, already translated to those letters, so shuffled options can never
contradict their explanations.
"""

from __future__ import annotations

import operator
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, SupportsIndex, overload

from quiz.bank.model import OPTION_KEYS, Infographic, Question, WorkedExample


def checked_index(index: SupportsIndex, length: int, what: str) -> int:
    """``index`` of a sequence of ``length`` items as a position from 0, a negative one counted
    from the end, as a list does. Raises ``IndexError`` ("``what`` index out of range") when
    there is no such item, ``TypeError`` when ``index`` is no integer."""
    i = operator.index(index)
    if i < 0:
        i += length
    if not 0 <= i < length:
        raise IndexError(f"{what} index out of range")
    return i

class SessionError(ValueError):
    """An action the session cannot take (answering twice, choosing the wrong number of
    options, a letter that is not shown). The message says what to do instead."""


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


class PreparedQuestions(Sequence[ShownQuestion]):
    """A session's questions in session order, each prepared as a :class:`ShownQuestion` the
    first time it is read (then kept), so starting a session over 100,000 questions does not
    build 100,000 of them, nor shuffle their options.

    ``questions`` are the bank's questions in session order. A question's options are shown in
    the order ``orders`` gives for it; where ``orders`` is ``None`` (or its entry is), they are
    shuffled by a generator seeded with ``option_seed`` and the question's id — the same letters
    for the same seed, whichever questions are read and in whichever order — or, without
    ``option_seed``, kept in bank order. A question that
    :attr:`~quiz.bank.model.Question.keeps_order` is never shuffled. Reading by index prepares
    one question; iterating prepares them all (use :attr:`questions` and :meth:`keys_shown`
    to look without preparing).

    A computed question with ``vary:`` is shown in one variant (:meth:`variant_of`): the one
    ``variants`` gives for its id (a resumed session's plan), else one drawn by a generator
    seeded with ``variant_seed`` and its id, else its first variant.
    """

    def __init__(self, questions: Sequence[Question],
                 orders: Sequence[tuple[str, ...] | None] | None = None, *,
                 option_seed: int | None = None, variant_seed: int | None = None,
                 variants: Mapping[str, dict[str, Any]] | None = None) -> None:
        self.questions: tuple[Question, ...] = tuple(questions)
        """The bank's questions in session order."""
        self.option_seed = option_seed
        """Seed of the option shuffles (``None``: options in bank order where no order is
        given)."""
        self.variant_seed = variant_seed
        """Seed of the variants drawn for questions with ``vary:`` (``None``: the first)."""
        self._variants = dict(variants or {})
        self._orders = orders
        self._drawn: dict[int, tuple[str, ...]] = {}
        self._prepared: list[ShownQuestion | None] = [None] * len(self.questions)

    def __len__(self) -> int:
        return len(self.questions)

    @overload
    def __getitem__(self, index: int) -> ShownQuestion: ...

    @overload
    def __getitem__(self, index: slice) -> list[ShownQuestion]: ...

    def __getitem__(self, index: int | slice) -> ShownQuestion | list[ShownQuestion]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = checked_index(index, len(self), "question")
        shown = self._prepared[i]
        if shown is None:
            question = self.questions[i]
            if question.vary:
                question = question.with_variant(self.variant_of(i))
            shown = shown_question(question, i + 1, len(self), self.keys_shown(i))
            self._prepared[i] = shown
        return shown

    def keys_shown(self, index: int) -> tuple[str, ...]:
        """The option keys of question ``index`` in the order shown (without preparing it)."""
        given = self._orders[index] if self._orders is not None else None
        if given is not None:
            return given
        drawn = self._drawn.get(index)
        if drawn is None:
            q = self.questions[index]
            rng = (random.Random(f"{self.option_seed}:{q.id}")
                   if self.option_seed is not None else None)
            drawn = self._drawn[index] = option_order(q, rng)
        return drawn

    def variant_of(self, index: int) -> dict[str, Any]:
        """The variant question ``index`` is shown in (``{}`` for a question without
        ``vary:``), without rendering it."""
        q = self.questions[index]
        if not q.vary:
            return {}
        combos = q.variants()
        given = self._variants.get(q.id)
        if given is not None and given in combos:
            return dict(given)
        if self.variant_seed is None:
            return combos[0]
        chosen = random.Random(f"{self.variant_seed}:{q.id}").choice(combos)
        self._variants[q.id] = chosen
        return dict(chosen)

    @property
    def has_given_orders(self) -> bool:
        """True when some question has its option order given (see :meth:`given_order`)."""
        return self._orders is not None

    def given_order(self, index: int) -> bool:
        """True when question ``index`` has its option order given (from a stored plan), not
        drawn from :attr:`option_seed` or bank order."""
        return self._orders is not None and self._orders[index] is not None

    def index_of(self, question_id: str) -> int:
        """The 0-based position of the question with this id. Raises ``ValueError`` if the
        session has none."""
        for i, q in enumerate(self.questions):
            if q.id == question_id:
                return i
        raise ValueError(f"no question {question_id!r} in this session")


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
    def right_ticks(self) -> tuple[ShownOption, ...]:
        """Chosen options that are right."""
        return tuple(o for o in self.chosen if o in self.right)

    @property
    def wrong_ticks(self) -> tuple[ShownOption, ...]:
        """Chosen options that are wrong."""
        return tuple(o for o in self.chosen if o not in self.right)

    @property
    def missed(self) -> tuple[ShownOption, ...]:
        """Right options that were not chosen."""
        return tuple(o for o in self.right if o not in self.chosen)

    @property
    def verdict(self) -> str:
        """One line: right or wrong, which option was right and what was chosen, by letter.
        For a multiple-response question, which ticks were right, which wrong and which right
        options were missed (scoring stays all-or-nothing)."""
        right = ", ".join(o.letter for o in self.right)
        chosen = ", ".join(o.letter for o in self.chosen)
        if self.correct:
            return f"Correct: {right}."
        if not self.chosen:
            noun = "answers were" if len(self.right) > 1 else "answer was"
            return f"Not answered: the right {noun} {right}."
        if len(self.right) > 1:
            def letters(options: tuple[ShownOption, ...]) -> str:
                return ", ".join(o.letter for o in options) or "none"
            return (f"Not quite: the right answers were {right}. Your ticks: right "
                    f"{letters(self.right_ticks)}; wrong {letters(self.wrong_ticks)}; "
                    f"missed {letters(self.missed)}.")
        noun = "answers were" if len(self.right) > 1 else "answer was"
        return f"Not quite: the right {noun} {right}; you chose {chosen}."


def build_outcome(shown: ShownQuestion, chosen: tuple[ShownOption, ...]) -> Outcome:
    """The outcome of choosing ``chosen`` on ``shown``: right only when the chosen set is
    exactly the answer key (all-or-nothing, as on real exams)."""
    q = shown.question
    chosen_keys = {o.key for o in chosen}
    return Outcome(
        shown=shown,
        chosen=chosen,
        right=tuple(o for o in shown.options if o.key in q.answer_keys),
        correct=chosen_keys == q.answer_keys,
        distractor_review=tuple(
            DistractorNote(option=o, review=q.distractor_review[o.key],
                           chosen=o.key in chosen_keys)
            for o in shown.options
            if o.key not in q.answer_keys
        ),
    )


def option_order(question: Question, rng: random.Random | None) -> tuple[str, ...]:
    """The question's option keys in the order to show them: shuffled when ``rng`` is given and
    the question allows it (not :attr:`~quiz.bank.model.Question.keeps_order`: ``shuffle:
    false``, or text that names options by letter)."""
    keys = list(question.options)
    if rng is not None and not question.keeps_order:
        rng.shuffle(keys)
    return tuple(keys)


def shown_question(question: Question, number: int, total: int,
                   keys: Sequence[str]) -> ShownQuestion:
    """``question`` as shown, number ``number`` of ``total``: its options in the order of
    ``keys`` (bank option keys) under the letters A, B, … — the one place where practice,
    review, cram and exam questions get their letters."""
    return ShownQuestion(number=number, total=total, question=question,
                         options=tuple(ShownOption(letter=OPTION_KEYS[i], key=key,
                                                   text=question.options[key])
                                       for i, key in enumerate(keys)))
