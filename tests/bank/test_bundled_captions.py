"""The bundled bank's captions say what each figure includes, so two figures for one model are
never two "answers" (issue 7 item 10)."""

from __future__ import annotations

from quiz.bank.load import load_library
from quiz.paths import bundled_bank_dir


def test_the_seed_questions_captions_say_what_each_figure_includes() -> None:
    library = load_library([str(bundled_bank_dir())]).library
    assert library is not None
    q = next(q for q in library.questions if q.id == "memory-train-vs-infer-001")
    assert q.infographic is not None and q.worked_example is not None
    chart, example = q.infographic.caption or "", q.worked_example.caption or ""
    assert "with activations" in chart and "storage" in chart.lower()
    assert "model states only" in example
