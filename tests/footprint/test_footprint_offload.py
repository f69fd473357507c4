"""Offload (ZeRO-Offload, ZeRO-Infinity), DeepSpeed's own count, and the framework overhead
(issue 12 §3 and §4).

DeepSpeed figures below were printed by DeepSpeed's estimators themselves at commit 38327e0
(2025-02): ``deepspeed/runtime/zero/stage3.py`` ``estimate_zero3_model_states_mem_needs`` and
``deepspeed/runtime/zero/stage_1_and_2.py`` ``estimate_zero2_model_states_mem_needs``, called with
``num_gpus_per_node=8, num_nodes=8`` (64 GPUs), ``zero_init=True`` and the default
``additional_buffer_factor=1.5``; CPU figures there are per node (8 GPUs) or, for ZeRO-2, for all
64 GPUs, so they are divided by 8 or 64 here.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.items.offload import largest_layer
from quiz.footprint.words.explain import explain_notes
from quiz.footprint.words.render import derivation_steps, render_bars, render_report

GIB = 2**30
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

ZERO3_FIG1 = {"params": "7.5B", "phase": "training", "training": {"zero": 3, "dp": 64}}
"""Rajbhandari et al. 2020 (ZeRO), Fig. 1: Ψ = 7.5B, N_d = 64, ZeRO-3 (P_os+g+p)."""


def _training(data: dict) -> object:
    return estimate(FootprintSpec.from_mapping(data)).training


def _with(training: dict, **top: object) -> dict:
    return {**ZERO3_FIG1, **top, "training": {**ZERO3_FIG1["training"], **training}}


def test_paper_convention_gives_the_zero_papers_1_75_gib() -> None:
    # ZeRO paper Fig. 1: 16 × 7.5e9 / 64 = 1.875e9 bytes = 1.88 GB = 1.75 GiB.
    t = _training(ZERO3_FIG1)
    assert t.total_bytes == 1_875_000_000
    assert f"{t.total_bytes / GIB:.2f}" == "1.75"


def test_deepspeed_convention_gives_deepspeeds_2_71_gib() -> None:
    # DeepSpeed estimate_zero3_model_states_mem_needs(7.5e9, 2e8, 8, 8, cpu_offload=False,
    # cpu_offload_params=False) → gpu_mem 2,909,375,000 ("2.71GB" as it prints, GiB).
    t = _training(_with({"convention": "deepspeed", "largest_layer": "200M"}))
    assert t.total_bytes == 2_909_375_000
    assert f"{t.total_bytes / GIB:.2f}" == "2.71"
    assert t.item("gathered_layer").bytes == 800_000_000
    assert t.item("fp32_gradients").bytes == 4 * 117_187_500
    assert "stage3.py" in t.item("gathered_layer").source
    assert t.host_total("cpu") == 0


@pytest.mark.parametrize(("params_off", "gpu", "cpu_per_node"), [
    # estimate_zero3_model_states_mem_needs(7.5e9, 2e8, 8, 8, True, False) and (..., True, True)
    ("none", 1_034_375_000, 22_500_000_000),
    ("cpu", 800_000_000, 25_312_500_000),
])
def test_deepspeed_zero3_offload_matches_its_estimator(params_off: str, gpu: int,
                                                       cpu_per_node: int) -> None:
    t = _training(_with({"convention": "deepspeed", "largest_layer": "200M", "offload": "cpu",
                         "offload_params": params_off}))
    assert t.total_bytes == gpu
    assert t.host_total("cpu") * 8 == cpu_per_node
    assert t.item("estimator_margin") is None
    assert t.host["cpu"][-1].name == "estimator_margin"


@pytest.mark.parametrize(("offload", "gpu", "cpu_all"), [
    # estimate_zero2_model_states_mem_needs(7.5e9, 8, 8, cpu_offload=False / True)
    ("none", 17_109_375_000, None),
    ("cpu", 15_000_000_000, 2_880_000_000_000),
])
def test_deepspeed_zero2_matches_its_estimator(offload: str, gpu: int, cpu_all: int | None) -> None:
    t = _training(_with({"convention": "deepspeed", "zero": 2, "offload": offload}))
    assert t.total_bytes == gpu
    if cpu_all is not None:
        assert t.host_total("cpu") * 64 == cpu_all
    else:
        assert t.item("gradients").bytes == 2 * 117_187_500  # 16-bit next to the FP32 ones
        assert t.item("fp32_gradients").bytes == 4 * 117_187_500


def test_largest_layer_as_deepspeed_counts_a_module() -> None:
    # Llama-2-7B: embed_tokens 32,000 × 4,096 is the largest module (own parameters only);
    # an MLP projection is 4,096 × 11,008 = 45,088,768.
    r = FootprintSpec.from_mapping({"model": "llama-2-7b"}).resolved
    n, what = largest_layer(r)
    assert n == 131_072_000 and "embedding" in what
    t = _training({"model": "llama-2-7b", "phase": "training",
                   "training": {"zero": 3, "dp": 8, "convention": "deepspeed"}})
    assert t.item("gathered_layer").bytes == 4 * 131_072_000
    # tensor parallelism splits the gathered layer
    t = _training({"model": "llama-2-7b", "phase": "training",
                   "training": {"zero": 3, "dp": 8, "tp": 2, "convention": "deepspeed"}})
    assert t.item("gathered_layer").bytes == 2 * 131_072_000


def test_deepspeed_without_a_layer_size_omits_the_gathered_layer() -> None:
    report = estimate(FootprintSpec.from_mapping(_with({"convention": "deepspeed"})))
    assert ("training", "gathered_layer") in {(o.phase, o.item) for o in report.omitted}
    assert report.training.total_bytes == 18 * 117_187_500


def test_zero_offload_keeps_16_bit_weights_on_the_gpu() -> None:
    # Ren et al. 2021 (ZeRO-Offload) sec. 4: the GPU keeps the 2Ψ 16-bit parameters; gradients,
    # FP32 master and Adam states (2 + 12 bytes per parameter) live in CPU memory.
    data = {"params": "10B", "phase": "training", "training": {"offload": "cpu", "zero": 2}}
    t = _training(data)
    assert t.total_bytes == 2 * 10**10
    assert t.host_total("cpu") == 14 * 10**10
    assert t.host_total("nvme") == 0
    assert "ZeRO-Offload" in t.host["cpu"][0].source


def test_zero_infinity_moves_everything() -> None:
    t = _training(_with({"offload": "nvme", "offload_params": "nvme"}))
    assert t.total_bytes == 0
    assert t.host_total("nvme") == 16 * 117_187_500
    assert "ZeRO-Infinity" in t.host["nvme"][0].source


@pytest.mark.parametrize(("training", "loc"), [
    ({"zero": 2, "offload_params": "cpu"}, ("training", "offload_params")),
    ({"convention": "deepspeed", "zero": 1}, ("training", "convention")),
    ({"convention": "deepspeed", "optimizer": "sgd"}, ("training", "convention")),
    ({"convention": "deepspeed", "offload": "nvme"}, ("training", "offload")),
    ({"convention": "deepspeed", "offload_params": "cpu"}, ("training", "offload_params")),
    ({"zero": 0, "offload": "cpu"}, ("training", "offload")),
    ({"zero": 2, "offload": "nvme"}, ("training", "offload")),
])
def test_impossible_combinations_are_errors(training: dict, loc: tuple) -> None:
    with pytest.raises(ValidationError) as info:
        FootprintSpec.from_mapping(_with(training))
    assert loc in [tuple(e["loc"]) for e in info.value.errors()]


def test_text_json_chart_and_steps_show_the_host_bytes() -> None:
    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "training": {"zero": 3, "dp": 8, "offload": "nvme",
                                             "offload_params": "cpu"}}))
    text = render_report(report, width=100)
    assert "Offloaded to CPU RAM — per GPU" in text and "Offloaded to NVMe — per GPU" in text
    bars = render_bars(report, width=80)
    assert "Offloaded, per GPU, own scale" in bars and "NVMe" in bars
    assert all(len(line) <= 80 for line in bars.splitlines())
    data = report.to_json()["training"]["offloaded"]
    assert data["cpu"]["total_bytes"] == 2 * 842_301_952
    assert data["nvme"]["total_bytes"] == 14 * 842_301_952
    steps = derivation_steps(report)
    assert any(s.startswith("training (NVMe): optimizer states = ") for s in steps)
    assert report.figure("training.nvme_total") == 14 * 842_301_952


def test_explain_tells_the_conventions_apart() -> None:
    report = estimate(FootprintSpec.from_mapping(_with({"largest_layer": "200M"})))
    notes = explain_notes(report, units="GiB")
    note = next(n for n in notes if n.startswith("Two conventions"))
    assert "1.75 GiB per GPU" in note and "2.71 GiB per GPU" in note
    assert "estimate_zero3_model_states_mem_needs" in note


def test_framework_overhead_is_an_item_and_zero_by_default() -> None:
    plain = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "gpu": "h100-80gb"}))
    assert plain.training.item("framework_overhead") is None
    assert any("--overhead is 0 by default" in n for n in explain_notes(plain))
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "gpu": "h100-80gb",
                                       "overhead": "1GiB"})
    report = estimate(spec)
    assert report.training.item("framework_overhead").bytes == GIB
    assert report.training.total_bytes == plain.training.total_bytes + GIB
    n = report.inference.gpus_needed
    assert report.inference.item("framework_overhead").bytes == n * GIB
    assert any("counts 1.07 GB per GPU" in x for x in explain_notes(report))


# Property tests -------------------------------------------------------------------------------

def _legal_offload(s: dict) -> dict:
    """DeepSpeed offloads the optimizer to CPU with ZeRO 1-3 and to NVMe with ZeRO-3 only (an
    error otherwise, tested below): raise the stage to the least that allows the offload."""
    if s["offload"] == "nvme":
        return {**s, "zero": 3}
    if s["offload"] == "cpu" and s["zero"] == 0:
        return {**s, "zero": 1}
    return s


SETUPS = st.fixed_dictionaries({
    "model": st.sampled_from(["llama-2-7b", "mixtral-8x7b", "gpt-2-1.5b", "llama-2-70b"]),
    "zero": st.sampled_from([0, 1, 2, 3]),
    "dp": st.sampled_from([1, 2, 8, 64, 1000]),
    "optimizer": st.sampled_from(["adamw", "adam-8bit", "sgd-momentum", "adafactor"]),
    "precision": st.sampled_from(["mixed-bf16", "fp32", "bf16"]),
    "offload": st.sampled_from(["none", "cpu", "nvme"]),
    "offload_params": st.sampled_from(["none", "cpu", "nvme"]),
}).map(_legal_offload)


def _all_places(t: object) -> int:
    return t.total_bytes + t.host_total("cpu") + t.host_total("nvme")


@FAST
@given(SETUPS)
def test_paper_offload_moves_bytes_and_never_creates_them(s: dict) -> None:
    if s["zero"] != 3:
        s = {**s, "offload_params": "none"}
    model = s.pop("model")
    moved = _training({"model": model, "phase": "training", "training": s})
    kept = _training({"model": model, "phase": "training",
                      "training": {**s, "offload": "none", "offload_params": "none"}})
    assert _all_places(moved) == kept.total_bytes
    assert moved.total_bytes <= kept.total_bytes


@FAST
@given(st.sampled_from(["llama-2-7b", "mixtral-8x7b", "llama-2-70b"]),
       st.sampled_from([2, 3]), st.sampled_from([1, 8, 64, 512]),
       st.sampled_from([("cpu", "none"), ("cpu", "cpu")]))
def test_deepspeed_offload_moves_bytes_apart_from_its_margin(model: str, zero: int, dp: int,
                                                             off: tuple[str, str]) -> None:
    # DeepSpeed's count: what moves is conserved under ZeRO-3; under ZeRO-2 its estimator also
    # drops the 16-bit gradient partition once gradients stream to the CPU. The estimator's
    # margin (buffer factor, load-time copy) is the only CPU addition.
    if zero == 2:
        off = ("cpu", "none")
    base = {"zero": zero, "dp": dp, "convention": "deepspeed"}
    kept = _training({"model": model, "phase": "training", "training": base})
    moved = _training({"model": model, "phase": "training",
                       "training": {**base, "offload": off[0], "offload_params": off[1]}})
    margin = sum(i.bytes for i in moved.host["cpu"]
                 if i.name in ("estimator_margin", "load_fp32_copy"))
    assert margin >= 0
    dropped = kept.item("gradients").bytes if zero == 2 else 0
    assert _all_places(moved) - margin == kept.total_bytes - dropped


@FAST
@given(SETUPS, st.sampled_from(["paper", "deepspeed"]), st.sampled_from([1, 2, 4]))
def test_more_gpus_never_raise_per_gpu_bytes(s: dict, convention: str, factor: int) -> None:
    model = s.pop("model")
    if convention == "deepspeed":
        s.update(zero=max(s["zero"], 2), optimizer="adamw", precision="mixed-bf16",
                 offload="cpu" if s["offload"] != "none" else "none")
        s["offload_params"] = "cpu" if s["offload"] == "cpu" and s["zero"] == 3 else "none"
    elif s["zero"] != 3:
        s["offload_params"] = "none"
    s["convention"] = convention
    few = _training({"model": model, "phase": "training", "training": s})
    many = _training({"model": model, "phase": "training",
                      "training": {**s, "dp": s["dp"] * factor + 1}})
    for where in ("cpu", "nvme"):
        assert many.host_total(where) <= few.host_total(where)
    assert many.total_bytes <= few.total_bytes


# FP8 training (issue 12 §4) ------------------------------------------------------------------

def test_fp8_training_keeps_higher_precision_states_and_adds_the_fp8_copy() -> None:
    # Llama-2-7B's GEMM weights, derived from the shapes: per layer 4 × 4,096² (Q, K, V, O) +
    # 3 × 4,096 × 11,008 (gate, up, down) = 202,375,168; × 32 layers = 6,476,005,376.
    fp8 = _training({"model": "llama-2-7b", "phase": "training",
                     "training": {"convention": "paper", "precision": "mixed-fp8"}})
    bf16 = _training({"model": "llama-2-7b", "phase": "training",
                      "training": {"convention": "paper"}})
    assert fp8.item("fp8_weights").bytes == 6_476_005_376
    for name in ("weights", "gradients", "master_weights", "optimizer_states"):
        assert fp8.item(name).bytes == bf16.item(name).bytes  # BF16 / FP32 as before
    assert "Transformer Engine" in fp8.item("fp8_weights").source
    # activations: 34 → 27 sbh per layer (QKV, attention-output and both MLP inputs in FP8);
    # s = 2,048, b = 1, h = 4,096: sbh = 8,388,608; 5as/h = 80.
    assert fp8.item("activations").bytes == 32 * 8_388_608 * (27 + 80)
    assert bf16.item("activations").bytes == 32 * 8_388_608 * (34 + 80)
    assert "27" in fp8.item("activations").formula


def test_zero3_shards_the_fp8_copy_over_dp_times_cp_as_the_weights_it_copies() -> None:
    # Llama-2-7B's 6,476,005,376 GEMM weights under ZeRO-3: over dp 4 × cp 2 = 8 ranks, as the
    # BF16 weights (6,738,415,616 params ÷ 8 = 842,301,952, × 2 bytes).
    base = {"precision": "mixed-fp8", "zero": 3, "dp": 4, "seq_len": 4096}
    cp2 = _training({"model": "llama-2-7b", "phase": "training",
                     "training": {**base, "cp": 2}})
    cp1 = _training({"model": "llama-2-7b", "phase": "training", "training": base})
    assert cp2.item("fp8_weights").bytes == 6_476_005_376 // 8 == 809_500_672
    assert cp1.item("fp8_weights").bytes == 6_476_005_376 // 4
    assert cp2.item("weights").bytes == 842_301_952 * 2
    assert "÷ 8 (ZeRO-3 over dp 4 × cp 2) = 809,500,672" in cp2.item("fp8_weights").formula
    assert "÷ 4 (ZeRO-3 over dp 4) = 1,619,001,344" in cp1.item("fp8_weights").formula


def test_fp8_activations_with_tensor_parallelism() -> None:
    # tensor parallel: sbh(8 + 19/t + 5as/(ht)) instead of sbh(10 + 24/t + 5as/(ht)).
    t = _training({"model": "llama-2-7b", "phase": "training",
                   "training": {"convention": "paper", "precision": "mixed-fp8", "tp": 2}})
    sbh = 2048 * 4096
    assert t.item("activations").bytes == -(-32 * (8 * 2 * sbh + 19 * sbh + 5 * 32 * 2048 * 2048)
                                            // 2)
    sp = _training({"model": "llama-2-7b", "phase": "training",
                    "training": {"convention": "paper",
                                 "precision": "mixed-fp8", "tp": 2, "sequence_parallel": True,
                                 "recompute": "selective"}})
    assert sp.item("activations").bytes == 32 * 27 * sbh // 2


def test_fp8_training_time_uses_the_fp8_peak() -> None:
    # H100 SXM datasheet: 1,978.9 TFLOP/s FP8 dense; 6ND / (G × peak × MFU), rounded up.
    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "training", "gpu": "h100-80gb",
         "training": {"precision": "mixed-fp8", "dp": 8, "zero": 3, "train_tokens": "2T"}}))
    flops = 6 * 6_738_415_616 * 2 * 10**12
    assert report.figure("compute.training_time") == -(-flops * 10 // (8 * 1_978_900 * 10**9 * 4))
    assert any(n.startswith("FP8 training (Transformer Engine style)")
               for n in explain_notes(report))
    with pytest.raises(ValidationError):
        FootprintSpec.from_mapping(_with({"precision": "mixed-fp8", "convention": "deepspeed"}))


# The chart: time and throughput beside memory (issue 12 §5) ----------------------------------

def test_chart_shows_time_and_throughput_beside_memory() -> None:
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "gpu": "h100-80gb",
                                       "training": {"zero": 3, "dp": 64, "train_tokens": "2T"}})
    report = estimate(spec)
    chart = render_bars(report, width=60, timing=True)
    lines = chart.splitlines()
    assert all(len(line) <= 60 for line in lines)
    start = lines.index("Time and throughput (formulas in the report):")
    assert lines.index(next(x for x in lines if x.startswith("Storage on disk"))) > start
    # 6ND = 8.086e22 FLOPs on 64 H100s at 989.4 TFLOP/s BF16 × 0.4: ⌈3,192,472.5⌉ s = 36 d 22 h
    assert report.figure("compute.training_time") == 3_192_473
    text = "\n".join(lines[start:])
    assert "training  36 d 22 h on 64 GPUs at MFU 0.4 (8.09e22 FLOPs)" in text
    decode = report.figure("compute.decode_tokens_per_s")
    crossover = report.figure("compute.decode_crossover_batch")
    assert f"decode    ≤ {decode:,} tokens/s, memory-bound below batch {crossover:,}" in text
    # the report shows them under its bars; a bank chart only with compute: true
    assert render_report(report, width=100).count("Time and throughput") == 1
    assert "Time and throughput" not in render_bars(report, width=80, timing=False)
    # without a GPU preset there is no time or throughput to show
    assert "Time and throughput" not in render_bars(
        estimate(spec.replace({"gpu": None})), width=80, timing=True)


# The fewest-GPU search (benchmarks: one estimate with every option on) -------------------------

@FAST
@given(st.integers(2, 2**24), st.integers(1, 2**24))
def test_smallest_fitting_finds_the_first_fitting_size(answer: int, guess: int) -> None:
    from quiz.footprint.engine.fit import MAX_DP, smallest_fitting

    calls: list[int] = []

    def fits(n: int) -> bool:
        calls.append(n)
        return n >= answer

    assert smallest_fitting(fits, 1, MAX_DP, guess) == answer
    assert len(calls) <= 2 * 25


@FAST
@given(SETUPS, st.sampled_from(["h100-80gb", "rtx-4090", "a100-40gb"]))
def test_fewest_gpus_is_the_first_data_parallel_size_that_fits(s: dict, gpu: str) -> None:
    if s["zero"] != 3:
        s["offload_params"] = "none"
    model = s.pop("model")
    spec = FootprintSpec.from_mapping({"model": model, "phase": "training", "gpu": gpu,
                                       "training": s})
    needed = estimate(spec).training.gpus_needed
    if needed is None:
        return
    fits = [estimate(spec.replace({"training": {"dp": n}})).training.headroom >= 0
            for n in (needed, needed - 1) if n >= 1]
    assert fits[0] and (len(fits) == 1 or not fits[1])


def test_fp8_bytes_per_param_sum_equals_its_terms_and_names_the_fp8_copy_beside_it() -> None:
    """16 = 2 + 2 + 4 + 8: the FP8 copy (1 byte per GEMM weight, not per parameter) is named
    after the sum, never inside it, in the convention line and in the --explain note."""
    report = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                                  "training": {"convention": "paper",
                                                               "precision": "mixed-fp8"}}))
    assert report.training is not None
    assert ("16 bytes/param = 2 (BF16 weights) + 2 (BF16 gradients) + 4 (FP32 master) + 8 "
            "(adamw states), plus an FP8 copy of each GEMM weight (1 byte per GEMM weight)"
            ) in report.training.convention
    notes = " ".join(explain_notes(report))
    assert ("--grad-precision fp32 gives the 18-byte count. The FP8 copy of the GEMM weights "
            "(1 byte each, a separate item) comes on top of these counts.") in notes
    bf16 = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training"}))
    assert "FP8" not in " ".join(explain_notes(bf16))
