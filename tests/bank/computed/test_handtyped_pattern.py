"""Rule Q114's fast searches find what the plain ones did: the size pattern written to start at
its first digit, the unit found from its ``B``, and the search of a question's YAML source that
lets most questions skip their text fields (sizes folded over lines and escapes included)."""

from __future__ import annotations

import random
import re
from functools import cache
from pathlib import Path

import pytest

from benchmarks.banks import bank_text
from quiz.bank import lint
from quiz.bank.computed import handtyped
from quiz.bank.computed.template import text_fields
from quiz.bank.lint import BankLint, lint_bank
from quiz.bank.load import load_library
from quiz.bank.places import Places

PLAIN_SIZE = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s?"
                        r"(?:kB|MB|GB|TB|PB|KiB|MiB|GiB|TiB|PiB)(?![\w])")
"""Rule Q114's size pattern as first written (its look-behind first)."""
PLAIN_MAYBE = re.compile(r"\d\s?[kKMGTP]i?B")

_PIECES = ["0", "1", "12", "100", "1,000", "12,34", "2.5", ".", ",", " ", "\n", "\t", "GB",
           "GiB", "MB", "kB", "KiB", "TB", "PB", "B", "G", "i", "x", "H", "v", "-", "٣", "_",
           "{{", "}}", "GB:2", "²", "é", "  ", "k", "K", "P"]


def made_up(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 12)))
            for _ in range(count)]


@cache
def generated_text() -> str:
    """A generated bank of 300 varied questions (computed ones included)."""
    return bank_text(300, bank_id="handtyped")


def generated(folder: Path) -> Path:
    path = folder / "bank.yaml"
    path.write_text(generated_text(), encoding="utf-8")
    return path


def test_the_size_pattern_and_its_search_from_units_match_as_first_written() -> None:
    texts = made_up(40_000, 1) + generated_text().splitlines()
    found = 0
    for t in texts:
        plain = [(m.span(), m.group(0)) for m in PLAIN_SIZE.finditer(t)]
        assert [(m.span(), m.group(0)) for m in handtyped._SIZE.finditer(t)] == plain, t
        assert [(m.span(), m.group(0)) for m in handtyped.sizes_in(t)] == plain, t
        assert (handtyped._MAYBE_SIZE.search(t) is not None) == (
            PLAIN_MAYBE.search(t) is not None), t
        found += bool(plain)
    assert found > 1000


def lint_of(path: Path) -> list[BankLint]:
    linted: list[BankLint] = []
    load_library([path], parses={}, each=lambda bank, parsed: linted.append(
        lint_bank(bank, Places(*parsed))))
    return linted


def test_the_source_search_finds_a_size_for_every_text_that_holds_one(
        tmp_path: Path) -> None:
    path = generated(tmp_path)
    banks = []
    load_library([path], parses={}, each=lambda bank, parsed: banks.append(Places(*parsed)))
    places = banks[0]
    skipped = found = 0
    questions = places._value["questions"]
    for index, question in enumerate(questions):
        start, end = places.question_source(index) or (0, 0)
        assert start < end
        sizes = handtyped.written_sizes(places.text, start, end)
        if sizes is None:  # an escape somewhere: every field is read
            continue
        with_size = {loc[0] for loc, text in text_fields(question) if PLAIN_MAYBE.search(text)}
        if not sizes:
            skipped += 1
            assert not with_size
        found += bool(with_size)
    assert 0 < skipped < len(questions) and found > 0


SPLIT = """\
bank:
  id: split
  title: Sizes written over several lines
  topics: {serving: Serving}
questions:
  - id: q1
    topic: serving
    question: "Which holds the cache? It takes 17.18\\
      \\ GB, or 17.18 \\x47B written with an escape, or 16\\u0020GiB."
    options: {A: "one", B: "two"}
    answer: A
    short_explanation: Keys and values of every token of every sequence in every layer here.
    full_explanation: >-
      Two tensors per layer, per KV head, per token, make the cache of 17.18
      GB here, and 17.2
        GB in the more indented line, for eight sequences of 4,096 tokens each.
    distractor_review:
      B: |
        This caches only one of K and V: 8.59
        GB, half the cache.
    references: ["Pope et al. 2023, Efficiently Scaling Transformer Inference, sec. 2"]
    worked_example:
      footprint: {model: llama-2-7b, phase: inference, inference: {batch: 8, context: 4096}}
  - id: q2
    topic: serving
    question: 'What does the cache of 17.18

      GB hold?'
    options: {A: "one", B: "two"}
    answer: A
    short_explanation: Keys and values of every token of every sequence in every layer here.
    full_explanation: Keys and values of every token of every sequence in every layer, for
      every KV head, which is the cache of 17.18
      GB, no more.
    distractor_review: {B: "This caches only one of K and V, half the cache size."}
    references: ["Pope et al. 2023, Efficiently Scaling Transformer Inference, sec. 2"]
    worked_example:
      footprint: {model: llama-2-7b, phase: inference, inference: {batch: 8, context: 4096}}
  - id: q3
    topic: serving
    question: "Which cache takes 17.18 \\x47B?"
    options: {A: "one", B: "two"}
    answer: A
    short_explanation: Keys and values of every token of every sequence in every layer here.
    full_explanation: Keys and values of every token of every sequence in every layer, for
      every KV head, which is the cache, no more and no less than that.
    distractor_review: {B: "This caches only one of K and V, half the cache size."}
    references: ["Pope et al. 2023, Efficiently Scaling Transformer Inference, sec. 2"]
    worked_example:
      footprint: {model: llama-2-7b, phase: inference, inference: {batch: 8, context: 4096}}
"""


def test_sizes_folded_over_lines_or_escaped_are_found(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "split.yaml"
    path.write_text(SPLIT, encoding="utf-8")
    fast = lint_of(path)
    monkeypatch.setattr(lint, "written_sizes", lambda *_: None)
    assert lint_of(path) == fast
    typed = [f for f in fast[0].findings if f[2] == lint.HAND_TYPED.label]
    # "17.2\n  GB" (its line more indented than the block's: kept as written) states no size.
    assert [(f[0], f[4].split("'")[1]) for f in typed] == [
        (8, "17.18 GB"), (9, "17.18 GB"), (9, "16 GiB"), (14, "17.18 GB"), (26, "17.18\\nGB"),
        (33, "17.18 GB"), (41, "17.18 GB")], typed


def test_a_generated_bank_lints_the_same_without_the_source_search(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = generated(tmp_path)
    fast = lint_of(path)
    monkeypatch.setattr(lint, "written_sizes", lambda *_: None)
    assert lint_of(path) == fast
    assert any(f[2] == lint.HAND_TYPED.label for f in fast[0].findings)
