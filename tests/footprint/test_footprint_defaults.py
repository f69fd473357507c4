"""Issue 21 §1: today's defaults. Activations per layer from the architecture with
FlashAttention, PEFT's QLoRA recipe, and Korthikanti's GPT formula under --convention paper.
Every figure is computed here by hand from the shapes."""

from __future__ import annotations

from typing import Any

from quiz.footprint import FootprintSpec, estimate, render_report


def _training(model: str, **training: Any) -> Any:
    report = estimate(FootprintSpec.from_mapping(
        {"model": model, "phase": "training", "training": training}))
    assert report.training is not None
    return report.training


def test_llama_2_7b_activations_per_layer_with_flash_attention() -> None:
    # T = 2,048 tokens, h = q = k = 4,096, f = 11,008, a = 32, e = 2 (BF16), no dropout.
    T, h, f, a = 2048, 4096, 11008, 32
    replicated = T * h * (2 * 2 + 2 * 2)  # norm inputs and outputs
    split = 2 * T * (h + 2 * h) + 2 * T * h + (3 * 2 + 2) * T * f + 4 * a * T
    assert (replicated, split) == (67_108_864, 247_726_080)
    t = _training("llama-2-7b")
    assert t.item("activations").bytes == 32 * (replicated + split) == 10_074_718_208
    assert t.item("embedding_activations").bytes == 0  # no embedding dropout in Llama
    assert "FlashAttention" in t.item("activations").source


def test_eager_attention_adds_the_softmax_output() -> None:
    # Llama has no attention dropout: eager keeps e·a·T·s = 2 × 32 × 2,048 × 2,048 per layer
    flash = _training("llama-2-7b").item("activations").bytes
    eager = _training("llama-2-7b", attention="eager").item("activations").bytes
    assert eager - flash == 32 * (2 * 32 * 2048 * 2048 - 4 * 32 * 2048)


def test_a_gpt_layer_with_eager_attention_is_korthikantis_formula() -> None:
    # GPT-3 175B: LayerNorm, GeLU 4h MLP, dropout, q = k = h: the family model is Table 2's
    # sbh(34 + 5as/h) exactly, s = 2,048, b = 1, h = 12,288, a = 96.
    sbh = 2048 * 12288
    paper = 96 * sbh * (34 + 5 * 96 * 2048 // 12288)
    practice = _training("gpt-3-175b", attention="eager").item("activations").bytes
    assert practice == paper == _training("gpt-3-175b", convention="paper").item(
        "activations").bytes


def test_qlora_of_llama_2_7b_fits_an_rtx_4090_with_the_defaults() -> None:
    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "gpu": "rtx-4090", "training": {"finetune": "qlora"}}))
    t = report.training
    assert t is not None and t.headroom is not None and t.headroom > 0
    assert report.spec.training.recompute == "full"  # PEFT: gradient checkpointing on
    # each layer keeps its input: 32 × 2 × 2,048 × 4,096
    assert t.item("activations").bytes == 32 * 2 * 2048 * 4096 == 536_870_912
    text = render_report(report, width=120)
    assert "PEFT's QLoRA recipe: prepare_model_for_kbit_training turns on gradient" in text
    chosen = FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "training": {"finetune": "qlora", "recompute": "none"}})
    assert chosen.training.recompute == "none" and not chosen.training.recipe_recompute


def test_a_fit_without_an_architecture_says_what_it_leaves_out() -> None:
    # 13B params, mixed-precision Adam (16 bytes/param) under ZeRO-3 over 8 GPUs:
    # 13e9 × 16 / 8 = 26.00 GB counted; the activations need an architecture.
    spec = FootprintSpec.from_mapping(
        {"params": "13B", "phase": "training", "gpu": "a100-80gb",
         "training": {"optimizer": "adam", "zero": 3, "dp": 8}})
    report = estimate(spec)
    t = report.training
    assert t is not None and t.total_bytes == 13_000_000_000 * 16 // 8
    assert not t.complete and t.not_estimated == ("activations",)
    text = " ".join(render_report(report, width=200).split())
    fit = text[text.index("Fit:"):]
    assert fit.startswith("Fit: model states only: activations not estimated, give an "
                          "architecture; fits on each NVIDIA A100 80GB")
    assert "fewest GPUs: at least 3, from the incomplete total" in fit
    assert "per device (8 devices in this layout); model states only: activations not " \
        "estimated" in text
    data = report.to_json()
    assert data["training"]["complete"] is False
    assert data["training"]["not_estimated"] == ["activations"]
    whole = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training"}))
    assert whole.training is not None and whole.training.complete
    assert whole.to_json()["training"]["not_estimated"] == []


def test_your_own_gpu_alone_and_the_usable_fraction() -> None:
    # --gpu-memory 24GB alone: a custom GPU of 24,000,000,000 bytes; serving may use 0.9 of it
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                       "gpu_memory": "24GB"})
    report = estimate(spec)
    inf = report.inference
    assert report.gpu is not None and report.gpu.memory_bytes == 24 * 10**9
    assert inf is not None and inf.usable_bytes == 21_600_000_000
    assert inf.headroom == 21_600_000_000 - inf.total_bytes
    # training keeps 1 GiB for the CUDA context and allocator
    t = estimate(spec.replace({"phase": "training", "gpu": "h100-80gb", "gpu_memory": None}))
    assert t.training is not None and t.training.usable_bytes == 81559 * 2**20 - 2**30
    # --gpu-util replaces both; a preset's figures can be overridden
    util = estimate(spec.replace({"gpu": "rtx-4090", "gpu_util": "95%", "gpu_tflops": "100"}))
    assert util.inference is not None
    assert util.inference.usable_bytes == 24 * 10**9 * 95 // 100
    assert util.gpu is not None and util.gpu.peak_flops["bf16"] == 100 * 10**12
    assert util.gpu.peak_flops["fp8"] == 330_300 * 10**9  # the preset's, kept
    # Apple unified memory: three quarters by default
    mac = estimate(spec.replace({"gpu": "apple-m2-ultra-192gb", "gpu_memory": None}))
    assert mac.inference is not None and mac.inference.usable_bytes == 192 * 2**30 * 3 // 4


def test_gpu_bandwidth_without_memory_is_an_error() -> None:
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="give --gpu-memory"):
        FootprintSpec.from_mapping({"model": "llama-2-7b", "gpu_bandwidth": "1TB"})


def test_max_batch_fits_at_its_value_and_not_at_one_more() -> None:
    # Llama-2-7B BF16 on a 24 GB GPU, vLLM's 0.9 usable = 21,600,000,000 bytes. Fixed: weights
    # 13,476,831,232 + one 2,048-token step at the MLP peak (2 × (2 × 4,096 + 3 × 11,008) bytes
    # per token) 168,820,736. Per sequence: KV 2 × 32 × 4,096 × 2 × 2,048 = 1,073,741,824 and
    # the sampled logits 32,000 × 6 = 192,000. (21.6e9 − 13,645,651,968) // 1,073,933,824 = 7.
    base = {"model": "llama-2-7b", "phase": "inference", "gpu_memory": "24GB"}
    report = estimate(FootprintSpec.from_mapping(base))
    assert report.figure("inference.max_batch") == 7
    # the longest context for one sequence: whole blocks of 16 tokens of 524,288 bytes
    free = 21_600_000_000 - 13_476_831_232 - 168_820_736 - 192_000
    assert report.figure("inference.max_context") == free // (16 * 524_288) * 16 == 15_168
    at = estimate(FootprintSpec.from_mapping({**base, "inference": {"batch": 7}})).inference
    over = estimate(FootprintSpec.from_mapping({**base, "inference": {"batch": 8}})).inference
    assert at is not None and at.gpus_needed == 1 and at.headroom is not None and at.headroom >= 0
    assert over is not None and over.gpus_needed is not None and over.gpus_needed > 1
    longest = estimate(FootprintSpec.from_mapping({**base, "inference": {"context": 15_168}}))
    beyond = estimate(FootprintSpec.from_mapping({**base, "inference": {"context": 15_169}}))
    assert longest.inference is not None and longest.inference.gpus_needed == 1
    assert beyond.inference is not None and beyond.inference.gpus_needed == 2
    # the KV cache holds whole blocks: 15,169 tokens take 949 blocks = 15,184 slots
    kv = beyond.inference.item("kv_cache")
    assert kv is not None and kv.bytes == 524_288 * 15_184
    assert "15,184 tokens (15,169 in whole blocks of 16)" in kv.formula


def test_settings_that_are_not_used_or_not_possible_are_stated() -> None:
    # --bytes-per-token does nothing when --dataset-size gives the bytes
    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "storage": {"dataset_size": "1TB", "bytes_per_token": 4}}))
    assert [u.key for u in report.unused] == ["storage.bytes_per_token"]
    # it is in the JSON too, with why
    assert report.to_json()["unused"] == [{"key": "storage.bytes_per_token", "reason": (
        "the dataset size is given in bytes, so the bytes per token are not used")}]
    # "with no recomputation", never "with none recomputation"
    from quiz.footprint import explain_notes

    notes = " ".join(explain_notes(estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "training"}))))
    assert "with no recomputation" in notes and "none recomputation" not in notes
