"""Footprint infographics and worked examples are validated by the calculator's own spec while
the bank loads, each problem at its line and column."""

from __future__ import annotations

from quiz.bank.load import load_bank_text

from .helpers import bank, found, question

FOOTPRINT = """\
    infographic:
      footprint:
        model: llama-7b
        trainig: {zero: 4}
        inference: {weights: int3, batch: -1}
    worked_example:
      footprint: {params: 7B, training: {tp: 3}, layers: 32, hidden: 4096, heads: 32}
"""


def test_every_footprint_problem_is_located(pure: bool) -> None:
    report = load_bank_text(bank(question(extra=FOOTPRINT)), "f.yaml", pure_python=pure)
    assert report.library is None
    assert found(report) == [
        (16, 16, "error", "unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?"),
        (17, 9, "error", "unknown key 'trainig'; did you mean 'training'?"),
        (18, 30, "error", "unknown weights 'int3'; expected one of: fp32, fp16, bf16, fp8, "
                          "int8, int4, fp8-channel, gptq-int4, gptq-int4-sym, awq-int4, "
                          "bnb-int8, bnb-nf4, bnb-nf4-dq, bnb-fp4, bnb-fp4-dq, gguf-q8_0, "
                          "gguf-q6_k, gguf-q5_k_m, gguf-q5_k_s, gguf-q4_k_m, gguf-iq4_xs, "
                          "gguf-q4_0, gguf-q3_k_m, gguf-q2_k; did you mean 'int8'?"),
        (18, 43, "error", "infographic.footprint.inference.batch: must be positive (got -1)"),
        (20, 46, "error", "worked_example.footprint.training.tp: tensor parallel size 3 does "
                          "not divide 32 attention heads"),
    ]


def test_valid_footprint_text_values_become_numbers(pure: bool) -> None:
    extra = ("    worked_example:\n"
             "      footprint: {params: 6.7b, phase: training, training: {zero: '3', dp: 64,"
             " sequence_parallel: yes}}\n")
    report = load_bank_text(bank(question(extra=extra)), "f.yaml", pure_python=pure)
    assert report.ok, [str(d) for d in report.diagnostics]
    spec = report.library.questions[0].worked_example.footprint
    assert (spec.params, spec.phase) == (6_700_000_000, "training")
    assert (spec.training.zero, spec.training.dp, spec.training.sequence_parallel) == (3, 64, True)


def test_an_ambiguous_size_unit_in_a_bank_is_an_error_with_a_hint(pure: bool) -> None:
    from quiz.bank.load import load_bank_text

    from .helpers import bank, only_error, question

    extra = ("    worked_example:\n"
             "      footprint: {model: llama-2-7b, storage: {dataset_size: 1Gb}}\n")
    assert only_error(load_bank_text(bank(question(extra=extra)), pure_python=pure)) == (
        15, 62, "worked_example.footprint.storage.dataset_size: '1Gb' is ambiguous: write 1GB "
                "(bytes) or 1Gbit (a lower-case b means bits)")


def test_a_repeated_scenario_is_validated_once_and_shared(pure: bool) -> None:
    """The same footprint mapping (an infographic and its worked example, questions on one
    model) gives one shared, frozen spec; a different one its own; a bad one is an error at
    each place it is written."""
    same = "{model: llama-2-7b, training: {zero: '3', dp: 8}}"
    extra = (f"    infographic:\n      footprint: {same}\n"
             f"    worked_example:\n      footprint: {same}\n")
    other = "    worked_example:\n      footprint: {model: llama-2-7b, training: {zero: '2'}}\n"
    report = load_bank_text(bank(question(extra=extra), question("q2", extra=extra),
                                 question("q3", extra=other)), "f.yaml", pure_python=pure)
    assert report.library is not None
    q1, q2, q3 = report.library.questions
    specs = [q1.infographic.footprint, q1.worked_example.footprint,
             q2.infographic.footprint, q2.worked_example.footprint]
    assert all(spec is specs[0] for spec in specs)
    assert specs[0].training.zero == 3 and specs[0].training.dp == 8
    assert q3.worked_example.footprint is not specs[0]
    assert q3.worked_example.footprint.training.zero == 2
    bad = "    worked_example:\n      footprint: {model: llama-2-7b, training: {tp: 3}}\n"
    report = load_bank_text(bank(question(extra=bad), question("q2", extra=bad)), "f.yaml",
                            pure_python=pure)
    assert [(line, message) for line, _, _, message in found(report)] == [
        (line, "worked_example.footprint.training.tp: tensor parallel size 3 does not divide "
               "32 attention heads") for line in (15, 25)]
