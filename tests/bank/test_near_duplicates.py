"""The near-duplicate search (rule Q101) finds exactly the pairs a pair-by-pair comparison of the
same candidates finds."""

from __future__ import annotations

import random

import pytest

from quiz.bank.near_duplicates import COMMON_SHINGLE, pairs_of


def _reference(stems: list[list[str] | None], threshold: float) -> list[tuple[int, int, float]]:
    """The search as written before the index of counts: every candidate sharing a shingle
    that at most COMMON_SHINGLE stems have is compared by its full shingle sets."""
    def shingles(words: list[str] | None) -> frozenset[tuple[str, ...]]:
        if not words:
            return frozenset()
        if len(words) < 3:
            return frozenset([tuple(words)])
        return frozenset(tuple(words[i:i + 3]) for i in range(len(words) - 2))

    sets = [shingles(words) for words in stems]
    postings: dict[tuple[str, ...], list[int]] = {}
    for n, found in enumerate(sets):
        for shingle in found:
            postings.setdefault(shingle, []).append(n)
    pairs = []
    for n, found in enumerate(sets):
        candidates = {m for shingle in found if len(postings[shingle]) <= COMMON_SHINGLE
                      for m in postings[shingle] if m < n}
        best: tuple[float, int] | None = None
        for m in sorted(candidates):
            similarity = len(found & sets[m]) / len(found | sets[m])
            if similarity >= threshold and (best is None or similarity > best[0]):
                best = (similarity, m)
        if best is not None:
            pairs.append((n, best[1], best[0]))
    return pairs


@pytest.mark.parametrize("threshold", [0.6, 0.8, 0.9])
def test_the_indexed_search_finds_what_comparing_every_candidate_finds(threshold: float) -> None:
    rng = random.Random(1)
    vocabulary = [f"w{i}" for i in range(60)]
    lead = ["which", "of", "these", "is", "the", "best"]
    found_any = 0
    for _ in range(20):
        bases = [[*lead[:rng.randrange(6)], *rng.choices(vocabulary, k=rng.randrange(25))]
                 for _ in range(150)]
        stems: list[list[str] | None] = []
        for _ in range(400):
            stem = list(rng.choice(bases))
            for _ in range(rng.randrange(3)):
                if stem:
                    stem[rng.randrange(len(stem))] = rng.choice(vocabulary)
            stems.append(stem if rng.random() > 0.05 else None)
        expected = _reference(stems, threshold)
        assert pairs_of(stems, threshold) == expected
        found_any += len(expected)
    assert found_any > 500  # the stems were alike enough to find pairs, common shingles too


def test_short_stems_and_placeholder_stems() -> None:
    stems: list[list[str] | None] = [["why"], ["why"], ["why", "not"], ["why", "not"], None, None,
                                     [], ["a", "b", "c"], ["why", "not", "c"]]
    assert pairs_of(stems, 0.8) == [(1, 0, 1.0), (3, 2, 1.0)]


def test_counting_in_parts_finds_the_same_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    from quiz.bank import near_duplicates

    rng = random.Random(5)
    vocabulary = [f"w{i}" for i in range(80)]
    bases = [rng.choices(vocabulary, k=rng.randrange(1, 20)) for _ in range(300)]
    stems: list[list[str] | None] = []
    for _ in range(3000):
        stem = list(rng.choice(bases))
        if rng.random() < 0.5:
            stem[rng.randrange(len(stem))] = rng.choice(vocabulary)
        stems.append(stem)
    expected = _reference(stems, 0.8)
    assert len(expected) > 1000
    monkeypatch.setattr(near_duplicates, "_PART_SHINGLES", 0)  # a library of 100,000 questions
    assert pairs_of(stems, 0.8) == expected
