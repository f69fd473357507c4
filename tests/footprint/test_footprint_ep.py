"""Expert parallelism ``--ep`` (issue 12 §4): the routed experts' model states split over the ep
ranks carved out of dp × cp (Megatron-Core MoE Parallel Folding), everything else as before."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.words.explain import explain_notes

# Mixtral-8x7B (preset shapes): 32 layers, h = 4,096, f = 14,336 per expert (SwiGLU: gate, up,
# down), 8 experts. Expert params = 32 × 8 × 3 × 4,096 × 14,336; everything else (attention,
# embeddings, output layer, norms, routers) is replicated over the ep ranks.
MIXTRAL_PARAMS = 46_702_792_704
EXPERT = 32 * 8 * 3 * 4096 * 14_336
DENSE = MIXTRAL_PARAMS - EXPERT


def spec(**data: object) -> FootprintSpec:
    return FootprintSpec.from_mapping(data)


def items(part: object) -> dict[str, int]:
    return {i.name: i.bytes for i in part.items}  # type: ignore[attr-defined]


def test_mixtral_8x7b_dp_8_ep_8_zero_1_by_hand() -> None:
    assert EXPERT == 45_097_156_608 and DENSE == 1_605_636_096
    report = estimate(spec(model="mixtral-8x7b", phase="training",
                           training={"dp": 8, "ep": 8, "zero": 1}))
    got = items(report.training)
    # weights and gradients: the dense part whole, one expert of 8 per layer (BF16, 2 bytes)
    per_weights = DENSE + EXPERT // 8
    assert per_weights == 7_242_780_672
    assert got["weights"] == got["gradients"] == 2 * per_weights
    # ZeRO-1: the dense part's FP32 states over dp 8; the experts' over dp / ep = 1 rank
    per_states = DENSE // 8 + EXPERT // 8
    assert per_states == 5_837_849_088
    assert got["master_weights"] == 4 * per_states
    assert got["optimizer_states"] == 8 * per_states
    assert report.training.devices == 8  # ep is carved out of dp: no extra devices
    # activations per device do not change with balanced expert parallelism
    flat = estimate(spec(model="mixtral-8x7b", phase="training", training={"dp": 8, "zero": 1}))
    assert got["activations"] == items(flat.training)["activations"]
    weights = next(i for i in report.training.items if i.name == "weights")
    assert "45,097,156,608 expert params ÷ 8 (tp × pp × ep 8)" in weights.formula
    assert "Megatron-Core MoE" in weights.source


def test_experts_shard_over_dp_cp_over_ep_with_tp_and_zero_3() -> None:
    t = {"dp": 4, "cp": 2, "ep": 4, "tp": 2, "zero": 3, "seq_len": 4096}
    got = items(estimate(spec(model="mixtral-8x7b", phase="training", training=t)).training)
    per_tp = DENSE // 2  # ÷ tp (exact)
    assert per_tp * 2 == DENSE
    dense = -(-per_tp // 8)  # then ZeRO-3 over dp × cp = 8
    expert = -(-(EXPERT // (2 * 4)) // 2)  # ÷ tp × ep, then ZeRO-3 over dp × cp / ep = 2
    assert got["weights"] == 2 * (dense + expert)


def test_bytes_per_param_line_and_checkpoint_ignore_ep() -> None:
    a = estimate(spec(model="mixtral-8x7b", phase="training", training={"dp": 8, "ep": 8}))
    b = estimate(spec(model="mixtral-8x7b", phase="training", training={"dp": 8}))
    assert items(a.storage) == items(b.storage)  # a checkpoint holds every expert once
    assert a.training.total_bytes < b.training.total_bytes


@pytest.mark.parametrize(
    ("model", "training", "kind", "words"),
    [
        ("llama-2-7b", {"dp": 2, "ep": 2}, "ep_dense", "set ep to 1"),
        ("mixtral-8x7b", {"dp": 3, "ep": 3}, "ep_experts", "use one of 2, 4, 8"),
        ("mixtral-8x7b", {"dp": 2, "ep": 4}, "ep_dp", "set dp to a multiple of 4"),
        ("mixtral-8x7b", {"dp": 2, "ep": 2, "finetune": "lora"}, "ep_finetune",
         "set ep to 1 or finetune to full"),
        ("mixtral-8x7b", {"dp": 2, "ep": 2, "zero": 2, "convention": "deepspeed"},
         "ep_convention", "use the paper convention"),
    ],
)
def test_impossible_ep_is_an_error_at_the_field(model: str, training: dict, kind: str,
                                                words: str) -> None:
    with pytest.raises(ValidationError) as info:
        spec(model=model, phase="training", training=training)
    errors = [e for e in info.value.errors() if e["type"] == kind]
    assert len(errors) == 1, info.value.errors()
    assert errors[0]["loc"] == ("training", "ep")
    assert words in errors[0]["msg"]


def test_ep_divides_dp_times_cp() -> None:
    # folded with cp: dp 2 × cp 4 = 8 ranks carry ep 8
    report = estimate(spec(model="mixtral-8x7b", phase="training",
                           training={"dp": 2, "cp": 4, "ep": 8, "seq_len": 4096}))
    assert report.training.devices == 8
    with pytest.raises(ValidationError, match="must divide dp × cp = 4"):
        spec(model="mixtral-8x7b", phase="training", training={"dp": 2, "cp": 2, "ep": 8})


def test_explain_note_only_with_ep() -> None:
    with_ep = explain_notes(estimate(spec(model="mixtral-8x7b", phase="training",
                                          training={"dp": 8, "ep": 8, "zero": 1})))
    note = next(n for n in with_ep if n.startswith("Expert parallelism:"))
    assert "holds 1 expert of every MoE layer" in note
    assert "Megatron-Core MoE README" in note and "all-to-all" in note
    without = explain_notes(estimate(spec(model="mixtral-8x7b", phase="training",
                                          training={"dp": 8, "zero": 1})))
    assert not any(n.startswith("Expert parallelism:") for n in without)


def test_fewest_gpus_keeps_dp_a_multiple_of_ep() -> None:
    # H100 80GB, ZeRO-1, full recomputation, ep 8. dp 8: 2 × 7,242,780,672 (BF16 weights and
    # gradients) + 12 × 5,837,849,088 (FP32 master and Adam) > 85.52 GB. dp 16: the FP32 states
    # are DENSE/16 + EXPERT/(8 × 2) = 2,918,924,544 per device, 64.9 GB with the activations.
    report = estimate(spec(model="mixtral-8x7b", phase="training", gpu="h100-80gb",
                           training={"dp": 8, "ep": 8, "zero": 1, "recompute": "full"}))
    assert report.training.gpus_needed == 16
    assert "data-parallel size varied in steps of 8 (dp a multiple of ep 8)" in (
        report.training.fit_advice)
    states_16 = 4 * (DENSE + EXPERT // 8) + 12 * (DENSE // 16 + EXPERT // 16)
    other = report.training.total_bytes - sum(
        items(report.training)[k] for k in ("weights", "gradients", "master_weights",
                                            "optimizer_states"))
    assert states_16 + other <= 80 * 2**30 < 4 * (DENSE + EXPERT // 8) + 12 * (
        DENSE // 8 + EXPERT // 8) + other
    # with cp 2 folded in, dp moves in steps of ep / gcd(ep, cp) = 4
    cp = estimate(spec(model="mixtral-8x7b", phase="training", gpu="h100-80gb",
                       training={"dp": 4, "cp": 2, "ep": 8, "zero": 1, "recompute": "full"}))
    assert cp.training.gpus_needed is not None and cp.training.gpus_needed % 8 == 0
    assert "steps of 4 (dp × cp a multiple of ep 8)" in cp.training.fit_advice


def test_fp8_copy_and_adafactor_split_the_experts() -> None:
    fp8 = items(estimate(spec(model="mixtral-8x7b", phase="training",
                              training={"dp": 8, "ep": 8, "precision": "mixed-fp8"})).training)
    gemm = 32 * (4096 * 4096 * 2 + 2 * 4096 * 1024)  # attention Q, O and K, V
    assert fp8["fp8_weights"] == gemm + EXPERT // 8
    one = items(estimate(spec(model="mixtral-8x7b", phase="training",
                              training={"optimizer": "adafactor"})).training)
    eight = items(estimate(spec(model="mixtral-8x7b", phase="training",
                                training={"optimizer": "adafactor", "dp": 8,
                                          "ep": 8})).training)
    expert_stats = 32 * 8 * 3 * (4096 + 14_336)
    assert one["optimizer_states"] - eight["optimizer_states"] == 4 * (expert_stats
                                                                       - expert_stats // 8)


FAST = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(
    zero=st.integers(0, 3),
    ep_log=st.integers(0, 2),
    more=st.integers(1, 3),
    dp_mult=st.integers(1, 4),
    optimizer=st.sampled_from(["adamw", "sgd", "adam-8bit", "adafactor"]),
    precision=st.sampled_from(["mixed-bf16", "mixed-fp8", "bf16"]),
    tp=st.sampled_from([1, 2]),
)
def test_more_ep_never_raises_per_gpu_bytes(zero: int, ep_log: int, more: int, dp_mult: int,
                                            optimizer: str, precision: str, tp: int) -> None:
    small = 2 ** ep_log
    big = min(8, small * 2 ** more)
    dp = 8 * dp_mult  # a multiple of every ep tried

    def total(ep: int) -> int:
        t = {"dp": dp, "ep": ep, "zero": zero, "optimizer": optimizer, "precision": precision,
             "tp": tp}
        report = estimate(spec(model="mixtral-8x7b", phase="training", training=t))
        return report.training.total_bytes

    assert total(big) <= total(small)
    if big > small and zero < 3:  # the experts' weights (and below ZeRO-2 gradients) shrink
        assert total(big) < total(small)


def test_zero_3_already_shards_the_experts_over_every_rank() -> None:
    # ZeRO-3 splits every state over dp × cp; ep only regroups the experts' split (over ep,
    # then dp × cp / ep), so the bytes match and the note says so
    t = {"dp": 8, "zero": 3}
    one = estimate(spec(model="mixtral-8x7b", phase="training", training=t))
    eight = estimate(spec(model="mixtral-8x7b", phase="training", training={**t, "ep": 8}))
    assert eight.training.total_bytes == one.training.total_bytes
    note = next(n for n in explain_notes(eight) if n.startswith("Expert parallelism:"))
    assert "ZeRO-3 already shards" in note
