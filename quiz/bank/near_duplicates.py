"""Near-duplicate stems across a library (lint rule Q101), found without comparing every pair.

A stem is the set of its word 3-grams ("shingles") of its casefolded words; two stems are near
duplicates when the Jaccard index of their shingle sets is at least the rule's threshold.
Candidates come from an index of the shingles that several stems share, and a candidate is
compared exactly only when an upper bound of its similarity (the shingles it shares through
that index, plus the common shingles the index leaves out) can reach the threshold (count
filtering, as in set-similarity joins: Chaudhuri, Ganti and Kaushik 2006, "A Primitive Operator
for Similarity Joins in Data Cleaning", ICDE).

Stems are added one at a time, as compact arrays of integers (each word gets a number the first
time it is seen, each shingle is its three numbers in one integer), so a library of 100,000
questions keeps its stems in a few tens of megabytes while its files are read one by one.
Everything is deterministic: numbers are given in the order words are met, and ties go to the
earliest stem.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain, compress, count, repeat
from operator import gt
from typing import Any

COMMON_SHINGLE = 50
"""A 3-gram found in more stems than this ("which of these") finds no candidates by itself."""

_BASE = 1 << 21
"""Each word number is below this, so a shingle's three numbers fit 63 bits (an ``array('q')``).
Past that many distinct words (no question library has them), the later stems keep their
shingles as tuples of numbers, compared among themselves only."""

_SPREAD = 0x9E3779B1 & (_BASE - 1)
"""Odd: the n-th word met is numbered ``n * _SPREAD`` modulo :data:`_BASE` (one-to-one, never 0),
so that the first word's number, a shingle's top bits, spreads the shingles evenly over
:data:`_PARTS` without a multiplication per shingle."""

_PARTS = 8
_PART_SHIFT = 60
_PART_SHINGLES = 400_000
"""More shingles than this (a library of over ~13,000 questions) are counted in :data:`_PARTS`
passes, by their top 3 bits: one count of the 3 million shingles of 100,000 stems at once took
330 MB, one part of them takes an eighth."""


class StemIndex:
    """The stems of a library, added in library order (:meth:`add`), searched once
    (:meth:`pairs`)."""

    def __init__(self) -> None:
        met = count(1).__next__
        self._words: defaultdict[str, int] = defaultdict(
            lambda: n * _SPREAD & (_BASE - 1) if (n := met()) < _BASE else n)
        """Each word met: its number (see :data:`_SPREAD`; the words past :data:`_BASE` keep
        their place in the order met, above every other number)."""
        self._stems: list[Sequence[Any]] = []
        self._wide = False
        self._shingles = 0
        """How many shingles the stems have, together."""
        """True once a stem is kept as a tuple (over :data:`_BASE` distinct words)."""

    def __len__(self) -> int:
        return len(self._stems)

    def add(self, words: str | Sequence[str] | None) -> None:
        """Add the next stem, as its casefolded words, or those words joined by spaces
        (``None`` or empty: a stem that takes part in no pair, such as one still holding
        placeholder text)."""
        if isinstance(words, str):
            words = words.split()
        if not words:
            self._stems.append(())
            return
        numbers = self._words
        ids = list(map(numbers.__getitem__, words))  # a new word gets the next number
        if len(numbers) >= _BASE:  # pragma: no cover - needs over two million distinct words
            self._wide = True
            self._stems.append(tuple(sorted({tuple(ids[i:i + 3]) for i in range(
                max(len(ids) - 2, 1))})))
            return
        if len(ids) < 3:  # a stem of one or two words is one shingle, told apart by its zeros
            shingles = {ids[0] << 21 | ids[1] if len(ids) == 2 else ids[0]}
        else:  # the three 21-bit numbers side by side
            shingles = {a << 42 | b << 21 | c for a, b, c in zip(ids, ids[1:], ids[2:],
                                                                   strict=False)}
        self._stems.append(array("q", sorted(shingles)))
        self._shingles += len(shingles)

    def _repeated(self) -> dict[Any, int]:
        """The shingles of more than one stem, with how many stems have each (counted part by
        part: see :data:`_PARTS`)."""
        stems = self._stems
        if self._wide:  # pragma: no cover - needs over two million distinct words
            every = Counter(chain.from_iterable(stems))
            return {shingle: count for shingle, count in every.items() if count > 1}
        if self._shingles <= _PART_SHINGLES:  # a count at once takes at most ~35 MB
            every = Counter(chain.from_iterable(stems))
            return {shingle: count for shingle, count in every.items() if count > 1}
        # Each stem is cut into its parts once (its shingles are sorted: one search per part),
        # not read again for every part; the parts then hold every shingle once more.
        parts = [array("q") for _ in range(_PARTS)]
        bounds = [(part, part << _PART_SHIFT) for part in range(1, _PARTS)]
        for stem in stems:
            if stem:
                low = 0
                for part, bound in bounds:
                    high = bisect_left(stem, bound, low)
                    if high > low:
                        parts[part - 1].extend(stem[low:high])
                        low = high
                parts[-1].extend(stem[low:])
        found: dict[Any, int] = {}
        while parts:
            counts = Counter(parts.pop(0))
            # The few counts over 1 picked out at C speed (most shingles are one stem's).
            several = list(compress(counts, map(gt, counts.values(), repeat(1))))
            found.update(zip(several, map(counts.__getitem__, several), strict=True))
            del counts
        return found

    def pairs(self, threshold: float) -> Iterator[tuple[int, int, float]]:
        """Each stem (by the order added) whose shingles overlap an earlier stem's by
        ``threshold`` or more (Jaccard index), once: ``(stem, earlier stem, similarity)``, the
        earlier stem being the most similar one (the first of those equally similar); in the
        order stems were added."""
        stems = self._stems
        counts = self._repeated()
        several = set(counts)
        postings: dict[Any, list[int]] = {}
        common_of: list[int] = []
        for n, stem in enumerate(stems):
            shared: dict[int, int] = {}
            common = 0
            # Most shingles are a single stem's: only those of several stems are looked at.
            for shingle in several.intersection(stem):
                count = counts[shingle]
                if count > COMMON_SHINGLE:
                    common += 1
                    continue
                earlier = postings.get(shingle)
                if earlier is None:
                    postings[shingle] = [n]
                    continue
                for m in earlier:
                    shared[m] = shared.get(m, 0) + 1
                earlier.append(n)
            common_of.append(common)
            if not shared:
                continue
            size = len(stem)
            mine: set[Any] | None = None
            best: tuple[float, int] | None = None
            for m in sorted(shared):
                other = len(stems[m])
                bound = shared[m] + min(common, common_of[m])
                if bound < threshold * (size + other - bound) * (1 - 1e-9):
                    continue  # even sharing every common shingle, below the threshold
                if mine is None:
                    mine = set(stem)
                together = len(mine.intersection(stems[m]))
                union = size + other - together
                similarity = together / union if union else 0.0
                if similarity >= threshold and (best is None or similarity > best[0]):
                    best = (similarity, m)
            if best is not None:
                yield n, best[1], best[0]


def pairs_of(stems: Iterable[str | Sequence[str] | None],
             threshold: float) -> list[tuple[int, int, float]]:
    """:meth:`StemIndex.pairs` of ``stems`` (each its casefolded words, or None)."""
    index = StemIndex()
    for words in stems:
        index.add(words)
    return list(index.pairs(threshold))
