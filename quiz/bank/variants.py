"""A computed question's variants as plain questions, for exports and ``quiz show``.

A question with ``vary:`` (:mod:`quiz.bank.computed`) is one question with several variants;
a format without variants (GIFT, Moodle XML, Anki, CSV) receives each variant as a question of
its own, every text rendered. Ids are stable: the first variant keeps the question's id, the
variant at 1-based position ``n`` of :meth:`~quiz.bank.model.Question.variants` (n > 1) is
``<id>.v<n>``, so exporting again gives the same ids to the same variants.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from quiz.bank.library import LoadedBank
from quiz.bank.model import Question


def variant_id(question_id: str, position: int) -> str:
    """The id of the variant at 1-based ``position``: the question's own for the first,
    ``<id>.v<position>`` after it."""
    return question_id if position == 1 else f"{question_id}.v{position}"


def rendered_variants(question: Question, count: int) -> Iterator[Question]:
    """The first ``count`` variants of ``question`` (all of them when it has fewer), each
    rendered, with its stable id (:func:`variant_id`). A question without ``vary:`` yields
    itself once.

    Raises:
        ValueError: ``count`` below 1.
    """
    if count < 1:
        raise ValueError("the number of variants must be at least 1")
    if not question.vary:
        yield question
        return
    for position, values in enumerate(question.variants()[:count], start=1):
        rendered = question.with_variant(values)
        yield rendered if position == 1 else rendered.model_copy(
            update={"id": variant_id(question.id, position)})


COMPUTED_FIELDS = frozenset({"answer_figure", "misconceptions", "distractors", "vary"})
"""The keys that make a question computed; a plain copy has none of them."""


def plain(question: Question) -> Question:
    """A rendered question as a plain one: the same texts, options, key and scenario, without
    ``answer_figure``, ``misconceptions``, ``distractors`` and ``vary`` (what an export
    writes: a format without variants receives plain text)."""
    if not question.computed:
        return question
    copy = question.model_copy()
    object.__setattr__(copy, "__pydantic_fields_set__",
                       set(question.model_fields_set) - COMPUTED_FIELDS)
    copy._template = None
    copy._variant = {}
    return copy


def bank_with_variants(bank: LoadedBank, count: int) -> LoadedBank:
    """``bank`` with each computed question replaced by its first ``count`` variants
    (:func:`rendered_variants`), each :func:`plain`; content hashes are left out (exports do
    not use them)."""
    questions = tuple(plain(v) for q in bank.questions for v in rendered_variants(q, count))
    return LoadedBank(bank.path, bank.info, questions)


def drawn_variant(question: Question, seed: int | None) -> Question:
    """``question`` in the variant ``seed`` draws (a generator seeded with the seed and the
    question's id: the same seed, the same variant), or its first variant without a seed."""
    if not question.vary or seed is None:
        return question.with_variant(question.variants()[0]) if question.vary else question
    return question.with_variant(random.Random(f"{seed}:{question.id}").choice(
        question.variants()))
