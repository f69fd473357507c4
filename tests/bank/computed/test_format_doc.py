"""FORMAT.md's Computed questions section: its examples load, and its catalog table is the
catalog's."""

from __future__ import annotations

import re
from pathlib import Path

from quiz.bank.computed.misconceptions import catalog_table
from quiz.bank.load import load_bank_text

FORMAT = Path(__file__).resolve().parents[3] / "question_bank" / "FORMAT.md"


def _section() -> str:
    text = FORMAT.read_text(encoding="utf-8")
    start = text.index("## Computed questions")
    return text[start:text.index("## Field reference", start)]


def test_each_example_of_the_section_validates() -> None:
    examples = re.findall(r"```yaml\n(.*?)```", _section(), re.S)
    assert len(examples) == 3
    for example in examples:
        text = ("bank: {id: doc, title: Doc, topics: {memory: Memory, serving: Serving}}\n"
                "questions:\n" + example)
        report = load_bank_text(text, "FORMAT.md")
        assert report.library is not None, [str(d) for d in report.diagnostics]
    last = report.library.banks[0].questions[0]
    assert last.variants()[-1] == {"model": "mistral-7b", "training.optimizer": "adam"}


def test_the_example_of_misconceptions_gives_the_options_it_says() -> None:
    example = re.findall(r"```yaml\n(.*?)```", _section(), re.S)[1]
    report = load_bank_text("bank: {id: doc, title: Doc}\nquestions:\n" + example, "FORMAT.md")
    assert report.library is not None
    question = report.library.banks[0].questions[0]
    assert list(question.options.values()) == ["53.9 GB", "80.9 GB", "100.4 GB", "107.8 GB"]
    assert question.answer == "D"


def test_the_catalog_table_is_the_catalogs() -> None:
    assert catalog_table() in _section()
