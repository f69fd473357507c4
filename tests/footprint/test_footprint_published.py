"""Published figures the calculator must hit exactly: ZeRO Fig. 1, Korthikanti Table 2, KV cache
sizes, INT4 weights of Llama-2-7B."""

from __future__ import annotations

from fractions import Fraction

import pytest

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.presets import get_model, model_presets
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.inputs.units import format_bytes
from quiz.footprint.items.inference import WEIGHT_BITS, kv_bytes_per_token
from quiz.footprint.items.model_states import activation_bytes_per_layer


def spec(**data: object) -> FootprintSpec:
    return FootprintSpec.from_mapping(data)


# Rajbhandari et al. 2020, ZeRO, Fig. 1: Ψ = 7.5B, N_d = 64, K = 12 (mixed-precision Adam),
# 16-bit gradients: 120 GB, 31.4 GB, 16.6 GB, 1.88 GB per device for stages 0-3.
ZERO_FIG1 = {
    0: (120_000_000_000, "120.00 GB"),
    1: (31_406_250_000, "31.41 GB"),
    2: (16_640_625_000, "16.64 GB"),
    3: (1_875_000_000, "1.88 GB"),
}


@pytest.mark.parametrize("stage", [0, 1, 2, 3])
def test_zero_paper_figure_1(stage: int) -> None:
    s = spec(
        params="7.5B",
        phase="training",
        training={"precision": "mixed-fp16", "optimizer": "adam", "zero": stage, "dp": 64},
    )
    training = estimate(s).training
    expected, text = ZERO_FIG1[stage]
    assert training.total_bytes == expected
    assert format_bytes(training.total_bytes) == text
    assert (
        round(training.total_bytes / 1e9, 1 if stage < 3 else 2)
        == {0: 120.0, 1: 31.4, 2: 16.6, 3: 1.88}[stage]
    )
    assert training.devices == 64
    assert [o.item for o in estimate(s).omitted if o.phase == "training"] == ["activations"]


def test_zero_stage_0_is_16_bytes_per_param_and_fp32_grads_18() -> None:
    base = {"params": "1B", "phase": "training", "training": {"optimizer": "adam"}}
    assert estimate(spec(**base)).training.total_bytes == 16 * 10**9
    base["training"]["grad_precision"] = "fp32"
    assert estimate(spec(**base)).training.total_bytes == 18 * 10**9


def test_precision_regimes() -> None:
    def total(precision: str, optimizer: str = "adam") -> int:
        s = spec(
            params="1B", phase="training", training={"precision": precision, "optimizer": optimizer}
        )
        return estimate(s).training.total_bytes

    assert total("fp32") == 16 * 10**9  # 4 + 4 + 8, no master copy
    assert total("mixed-bf16") == 16 * 10**9
    assert total("bf16") == 8 * 10**9  # 2 + 2 + 2 × 2, everything BF16
    assert total("mixed-fp16", "sgd") == 8 * 10**9
    assert total("mixed-fp16", "sgd-momentum") == 12 * 10**9
    # 8-bit Adam: 2 states × (1 byte + 4 bytes per block of 256): bitsandbytes
    # optim/optimizer.py, Optimizer2State.init_state (blocks = n // 256, rounded up; FP32 absmax)
    assert total("mixed-bf16", "adam-8bit") == 8 * 10**9 + 2 * (10**9 + -(-(10**9) // 256) * 4)


# Korthikanti et al. 2022, Table 2, GPT-3 175B shape: s = 2048, h = 12288, a = 96.
S, H, A, B = 2048, 12288, 96, 1


def test_korthikanti_5as_over_h_is_80() -> None:
    assert Fraction(5 * A * S, H) == 80


@pytest.mark.parametrize("t", [1, 2, 4, 8])
def test_korthikanti_table_2(t: int) -> None:
    sbh = S * B * H
    x = Fraction(5 * A * S, H)  # 80

    def per(**kw: object) -> Fraction:
        return activation_bytes_per_layer(s=S, b=B, h=H, a=A, t=t, **kw)

    if t == 1:
        assert per() == sbh * (34 + x)  # no parallelism
    assert per() == sbh * (10 + Fraction(24, t) + x / t)  # tensor parallel
    assert per(sequence_parallel=True) == Fraction(sbh, t) * (34 + x)  # tensor + sequence
    assert per(recompute="selective") == sbh * (10 + Fraction(24, t))
    assert per(recompute="selective", sequence_parallel=True) == sbh * Fraction(34, t)
    assert per(recompute="full") == 2 * sbh  # convention: the layer input, 2sbh
    assert per(recompute="full", sequence_parallel=True) == Fraction(2 * sbh, t)


def test_korthikanti_through_estimate_gpt3() -> None:
    s = spec(
        model="gpt-3-175b",
        phase="training",
        training={"convention": "paper", 
            "tp": 8,
            "sequence_parallel": True,
            "recompute": "selective",
            "seq_len": 2048,
            "micro_batch": 1,
        },
    )
    act = estimate(s).training.item("activations")
    assert act.bytes == 96 * S * B * H * 34 // 8
    assert "sbh/t (34)" in act.formula and "Table 2" in act.source


def test_fp32_activations_use_4_byte_values() -> None:
    per = activation_bytes_per_layer(s=S, b=B, h=H, a=A, act_bytes=4)
    assert per == S * B * H * 66 + 9 * A * S * S * B


def test_kv_cache_per_token() -> None:
    assert kv_bytes_per_token(layers=80, kv_heads=8, head_dim=128) == 327_680
    assert kv_bytes_per_token(layers=32, kv_heads=32, head_dim=128) == 524_288
    for pid, per_token in (("llama-2-70b", 327_680), ("llama-2-7b", 524_288)):
        s = spec(model=pid, phase="inference", inference={"context": 1, "batch": 1, "kv_block": 1})
        assert estimate(s).inference.item("kv_cache").bytes == per_token
        s = spec(model=pid, phase="inference", inference={"context": 4096, "batch": 8})
        assert estimate(s).inference.item("kv_cache").bytes == per_token * 4096 * 8


def test_kv_dtype_of_its_own() -> None:
    s = spec(model="llama-2-70b", phase="inference", inference={"context": 1, "kv_dtype": "fp8",
                                                             "kv_block": 1})
    assert estimate(s).inference.item("kv_cache").bytes == 163_840


def test_sliding_window_caps_the_kv_cache() -> None:
    # Mistral-7B: 32 layers, 8 KV heads of 128, window 4,096 on every layer.
    per_token = kv_bytes_per_token(layers=32, kv_heads=8, head_dim=128)
    at = {}
    for ctx in (2048, 4096, 8192, 32768):
        s = spec(model="mistral-7b", phase="inference", inference={"context": ctx})
        at[ctx] = estimate(s).inference.item("kv_cache").bytes
    assert at[2048] == per_token * 2048
    assert at[4096] == at[8192] == at[32768] == per_token * 4096
    half = spec(
        model="mistral-7b", sliding_layers=16, phase="inference", inference={"context": 8192}
    )
    assert estimate(half).inference.item("kv_cache").bytes == per_token // 2 * (8192 + 4096)


# INT4, group 128, Llama-2-7B. Convention: the 6,476,005,376 weights of the attention and MLP
# matrices at 4 bits; embeddings, LM head and norms (262,410,240) at 16 bits; per group of 128
# input weights one FP16 scale and one 4-bit zero point (AutoGPTQ/AWQ layout).
def test_int4_llama_2_7b_weights() -> None:
    s = spec(model="llama-2-7b", phase="inference", inference={"weights": "int4"})
    inf = estimate(s).inference
    weights = inf.item("weights").bytes
    overhead = inf.item("quantization_overhead").bytes
    assert weights == 6_476_005_376 // 2 + 262_410_240 * 2 == 3_762_823_168
    assert overhead == 50_593_792 * 5 // 2 == 126_484_480
    assert weights + overhead == 3_889_307_648
    assert abs(weights + overhead - 3.89e9) / 3.89e9 < 0.01


@pytest.mark.parametrize("fmt", sorted(WEIGHT_BITS))
def test_weights_never_below_params_times_bytes(fmt: str) -> None:
    for pid in model_presets():
        if fmt.startswith("gguf") and get_model(pid).arch.mla:
            continue  # llama.cpp's MLA tensor types are not modelled: an error (test_hybrids)
        # GPT-2 XL's 1,600 is no multiple of AWQ's default group of 128: an error (AutoAWQ)
        group = {"group_size": 64} if fmt == "awq-int4" and pid == "gpt-2-1.5b" else {}
        s = spec(model=pid, phase="inference", inference={"weights": fmt, **group})
        weights = estimate(s).inference.item("weights").bytes
        assert weights >= -(-s.resolved.params * WEIGHT_BITS[fmt] // 8)


def test_fp8_per_tensor_scales() -> None:
    s = spec(model="llama-2-7b", phase="inference", inference={"weights": "fp8"})
    assert estimate(s).inference.item("quantization_overhead").bytes == 32 * 7 * 4


def test_moe_memory_counts_all_experts() -> None:
    report = estimate(spec(model="mixtral-8x7b"))
    assert report.model.params == 46_702_792_704
    assert report.model.active_params == 12_879_925_248
    assert report.inference.item("weights").bytes == 46_702_792_704 * 2
    assert report.training.item("weights").bytes == 46_702_792_704 * 2


def test_storage_items() -> None:
    s = spec(model="llama-2-7b", storage={"dataset_tokens": "2T", "checkpoints": 3})
    st = estimate(s).storage
    assert st.item("dataset").bytes == 4 * 10**12  # uint16 token ids (vocab 32,000)
    assert st.item("checkpoints").bytes == 3 * 6_738_415_616 * 14  # 2 + 4 + 8
    assert st.item("inference_artifact").bytes == 6_738_415_616 * 2
    s = spec(
        model="llama-3-8b",
        phase="training",
        storage={"dataset_tokens": "15T", "checkpoint_kind": "weights"},
    )
    st = estimate(s).storage
    assert st.item("dataset").bytes == 60 * 10**12  # int32 ids: vocabulary 128,256 ≥ 65,500
    assert st.item("checkpoints").bytes == 8_030_261_248 * 2
    assert st.item("inference_artifact") is None
    s = spec(params="7B", storage={"dataset_size": "500GB"})
    assert estimate(s).storage.item("dataset").bytes == 500 * 10**9


def test_omitted_items_without_architecture() -> None:
    report = estimate(
        spec(params="7B", training={"optimizer": "adafactor"}, inference={"weights": "fp8"})
    )
    omitted = {(o.phase, o.item) for o in report.omitted}
    assert omitted == {
        ("training", "activations"),
        ("training", "optimizer_states"),
        ("inference", "kv_cache"),
        ("inference", "activations"),
        ("inference", "logits"),
        ("inference", "quantization_overhead"),
        ("storage", "dataset"),
        ("storage", "checkpoints"),
    }
    assert all(o.reason for o in report.omitted)
    names = {i.name for i in report.training.items}
    assert "activations" not in names and "optimizer_states" not in names


def test_partial_architecture_gives_activations_and_kv() -> None:
    report = estimate(spec(params="7B", layers=32, hidden=4096, heads=32, kv_heads=8))
    assert report.training.item("activations") is not None
    assert report.inference.item("kv_cache").bytes == 2 * 32 * 8 * 128 * 2 * 2048


def test_adafactor_factored_states() -> None:
    s = spec(model="gpt-2-1.5b", phase="training", training={"optimizer": "adafactor"})
    opt = estimate(s).training.item("optimizer_states")
    # far below Adam's 8 bytes per parameter: rows + columns per matrix, full for vectors
    assert 0 < opt.bytes < 1_557_611_200 // 100


def test_fewest_gpus_for_training() -> None:
    s = spec(
        model="llama-2-70b",
        phase="training",
        gpu="h100-80gb",
        training={"zero": 3, "dp": 8, "recompute": "full"},
    )
    t = estimate(s).training
    assert t.gpus_needed is not None
    # the smallest data-parallel size that fits: one fewer does not
    from quiz.footprint.items.model_states import model_state_bytes

    act = t.item("activations").bytes
    mem = t.usable_bytes  # the usable memory: all but 1 GiB (issue 21 §1)
    n = t.gpus_needed
    assert model_state_bytes(s.training, s.resolved, n) + act <= mem
    assert model_state_bytes(s.training, s.resolved, n - 1) + act > mem
    s0 = spec(model="llama-2-70b", phase="training", gpu="h100-80gb")
    assert estimate(s0).training.gpus_needed is None  # ZeRO-0: no dp is enough
    assert estimate(s0).training.headroom < 0


def test_inference_fit() -> None:
    s = spec(model="llama-2-70b", phase="inference", gpu="a100-80gb")
    inf = estimate(s).inference
    assert inf.gpus_needed == 2
    # usable: vLLM's gpu_memory_utilization 0.9 of each 80 GiB (issue 21 §1)
    assert inf.headroom == 2 * (80 * 2**30 * 9 // 10) - inf.total_bytes
