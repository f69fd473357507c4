"""Compute and time (issue 12 §5): FLOPs, training time, prefill, decode roofline, GPU figures.

Each figure is checked against a published or independently derived number, named at the test.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.cli.footprint import main
from quiz.footprint import FootprintSpec, estimate
from quiz.footprint.compute.figures import (
    COMPUTE_NAMES,
    UNITS,
    ceil_div,
    duration_text,
    training_seconds,
)
from quiz.footprint.inputs.presets import PresetError, _compute_figures, gpu_presets
from quiz.footprint.words.explain import explain_notes
from quiz.footprint.words.render import render_report

LLAMA2_7B = 6_738_415_616


def spec(**data: Any) -> FootprintSpec:
    return FootprintSpec.from_mapping(data)


def figures(s: FootprintSpec) -> dict[str, int]:
    return {q.name: q.value for q in estimate(s).compute}


def test_training_flops_are_6nd_exactly() -> None:
    # Kaplan et al. 2020 sec. 2.1: 6N FLOPs per training token; Llama-2-7B on 2T tokens.
    got = figures(spec(model="llama-2-7b", phase="training", training={"train_tokens": "2T"}))
    assert got["training_flops"] == 6 * LLAMA2_7B * 2 * 10**12 == 80_860_987_392_000_000_000_000
    assert "training_hardware_flops" not in got  # no recomputation: nothing executed twice


def test_chinchilla_budget() -> None:
    # Hoffmann et al. 2022: Chinchilla, 70B parameters on 1.4T tokens, trained with the same
    # compute budget as Gopher, 5.76e23 FLOPs (Table 3); 6ND gives 5.88e23, within 2.1 %.
    got = figures(spec(params="70B", phase="training", training={"train_tokens": "1.4T"}))
    assert got["training_flops"] == 588 * 10**21
    assert abs(got["training_flops"] / 5.76e23 - 1) < 0.025


def test_llama_2_7b_gpu_hours_match_meta() -> None:
    # Touvron et al. 2023 (Llama 2), Table 2: 184,320 A100-80GB GPU hours for the 7B model on
    # 2T tokens. 6ND at the default MFU 0.4 and 312 TFLOPS BF16 (A100 datasheet) gives 179,975
    # GPU hours: within 3 %.
    s = spec(model="llama-2-7b", phase="training", gpu="a100-80gb",
             training={"train_tokens": "2T"})
    seconds = figures(s)["training_time"]
    assert seconds == ceil_div(80_860_987_392 * 10**12, 312 * 10**12 * 2 // 5)
    assert abs(seconds / 3600 / 184_320 - 1) < 0.03
    # On 1,024 GPUs the same run takes 1/1,024 of the time (rounded up to a second).
    s64 = s.replace({"training": {"dp": 1024, "zero": 3}})
    assert figures(s64)["training_time"] == -(-80_860_987_392 * 10**12 * 5
                                              // (2 * 312 * 10**12 * 1024)) == 632_739


def test_recomputation_extra_forward_pass() -> None:
    base = {"model": "llama-2-7b", "phase": "training", "training": {"train_tokens": "1T"}}
    full = figures(spec(**{**base, "training": {"train_tokens": "1T", "recompute": "full"}}))
    # Narayanan et al. 2021 sec. 5.1: full recomputation = four passes, 8ND.
    assert full["training_hardware_flops"] == 8 * LLAMA2_7B * 10**12
    assert full["training_hardware_flops"] * 3 == full["training_flops"] * 4
    sel = figures(spec(**{**base, "training": {"train_tokens": "1T", "recompute": "selective"}}))
    # Korthikanti et al. 2022: selective recomputation re-runs QKᵀ and softmax·V only,
    # 4 × s × heads × head_dim FLOPs per token per layer (2,048 × 32 × 128 × 32 layers here).
    extra = 4 * 2048 * 32 * 128 * 32 * 10**12
    assert sel["training_hardware_flops"] == sel["training_flops"] + extra
    assert sel["training_flops"] < sel["training_hardware_flops"] < full["training_hardware_flops"]


def test_mixture_of_experts_counts_active_parameters() -> None:
    # Jiang et al. 2024 (Mixtral of Experts), sec. 2: 13B active of 47B parameters per token.
    report = estimate(spec(model="mixtral-8x7b", phase="training", training={"train_tokens": "1T"}))
    assert report.model.active_params == 12_879_925_248
    assert report.figure("compute.training_flops") == 6 * 12_879_925_248 * 10**12
    assert "active params" in report.compute[0].formula


def test_train_tokens_default_to_the_dataset() -> None:
    s = spec(model="llama-2-7b", phase="training", storage={"dataset_tokens": "2T"})
    assert figures(s)["training_flops"] == 6 * LLAMA2_7B * 2 * 10**12
    own = s.replace({"training": {"train_tokens": "1T"}})
    assert figures(own)["training_flops"] == 6 * LLAMA2_7B * 10**12
    none = estimate(spec(model="llama-2-7b", phase="training"))
    assert none.compute == [] and none.figure("compute.training_flops") is None


def test_prefill_flops() -> None:
    # Kaplan et al. 2020 sec. 2.1: a forward pass costs 2N per token.
    got = figures(spec(model="llama-2-7b", phase="inference",
                       inference={"context": 4096, "batch": 8}))
    assert got["prefill_flops"] == 2 * LLAMA2_7B * 4096 * 8


def test_decode_roofline_on_h100() -> None:
    # Independently derived: BF16 weights 2 × 6,738,415,616 bytes, KV cache 524,288 bytes per token
    # (2 × 32 layers × 4,096 × 2 bytes) × 2,048 tokens, read once per step at 3.35 TB/s.
    got = figures(spec(model="llama-2-7b", phase="inference", gpu="h100-80gb"))
    read = 2 * LLAMA2_7B + 524_288 * 2048
    assert got["decode_tokens_per_s"] == 3_350 * 10**9 // read == 230
    # Ridge point: 989.4 TFLOPS ÷ 3.35 TB/s = 295.3 FLOPs per byte; 2 bytes per 2 FLOPs per weight.
    assert got["decode_crossover_batch"] == 296
    # A batch of 8 reads the weights once for 8 tokens.
    got8 = figures(spec(model="llama-2-7b", phase="inference", gpu="h100-80gb",
                        inference={"batch": 8}))
    assert got8["decode_tokens_per_s"] == 8 * 3_350 * 10**9 // (2 * LLAMA2_7B + 8 * 524_288 * 2048)
    # FP8 weights on the H100: half the bytes, twice the peak: the same ridge.
    fp8 = figures(spec(model="llama-2-7b", phase="inference", gpu="h100-80gb",
                       inference={"weights": "fp8"}))
    assert fp8["decode_tokens_per_s"] > got["decode_tokens_per_s"]


def test_gpu_without_compute_figures_is_omitted_with_a_reason() -> None:
    report = estimate(spec(model="llama-2-7b", gpu="rtx-3090", training={"train_tokens": "1T"}))
    names = {q.name for q in report.compute}
    assert names == {"training_flops", "prefill_flops"}
    reasons = {o.item: o.reason for o in report.omitted if o.phase == "compute"}
    assert "no datasheet compute figures" in reasons["training_time"]
    assert "no datasheet memory bandwidth" in reasons["decode_tokens_per_s"]
    # FP32 training on the MI300X: its preset gives no FP32 peak.
    mi = estimate(spec(model="llama-2-7b", phase="training", gpu="mi300x",
                       training={"train_tokens": "1T", "precision": "fp32"}))
    assert any("no datasheet peak for FP32" in o.reason for o in mi.omitted)


def test_gpu_presets_carry_sourced_figures() -> None:
    gpus = gpu_presets()
    h100, a100 = gpus["h100-80gb"], gpus["a100-80gb"]
    # NVIDIA datasheets: H100 SXM 1,979 TFLOPS BF16 with sparsity (989.4 dense), 3.35 TB/s;
    # A100 80GB SXM 312 TFLOPS BF16 dense, 2,039 GB/s.
    assert h100.peak_flops["bf16"] == 989_400 * 10**9 and h100.bandwidth == 3_350 * 10**9
    assert a100.peak_flops["bf16"] == 312 * 10**12 and a100.bandwidth == 2_039 * 10**9
    assert gpus["l4"].bandwidth == 300 * 10**9 and gpus["h200-141gb"].bandwidth == 4_800 * 10**9
    for g in gpus.values():
        if g.bandwidth is None:
            assert not g.peak_flops and not g.compute_source
            continue
        assert "bf16" in g.peak_flops and any(
            word in g.compute_source for word in ("datasheet", "data sheet", "whitepaper"))
        # dense peaks: FP8 ≥ BF16 ≥ FP32 where given
        peaks = g.peak_flops
        assert peaks.get("fp32", 0) < peaks["bf16"] <= peaks.get("fp8", peaks["bf16"] * 2)


def test_gpu_compute_figures_are_all_or_none() -> None:
    with pytest.raises(PresetError, match="need 'peak_flops', 'compute_source' too"):
        _compute_figures({"bandwidth": 1}, "gpus.yaml: x")
    with pytest.raises(PresetError, match="unknown number format 'tf32'"):
        _compute_figures({"bandwidth": 1, "peak_flops": {"tf32": 1}, "compute_source": "s"}, "x")


@pytest.mark.parametrize(("given", "value"), [("0.5", 0.5), ("40%", 0.4), (0.35, 0.35), (1, 1.0)])
def test_mfu_accepts_fractions_and_percentages(given: Any, value: float) -> None:
    assert spec(model="llama-2-7b", training={"mfu": given}).training.mfu == value


@pytest.mark.parametrize(("given", "message"), [
    ("0", "must be above 0 and at most 1"),
    ("150%", "must be above 0 and at most 1"),
    ("-0.2", "must be above 0 and at most 1"),
    ("nan", "must be above 0 and at most 1"),
    ("fast", "expected a model FLOPs utilization such as 0.4 or 40%"),
])
def test_mfu_refuses_what_is_not_a_fraction(given: str, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        spec(model="llama-2-7b", training={"mfu": given})


def test_training_time_scales_with_mfu_exactly() -> None:
    assert training_seconds(10**18, 1, 10**15, 0.5) == 2_000
    assert training_seconds(10**18, 3, 10**15, 0.4) == 834  # 833.3 rounded up
    assert duration_text(93_600) == "1 d 2 h" and duration_text(45) == "45 s"
    assert duration_text(720) == "12 min" and duration_text(3_600) == "1 h"


@settings(max_examples=40, deadline=None)
@given(dp=st.integers(1, 4096), more=st.integers(1, 64), mfu=st.sampled_from([0.2, 0.4, 0.55]))
def test_more_gpus_never_take_longer(dp: int, more: int, mfu: float) -> None:
    base = spec(model="llama-2-7b", phase="training", gpu="h100-80gb",
                training={"train_tokens": "300B", "zero": 3, "dp": dp, "mfu": mfu})
    bigger = base.replace({"training": {"dp": dp * more}})
    t0, t1 = figures(base)["training_time"], figures(bigger)["training_time"]
    assert t1 <= t0
    assert t0 * dp * base.training.mfu >= figures(base)["training_flops"] / 989.4e12 * 0.999


def test_cli_prints_the_compute_section_and_explain_notes(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    code = main(["--model", "llama-2-7b", "--gpu", "h100-80gb", "--train-tokens", "2T",
                 "--dp", "64", "--zero", "3", "--mfu", "45%", "--recompute", "full",
                 "--explain", "--width", "100"])
    out = capsys.readouterr().out
    text = " ".join(out.split())
    assert code == 0
    assert "Compute and time" in out and "training flops: 80,860,987,392,000,000,000,000" in out
    assert "MFU 0.45" in out and "decode crossover batch: 296 sequences" in out
    assert "Training FLOPs: 6ND" in text and "hardware FLOPs utilization is 1.333" in text
    assert "Decode roofline: below a batch of 296" in text
    assert "never becomes compute-bound at this context" in text
    assert max(len(line) for line in out.splitlines()) <= 100


def test_hint_when_inputs_are_missing() -> None:
    text = render_report(estimate(spec(model="llama-2-7b")), width=100)
    assert "(more: give --train-tokens (or --dataset-tokens)" in text and "--gpu for" in text


def test_explain_notes_appear_only_with_their_figures() -> None:
    plain = explain_notes(estimate(spec(model="llama-2-7b")))
    assert not any(n.startswith(("Training FLOPs", "Decode roofline")) for n in plain)
    gqa = explain_notes(estimate(spec(model="llama-2-70b", phase="inference", gpu="h100-80gb",
                                      inference={"context": 512})))
    note = next(n for n in gqa if n.startswith("Decode roofline"))
    assert "the crossover moves to a batch of" in note


def test_the_decode_roofline_counts_one_sequence_s_kv_cache_whatever_the_gpu_count() -> None:
    # Llama-3-70B: 327,680 bytes per token (80 layers × 8 KV heads × 128 × 2 × 2 bytes); at 4,096
    # tokens one sequence reads 1,342,177,280 bytes per step, whether the batch of 8 sits on
    # one GPU or two (it read kv_cache × GPUs ÷ batch: 2,684,354,560 on two H100s).
    for gpu in ("h100-80gb", "h200-141gb"):
        notes = explain_notes(estimate(spec(model="llama-3-70b", phase="inference", gpu=gpu,
                                            inference={"batch": 8, "context": 4096})))
        note = " ".join(next(n for n in notes if n.startswith("Decode roofline")).split())
        assert "(1,342,177,280 bytes at 4,096 tokens)" in note, note


def test_every_compute_name_has_a_unit_and_a_figure_name() -> None:
    from quiz.footprint.engine.report import FIGURE_NAMES

    assert set(UNITS) == set(COMPUTE_NAMES)
    assert all(f"compute.{n}" in FIGURE_NAMES for n in COMPUTE_NAMES)
    report = estimate(spec(model="llama-2-7b", gpu="h100-80gb", training={"train_tokens": "1T",
                                                                          "recompute": "full"}))
    assert [q.name for q in report.compute] == list(COMPUTE_NAMES)
    for q in report.compute:
        assert report.figure(f"compute.{q.name}") == q.value
        assert report.to_json()["compute"]["items"][COMPUTE_NAMES.index(q.name)]["value"] == q.value


def test_8bit_adam_uses_bitsandbytes_block_and_names_the_papers() -> None:
    # bitsandbytes optim/optimizer.py, Optimizer2State.init_state: blocks = n // 256 (rounded
    # up), FP32 absmax1 and absmax2; Dettmers et al. 2022 sec. 2.1 used 2,048.
    report = estimate(spec(params="7B", phase="training", training={"optimizer": "adam-8bit"}))
    states = report.training.item("optimizer_states")
    assert states is not None
    assert states.bytes == 2 * (7 * 10**9 + -(-7 * 10**9 // 256) * 4) == 14_218_750_000
    assert "256" in states.formula and "bitsandbytes" in states.source
    note = next(n for n in explain_notes(report) if n.startswith("8-bit Adam's block size"))
    assert "blocks of 2,048: 27.34 MB" in note and "218.75 MB of scales" in note
    assert not any(n.startswith("8-bit Adam") for n in explain_notes(estimate(spec(params="7B"))))


def test_the_missing_inputs_hint_names_what_can_be_set_where_the_user_is() -> None:
    """The command line names flags; the app's form names its own labels (issue 7 item 16)."""
    from quiz.footprint.compute.figures import missing_inputs

    s = spec(params="7B")
    assert missing_inputs(s) == (
        "give --train-tokens (or --dataset-tokens) for the training FLOPs and time; "
        "--gpu for the training time and the decode throughput")
    labels = {"training.train_tokens": "Train tokens", "storage.dataset_tokens": "Dataset tokens",
              "gpu": "GPU"}
    assert missing_inputs(s, labels.get) == (
        "give Train tokens (or Dataset tokens) for the training FLOPs and time; "
        "GPU for the training time and the decode throughput")
    assert missing_inputs(s, {"gpu": "GPU"}.get) == (
        "give GPU for the training time and the decode throughput")


@pytest.mark.tui  # the app's form (quiz.tui) imports Textual
@pytest.mark.parametrize("data", [
    {"params": "7B", "training": {"optimizer": "adafactor"}, "inference": {"weights": "fp8"},
     "storage": {"dataset_tokens": "1T", "checkpoints": 1}},
    {"params": "7B", "training": {"recompute": "selective"}, "inference": {"weights": "int4"}},
])
def test_every_omitted_item_can_be_worded_without_flags(data: dict[str, Any]) -> None:
    """The app names its own form's settings: every omission carries a cause and the keys that
    would supply it, and its app wording names no command-line flag (issue 7 item 16)."""
    from quiz.footprint.words.render import omitted_text
    from quiz.tui.screens.footprint import form_fields

    labels = {f.key: f.label for f in form_fields()}
    report = estimate(FootprintSpec.model_validate(data))
    assert report.omitted
    for o in report.omitted:
        text = omitted_text(o, labels.get)
        assert "--" not in text, text
        if o.phase != "compute":
            assert o.cause and o.needs, o
