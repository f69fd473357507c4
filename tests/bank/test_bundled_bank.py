"""The bundled starter bank (question_bank/, issue 10): its counts and its numbers.

The first edition is six files, one per topic (the layout of BANK_FILES): the per-topic rules are
asserted for each, and the totals across the bank. The second edition's files (issue 22,
SECOND_EDITION_FILES) are held to the issue's item-writing rules instead. The calculator test
recomputes every worked example and footprint scenario of every bundled file.

This is the one test module that reads the bundled bank's content; every other test that needs a
real bank uses the frozen copy in tests/fixtures/seed_bank.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from quiz.bank.expect import quantities_in, read_figure, rounds_to, states
from quiz.bank.library import Library
from quiz.bank.model import Question
from quiz.footprint import estimate

BANK_DIR = Path(__file__).resolve().parents[2] / "question_bank"

BANK_FILES = {
    "memory": ("memory.yaml", "ai-infra-memory", "Memory footprint: training vs inference"),
    "precision": ("precision.yaml", "ai-infra-precision", "Numeric precision and quantization"),
    "storage": ("storage.yaml", "ai-infra-storage", "Storage and data pipelines"),
    "scaling": ("scaling.yaml", "ai-infra-scaling", "Scaling training"),
    "serving": ("serving.yaml", "ai-infra-serving", "Inference serving"),
    "capacity": ("capacity.yaml", "ai-infra-capacity", "Capacity planning"),
    "hardware": ("hardware.yaml", "ai-infra-hardware", "GPUs and precision formats for each phase"),
    "inference-stack": ("inference-stack.yaml", "ai-infra-inference-stack",
                        "Inference software and serving systems"),
}
"""topic key → (file name, bank id, topic title)."""

LEGACY_FILE = "ai-infra-training-vs-inference.yaml"
"""The two-question seed bank; its questions moved to memory.yaml and precision.yaml."""

SEED_IDS = {"memory-train-vs-infer-001": "memory",
            "compute-storage-train-vs-infer-002": "precision",
            "scaling-qlora-one-gpu-012": "memory"}
"""Questions whose id prefix is not their topic keep their ids (progress is keyed on them): the
two seed questions, and the QLoRA question moved from scaling to memory (bank review 1, row 34)."""

SCHEMA_LINE = "# yaml-language-server: $schema=./quiz-bank.schema.json"

SECOND_EDITION_FILES = {
    "networking.yaml": ("ai-infra-networking", "networking",
                        "Networking for training and inference"),
    "operations.yaml": ("ai-infra-operations", "operations",
                        "Operations, monitoring and GPU sharing"),
    "io-pipeline.yaml": ("ai-infra-io-pipeline", "storage", "Storage and data pipelines"),
}
"""file name → (bank id, topic key, topic title) of the banks added for the second edition
(issue 22). They follow the issue's item-writing rules (asserted below) instead of the first
edition's layout of 10-11 questions per file; a topic may be shared with a first-edition file."""

ABSOLUTE = re.compile(r"\b(always|never|must|cannot|at all|completely|whatever)\b", re.I)
"""Absolute words, the give-away the review counted (bank-review-1, item-writing statistics)."""

SOURCE = re.compile(r"https?://\S+|\bDOI 10\.\d{4,}/\S+|\barXiv:\d{4}\.\d{4,5}")
"""What makes a reference checkable (issue 22, item 5): a URL, a DOI or an arXiv id."""


@pytest.fixture
def library(bundled_library: Library) -> Library:
    """The bundled bank, loaded once per test process (tests/conftest.py)."""
    return bundled_library


def _keyed_is_longest(q: Question) -> bool:
    key = q.options[q.answer] if isinstance(q.answer, str) else ""
    return all(len(key) >= len(text) for text in q.options.values())


def _keyed_strictly(q: Question, longest: bool) -> bool:
    """The single key is strictly the longest (or the shortest) option: a test-wise cue."""
    key = q.options[q.answer] if isinstance(q.answer, str) else ""
    others = [len(text) for k, text in q.options.items() if k != q.answer]
    return len(key) > max(others) if longest else len(key) < min(others)


def _calculator_backed(q: Question) -> bool:
    return (q.worked_example is not None and q.worked_example.expect is not None) or (
        q.infographic is not None and q.infographic.kind == "footprint")


def test_exactly_the_six_topic_files_ship(library: Library) -> None:
    names = {p.name for p in BANK_DIR.glob("*.y*ml")}
    assert names == {name for name, _, _ in BANK_FILES.values()} | set(SECOND_EDITION_FILES)
    assert LEGACY_FILE not in names
    assert [b.path.name for b in library.banks] == sorted(names)
    ids = [q.id for q in library.questions]
    assert len(ids) == len(set(ids))
    assert set(SEED_IDS) <= set(ids), "the seed questions keep their ids"


@pytest.mark.parametrize("topic", list(BANK_FILES))
def test_each_topic_file_follows_the_layout_and_the_counts(library: Library, topic: str) -> None:
    name, bank_id, title = BANK_FILES[topic]
    path = BANK_DIR / name
    first_line = path.read_text(encoding="utf-8").split("\n", 1)[0]
    assert first_line == SCHEMA_LINE
    (bank,) = [b for b in library.banks if b.path.name == name]
    assert bank.info.id == bank_id
    assert bank.info.title == f"AI infrastructure: {title}"
    assert (bank.info.version, bank.info.pass_mark) == (1, 0.7)
    assert bank.info.description
    assert bank.info.topics == {topic: title}
    questions = list(bank.questions)
    assert len(questions) >= 14, len(questions)
    for q in questions:
        assert q.topic == topic
        assert SEED_IDS.get(q.id) == topic or re.fullmatch(rf"{topic}-[a-z0-9-]+-\d{{3}}", q.id), \
            q.id
        assert q.difficulty is not None and q.tags and q.references, q.id
        assert q.infographic is not None, q.id
        assert all(r.strip() for r in q.references), q.id
        for text in q.options.values():
            assert not re.search(r"\b(all|none) of the above\b|\bboth [A-H] and [A-H]\b"
                                 r"|\b(option|answer|choice) [A-H]\b", text, re.I), (q.id, text)
    multiple = [q for q in questions if q.multiple_response]
    single = [q for q in questions if not q.multiple_response]
    assert len(multiple) >= 2
    for q in multiple:
        words = {2: "two", 3: "three", 4: "four"}
        assert f"Choose {words[len(q.answer_keys)]}." in q.stem, q.id
    difficulties = Counter(q.difficulty for q in questions)
    assert all(difficulties[d] >= 2 for d in ("easy", "medium", "hard")), difficulties
    assert sum(_calculator_backed(q) for q in questions) >= 3
    # Options generated from misconceptions (answer_figure) are written in ascending order of
    # value and shuffled in a session: their key letter is not the writer's, so the letter and
    # length rules hold for the options written by hand.
    written = [q for q in single if q.answer_figure is None]
    for q in written:
        assert list(q.options) == ["A", "B", "C", "D"], q.id
    for q in single:
        assert 3 <= len(q.options) <= 5, q.id
    keys = Counter(q.answer for q in written)
    spread = [keys[k] for k in "ABCD"]
    assert max(spread) - min(spread) <= 1, dict(keys)
    for longest in (True, False):
        cued = [q.id for q in written if _keyed_strictly(q, longest)]
        assert len(cued) <= 0.35 * len(written), (longest, cued)


def _strictly(q: Question, longer: bool) -> bool:
    key = q.options[q.answer] if isinstance(q.answer, str) else ""
    others = [len(text) for letter, text in q.options.items() if letter != q.answer]
    return len(key) > max(others) if longer else len(key) < min(others)


@pytest.mark.parametrize("name", list(SECOND_EDITION_FILES))
def test_each_second_edition_file_follows_the_item_writing_rules(library: Library,
                                                                 name: str) -> None:
    """Issue 22: 14+ questions, easy/medium/hard, about one in five multiple response with E
    keyed where there are five options, keys spread, the key strictly longest and strictly
    shortest in at most 35% of single-answer items each, absolute words no more common in
    distractors than in keys, stems under about 60 words, every reference checkable."""
    bank_id, topic, title = SECOND_EDITION_FILES[name]
    path = BANK_DIR / name
    assert path.read_text(encoding="utf-8").split("\n", 1)[0] == SCHEMA_LINE
    (bank,) = [b for b in library.banks if b.path.name == name]
    assert bank.info.id == bank_id
    assert bank.info.title.startswith("AI infrastructure: ")
    assert (bank.info.version, bank.info.pass_mark) == (1, 0.7)
    assert bank.info.description
    assert bank.info.topics == {topic: title}
    questions = list(bank.questions)
    assert len(questions) >= 14, len(questions)
    prefix = name.removesuffix(".yaml")
    for q in questions:
        assert q.topic == topic
        assert re.fullmatch(rf"{prefix}-[a-z0-9-]+-\d{{3}}", q.id), q.id
        assert q.difficulty is not None and q.tags and q.infographic is not None, q.id
        assert q.references and all(SOURCE.search(r) for r in q.references), q.id
        assert len(q.stem.split()) <= 65, (q.id, len(q.stem.split()))
    difficulties = Counter(q.difficulty for q in questions)
    assert all(difficulties[d] >= 3 for d in ("easy", "medium", "hard")), difficulties
    multiple = [q for q in questions if q.multiple_response]
    single = [q for q in questions if not q.multiple_response]
    assert len(multiple) >= len(questions) // 6, len(multiple)
    words = {2: "two", 3: "three"}
    for q in multiple:
        assert f"Choose {words[len(q.answer_keys)]}." in q.stem, q.id
        assert len(q.options) in (4, 5), q.id
    five = [q for q in multiple if len(q.options) == 5]
    assert not five or any("E" in q.answer_keys for q in five)
    for q in single:
        assert list(q.options) == ["A", "B", "C", "D"], q.id
    keys = Counter(q.answer for q in single)
    spread = [keys[k] for k in "ABCD"]
    assert max(spread) - min(spread) <= 1, dict(keys)
    assert sum(_strictly(q, longer=True) for q in single) <= 0.35 * len(single)
    assert sum(_strictly(q, longer=False) for q in single) <= 0.35 * len(single)
    in_keys = [bool(ABSOLUTE.search(q.options[k])) for q in questions for k in q.answer_keys]
    in_distractors = [bool(ABSOLUTE.search(text)) for q in questions
                      for k, text in q.options.items() if k not in q.answer_keys]
    assert sum(in_distractors) / len(in_distractors) <= sum(in_keys) / len(in_keys) + 0.02


def test_totals_across_the_bank(library: Library) -> None:
    questions = library.questions
    single = [q for q in questions if not q.multiple_response]
    longest = sum(_keyed_is_longest(q) for q in single)
    keys = Counter(q.answer for q in single if q.answer_figure is None)
    assert len(questions) >= 60
    assert sum(q.multiple_response for q in questions) >= 10
    assert sum(_calculator_backed(q) for q in questions) >= 15
    assert longest <= 0.35 * len(single), (longest, len(single))
    uniform = sum(keys.values()) / 4
    for letter in "ABCD":
        assert abs(keys[letter] - uniform) <= 0.1 * uniform, dict(keys)


def test_every_calculator_scenario_recomputes(library: Library) -> None:
    """Every footprint infographic and worked example runs through the calculator; each numeric
    question's keyed option states the figure to the digits written, and every distractor's
    figure differs from it by at least that rounding."""
    checked = 0
    for q in library.questions:
        specs = [s for s in (q.infographic and q.infographic.footprint,
                             q.worked_example and q.worked_example.footprint) if s]
        for spec in specs:
            report = estimate(spec)
            assert all(p.total_bytes > 0 for p in report.phases), q.id
        example = q.worked_example
        if example is None or example.expect is None:
            continue
        exp = example.expect
        exact = read_figure(estimate(example.footprint), exp.figure)
        value = exp.quantity
        assert rounds_to(exact, value), (q.id, exp.figure, exact, exp.value)
        assert any(states(q.options[k], exp.value) for k in q.answer_keys), (q.id, exp.value)
        for key, text in q.options.items():
            if key in q.answer_keys:
                continue
            for found in quantities_in(text, value, exp.kind):
                assert abs(found.amount - exact) >= value.step, (q.id, key, found.text)
        checked += 1
    with_expect = [q for q in library.questions if q.worked_example and q.worked_example.expect]
    assert checked == len(with_expect)
