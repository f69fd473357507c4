"""``worked_example.expect``: the figure a keyed option states, recomputed by the calculator while
the bank loads; each disagreement is an error at its line and column."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pytest

from quiz.bank.expect import (
    ADAPTER_FIGURES,
    DRAFT_FIGURES,
    FIGURES,
    FigureMissing,
    parse_value,
    quantities_in,
    read_figure,
    rounds_to,
    states,
)
from quiz.bank.load import load_bank_text
from quiz.footprint import FootprintSpec, estimate

from .helpers import bank, found, question

ADAM_7B = "{params: 7B, training: {precision: mixed-bf16, optimizer: adam}}"


def _example(figure: str, value: str, footprint: str = ADAM_7B) -> str:
    return ("    worked_example:\n"
            f"      footprint: {footprint}\n"
            f"      expect: {{figure: {figure}, value: \"{value}\"}}\n")


def _q(options: str, figure: str = "training.total", value: str = "112 GB",
       footprint: str = ADAM_7B, answer: str = "A") -> str:
    keys = [k.split(":")[0].strip() for k in options.strip("{}").split(", ")]
    review = "{" + ", ".join(f"{k}: No." for k in keys if k != answer) + "}"
    return question(options=options, answer=answer, review=review,
                    extra=_example(figure, value, footprint))


def test_a_right_figure_in_the_key_loads_clean(pure: bool) -> None:
    text = bank(_q("{A: About 112 GB, B: 84 GB, C: 120 GiB, D: 14 GB}"))
    report = load_bank_text(text, "e.yaml", pure_python=pure)
    assert report.diagnostics == []
    example = report.library.questions[0].worked_example
    assert example.expect.figure == "training.total"
    assert example.figure() == 112_000_000_000


def test_a_value_the_calculator_does_not_give_is_an_error_at_the_value(pure: bool) -> None:
    report = load_bank_text(bank(_q("{A: 113 GB, B: 84 GB}", value="113 GB")), "e.yaml",
                            pure_python=pure)
    assert found(report) == [
        (16, 47, "error", "the calculator gives training.total = 112.00 GB (112,000,000,000 "
                          "bytes), which rounded to the digits written is not '113 GB'; write "
                          "the calculator's figure (quiz footprint ... --json)")]


def test_the_digits_written_set_the_rounding() -> None:
    weights = 13_476_831_232  # Llama-2-7B in BF16
    assert rounds_to(weights, parse_value("13.48 GB", "size"))
    assert rounds_to(weights, parse_value("13 GB", "size"))
    assert rounds_to(weights, parse_value("13.5 GB", "size"))
    assert not rounds_to(weights, parse_value("13.47 GB", "size"))
    assert not rounds_to(weights, parse_value("14 GB", "size"))
    assert rounds_to(weights, parse_value("12.55 GiB", "size"))  # 12.5513 GiB
    assert not rounds_to(weights, parse_value("13.48 GiB", "size"))
    assert rounds_to(1_500_000_000, parse_value("2 GB", "size"))  # half up
    assert not rounds_to(1_499_999_999, parse_value("2 GB", "size"))
    assert rounds_to(6_738_415_616, parse_value("6.74B", "count"))
    assert rounds_to(6_738_415_616, parse_value("6.74 billion parameters", "count"))
    assert rounds_to(2, parse_value("2 GPUs", "count"))
    assert not rounds_to(3, parse_value("2 GPUs", "count"))
    assert rounds_to(-4_400_000_000, parse_value("-4.4 GB", "size"))


def test_values_parse_to_exact_amounts_and_steps() -> None:
    q = parse_value("1,120.5 GB", "size")
    assert (q.amount, q.step, q.scale, q.step_text) == (
        Fraction(1_120_500_000_000), Fraction(10**8), "GB", "0.1 GB")
    q = parse_value("3 GPUs", "count")
    assert (q.amount, q.step, q.noun, q.step_text) == (3, 1, "GPUs", "1")
    with pytest.raises(ValueError, match="not a size"):
        parse_value("112", "size")
    with pytest.raises(ValueError, match="not a size"):
        parse_value("112 GBs", "size")
    with pytest.raises(ValueError, match="not a count"):
        parse_value("two GPUs", "count")


def test_states_finds_the_value_only_as_a_whole_number() -> None:
    assert states("About 112 GB, on two GPUs", "112 GB")
    assert not states("1112 GB", "112 GB")
    assert not states("112 GBs", "112 GB")
    assert not states("1.112 GB", "112 GB")


def test_quantities_in_a_distractor() -> None:
    like = parse_value("112 GB", "size")
    assert [q.text for q in quantities_in("84 GB on an H100 80GB, or 104.3 GiB", like, "size")] \
        == ["84 GB", "80GB", "104.3 GiB"]
    gpus = parse_value("2 GPUs", "count")
    assert [q.amount for q in quantities_in("1 GPU of 80 GB; 4 GPUs; 8 nodes", gpus, "count")] \
        == [1, 4]
    bare = parse_value("2", "count")
    assert [q.amount for q in quantities_in("80 GB on 3 H100", bare, "count")] == [3]


def test_no_keyed_option_stating_the_value_is_an_error(pure: bool) -> None:
    report = load_bank_text(bank(_q("{A: Over 100 GB, B: 84 GB}")), "e.yaml", pure_python=pure)
    assert found(report) == [
        (16, 47, "error", "no keyed option (A) states '112 GB' as written; the keyed option must "
                          "contain the expected value word for word")]


def test_a_distractor_within_the_rounding_is_an_error_at_that_option(pure: bool) -> None:
    # 104.31 GiB is 112.00 GB: the same figure in other units reads as right.
    report = load_bank_text(bank(_q("{A: 112 GB, B: 84 GB, C: 104.31 GiB, D: 112.6 GB}")),
                            "e.yaml", pure_python=pure)
    assert [(line, col) for line, col, _, _ in found(report)] == [(9, 39), (9, 54)]
    assert found(report)[0][3] == (
        "this distractor states '104.31 GiB', less than 1 GB from the calculator's "
        "training.total (112.00 GB): it reads as right; make it differ by at least the "
        "rounding step of the expected value '112 GB'")


def test_whole_counts_may_be_neighbours(pure: bool) -> None:
    fp = "{params: 70B, gpu: h100-80gb, inference: {weights: bf16}}"
    report = load_bank_text(bank(_q("{A: 2 GPUs, B: 1 GPU, C: 3 GPUs}", "inference.gpus_needed",
                                    "2 GPUs", fp)), "e.yaml", pure_python=pure)
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]


def test_an_unknown_or_missing_figure_is_an_error_at_the_figure(pure: bool) -> None:
    report = load_bank_text(bank(
        _q("{A: 112 GB, B: 84 GB}", figure="training.totl"),
        _q("{A: 112 GB, B: 84 GB}", figure="training.activations").replace("id: q1", "id: q2"),
        _q("{A: 2 GPUs, B: 1 GPU}", figure="training.gpus_needed", value="2 GPUs")
        .replace("id: q1", "id: q3"),
    ), "e.yaml", pure_python=pure)
    assert found(report) == [
        (16, 24, "error", "unknown figure 'training.totl' (did you mean 'training.total'?); "
                          "figures: params, training.total, training.<item>, "
                          "inference.total, inference.<item>, storage.<item>, ... (see "
                          "FORMAT.md)"),
        (27, 24, "error", "the estimate has no training activations: activation memory needs "
                          "the layers, hidden size and attention heads: give a model preset or "
                          "--layers --hidden --heads"),
        (38, 24, "error", "training.gpus_needed needs a GPU preset: add 'gpu:' (e.g. "
                          "h100-80gb)"),
    ]


def test_every_figure_name_reads_the_estimate() -> None:
    spec = FootprintSpec.from_mapping({
        "model": "llama-2-7b", "gpu": "h100-80gb", "overhead": "1GiB",
        "training": {"zero": 3, "dp": 8, "recompute": "full"}, "inference": {"weights": "int4"},
        "storage": {"dataset_tokens": "2T", "checkpoints": 2}})
    report = estimate(spec)
    adapters = estimate(spec.replace({"training": {"finetune": "qlora"}}))
    for name in FIGURES:
        if name in ADAPTER_FIGURES:  # only an adapter fine-tuning has them
            assert isinstance(read_figure(adapters, name), int), name
            with pytest.raises(FigureMissing, match="finetune: "):
                read_figure(report, name)
            continue
        if name in DRAFT_FIGURES:  # only speculative decoding with a draft model has them
            drafted = estimate(spec.replace({"inference": {"draft_model": "llama-3.2-1b"}}))
            assert isinstance(read_figure(drafted, name), int), name
            with pytest.raises(FigureMissing, match="draft_model: llama-3.2-1b"):
                read_figure(report, name)
            continue
        assert isinstance(read_figure(report, name), int), name
    assert read_figure(report, "inference.weights") == report.inference.item("weights").bytes
    assert read_figure(report, "training.total") == report.training.total_bytes
    assert read_figure(report, "storage.total") == report.storage.total_bytes
    assert read_figure(report, "params") == 6_738_415_616
    assert read_figure(report, "inference.gpus_needed") == 1
    with pytest.raises(KeyError):
        read_figure(report, "training.bogus")
    no_fit = estimate(spec.replace({"training": {"zero": 0, "dp": 1}}))
    with pytest.raises(FigureMissing, match="no number of NVIDIA H100 80GB .* training job"):
        read_figure(no_fit, "training.gpus_needed")
    # compute figures are counts, read from the same estimate; a missing one says what to add
    assert FIGURES["compute.training_time"][0] == "count"
    assert read_figure(report, "compute.training_flops") == 6 * 6_738_415_616 * 2 * 10**12
    bare = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b"}))
    with pytest.raises(FigureMissing, match=r"add 'training: \{train_tokens: \.\.\.\}' .* and "
                                            r"'gpu:' \(e\.g\. h100-80gb\)"):
        read_figure(bare, "compute.training_time")
    with pytest.raises(FigureMissing, match="add 'training: {recompute: full}' or selective"):
        read_figure(estimate(spec.replace({"training": {"recompute": "none"}})),
                    "compute.training_hardware_flops")
    b200 = estimate(spec.replace({"gpu": "rtx-3090"}))  # a preset without compute figures
    with pytest.raises(FigureMissing, match="no datasheet compute figures"):
        read_figure(b200, "compute.training_time")


FORMAT = Path(__file__).resolve().parents[2] / "question_bank" / "FORMAT.md"


def test_format_doc_lists_every_figure_and_its_example_validates() -> None:
    text = FORMAT.read_text(encoding="utf-8")
    section = text[text.index("### Worked examples that check the answer"):]
    listed = re.findall(r"^\| `([a-z_.]+)` \| (size|count) \|", section, re.M)
    assert dict(listed) == {name: kind for name, (kind, _) in FIGURES.items()}
    snippet = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    reviews = ("    short_explanation: s\n    full_explanation: f\n"
               "    distractor_review: {B: x, C: y, D: z}\n")
    doc_bank = ("bank: {id: d, title: D}\nquestions:\n  - id: q1\n    topic: memory\n"
                + snippet + reviews)
    report = load_bank_text(doc_bank, "FORMAT.md expect example")
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]
    assert report.library.questions[0].worked_example.expect.value == "112 GB"


def test_an_expert_parallel_footprint_validates_and_a_bad_ep_is_an_error_at_it(
        pure: bool) -> None:
    # Mixtral-8x7B, ep 2 within dp 2: the 1,605,636,096 non-expert params whole, half of the
    # 45,097,156,608 expert params, 2 bytes each (BF16) = 48,308,428,800 bytes
    mixtral = "{model: mixtral-8x7b, training: {dp: 2, ep: 2}}"
    good = _q("{A: 48.31 GB, B: 93.41 GB}", figure="training.weights", value="48.31 GB",
              footprint=mixtral)
    report = load_bank_text(bank(good), "e.yaml", pure_python=pure)
    assert report.diagnostics == []
    assert report.library.questions[0].worked_example.figure() == 48_308_428_800
    bad = _q("{A: 48.31 GB, B: 93.41 GB}", figure="training.weights", value="48.31 GB",
             footprint="{model: mixtral-8x7b, training: {dp: 2, ep: 3}}")
    errors = found(load_bank_text(bank(bad), "e.yaml", pure_python=pure))
    assert (15, 62, "error", "expert parallel size 3 does not divide the 8 experts of each MoE "
            "layer (each rank holds E/ep whole experts): use one of 2, 4, 8") in errors


def test_a_scenario_is_estimated_once_for_every_question_that_shares_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bank checks each worked example's figure twice (the example, then its question), and
    questions share scenarios: each (scenario, figure) is estimated once, and a missing figure
    is the same error every time."""
    from quiz.bank import model
    from quiz.footprint.engine import estimate as engine

    monkeypatch.setattr(model, "_FIGURES", {})
    calls: list[FootprintSpec] = []
    real = engine.estimate

    def counting(spec: FootprintSpec) -> object:
        calls.append(spec)
        return real(spec)

    monkeypatch.setattr(engine, "estimate", counting)
    same = [_q("{A: About 112 GB, B: 84 GB}").replace("id: q1", f"id: q{i}") for i in range(3)]
    other = _q("{A: 56 GB, B: 112 GB}", footprint="{params: 7B, training: {precision: "
               "mixed-bf16, optimizer: sgd}}", value="56 GB").replace("id: q1", "id: q9")
    missing = [_q("{A: 112 GB, B: 84 GB}", figure="training.activations")
               .replace("id: q1", f"id: m{i}") for i in range(2)]
    report = load_bank_text(bank(*same, other, *missing), "e.yaml")
    assert len(calls) == 3  # Adam 7B, SGD 7B, and the one without an architecture
    assert [d.message for d in report.errors] == [
        "the estimate has no training activations: activation memory needs the layers, "
        "hidden size and attention heads: give a model preset or --layers --hidden --heads"] * 2
    questions = load_bank_text(bank(*same, other), "e.yaml").library.questions
    assert [q.worked_example.figure() for q in questions] == [112 * 10**9] * 3 + [56 * 10**9]
    assert len(calls) == 3  # loading the bank again estimated nothing
