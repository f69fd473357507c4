"""Which scenario the calculator opens with from a question is decided by the bank model, not
the TUI (issue 8 §5)."""

from __future__ import annotations

from quiz.bank.model import Question
from tests.conftest import question_data


def test_worked_example_first_then_footprint_infographic_then_none() -> None:
    example = {"footprint": {"model": "llama-2-7b", "phase": "inference"}}
    chart = {"footprint": {"model": "llama-2-13b"}}
    both = Question.model_validate(question_data(worked_example=example, infographic=chart))
    assert both.calculator_spec is not None and both.worked_example is not None
    assert both.calculator_spec is both.worked_example.footprint
    only_chart = Question.model_validate(question_data(infographic=chart))
    assert only_chart.infographic is not None
    assert only_chart.calculator_spec is only_chart.infographic.footprint
    table = {"table": {"columns": ["a"], "rows": [["b"]]}}
    assert Question.model_validate(question_data(infographic=table)).calculator_spec is None
    assert Question.model_validate(question_data()).calculator_spec is None
