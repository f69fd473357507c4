"""Issue 21 §5: KV cache below 8 bits, prefix caching, a speculative-decoding draft model and KV
heads replicated by tensor parallelism, with hand-derived figures; ``inference.max_batch`` fits
at its value and not at one more with each option."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.engine.report import Report
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.items.kv_layout import KV_FORMATS, heads_per_gpu, replicated

USABLE_24GB = 21_600_000_000
"""--gpu-memory 24GB at vLLM's 0.9."""
LLAMA2_7B_FIXED = 13_645_651_968
"""Llama-2-7B BF16 weights 13,476,831,232 + one 2,048-token step's working memory 168,820,736."""
LLAMA2_7B_LOGITS = 32_000 * 6
"""Per sequence: 32,000 vocabulary entries × (2-byte logits + the sampler's FP32 copy)."""


def est(model: str = "llama-2-7b", top: dict[str, Any] | None = None, **inf: Any) -> Report:
    return estimate(FootprintSpec.from_mapping(
        {"model": model, "phase": "inference", **(top or {}), "inference": inf}))


def test_int4_and_fp4_store_their_scales() -> None:
    # INT4 (LMDeploy): 128 values × 4 bits + FP16 scale + FP16 zero point = 544 bits = 68 bytes
    # per head and token; Llama-3-70B: 2 × 8 heads × 68 × 80 layers = 87,040 bytes per token
    assert KV_FORMATS["int4"].vector_bits(128) == 544
    assert est("llama-3-70b", kv_dtype="int4", context=4096).figure(
        "inference.kv_cache") == 87_040 * 4096 == 356_515_840
    # NVFP4: 128 × 4 bits + 8 blocks of 16 × one FP8 scale = 576 bits = 72 bytes per head
    assert KV_FORMATS["fp4"].vector_bits(128) == 576
    assert KV_FORMATS["fp4"].bits_per_value(128) == 4.5
    assert est("llama-3-70b", kv_dtype="fp4", context=4096).figure(
        "inference.kv_cache") == 16 * 72 * 80 * 4096 == 377_487_360
    # against 327,680 bytes per token in BF16: 3.76x smaller, not 4x
    bf16 = est("llama-3-70b", context=4096).figure("inference.kv_cache")
    assert bf16 == 327_680 * 4096
    report = est("llama-3-70b", kv_dtype="int4", context=4096)
    kv = report.inference.item("kv_cache") if report.inference else None
    assert kv is not None and "68 bytes per head and token (INT4" in kv.formula
    assert "LMDeploy" in kv.source


def test_shared_prefix_is_stored_once_in_whole_blocks() -> None:
    # Llama-2-7B: 524,288 bytes per token. 1,000 shared tokens: 62 whole blocks of 16 = 992
    # stored once; each of 8 sequences keeps 2,048 - 992 = 1,056 tokens (66 blocks) of its own
    report = est(batch=8, context=2048, shared_prefix=1000)
    assert report.figure("inference.kv_cache") == (992 + 8 * 1056) * 524_288 == 4_949_278_720
    assert est(batch=8, context=2048).figure("inference.kv_cache") == 8 * 2048 * 524_288
    kv = report.inference.item("kv_cache") if report.inference else None
    assert kv is not None and "992 shared prefix tokens stored once + 8 sequences" in kv.formula
    data = report.to_json()["inference"]["kv"]
    assert data["shared_prefix_tokens"] == 992


def test_shared_prefix_longer_than_the_context_is_an_error(
        capsys: pytest.CaptureFixture[str]) -> None:
    from quiz.cli.footprint import main

    assert main(["--model", "llama-2-7b", "--context", "100", "--shared-prefix", "101"]) == 2
    err = capsys.readouterr().err
    assert "--shared-prefix: the shared prefix (101 tokens) is longer than the context (100" in err
    assert "Traceback" not in err
    assert main(["--model", "llama-2-7b", "--context", "100", "--shared-prefix", "100"]) == 0


def test_draft_model_adds_its_weights_and_its_own_kv_cache() -> None:
    # Llama-3.2-1B: 1,235,814,400 params × 2 bytes; KV: 2 × 8 heads × 64 × 2 bytes × 16 layers
    # = 32,768 bytes per token × 2,048 tokens
    report = est(draft_model="llama-3.2-1b")
    assert report.figure("inference.draft_weights") == 2_471_628_800
    assert report.figure("inference.draft_kv_cache") == 32_768 * 2048 == 67_108_864
    plain = est()
    assert report.figure("inference.total") == plain.figure("inference.total") \
        + 2_471_628_800 + 67_108_864
    assert report.to_json()["inference"]["kv"]["draft_model"] == "llama-3.2-1b"


def test_unknown_draft_model_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    from quiz.cli.footprint import main

    assert main(["--model", "llama-2-7b", "--draft-model", "llama-7b"]) == 2
    assert "--draft-model: unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?" in \
        capsys.readouterr().err


def test_kv_heads_replicated_when_tensor_parallelism_exceeds_them() -> None:
    assert heads_per_gpu(8, 16) == 1 and heads_per_gpu(8, 4) == 2
    assert replicated(100, 8, 16) == 200 and replicated(100, 8, 8) == 100
    # Llama-3-70B (8 KV heads) on T4s: 152 GB over 14.50 GB usable → 11, rounded up to tp 16,
    # so each GPU keeps 1 KV head: 2 copies of 327,680 × 8,192 × 2 bytes
    report = est("llama-3-70b", {"gpu": "t4"}, batch=2, context=8192)
    assert report.inference is not None and report.inference.gpus_needed == 16
    assert report.figure("inference.kv_cache") == 2 * 327_680 * 8192 * 2 == 10_737_418_240
    kv = report.inference.item("kv_cache")
    assert kv is not None and "× 2 copies (tensor parallelism over 16 GPUs" in kv.formula
    assert "KV heads replicated: 16 GPUs for 8 KV heads" in report.inference.fit_advice
    data = json.loads(json.dumps(report.to_json()))["inference"]["kv"]
    assert (data["tensor_parallel"], data["kv_heads_per_gpu"], data["kv_copies"]) == (16, 1, 2)
    # on two H100s (tp 2 ≤ 8 heads) nothing is replicated
    h100 = est("llama-3-70b", {"gpu": "h100-80gb"}, batch=2, context=8192)
    assert h100.inference is not None and h100.inference.gpus_needed == 2
    assert h100.figure("inference.kv_cache") == 327_680 * 8192 * 2
    # max_batch counts the copies: (16 × 14,495,514,624 − 141,526,843,392) // (5,368,709,120
    # + 769,536) = 16, not the 33 an unreplicated cache would allow
    assert report.figure("inference.max_batch") == 16
    assert est("llama-3-70b", {"gpu": "t4"}, batch=16, context=8192).inference.gpus_needed == 16
    assert est("llama-3-70b", {"gpu": "t4"}, batch=17, context=8192).inference.gpus_needed == 32


@pytest.mark.parametrize(("options", "most", "literal"), [
    ({}, (USABLE_24GB - LLAMA2_7B_FIXED) // (1_073_741_824 + LLAMA2_7B_LOGITS), 7),
    # INT4: 2,048 × 32 layers × 64 heads × 68 bytes = 285,212,672 per sequence
    ({"kv_dtype": "int4"}, (USABLE_24GB - LLAMA2_7B_FIXED) // (285_212_672 + LLAMA2_7B_LOGITS), 27),
    # FP4: 2,048 × 32 × 64 × 72 = 301,989,888 per sequence
    ({"kv_dtype": "fp4"}, (USABLE_24GB - LLAMA2_7B_FIXED) // (301_989_888 + LLAMA2_7B_LOGITS), 26),
    # 1,024 shared tokens (64 blocks) once, 1,024 per sequence of its own
    ({"shared_prefix": 1024}, (USABLE_24GB - LLAMA2_7B_FIXED - 1024 * 524_288)
     // (1024 * 524_288 + LLAMA2_7B_LOGITS), 13),
    # the draft's weights fixed, its 67,108,864 KV bytes per sequence
    ({"draft_model": "llama-3.2-1b"}, (USABLE_24GB - LLAMA2_7B_FIXED - 2_471_628_800)
     // (1_073_741_824 + 67_108_864 + LLAMA2_7B_LOGITS), 4),
])
def test_max_batch_fits_at_its_value_and_not_at_one_more(options: dict[str, Any],
                                                         most: int, literal: int) -> None:
    top = {"gpu_memory": "24GB"}
    report = est(top=top, **options)
    assert report.figure("inference.max_batch") == most == literal
    assert est(top=top, batch=most, **options).inference.gpus_needed == 1
    assert est(top=top, batch=most + 1, **options).inference.gpus_needed == 2


def test_max_context_respects_each_option() -> None:
    top = {"gpu_memory": "24GB"}
    for options in ({"kv_dtype": "int4"}, {"shared_prefix": 1024},
                    {"draft_model": "llama-3.2-1b"}):
        longest = est(top=top, **options).figure("inference.max_context")
        assert longest is not None and longest > 2048
        assert est(top=top, context=longest, **options).inference.gpus_needed == 1
        assert est(top=top, context=longest + 1, **options).inference.gpus_needed == 2


def test_explain_states_each_option(capsys: pytest.CaptureFixture[str]) -> None:
    from quiz.cli.footprint import main

    assert main(["--model", "llama-3-70b", "--phase", "inference", "--gpu", "t4", "--context",
                 "8192", "--batch", "2", "--kv-dtype", "fp4", "--shared-prefix", "1000",
                 "--draft-model", "llama-3.2-1b", "--explain", "--width", "200"]) == 0
    out = capsys.readouterr().out
    assert "KV cache below 8 bits: FP4 keeps 128 values × 4 bits + one FP8 E4M3 scale" in out
    assert "Prefix caching: 992 tokens of the 1,000-token shared prefix (62 whole blocks" in out
    assert "Speculative decoding: the draft model Llama-3.2-1B adds its weights" in out
    assert "KV heads replicated: the KV cache over tensor parallelism of 16 GPUs" in out
    assert "a 1,000-token shared prefix, draft model llama-3.2-1b" in out


def test_an_mla_latent_is_one_kv_head_kept_whole_on_every_gpu() -> None:
    from pathlib import Path

    config = str(Path(__file__).parent / "configs" / "deepseek-v3.json")
    report = estimate(FootprintSpec.from_mapping({
        "config": config, "phase": "inference", "gpu": "h200-141gb",
        "inference": {"batch": 8, "context": 8192}}))
    assert report.inference is not None and report.inference.gpus_needed == 16
    # (512 + 64) values × 2 bytes × 61 layers = 70,272 bytes per token, on each of 16 GPUs
    assert report.figure("inference.kv_cache") == 70_272 * 8192 * 8 * 16 == 73_685_532_672
    assert "each of the 16 GPUs keeps the whole MLA latent" in report.inference.fit_advice
    kv = report.to_json()["inference"]["kv"]
    assert (kv["kv_heads_per_gpu"], kv["kv_copies"], kv["bytes_per_token"]) == (1, 16, 70_272)


def test_a_prefix_shorter_than_a_block_is_said_to_share_nothing() -> None:
    report = est(batch=4, shared_prefix=10)
    assert [u.key for u in report.unused] == ["inference.shared_prefix"]
    assert "a prefix of 10 tokens fills none" in report.unused[0].reason
    # nothing is stored once: 4 sequences × 2,048 tokens × 524,288 bytes, as without it
    assert report.figure("inference.kv_cache") == 4 * 2048 * 524_288
    assert est(batch=4, shared_prefix=16).unused == []
