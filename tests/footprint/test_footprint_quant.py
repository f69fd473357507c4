"""Quantization layouts (quiz/footprint/quant.py): bytes of each layout against figures derived
by hand from the formats' sources, and the property that the bits per weight stay within what the
layout allows."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quiz.footprint.presets import get_model
from quiz.footprint.quant import (
    QuantLayout,
    TensorBytes,
    bnb_4bit_layout,
    bnb_4bit_model_bytes,
    tensor_bytes,
)

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
]


def layout_upper_bound(layout: QuantLayout, out: int, inp: int) -> Fraction:
    """Bits per weight a layout can reach on an out × in matrix: the values, every block's
    metadata, every second-level scale, the per-tensor constants, the outliers, and at most
    8 bits of byte rounding per stored array (4 arrays)."""
    n = out * inp
    blocks = layout.blocks(out, inp)
    second = -(-blocks // layout.second_block) * layout.second_bits if layout.second_block else 0
    outliers = out * (inp * layout.outlier_fraction + 1) * layout.outlier_bits
    extra = blocks * layout.block_bits + second + layout.tensor_bits + outliers + 4 * 8
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
    # layout's nominal bits per weight (before second-level and per-tensor constants).
    whole = (out * inp) % layout.block == 0 if layout.granularity == "flat" else (
        inp % layout.block == 0)
    if whole:
        nominal = layout.value_bits + Fraction(layout.block_bits, layout.block)
        assert Fraction(8 * (b.values + b.scales), out * inp) == nominal
