"""Near-duplicate stems across a library (lint rule Q101), found without comparing every pair.

A stem is the set of its word 3-grams ("shingles") of its casefolded words; two stems are near
duplicates when the Jaccard index of their shingle sets is at least the rule's threshold.
Candidates come from an index of only a few shingles of each stem, its rarest ones (prefix
filtering, as in set-similarity joins: Chaudhuri, Ganti and Kaushik 2006, "A Primitive Operator
for Similarity Joins in Data Cleaning", ICDE; Bayardo, Ma and Srikant 2007, "Scaling Up All
Pairs Similarity Search", WWW), and each candidate is compared exactly.

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
from math import ceil
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
        ``threshold`` or more (Jaccard index), through a shingle that at most
        :data:`COMMON_SHINGLE` stems have, once: ``(stem, earlier stem, similarity)``, the
        earlier stem being the most similar one (the first of those equally similar); in the
        order stems were added.

        Candidates come by prefix filtering (Bayardo, Ma and Srikant 2007, "Scaling Up All
        Pairs Similarity Search", WWW, section 4; Chaudhuri et al. 2006): a stem ``x`` with
        ``c`` common shingles shares at least ``a = max(1, ceil(t·|x|) - c)`` of its other
        shingles with any stem it is ``t`` alike to (their overlap is at least ``t·|x|``, of
        which at most ``c`` common), so two such stems share one of the ``|N| - a + 1``
        rarest of their other shingles ``N`` (ordered by how many stems have each). Only those
        are indexed and looked up; most are one stem's, which is why a library's search grows
        with its size rather than with the square of its repeated phrases."""
        stems = self._stems
        counts = self._repeated()
        several = set(counts)
        postings: dict[Any, list[int]] = {}
        slack = 1 - 1e-9  # float products such as 0.8 * 15 = 12.000000000000002 round up
        rarity = counts.__getitem__
        for n, stem in enumerate(stems):
            size = len(stem)
            if not size:
                continue
            repeated = several.intersection(stem)
            rare = [shingle for shingle in repeated if counts[shingle] <= COMMON_SHINGLE]
            common = len(repeated) - len(rare)
            # The prefix: the stem's other shingles, rarest first (those of this stem alone,
            # then the repeated ones by count), |N| - a + 1 of them; only repeated ones can
            # be shared, so only those past the stem's own are indexed.
            needed = max(1, ceil(threshold * size * slack) - common)
            take = (size - common) - needed + 1 - (size - len(repeated))
            if take <= 0 or not rare:
                continue
            rare.sort()
            rare.sort(key=rarity)
            candidates: set[int] = set()
            for shingle in rare[:take]:
                earlier = postings.get(shingle)
                if earlier is None:
                    postings[shingle] = [n]
                else:
                    candidates.update(earlier)
                    earlier.append(n)
            if not candidates:
                continue
            mine = set(stem)
            best: tuple[float, int] | None = None
            for m in sorted(candidates):
                other = len(stems[m])
                if min(size, other) < threshold * max(size, other) * slack:
                    continue  # the Jaccard index is at most the smaller size over the larger
                together = len(mine.intersection(stems[m]))
                union = size + other - together
                similarity = together / union
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
