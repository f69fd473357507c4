"""Answers kept for one estimate.

One estimate asks some quantities several times with the same arguments (the inference
weights for the weights item and again for the stored file; the per-device parameter counts
for the items, the fewest-GPU search and the checkpoints). A memo here keeps the answer for
the last arguments it was asked about, compared by identity, and
:func:`~quiz.footprint.engine.estimate.estimate` empties every memo when it starts
(:func:`new_estimate`), so an estimate computes everything it shows once, from its own spec.

Correct by construction when the arguments are immutable (the spec's frozen pydantic parts, a
:class:`~quiz.footprint.inputs.resolve.ResolvedModel`, the checkpoints' read-only whole-model
view): the answer depends on nothing else, and an entry holds its arguments, so ``is`` cannot
take a new object for a freed one. Each memo is one cell holding one tuple, read and replaced
whole, so a thread never reads an entry another thread is writing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

A = TypeVar("A")
B = TypeVar("B")
R = TypeVar("R")

_NOTHING: tuple[Any, ...] = (object(), object(), None)
"""An empty cell's entry: its first two items are no argument anybody passes."""

_CELLS: list[list[tuple[Any, ...]]] = []
"""Every memo's cell (:func:`cell`), for :func:`new_estimate`."""


def cell() -> list[tuple[Any, ...]]:
    """A new memo cell: a one-element list holding the entry ``(a, b, answer)`` of the last
    arguments ``a`` and ``b`` (empty: :data:`_NOTHING`), emptied by :func:`new_estimate`."""
    new: list[tuple[Any, ...]] = [_NOTHING]
    _CELLS.append(new)
    return new


def new_estimate() -> None:
    """Empty every memo: what the next estimate asks is computed again."""
    for kept in _CELLS:
        kept[0] = _NOTHING


def per_estimate(fn: Callable[[A, B], R]) -> Callable[[A, B], R]:
    """``fn`` of two immutable arguments, its answer kept for the last two it was called with
    (compared by identity) until another pair is asked about or an estimate starts."""
    kept = cell()

    @wraps(fn)
    def last(a: A, b: B) -> R:
        entry = kept[0]
        if entry[0] is a and entry[1] is b:
            answer: R = entry[2]
            return answer
        answer = fn(a, b)
        kept[0] = (a, b, answer)
        return answer

    return last
