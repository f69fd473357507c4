"""The validator warns at a listed misconception that gives no distractor in any variant."""

from __future__ import annotations

from quiz.bank.load import load_bank_text
from tests.bank.helpers import HEAD, found


def computed(optimizer: str, listed: str) -> str:
    return HEAD + (
        "  - id: adam-8bit-states\n"
        "    topic: memory\n"
        "    question: >-\n"
        "      {{ model.name }} is trained in mixed BF16 with " + optimizer + ". How much\n"
        "      memory do its model states take?\n"
        "    answer_figure: training.model_states | GB:1\n"
        f"    misconceptions: [{listed}]\n"
        "    vary:\n"
        "      model: [llama-2-7b, llama-2-13b]\n"
        "    short_explanation: The optimizer adds its states to the weights.\n"
        "    full_explanation: >-\n"
        "      The model states take {{ training.model_states | GB:2 }}.\n"
        "    worked_example:\n"
        "      footprint: {model: llama-2-7b, phase: training, training: {precision: "
        "mixed-bf16, optimizer: " + optimizer + "}}\n")


LISTED = "forget-master-weights, adam-one-moment, gib-labelled-gb, forget-gradients"


def test_a_misconception_idle_in_every_variant_is_warned_at_its_name() -> None:
    text = computed("adam-8bit", LISTED)
    report = load_bank_text(text)
    assert report.ok
    line = text.split("\n").index(f"    misconceptions: [{LISTED}]") + 1
    column = len("    misconceptions: [forget-master-weights, ") + 1
    assert found(report) == [(line, column, "warning",
                              "adam-one-moment gives no distractor in any variant of this "
                              "question (the mistake does not arise in its scenario): remove "
                              "it or list one that does")]


def test_no_warning_where_it_gives_a_distractor() -> None:
    assert load_bank_text(computed("adamw", LISTED)).diagnostics == []
