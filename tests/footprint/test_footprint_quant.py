"""Quantization layouts (quiz/footprint/quant.py): bytes of each layout against figures derived
by hand from the formats' sources, and the property that the bits per weight stay within what the
layout allows."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.presets import get_model
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.items.inference import WEIGHT_BITS
from quiz.footprint.quant.gguf import GGML_TYPES, gguf_tensor_types, use_more_bits
from quiz.footprint.quant.layouts import (
    QuantLayout,
    TensorBytes,
    bnb_4bit_layout,
    bnb_4bit_model_bytes,
    tensor_bytes,
)
from quiz.footprint.quant.plan import weight_plan
from quiz.footprint.quant.schemes import SCHEMES

LLAMA_2_7B = get_model("llama-2-7b").arch


def test_bnb_4bit_bits_per_weight_match_qlora_paper() -> None:
    # Dettmers et al. 2023 (QLoRA), sec. 3 "Double Quantization": the quantization constants
    # take 32/64 = 0.5 bits per parameter at block 64, and 8/64 + 32/(64·256) = 0.127 with
    # double quantization (second-level block 256).
    assert bnb_4bit_layout("nf4").bits_per_weight() == Fraction(9, 2)
    dq = bnb_4bit_layout("nf4", double_quant=True).bits_per_weight()
    assert dq == 4 + Fraction(8, 64) + Fraction(32, 64 * 256)
    assert round(float(dq - 4), 3) == 0.127
    assert bnb_4bit_layout("fp4").bits_per_weight() == Fraction(9, 2)


def test_bnb_4bit_one_matrix_by_hand() -> None:
    # Derived from bitsandbytes/functional.py quantize_4bit: 4096 × 4096 = 16,777,216 values →
    # 8,388,608 packed bytes; 262,144 blocks of 64 → FP32 absmax 1,048,576 bytes; code table
    # 16 × 4 = 64 bytes.
    plain = tensor_bytes(bnb_4bit_layout("nf4"), 4096, 4096)
    assert plain == TensorBytes(8_388_608, 1_048_576, 64, 0)
    # Double quantization: 8-bit absmax 262,144 bytes; ⌈262,144 / 256⌉ = 1,024 FP32 second-level
    # absmax (4,096 bytes) + FP32 offset (4) + 16- and 256-entry FP32 code tables (64 + 1,024).
    dq = tensor_bytes(bnb_4bit_layout("nf4", double_quant=True), 4096, 4096)
    assert dq == TensorBytes(8_388_608, 262_144, 4_096 + 4 + 64 + 1_024, 0)


def test_bnb_4bit_flat_blocks_cross_rows() -> None:
    # bitsandbytes blocks the flattened tensor: 3 × 100 = 300 values → ⌈300 / 64⌉ = 5 blocks
    # (a per-row grouping would give 3 × 2 = 6).
    assert tensor_bytes(bnb_4bit_layout("nf4"), 3, 100).scales == 5 * 4


def test_bnb_4bit_llama_2_7b_model() -> None:
    # Llama-2-7B: 6,476,005,376 weights in the 224 block matrices (32 layers × q, k, v, o, gate,
    # up, down) → 3,238,002,688 bytes at 4 bits; 101,187,584 blocks of 64 → 404,750,336 bytes of
    # FP32 absmax; 224 × 64 bytes of code tables; 262,410,240 kept parameters (embeddings, LM
    # head, norms) × 2 bytes = 524,820,480.
    m = bnb_4bit_model_bytes(LLAMA_2_7B, "nf4")
    assert m.quantized_params == 6_476_005_376
    assert m.quantized == TensorBytes(3_238_002_688, 404_750_336, 224 * 64, 0)
    assert m.kept == 524_820_480
    assert m.total == 4_167_587_840
    dq = bnb_4bit_model_bytes(LLAMA_2_7B, "nf4", double_quant=True)
    # 101,187,584 one-byte absmax; per matrix ⌈blocks / 256⌉ × 4 + 4 + 64 + 1,024 bytes.
    assert dq.quantized.scales == 101_187_584
    second = 32 * (4 * (1024 * 4 + 1092) + 3 * (2752 * 4 + 1092))
    assert dq.quantized.second_level == second == 1_825_664
    assert dq.total == 3_238_002_688 + 101_187_584 + second + 524_820_480


def test_bnb_4bit_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="quant_type"):
        bnb_4bit_layout("int4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="block size 100"):
        bnb_4bit_layout("nf4", blocksize=100)
    with pytest.raises(ValueError, match="at least 1"):
        tensor_bytes(bnb_4bit_layout("nf4"), 0, 64)


LAYOUTS = [
    bnb_4bit_layout("nf4"),
    bnb_4bit_layout("nf4", double_quant=True),
    bnb_4bit_layout("fp4", double_quant=True, blocksize=128),
    *GGML_TYPES.values(),
    *(s.layout(g) for s in SCHEMES.values() if s.layout is not None for g in (32, 64, 128, 1000)),
]


def layout_upper_bound(layout: QuantLayout, out: int, inp: int) -> Fraction:
    """Bits per weight a layout can reach on an out × in matrix: the values, every block's
    metadata, every second-level scale, the per-tensor constants, the outliers, and at most
    8 bits of byte rounding per stored array (4 arrays)."""
    n = out * inp
    blocks = layout.blocks(out, inp)
    second = -(-blocks // layout.second_block) * layout.second_bits if layout.second_block else 0
    outliers = out * (inp * layout.outlier_fraction + 1) * layout.outlier_bits
    extra = (blocks * layout.block_bits + second + layout.tensor_bits + outliers
             + inp * layout.column_bits + 5 * 8)
    return layout.value_bits + Fraction(extra, n)


@settings(max_examples=200, deadline=None)
@given(
    layout=st.sampled_from(LAYOUTS),
    out=st.integers(1, 20_000),
    inp=st.integers(1, 20_000),
)
def test_bits_per_weight_bounded_by_layout(layout: QuantLayout, out: int, inp: int) -> None:
    b = tensor_bytes(layout, out, inp)
    bpw = Fraction(8 * b.total, out * inp)
    assert bpw >= layout.value_bits
    assert bpw <= layout_upper_bound(layout, out, inp)
    # Where the blocks tile the matrix exactly, values + block metadata are exactly the
    # layout's nominal bits per weight (before second-level and per-tensor constants) — as
    # long as each stored array is a whole number of bytes (each is rounded up on its own:
    # one 128-weight AWQ group of a 1-row matrix keeps 16 + 4 bits of metadata in 3 bytes).
    whole = {"flat": (out * inp) % layout.block == 0, "group": inp % layout.block == 0}.get(
        layout.granularity, False)
    blocks = out * inp // layout.block if layout.block else 0
    if whole and (out * inp * layout.value_bits) % 8 == 0 and (blocks * layout.block_bits) % 8 == 0:
        nominal = layout.value_bits + Fraction(layout.block_bits, layout.block)
        assert Fraction(8 * (b.values + b.scales), out * inp) == nominal


def plan_total(key: str, model: str) -> int:
    return weight_plan(key, get_model(model).arch, 0, 128).total


def test_ggml_block_bits_per_weight() -> None:
    # ggml/src/ggml-common.h (llama.cpp c392e50): sizeof(block_q4_0) = 2 + 16 bytes per 32
    # weights, block_q8_0 = 2 + 32 per 32, block_q4_K = 2·2 + 12 + 128 per 256 ("Effectively 4.5
    # bits per weight"), block_q5_K = 4 + 12 + 128 + 32 (5.5), block_q6_K = 128 + 64 + 16 + 2
    # ("Effectively 6.5625 bits per weight").
    bpw = {k: GGML_TYPES[k].bits_per_weight() for k in ("Q4_0", "Q8_0", "Q4_K", "Q5_K", "Q6_K")}
    assert bpw == {"Q4_0": Fraction(9, 2), "Q8_0": Fraction(17, 2), "Q4_K": Fraction(9, 2),
                   "Q5_K": Fraction(11, 2), "Q6_K": Fraction(105, 16)}
    assert tensor_bytes(GGML_TYPES["Q6_K"], 1, 256).total == 210
    assert tensor_bytes(GGML_TYPES["Q4_K"], 1, 256).total == 144


def test_use_more_bits_layers() -> None:
    # llama.cpp src/llama-quant.cpp use_more_bits: i < n/8 || i >= 7n/8 || (i - n/8) % 3 == 2.
    assert [i for i in range(32) if use_more_bits(i, 32)] == [
        0, 1, 2, 3, 6, 9, 12, 15, 18, 21, 24, 27, 28, 29, 30, 31]


# TheBloke's GGUF model cards list each file's size in GB (10^9 bytes, two decimals):
# https://huggingface.co/TheBloke/Llama-2-7B-GGUF (Q4_0 3.83 GB, Q4_K_M 4.08 GB, Q6_K 5.53 GB,
# Q8_0 7.16 GB), https://huggingface.co/TheBloke/Llama-2-13B-GGUF (Q4_0 7.37 GB, Q4_K_M
# 7.87 GB, Q6_K 10.68 GB, Q8_0 13.83 GB) and https://huggingface.co/TheBloke/Llama-2-70B-GGUF
# (Q4_0 38.87 GB, Q4_K_M 41.42 GB: the LLM_TYPE_70B rule gives attn_v Q5_K). Tolerance
# 0.01 GB: the card rounds to 0.01 GB (±0.005) and the file adds a header
# (tokenizer of 32,000 entries and hyperparameters, under 1 MB) and 32-byte tensor alignment.
GGUF_PUBLISHED = [
    ("llama-2-7b", "gguf-q4_0", 3.83, 3_825_065_984),
    ("llama-2-7b", "gguf-q4_k_m", 4.08, 4_080_263_168),
    ("llama-2-7b", "gguf-q6_k", 5.53, 5_528_453_120),
    ("llama-2-7b", "gguf-q8_0", 7.16, 7_160_348_672),
    ("llama-2-13b", "gguf-q4_0", 7.37, None),
    ("llama-2-13b", "gguf-q4_k_m", 7.87, None),
    ("llama-2-13b", "gguf-q6_k", 10.68, None),
    ("llama-2-13b", "gguf-q8_0", 13.83, None),
    ("llama-2-70b", "gguf-q4_0", 38.87, None),
    ("llama-2-70b", "gguf-q4_k_m", 41.42, None),
]


@pytest.mark.parametrize(("model", "key", "published_gb", "exact"), GGUF_PUBLISHED)
def test_gguf_matches_published_file_sizes(model: str, key: str, published_gb: float,
                                           exact: int | None) -> None:
    total = plan_total(key, model)
    if exact is not None:
        assert total == exact
    assert abs(total - published_gb * 1e9) <= 0.01e9


def test_gguf_q4_0_by_hand() -> None:
    # Llama-2-7B Q4_0: token_embd 131,072,000 × 18/32 = 73,728,000; output Q6_K 131,072,000 ×
    # 210/256 = 107,520,000; block matrices 6,476,005,376 × 18/32 = 3,642,753,024; 65 norms of
    # 4,096 in F32 = 1,064,960 bytes.
    assert plan_total("gguf-q4_0", "llama-2-7b") == (
        73_728_000 + 107_520_000 + 3_642_753_024 + 1_064_960)


def test_gguf_q4_k_m_rules() -> None:
    types = gguf_tensor_types("gguf-q4_k_m", get_model("llama-2-7b").arch)
    v = [t for role, *_, t in types if role == "attn_v"]
    down = [t for role, *_, t in types if role == "ffn_down"]
    assert v == down == ["Q6_K" if use_more_bits(i, 32) else "Q4_K" for i in range(32)]
    assert {t for role, *_, t in types if role in ("attn_q", "attn_k", "attn_output",
                                                   "ffn_gate", "ffn_up")} == {"Q4_K"}
    assert [t for role, *_, t in types if role in ("token_embd", "output")] == ["Q4_K", "Q6_K"]
    # Llama-2-70B is LLM_TYPE_70B (80 layers, grouped-query attention): the other attn_v Q5_K.
    types70 = gguf_tensor_types("gguf-q4_k_m", get_model("llama-2-70b").arch)
    v70 = [t for role, *_, t in types70 if role == "attn_v"]
    assert v70 == ["Q6_K" if use_more_bits(i, 80) else "Q5_K" for i in range(80)]
    # Mixtral (8 experts): attn_k and attn_v Q8_0, attn_output Q5_K.
    mix = gguf_tensor_types("gguf-q4_k_m", get_model("mixtral-8x7b").arch)
    assert {t for role, *_, t in mix if role in ("attn_k", "attn_v")} == {"Q8_0"}
    assert {t for role, *_, t in mix if role == "attn_output"} == {"Q5_K"}


def test_gguf_fallback_when_the_block_does_not_divide_the_row() -> None:
    # llama_tensor_get_type's final check: Q4_K → Q5_0 and Q6_K → Q8_0 when 256 does not
    # divide the row (ne[0]); F16 when 32 does not divide it either.
    arch = get_model("llama-2-7b").arch

    def down(ffn: int) -> set[str]:
        odd = type(arch)(**{**{f: getattr(arch, f) for f in arch.__slots__}, "ffn": ffn})
        return {t for role, *_, t in gguf_tensor_types("gguf-q4_k_m", odd) if role == "ffn_down"}

    assert down(11_040) == {"Q5_0", "Q8_0"}  # 11,040 = 345 × 32, not a multiple of 256
    assert down(11_000) == {"F16"}


def test_gptq_and_awq_match_published_checkpoints() -> None:
    # https://huggingface.co/TheBloke/Llama-2-7B-AWQ: main branch, 4-bit, group 128, 3.89 GB.
    # 6,476,005,376 × 0.5 + 262,410,240 × 2 + 50,593,792 groups × (2 + 0.5) bytes.
    assert plan_total("awq-int4", "llama-2-7b") == 3_889_307_648
    # https://huggingface.co/TheBloke/Llama-2-7B-GPTQ: main branch (4-bit, 128g, act order),
    # 3.90 GB; AutoGPTQ adds g_idx, one int32 per input column: 32 × (6 × 4,096 + 11,008) × 4
    # = 4,554,752 bytes. Tolerance 0.01 GB (the card's rounding and the safetensors header).
    gptq = plan_total("gptq-int4", "llama-2-7b")
    assert gptq == 3_889_307_648 + 4_554_752
    assert abs(gptq - 3.90e9) <= 0.01e9
    # Symmetric (compressed-tensors): no zero points; weight_shape 16 bytes per matrix.
    assert plan_total("gptq-int4-sym", "llama-2-7b") == (
        3_238_002_688 + 524_820_480 + 50_593_792 * 2 + 224 * 16)


def test_llm_int8_and_fp8_per_channel_by_hand() -> None:
    # Per output row one FP32 scale: 32 layers × (4 × 4,096 + 2 × 11,008 + 4,096) rows.
    rows = 32 * (4 * 4096 + 2 * 11008 + 4096)
    assert rows == 1_359_872
    base = 6_476_005_376 + 524_820_480 + rows * 4
    assert plan_total("fp8-channel", "llama-2-7b") == base
    # LLM.int8(): + FP16 outlier columns, ⌈0.1% × in⌉ per matrix: 5 of 4,096, 12 of 11,008
    # (Dettmers et al. 2022: more than 99.9% of values in 8-bit — the assumed fraction).
    outliers = 32 * ((4 * 4096 + 2 * 11008) * 5 + 4096 * 12)
    assert plan_total("bnb-int8", "llama-2-7b") == base + outliers * 2


def test_bnb_scheme_equals_the_qlora_base_layout() -> None:
    assert plan_total("bnb-nf4", "llama-2-7b") == bnb_4bit_model_bytes(LLAMA_2_7B).total
    assert plan_total("bnb-fp4-dq", "llama-2-7b") == bnb_4bit_model_bytes(
        LLAMA_2_7B, "fp4", double_quant=True).total


def inference(**inf: object) -> FootprintSpec:
    return FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                       "inference": inf})


def test_free_choice_of_scale_dtype_and_zero_point() -> None:
    groups = 50_593_792
    def overhead(**kw: object) -> int:
        item = estimate(inference(weights="int4", **kw)).inference.item("quantization_overhead")
        assert item is not None
        return item.bytes
    assert overhead() == groups * 5 // 2  # FP16 scale + INT4 zero point (the default)
    assert overhead(scale_dtype="fp32", zero_point="none") == groups * 4
    assert overhead(scale_dtype="bf16", zero_point="fp16") == groups * 4
    item = estimate(inference(weights="int4", zero_point="none")).inference.item(
        "quantization_overhead")
    assert item is not None and "no zero point (symmetric)" in item.formula


def test_named_scheme_rejects_scale_dtype_and_zero_point() -> None:
    with pytest.raises(ValidationError) as err:
        inference(weights="gguf-q4_k_m", scale_dtype="bf16", zero_point="none")
    locs = [e["loc"] for e in err.value.errors()]
    assert locs == [("inference", "scale_dtype"), ("inference", "zero_point")]
    assert "gguf-q4_k_m fixes the scales" in err.value.errors()[0]["msg"]
    with pytest.raises(ValidationError, match="bnb-nf4 fixes its own: FP32 absmax"):
        inference(weights="bnb-nf4", scale_dtype="fp16")


def test_scheme_names_accept_either_spelling() -> None:
    assert inference(weights="GGUF-Q4-K-M").inference.weights == "gguf-q4_k_m"
    assert inference(weights="gguf_q4_k_m").inference.weights == "gguf-q4_k_m"


def test_every_scheme_estimates_with_and_without_an_architecture() -> None:
    for key in SCHEMES:
        report = estimate(inference(weights=key))
        assert report.inference is not None
        w = report.inference.item("weights")
        # at least the values at the scheme's nominal bits (2 for Q2_K, 3 for Q3_K_M, else 4+)
        assert w is not None and w.bytes > 6_738_415_616 * WEIGHT_BITS[key] // 8 - 1
        bare = FootprintSpec.from_mapping({"params": "7B", "phase": "inference",
                                           "inference": {"weights": key}})
        assert estimate(bare).inference is not None


EXPLAIN_PHRASES = {
    "gptq-int4": "g_idx per input column",
    "gptq-int4-sym": "still stores qzeros and g_idx",
    "awq-int4": "no act-order index",
    "bnb-int8": "assumes 0.1% of each matrix's input columns",
    "bnb-nf4": "With double quantization this model takes",
    "bnb-nf4-dq": "Without double quantization this model takes",
    "bnb-fp4": "With double quantization this model takes",
    "bnb-fp4-dq": "Without double quantization this model takes",
    "fp8-channel": "per-tensor FP8 (--weights fp8) keeps one per matrix (896 B)",
    "gguf-q8_0": "Q8_0: token_embd, output",
    "gguf-q6_k": "Q6_K: token_embd, output",
    "gguf-q4_k_m": "Q6_K: output, attn_v (16 layers), ffn_down (16 layers)",
    "gguf-q4_0": "Q6_K: output",
    "gguf-q5_k_m": "Q6_K: output, attn_v (16 layers), ffn_down (16 layers)",
    "gguf-q5_k_s": "Q6_K: output.",
    "gguf-q3_k_m": "Q5_K: attn_v (2 layers), ffn_down (2 layers)",
    "gguf-q2_k": "Q3_K: attn_v (all layers), attn_output (all layers), ffn_down (all layers)",
    "gguf-iq4_xs": "Q5_K: ffn_down (4 layers)",
}


@pytest.mark.parametrize("key", sorted(SCHEMES))
def test_every_scheme_has_its_explain_notes(key: str) -> None:
    from quiz.footprint.words.explain import explain_notes

    notes = explain_notes(estimate(inference(weights=key)))
    text = " ".join(notes)
    assert SCHEMES[key].kept in text  # what stays unquantized, said for every scheme
    assert EXPLAIN_PHRASES[key] in text
    # Without an architecture the note says what is assumed instead.
    bare = FootprintSpec.from_mapping({"params": "7B", "phase": "inference",
                                       "inference": {"weights": key}})
    assert "without an architecture" in " ".join(explain_notes(estimate(bare)))


def test_group_size_with_a_fixed_block_scheme_is_noted_unused() -> None:
    report = estimate(inference(weights="gguf-q4_0", group_size=64))
    assert [(u.key, u.reason) for u in report.unused] == [
        ("inference.group_size", "the group size applies to INT8/INT4, GPTQ and AWQ weights; "
                                 "GGUF Q4_0 (llama.cpp) fixes its own blocks")]
    # GPTQ takes it: 64-weight groups double the groups of 128.
    g64 = weight_plan("gptq-int4", LLAMA_2_7B, 0, 64)
    g128 = weight_plan("gptq-int4", LLAMA_2_7B, 0, 128)
    assert g64.matrices.scales == 2 * g128.matrices.scales == 2 * 50_593_792 * 5 // 2
