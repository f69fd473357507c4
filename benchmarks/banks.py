"""Realistic generated question banks for the benchmarks: 1,000 to 100,000 questions.

Every question is made from one of the bundled questions (``question_bank/*.yaml``, so stems,
options and explanations have the lengths instructors really write), with a new id and every
optional field filled. By default (``varied``) each generated question's prose is its own: every
word of three letters or more outside ``{{ ... }}`` placeholders is replaced by a word drawn
from the bundled banks' vocabulary, deterministically per question, so no two questions share
their text (copies of one question hide costs that real banks pay: near-duplicate search,
per-text caches). ``varied=False`` keeps exact copies. Optional fields filled:
``difficulty``, ``tags``, ``references``, an ``infographic`` (a table, a
text diagram, or, for one question in five, a memory-footprint chart) and a ``worked_example``.
A library is a folder of bank files of at most :data:`PER_FILE` questions each (a 10,000-question
file is about 45 MB; :data:`quiz.bank.load.MAX_FILE_BYTES` allows 64 MB per file).

One question in :data:`COMPUTED_EVERY` is a computed question (issue 20: placeholders,
``answer_figure``, three or four misconceptions and ``vary:`` with 4 or 6 variants), made from
the computed test bank ``tests/fixtures/computed/computed.yaml``: a 10,000-question library has
1,000 of them.

The values are read with the loader's own reader (every scalar stays the text the author typed)
and written with :func:`quiz.yamlio.dump`, so the generated files are in the documented format
(``question_bank/FORMAT.md``); :func:`write_library` checks that the first file loads cleanly.
"""

from __future__ import annotations

import copy
import hashlib
import itertools
import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from quiz import yamlio
from quiz.bank import yaml_reader
from quiz.paths import bundled_bank_dir

PER_FILE = 10_000
"""Most questions in one generated bank file."""

_DIFFICULTIES = ("easy", "medium", "hard")

COMPUTED_EVERY = 10
"""Every this many questions, one is computed (the last of each ten)."""

COMPUTED_BANK = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "computed" \
    / "computed.yaml"
"""The computed questions used (written only from FORMAT.md)."""


def _computed() -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The computed test bank's topics and questions, as plain values."""
    doc = yaml_reader.build(COMPUTED_BANK.read_text(encoding="utf-8"))
    return doc.value["bank"].get("topics", {}), doc.value["questions"]


def _mixed(templates: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The templates in turn, with a computed question in every :data:`COMPUTED_EVERY`-th
    place (in turn too)."""
    plain = itertools.cycle(templates)
    computed = itertools.cycle(_computed()[1])
    for n in itertools.count():
        yield next(computed) if n % COMPUTED_EVERY == COMPUTED_EVERY - 1 else next(plain)


def _bundled() -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The bundled banks' topics and questions, as plain values (every scalar a string)."""
    topics: dict[str, str] = {}
    questions: list[dict[str, Any]] = []
    for path in sorted(bundled_bank_dir().glob("*.yaml")):
        doc = yaml_reader.build(path.read_text(encoding="utf-8"))
        value = doc.value
        topics.update(value["bank"].get("topics", {}))
        questions += value["questions"]
    return topics, questions


def _templates() -> tuple[dict[str, str], list[dict[str, Any]]]:
    """The bundled questions with every optional field filled (see the module docstring)."""
    topics, questions = _bundled()
    footprints = [q["worked_example"]["footprint"] for q in questions if "worked_example" in q]
    tables = [q["infographic"] for q in questions
              if "infographic" in q and "table" in q["infographic"]]
    out = []
    for i, source in enumerate(questions):
        q = copy.deepcopy(source)
        q.setdefault("difficulty", _DIFFICULTIES[i % 3])
        q.setdefault("tags", [q["topic"], "generated"])
        q.setdefault("references", ["Rajbhandari et al. 2020, ZeRO, sec. 3.1"])
        footprint = footprints[i % len(footprints)]
        if i % 5 == 0:
            q["infographic"] = {"caption": "Memory footprint",
                                "footprint": copy.deepcopy(footprint)}
        else:
            q.setdefault("infographic", copy.deepcopy(tables[i % len(tables)]))
        if "worked_example" not in q:
            q["worked_example"] = {"caption": "The calculator's figures",
                                   "footprint": copy.deepcopy(footprint)}
        out.append(q)
    # Single-answer and multiple-response questions alternate while both last, so a short
    # session meets both kinds.
    # A question whose options come from answer_figure (a computed question) is single-answer.
    single = [q for q in out if isinstance(q.get("answer", ""), str)]
    multiple = [q for q in out if not isinstance(q.get("answer", ""), str)]
    mixed = [q for pair in itertools.zip_longest(single, multiple) for q in pair if q]
    return topics, mixed


_WORD = re.compile(r"\{\{.*?\}\}|\b[A-Za-z]{3,}\b")
"""A placeholder (kept whole) or a word of three letters or more (replaced)."""
_PROSE_KEYS = ("question", "short_explanation", "full_explanation", "caption")
"""Text fields whose words are varied (options and reviews too, see :func:`_vary`)."""


def _vocabulary(templates: list[dict[str, Any]]) -> list[str]:
    words: set[str] = set()
    for q in templates:
        for key in _PROSE_KEYS:
            value = q.get(key)
            if isinstance(value, str):
                words.update(w.lower() for w in _WORD.findall(value) if not w.startswith("{"))
    return sorted(words)


def _vary(question: dict[str, Any], rng: random.Random, vocabulary: list[str]) -> dict[str, Any]:
    """A copy of ``question`` whose prose, options and reviews have their words replaced."""
    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        if word.startswith("{{"):
            return word
        new = rng.choice(vocabulary)
        return new.capitalize() if word[0].isupper() else new

    q = copy.deepcopy(question)
    for key in ("question", "short_explanation", "full_explanation"):
        if isinstance(q.get(key), str):
            q[key] = _WORD.sub(swap, q[key])
    # Options that state a figure keep it whole: a worked example's expect checks the key states
    # its value word for word.
    for field in ("options", "distractor_review"):
        if isinstance(q.get(field), dict):
            q[field] = {k: _WORD.sub(swap, v) if isinstance(v, str) and (
                field == "distractor_review" or not any(c.isdigit() for c in v)) else v
                for k, v in q[field].items()}
    return q


def bank_text(questions: int, *, bank_id: str = "bench", start: int = 0,
              varied: bool = True) -> str:
    """YAML text of one bank with ``questions`` questions, ids ``{bank_id}-{start + n:06d}``;
    ``varied``: every question's prose its own (see the module docstring)."""
    topics, templates = _templates()
    topics = {**topics, **_computed()[0]}
    if varied:
        return _varied_text(questions, bank_id, start, topics, templates)
    header = _header(bank_id, topics)
    # Each template is written once with a placeholder id; copies only substitute the id.
    marker = "0PLACEHOLDER0"
    blocks: dict[int, str] = {}
    parts = [header, "questions:\n"]
    for n, q in zip(range(questions), _mixed(templates), strict=False):
        block = blocks.get(id(q))
        if block is None:
            text = yamlio.dump({"questions": [dict(q, id=marker)]}, fold=True)
            block = blocks[id(q)] = text.split("\n", 1)[1]  # drop "questions:"
        parts.append(block.replace(marker, f"{bank_id}-{start + n:06d}", 1))
    return "".join(parts)


def _header(bank_id: str, topics: dict[str, str]) -> str:
    return yamlio.dump({"bank": {
        "id": bank_id, "title": f"Benchmark library {bank_id}", "version": 1, "pass_mark": 0.7,
        "description": "Generated from the bundled questions for the benchmarks.",
        "topics": topics}}, fold=True)


def _varied_text(questions: int, bank_id: str, start: int, topics: dict[str, str],
                 templates: list[dict[str, Any]]) -> str:
    vocabulary = _vocabulary(templates)
    parts = [_header(bank_id, topics), "questions:\n"]
    for n, template in zip(range(questions), _mixed(templates), strict=False):
        qid = f"{bank_id}-{start + n:06d}"
        q = _vary(template, random.Random(qid), vocabulary)
        q["id"] = qid
        parts.append(yamlio.dump({"questions": [q]}, fold=True).split("\n", 1)[1])
    return "".join(parts)


def write_library(folder: Path, questions: int, *, varied: bool = True) -> Path:
    """Write a library of ``questions`` questions into ``folder`` (created), as files of at most
    :data:`PER_FILE` questions; return the folder. Files already there with the right marker
    (the size and a digest of the sources) are reused. Raises ``RuntimeError`` if the first
    file does not load cleanly."""
    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / ".complete"
    mark = f"{questions} {'varied' if varied else 'copies'} {_sources_digest()}"
    if stamp.exists() and stamp.read_text() == mark:
        return folder
    for old in folder.glob("*.yaml"):
        old.unlink()
    done = 0
    index = 0
    while done < questions:
        n = min(PER_FILE, questions - done)
        path = folder / f"bank-{index:02d}.yaml"
        path.write_text(bank_text(n, bank_id=f"bench-{index:02d}", start=done, varied=varied),
                        encoding="utf-8")
        done += n
        index += 1
    from quiz.bank.load import load_library

    report = load_library([folder / "bank-00.yaml"])
    if not report.ok:
        raise RuntimeError("the generated bank does not load: "
                           + "; ".join(str(d) for d in report.errors[:5]))
    stamp.write_text(mark)
    return folder


def _sources_digest() -> str:
    """A digest of what a generated library is made from: the bundled banks and this module. A
    library left by an older run is written again when either changed (a bundled worked
    example's figures follow the calculator, so an old copy may no longer load)."""
    digest = hashlib.sha256(Path(__file__).read_bytes())
    digest.update(COMPUTED_BANK.read_bytes())
    for path in sorted(bundled_bank_dir().glob("*.yaml")):
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]
