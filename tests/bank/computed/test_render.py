"""Computed questions as the loader reads them: placeholders rendered, options generated from
misconceptions, variants, and every problem at its line:column (issue 20 §1-§3, bad input)."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.bank.computed.placeholders import PlaceholderError, parse, parse_format
from quiz.bank.library import LoadReport
from quiz.bank.load import load_bank_text, load_library
from quiz.bank.model import Question

FIXTURE = Path(__file__).parents[2] / "fixtures" / "computed" / "computed.yaml"

HEAD = """\
bank:
  id: demo
  title: Demo
questions:
  - id: q1
    topic: memory
"""
"""Five lines of header: the question's own keys start on line 7."""

BODY = """\
    short_explanation: Mixed-precision Adam keeps sixteen bytes of state for every parameter.
    full_explanation: >-
      Weights, gradients, master weights and two moments: two, two, four and eight bytes per
      parameter, sixteen bytes in all, before any activation is counted.
    worked_example:
      footprint:
        model: llama-2-7b
        phase: training
"""


def load(text: str) -> LoadReport:
    return load_bank_text(text, "bank.yaml")


def only_question(report: LoadReport) -> Question:
    assert report.library is not None, [str(d) for d in report.diagnostics]
    return report.library.banks[0].questions[0]


def errors(report: LoadReport) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in report.diagnostics if d.severity == "error"]


@pytest.mark.parametrize(("inner", "exact", "shown"), [
    ("inference.kv_cache | GB:2", 17_179_869_184, "17.18 GB"),
    ("inference.kv_cache | GiB", 17_179_869_184, "16.00 GiB"),
    ("inference.kv_cache", 17_179_869_184, "17.18 GB"),
    ("inference.kv_cache | kB:2", 1_005, "1.01 kB"),          # a tie rounds up
    ("inference.kv_cache | MB:0", 2_500_000, "3 MB"),
    ("inference.kv_cache | B", 524_288, "524,288 B"),
    ("inference.kv_cache | TB:3", 1_234_567_890_123_456, "1,234.568 TB"),
    ("inference.headroom | GB:1", -1_250_000_000, "-1.3 GB"),  # ties away from zero
    ("params", 6_738_415_616, "6,738,415,616"),
    ("params | B:2", 6_738_415_616, "6.74B"),
    ("params | billion:1", 6_738_415_616, "6.7 billion"),
    ("params | M:0", 6_738_415_616, "6,738M"),
])
def test_formats_round_half_up_with_separators(inner: str, exact: int, shown: str) -> None:
    assert parse_format(inner).write(exact) == shown


@pytest.mark.parametrize(("text", "message"), [
    ("{{ inference.kv_cashe }}", "did you mean 'inference.kv_cache'?"),
    ("{{ params | GB:2 }}", "params is a count: 'GB' is not one of its units (a unit of the "
                            "wrong kind)"),
    ("{{ inference.kv_cache | billion }}", "(a unit of the wrong kind)"),
    ("{{ model.name | GB }}", "model.name is text"),
    ("{{ inference.kv_cache | GB:9 }}", "digits must be a whole number from 0 to 6"),
    ("a {{ params", "never closed"),
])
def test_bad_placeholders(text: str, message: str) -> None:
    with pytest.raises(PlaceholderError) as caught:
        parse(text)
    assert message in str(caught.value)


def test_four_braces_are_a_literal_pair() -> None:
    template = parse("a {{{{ b }} {{ params }}")
    assert template.render({"params": 7}) == "a {{ b }} 7"


def test_the_fixture_bank_written_from_format_md_validates() -> None:
    report = load_library([FIXTURE])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    assert not errors(report)
    first, second = report.library.banks[0].questions
    assert first.stem.startswith("Llama-2-7B (6.74B parameters) is fully fine-tuned with adamw")
    # 16 bytes x 6,738,415,616 = 107.81 GB; the misconceptions 8P, 12P, (adam-one-moment 12P
    # collides, so) gib-labelled-gb 100.4 GB.
    assert first.options == {"A": "53.9 GB", "B": "80.9 GB", "C": "100.4 GB", "D": "107.8 GB"}
    assert first.answer == "D"
    assert set(first.distractor_review) == {"A", "B", "C"}
    assert first.distractor_review["A"].startswith("53.9 GB leaves out the optimizer states")
    assert "107.8 GB" in first.distractor_review["C"]
    assert "{{" not in first.stem + first.short_explanation + first.full_explanation
    assert first.worked_example is not None
    assert first.worked_example.caption == "Llama-2-7B: model states in mixed BF16 with adamw"
    assert second.options["A"] != second.options["B"]
    assert second.infographic is not None and second.infographic.table is not None
    assert second.infographic.table.rows[1] == ["KV cache", "8.59 GB"]  # batch 4
    assert first.variant == {"model": "llama-2-7b", "training.optimizer": "adamw"}
    assert len(first.variants()) == 6 and len(second.variants()) == 4


def test_a_variant_renders_its_own_scenario_and_figures() -> None:
    report = load_library([FIXTURE])
    assert report.library is not None
    second = report.library.banks[0].questions[1]
    variant = second.with_variant({"model": "llama-2-70b", "inference.batch": "16"})
    assert variant.id == second.id
    assert variant.variant == {"model": "llama-2-70b", "inference.batch": "16"}
    # 327,680 bytes per token x 4,096 tokens x 16 sequences = 21,474,836,480 bytes
    key = variant.options[variant.answer if isinstance(variant.answer, str) else "A"]
    assert key == "21.47 GB"
    assert variant.stem.startswith("Llama-2-70B serves 16 sequences of 4,096")
    # GQA: every query head would be 8 times the cache (kv-all-query-heads)
    assert "171.80 GB" in variant.options.values()
    assert variant.worked_example is not None
    assert variant.worked_example.footprint.model == "llama-2-70b"
    assert second.with_variant(second.variant) is second
    assert second.with_variant({"model": "llama-2-70b", "inference.batch": "16"}) is variant
    with pytest.raises(ValueError, match="no variant"):
        second.with_variant({"model": "llama-2-13b", "inference.batch": "16"})


def test_placeholders_in_a_written_question() -> None:
    text = HEAD + """\
    question: How much do the weights of {{ model.name }} take in BF16 ({{{{ stays)?
    options: {A: "{{ inference.weights | GB:2 }}", B: "{{ inference.weights | GiB:2 }} GB"}
    answer: A
    distractor_review: {B: "This is the GiB number ({{ inference.weights | GiB:2 }}) labelled GB."}
""" + BODY.replace("phase: training", "phase: inference")
    question = only_question(load(text))
    assert question.stem == "How much do the weights of Llama-2-7B take in BF16 ({{ stays)?"
    assert question.options == {"A": "13.48 GB", "B": "12.55 GiB GB"}
    assert question.distractor_review["B"] == "This is the GiB number (12.55 GiB) labelled GB."


def test_errors_are_at_the_placeholder_or_item() -> None:
    text = HEAD + """\
    question: Model {{ model.name }} with {{ inference.kv_cashe | GB:2 }}?
    answer_figure: training.model_states | GB:1
    misconceptions: [forget-optimizer-states, forget-moments, kv-all-query-heads]
    vary:
      model: [llama-2-7b, llama-7b]
      inference.bach: [1, 2]
""" + BODY
    found = errors(load(text))
    assert found[0][:2] == (7, 43) and "did you mean 'inference.kv_cache'" in found[0][2]
    assert found[1][:2] == (9, 47) and "unknown misconception 'forget-moments'" in found[1][2]
    assert "forget-optimizer-states, forget-master-weights, forget-gradients" in found[1][2]
    assert found[2][:2] == (9, 63) and "does not apply to training.model_states" in found[2][2]
    assert found[3][:2] == (11, 27) and "refuses 'llama-7b'" in found[3][2]
    assert "did you mean 'llama-2-7b'" in found[3][2]
    assert found[4][:2] == (12, 7) and "'inference.bach' is not a scenario key" in found[4][2]
    assert "did you mean 'inference.batch'" in found[4][2]
    assert len(found) == 5


def test_a_figure_the_scenario_does_not_produce_is_an_error_there() -> None:
    text = HEAD + """\
    question: Which GPU count holds {{ model.name }} ({{ training.gpus_needed }})?
    answer_figure: training.model_states | GB:1
    misconceptions: [forget-optimizer-states]
""" + BODY
    found = errors(load(text))
    assert len(found) == 1
    assert found[0][:2] == (7, 55)
    assert "training.gpus_needed needs a GPU preset: add 'gpu:'" in found[0][2]


def test_a_variant_that_cannot_get_enough_distinct_options_is_reported() -> None:
    # With SGD and momentum (4 bytes of state) the model states are 12P: forgetting the master
    # weights or the optimizer states both give 8P, and Adam's moments do not arise.
    text = HEAD + """\
    question: How much memory do the model states of {{ model.name }} take?
    answer_figure: training.model_states | GB:1
    misconceptions: [forget-master-weights, adam-one-moment, forget-optimizer-states]
    vary:
      training.optimizer: [sgd-momentum, adamw]
""" + BODY
    found = errors(load(text))
    assert len(found) == 1
    line, column, message = found[0]
    assert (line, column) == (9, 21)
    assert "in the variant training.optimizer=sgd-momentum: only 1 of 3 distractors" in message
    assert "adam-one-moment (does not arise here); forget-optimizer-states (gives 53.9 GB " \
        "again)" in message


def test_a_question_writes_its_options_or_generates_them() -> None:
    text = HEAD + """\
    question: How much memory do the model states take?
    options: {A: "1 GB", B: "2 GB"}
    answer: A
    distractor_review: {B: "Because it is not the right figure at all here."}
    answer_figure: training.model_states | GB:1
    misconceptions: [forget-optimizer-states]
""" + BODY
    messages = [m for _, _, m in errors(load(text))]
    assert sum("either writes its options or generates them" in m for m in messages) == 3


def test_placeholders_need_a_scenario() -> None:
    text = HEAD + """\
    question: What is {{ params }}?
    options: {A: "1", B: "2"}
    answer: A
    distractor_review: {B: "Because it is not the right figure at all here."}
    short_explanation: Short.
    full_explanation: Full.
"""
    found = errors(load(text))
    assert len(found) == 1 and found[0][:2] == (7, 15)
    assert "needs 'worked_example: footprint:'" in found[0][2]


def test_too_many_variants() -> None:
    values = ", ".join(str(n) for n in range(1, 66))
    text = HEAD + f"""\
    question: How much memory do the model states of {{{{ model.name }}}} take?
    answer_figure: training.model_states | GB:1
    misconceptions: [forget-optimizer-states]
    vary:
      training.micro_batch: [{values}]
""" + BODY
    found = errors(load(text))
    assert any("vary gives 65 combinations; at most 64" in m for _, _, m in found)


def test_written_options_that_read_the_same_in_a_variant() -> None:
    # Llama-2-7B's training weights and gradients are both 13.48 GB in BF16, but with FP32
    # gradients they differ: the variant with bf16 gradients is the one reported.
    text = HEAD + """\
    question: Which is the gradients' size?
    options: {A: "{{ training.gradients | GB:2 }}", B: "{{ training.weights | GB:2 }}"}
    answer: A
    distractor_review: {B: "This is the weights, which the question does not ask about."}
    vary:
      training.grad_precision: [fp32, bf16]
""" + BODY
    found = errors(load(text))
    assert len(found) == 1
    assert found[0][:2] == (8, 56)  # at the second of the two
    assert "in the variant training.grad_precision=bf16: options A and B both read '13.48 GB'" \
        in found[0][2]


def _with_diagram(*lines: str) -> str:
    """The fixture with a text infographic of ``lines`` on its first question (the diagram's
    first line is on line 34)."""
    text = FIXTURE.read_text("utf-8")
    diagram = "".join(f"        {line}\n" for line in lines)
    anchor = '    worked_example:\n      caption: "{{ model.name }}: model states'
    assert anchor in text
    return text.replace(anchor, "    infographic:\n      text: |\n" + diagram + anchor, 1)


def test_a_diagram_is_measured_as_shown_not_as_its_placeholders_are_written() -> None:
    # 77 columns as written, 71 to 76 as shown (Llama-2-7B ... Mistral-7B-v0.1): it fits.
    report = load(_with_diagram("per model:", "x" * 60 + " {{ model.name }}"))
    assert report.ok and [d for d in report.diagnostics if "diagram" in d.message] == []
    # 76 columns as written; 6,738,415,616 (7B) and 13,015,864,320 (13B) parameters make it
    # 77 and 78 as shown: the widest variant is reported, at the line that is too wide.
    report = load(_with_diagram("parameters:", "x" * 63 + " {{ params }}"))
    assert [(d.line, d.column, d.message) for d in report.diagnostics
            if "diagram" in d.message] == [
        (35, 9, "this diagram has lines 78 columns wide: on an 80-column terminal lines over 76 "
                "wrap, which breaks its columns; keep them to 76 or fewer")]


def test_a_question_has_the_private_defaults_pydantic_gives() -> None:
    """Question sets its private attributes itself (one call, not pydantic's eleven): the same
    values pydantic's own defaults give, fresh for each question."""
    plain = {"id": "q", "topic": "t", "question": "Q?", "options": {"A": "a", "B": "b"},
             "answer": "A", "short_explanation": "s", "full_explanation": "f",
             "distractor_review": {"B": "r"}}
    first, second = Question.model_validate(plain), Question.model_validate(plain)
    expected = {name: attr.get_default(call_default_factory=True)
                for name, attr in Question.__private_attributes__.items()}
    assert first.__pydantic_private__ == second.__pydantic_private__ == expected
    assert first.__pydantic_private__ is not second.__pydantic_private__
    assert first.variant == {} and not first.computed
    assert Question.model_construct().__pydantic_private__ == expected
