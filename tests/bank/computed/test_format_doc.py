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
    assert len(examples) == 4
    loaded = []
    for example in examples:
        text = ("bank: {id: doc, title: Doc, topics: {memory: Memory, serving: Serving}}\n"
                "questions:\n" + example)
        report = load_bank_text(text, "FORMAT.md")
        assert report.library is not None, [str(d) for d in report.diagnostics]
        loaded.append(report.library.banks[0].questions[0])
    # The example of a question's own review: its words, filled in, for the key 80.9 GB.
    own = loaded[2]
    # forget-master-weights gives 53.9 GB again (4 bytes, as the momentum): forget-gradients.
    assert list(own.options.values()) == ["53.9 GB", "67.4 GB", "75.3 GB", "80.9 GB"]
    assert ("53.9 GB leaves out the momentum buffer (27.0 GB): SGD with momentum keeps one FP32 "
            "velocity per parameter, 4 bytes, as much as the master copy. The full count is "
            "80.9 GB.") in own.distractor_review.values()
    last = loaded[-1]
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
