"""Editor support: the shipped JSON Schema equals the generated one and accepts the bundled banks;
every bundled bank names it; ``quiz new`` appends a template without touching the text there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from quiz.bank import lint
from quiz.bank.load import load_library
from quiz.bank.schema import MODELINE, SCHEMA_FILE, render, schema
from quiz.bank.template import TemplateError, add_question
from quiz.cli import main

BANKS = Path(__file__).resolve().parents[2] / "question_bank"


def test_shipped_schema_equals_generated() -> None:
    assert (BANKS / SCHEMA_FILE).read_text(encoding="utf-8") == render(), (
        "regenerate it: quiz schema > question_bank/quiz-bank.schema.json")


def test_quiz_schema_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    assert json.loads(capsys.readouterr().out) == schema()


def test_every_bundled_bank_names_the_schema_on_its_first_line() -> None:
    banks = sorted(BANKS.glob("*.yaml"))
    assert banks
    for bank in banks:
        assert bank.read_text(encoding="utf-8").split("\n", 1)[0] == MODELINE, bank.name


def test_schema_accepts_bundled_banks_and_flags_a_typo() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    checker = jsonschema.Draft202012Validator(schema())
    for bank in sorted(BANKS.glob("*.yaml")):
        data = yaml.safe_load(bank.read_text(encoding="utf-8"))
        assert [e.message for e in checker.iter_errors(data)] == [], bank.name
    data["questions"][0]["anwser"] = "A"
    data["questions"][0]["options"]["Z"] = "An option keyed Z"
    messages = sorted(e.message for e in checker.iter_errors(data))
    assert any("'anwser' was unexpected" in m for m in messages), messages
    assert any("'Z'" in m for m in messages), messages
    # What the loader keeps as text, an editor's YAML 1.2 parser reads as a number: accepted.
    data = yaml.safe_load(bank.read_text(encoding="utf-8"))
    data["questions"][0]["options"]["A"] = 8
    assert list(checker.iter_errors(data)) == []


def test_folder_loader_ignores_the_schema_file() -> None:
    report = load_library([BANKS])
    assert report.library is not None
    assert all(b.path.suffix == ".yaml" for b in report.library.banks)
    assert not any(SCHEMA_FILE in d.path for d in report.diagnostics)


BANK = """\
# a comment the author wrote
bank:
  id: demo
  title: 'Demo'   # quoted on purpose
  topics: {memory: Memory, precision: Precision}
questions:
- id: memory-new-001
  topic: memory
  question: >-
    Which two are kept only in training?
    Choose two.
  options: {A: Gradients, B: Weights, C: Optimizer states, D: The input}
  answer: [A, C]
  short_explanation: s
  full_explanation: f
  distractor_review: {B: b, D: d}"""  # no newline at the end, list items at column 0


def test_new_appends_text_and_keeps_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "demo.yaml"
    path.write_bytes(BANK.encode())
    (tmp_path / "other.yaml").write_text("questions:\n  - id: memory-new-002\n",
                                         encoding="utf-8")
    added = add_question(path, multiple=True)
    assert (added.id, added.topic, added.line, added.created) == ("memory-new-003", "memory",
                                                                 19, False)
    text = path.read_text(encoding="utf-8")
    assert text.startswith(BANK + "\n\n# New question")
    assert text.split("\n")[18].startswith("- id: memory-new-003 ")
    report = load_library([path])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    new = report.library.questions[-1]
    assert new.answer == ["A", "C"] and lint.choose_count(new.stem) == 2
    found = lint.lint_library(report.library)
    assert {d.rule for d in found if d.line >= 19} == {lint.PLACEHOLDER.label}
    # one for each field to write: the stem, 4 options, 2 explanations, 2 reviews, a reference
    assert len([d for d in found if d.line >= 19]) == 10
    assert add_question(path, topic="precision").id == "precision-new-001"


def test_new_creates_a_bank_that_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                       ) -> None:
    path = tmp_path / "kv-cache.yaml"
    assert main(["new", str(path)]) == 0
    assert f"{path}:14: created the bank with question 'kv-cache-new-001'" in (
        capsys.readouterr().out)
    text = path.read_text(encoding="utf-8")
    assert text.split("\n")[13].startswith("  - id: kv-cache-new-001")
    report = load_library([path])
    assert report.library is not None and report.library.banks[0].info.topics == {
        "kv-cache": "Kv cache"}


@pytest.mark.parametrize(("text", "message"), [
    ("questions:\n  - {id: a}\nbank: {id: b, title: T}\n", "is not the last key"),
    ("bank: {id: b, title: T}\nquestions: [{id: a}]\n", "flow style"),
    ("bank: [unclosed\n", "does not parse"),
])
def test_new_refuses_and_leaves_the_file_alone(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TemplateError, match=message):
        add_question(path)
    assert path.read_text(encoding="utf-8") == text


def test_new_refuses_an_undeclared_topic(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         ) -> None:
    path = tmp_path / "demo.yaml"
    path.write_bytes(BANK.encode())
    assert main(["new", str(path), "--topic", "storage"]) == 1
    assert "topic 'storage' is not declared in bank.topics" in capsys.readouterr().err
    assert path.read_bytes() == BANK.encode()
