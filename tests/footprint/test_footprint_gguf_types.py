"""Issue 21 §6: the GGUF types Q5_K_M, Q5_K_S, Q3_K_M, Q2_K and IQ4_XS, each from its block
struct in ggml-common.h and llama.cpp's per-tensor rules (src/llama-quant.cpp)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.presets import get_model
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.quant.gguf import GGML_TYPES, gguf_tensor_types, use_more_bits
from quiz.footprint.quant.layouts import tensor_bytes
from quiz.footprint.quant.plan import weight_plan


def plan_total(key: str, model: str) -> int:
    return weight_plan(key, get_model(model).arch, 0, 128).total


def test_block_structs_bytes() -> None:
    # ggml-common.h, QK_K = 256: block_q2_K = scales[16] + qs[64] + d + dmin = 84 bytes;
    # block_q3_K = hmask[32] + qs[64] + scales[12] + d = 110; block_iq4_xs = d + scales_h
    # (uint16) + scales_l[4] + qs[128] = 136; block_iq4_nl (QK4_NL = 32) = d + qs[16] = 18.
    assert tensor_bytes(GGML_TYPES["Q2_K"], 1, 256).total == 84
    assert tensor_bytes(GGML_TYPES["Q3_K"], 1, 256).total == 110
    assert tensor_bytes(GGML_TYPES["IQ4_XS"], 1, 256).total == 136
    assert tensor_bytes(GGML_TYPES["IQ4_NL"], 1, 32).total == 18
    assert tensor_bytes(GGML_TYPES["Q5_K"], 1, 256).total == 176
    bpw = {k: GGML_TYPES[k].bits_per_weight() for k in ("Q2_K", "Q3_K", "IQ4_XS", "IQ4_NL")}
    assert bpw == {"Q2_K": Fraction(21, 8), "Q3_K": Fraction(55, 16),
                   "IQ4_XS": Fraction(17, 4), "IQ4_NL": Fraction(9, 2)}


def _types(key: str, model: str, role: str) -> list[str]:
    return [t for r, *_, t in gguf_tensor_types(key, get_model(model).arch) if r == role]


def test_mix_rules_llama_2_7b() -> None:
    # Llama-2-7B: 32 layers, no grouped-query attention (n_gqa 1).
    more = ["Q6_K" if use_more_bits(i, 32) else "Q5_K" for i in range(32)]
    assert _types("gguf-q5_k_m", "llama-2-7b", "attn_v") == more
    assert _types("gguf-q5_k_m", "llama-2-7b", "ffn_down") == more
    assert set(_types("gguf-q5_k_s", "llama-2-7b", "attn_v")) == {"Q5_K"}
    assert _types("gguf-q3_k_m", "llama-2-7b", "attn_v") == ["Q5_K"] * 2 + ["Q4_K"] * 30
    assert _types("gguf-q3_k_m", "llama-2-7b", "ffn_down") == ["Q5_K"] * 2 + ["Q4_K"] * 30
    assert set(_types("gguf-q3_k_m", "llama-2-7b", "attn_output")) == {"Q4_K"}
    assert set(_types("gguf-q3_k_m", "llama-2-7b", "ffn_up")) == {"Q3_K"}
    assert set(_types("gguf-q2_k", "llama-2-7b", "attn_v")) == {"Q3_K"}
    assert set(_types("gguf-q2_k", "llama-2-7b", "ffn_down")) == {"Q3_K"}
    assert set(_types("gguf-q2_k", "llama-2-7b", "attn_q")) == {"Q2_K"}
    assert _types("gguf-q2_k", "llama-2-7b", "output") == ["Q6_K"]
    assert set(_types("gguf-iq4_xs", "llama-2-7b", "attn_v")) == {"IQ4_XS"}
    assert _types("gguf-iq4_xs", "llama-2-7b", "ffn_down") == ["Q5_K"] * 4 + ["IQ4_XS"] * 28
    # Llama-3-8B has 4 query heads per KV head: attn_v Q4_K under Q2_K, Q5_K under IQ4_XS.
    assert set(_types("gguf-q2_k", "llama-3-8b", "attn_v")) == {"Q4_K"}
    assert set(_types("gguf-iq4_xs", "llama-3-8b", "attn_v")) == {"Q5_K"}
    # Mixtral (8 experts): attn_v Q8_0; attn_output Q5_K under Q3_K_M, not under Q5_K_M.
    assert set(_types("gguf-q3_k_m", "mixtral-8x7b", "attn_v")) == {"Q8_0"}
    assert set(_types("gguf-q3_k_m", "mixtral-8x7b", "attn_output")) == {"Q5_K"}
    assert set(_types("gguf-q5_k_m", "mixtral-8x7b", "attn_output")) == {"Q5_K"}
    assert set(_types("gguf-q2_k", "mixtral-8x7b", "attn_output")) == {"Q5_K"}


# Hand-derived totals. Llama-2-7B's block matrices are 6,476,005,376 weights (25,296,896
# blocks of 256): per layer attn_v and attn_output 65,536 blocks, ffn_down 176,128; the
# embedding and the output matrix 512,000 blocks each; 65 norms of 4,096 F32 = 1,064,960 bytes.
HAND = {
    # all Q5_K (176 bytes/block), output Q6_K (210): 25,296,896 × 176 + 512,000 × 176 +
    # 512,000 × 210 + norms
    "gguf-q5_k_s": 25_296_896 * 176 + 512_000 * 176 + 512_000 * 210 + 1_064_960,
    # Q5_K_S + 16 use_more_bits layers with attn_v and ffn_down Q6_K (+34 bytes/block)
    "gguf-q5_k_m": (25_296_896 * 176 + 16 * (65_536 + 176_128) * 34 + 512_000 * 176
                    + 512_000 * 210 + 1_064_960),
    # Q3_K (110) + attn_v, ffn_down Q5_K (+66) in 2 layers and Q4_K (+34) in 30, attn_output
    # Q4_K in 32
    "gguf-q3_k_m": (25_296_896 * 110 + 2 * (65_536 + 176_128) * 66
                    + 30 * (65_536 + 176_128) * 34 + 32 * 65_536 * 34 + 512_000 * 110
                    + 512_000 * 210 + 1_064_960),
    # Q2_K (84) + attn_v, ffn_down and attn_output Q3_K (+26) in every layer
    "gguf-q2_k": (25_296_896 * 84 + 32 * (65_536 + 176_128 + 65_536) * 26 + 512_000 * 84
                  + 512_000 * 210 + 1_064_960),
    # IQ4_XS (136) + ffn_down Q5_K (+40) in the first 4 layers
    "gguf-iq4_xs": (25_296_896 * 136 + 4 * 176_128 * 40 + 512_000 * 136 + 512_000 * 210
                    + 1_064_960),
}


@pytest.mark.parametrize("key", sorted(HAND))
def test_llama_2_7b_totals_by_hand(key: str) -> None:
    assert plan_total(key, "llama-2-7b") == HAND[key]


# TheBloke's Llama-2-7B-GGUF model card (https://huggingface.co/TheBloke/Llama-2-7B-GGUF)
# lists Q3_K_M 3.30 GB, Q5_K_S 4.65 GB and Q5_K_M 4.78 GB (10^9 bytes, two decimals; tolerance
# 0.01 GB for the rounding, the header under 1 MB and 32-byte alignment, as in
# test_footprint_quant). Its Q2_K (2.83 GB) was made with the 2023 rules, before llama.cpp
# changed Q2_K's mix; no published IQ4_XS file of a preset was checked: those two rest on the
# hand-derived values above.
@pytest.mark.parametrize(("key", "published_gb"), [
    ("gguf-q3_k_m", 3.30), ("gguf-q5_k_s", 4.65), ("gguf-q5_k_m", 4.78)])
def test_matches_published_file_sizes(key: str, published_gb: float) -> None:
    assert abs(plan_total(key, "llama-2-7b") - published_gb * 1e9) <= 0.01e9


def test_llama_3_8b_q2_k_and_iq4_xs_by_hand() -> None:
    # Llama-3-8B: 27,262,976 blocks in the layers (per layer attn_v 16,384, attn_output 65,536,
    # ffn_down 229,376); embedding and output 2,052,096 blocks each; norms 1,064,960 bytes.
    assert plan_total("gguf-q2_k", "llama-3-8b") == (
        27_262_976 * 84 + 32 * (16_384 * 60 + (229_376 + 65_536) * 26) + 2_052_096 * 84
        + 2_052_096 * 210 + 1_064_960) == 3_171_295_232
    assert plan_total("gguf-iq4_xs", "llama-3-8b") == (
        27_262_976 * 136 + 32 * 16_384 * 40 + 4 * 229_376 * 40 + 2_052_096 * 136
        + 2_052_096 * 210 + 1_064_960) == 4_476_526_592


def test_new_schemes_through_the_estimate() -> None:
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                       "inference": {"weights": "gguf-Q5_K_M"}})
    report = estimate(spec)
    q = report.to_json()["inference"]["quantization"]
    assert q["scheme"] == "gguf-q5_k_m"
    assert {f["format"] for f in q["formats"]} == {"Q5_K", "Q6_K"}
    assert report.inference is not None
    item = report.inference.item("weights")
    assert item is not None and "Q6_K" in item.formula
