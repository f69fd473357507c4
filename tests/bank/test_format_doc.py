"""question_bank/FORMAT.md is documentation that doubles as a test: its complete example loads
cleanly and uses every infographic kind, multiple response, shuffle: false and a worked example."""

from __future__ import annotations

import re
from pathlib import Path

from quiz.bank.load import load_bank_text

FORMAT = Path(__file__).resolve().parents[2] / "question_bank" / "FORMAT.md"


def test_complete_example_in_format_doc_is_a_valid_bank() -> None:
    text = FORMAT.read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert example, "FORMAT.md has no ```yaml block"
    report = load_bank_text(example.group(1), "FORMAT.md example")
    assert report.ok and not report.diagnostics, [str(d) for d in report.diagnostics]
    questions = report.library.questions
    kinds = {q.infographic.kind for q in questions if q.infographic}
    assert kinds == {"table", "text", "footprint"}
    assert any(q.multiple_response for q in questions)
    assert any(not q.shuffle for q in questions)
    assert any(q.worked_example for q in questions)
