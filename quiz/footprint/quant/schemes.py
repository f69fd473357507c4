"""Exact storage layouts of quantized weights: values, blocks, scales, zero points, second level.

A quantization format stores, for each weight matrix, the packed values plus per-block metadata.
:class:`QuantLayout` describes one format exactly and :func:`tensor_bytes` counts the bytes of an
``out_features × in_features`` matrix in it (an exact ``int``; every array is rounded up to whole
bytes on its own, as it is stored).

How the blocks are cut (``granularity``)
    ``flat``: consecutive blocks of ``block`` values over the flattened tensor,
    ``⌈out·in / block⌉`` blocks (bitsandbytes ``quantize_4bit`` / ``quantize_blockwise``:
    ``blocks = -(n // -blocksize)`` in ``bitsandbytes/backends/cuda/ops.py``).
    ``group``: groups of ``block`` consecutive input weights of each output row,
    ``out × ⌈in / block⌉`` (GPTQ/AWQ ``group_size``; ggml blocks, which run along a row).
    ``row``: one scale per output row (per-channel), ``out`` blocks.
    ``tensor``: one scale for the whole matrix.

Per block: ``scale_bits`` (first-level scale), ``zero_bits`` (zero point or minimum) and
``sub_bits`` (quantized sub-block scales and minimums of ggml's k-quants). Second level (double
quantization): ``second_block`` first-level blocks share one ``second_bits`` scale. Per tensor:
``tensor_bits`` (offsets, lookup tables). ``outlier_fraction`` of the input columns are held
again in ``outlier_bits`` (LLM.int8()'s 16-bit outlier columns); ``column_bits`` per input column
(GPTQ's act-order index ``g_idx``).

bitsandbytes 4-bit (NF4 / FP4) — source: bitsandbytes ``bitsandbytes/functional.py``
``quantize_4bit`` (``blocksize`` default 64, FP32 ``absmax`` per block, a 16-entry FP32 code
table ``quant_map`` per tensor) and, with ``compress_statistics=True`` (double quantization),
``quantize_blockwise(absmax - offset, blocksize=256)``: the absmax become 8-bit values, one FP32
second-level absmax per 256 blocks, an FP32 ``offset`` (the mean) and the 256-entry FP32 dynamic
code table, copied per tensor; QLoRA, Dettmers et al. 2023, sec. 3 "Double Quantization":
32/64 = 0.5 → 8/64 + 32/(64·256) ≈ 0.127 bits per parameter of quantization constants.

    NF4 / FP4, block 64:            4 + 32/64            = 4.5 bits per weight
    with double quantization:       4 + 8/64 + 32/16,384 = 4.127 bits per weight
    (plus 64 bytes of code table per tensor; 1,028 more with double quantization)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from quiz.footprint.inputs.arch import count_params, linear_matrices
from quiz.footprint.inputs.units import count_noun, format_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture

Granularity = Literal["flat", "group", "row", "tensor"]

BNB_SRC = (
    "bitsandbytes bitsandbytes/functional.py quantize_4bit (blocksize 64, FP32 absmax, 16-entry "
    "FP32 quant_map) and compress_statistics → quantize_blockwise(absmax − offset, "
    "blocksize=256); Dettmers et al. 2023 (QLoRA), sec. 3 Double Quantization"
)
BNB_BLOCK = 64
"""bitsandbytes' default 4-bit block size (``quantize_4bit(blocksize=None)`` → 64; also
``Params4bit``'s default in ``bitsandbytes/nn/modules.py``)."""
BNB_DQ_BLOCK = 256
"""Absmax values per second-level block under double quantization (``blocksize=256``)."""


@dataclass(frozen=True, slots=True)
class QuantLayout:
    """The exact storage layout of one quantized weight format.

    Attributes:
        key: short name (``"nf4"``, ``"nf4-dq"``, ``"q4_K"``).
        label: what a person calls it (``"bitsandbytes NF4"``).
        value_bits: bits of each stored weight value (4 for NF4, 6 for Q6_K).
        granularity: how blocks are cut (module docstring).
        block: values per block (``group``/``flat``); ignored for ``row`` and ``tensor``.
        scale_bits: bits of the first-level scale of each block (0: none).
        zero_bits: bits of each block's zero point or minimum (0: symmetric).
        sub_bits: bits of quantized sub-block scales/minimums per block (ggml k-quants).
        second_block: first-level blocks per second-level scale (0: no second level).
        second_bits: bits of each second-level scale.
        tensor_bits: constant bits per matrix (offset, code tables).
        outlier_fraction: share of input columns kept again in ``outlier_bits`` (0: none).
        outlier_bits: bits per weight of those outlier columns.
        column_bits: bits per input column of each matrix (GPTQ's int32 ``g_idx``).
        source: where the layout is defined.
        meta: what each block stores besides its values, in words ("FP32 absmax").
        tensor_meta: what the per-tensor constants are, in words.
    """

    key: str
    label: str
    value_bits: int
    granularity: Granularity
    block: int
    scale_bits: int
    zero_bits: int = 0
    sub_bits: int = 0
    second_block: int = 0
    second_bits: int = 0
    tensor_bits: int = 0
    outlier_fraction: Fraction = Fraction(0)
    outlier_bits: int = 0
    column_bits: int = 0
    source: str = ""
    meta: str = ""
    tensor_meta: str = ""

    @property
    def block_bits(self) -> int:
        """Metadata bits stored per first-level block: scale + zero point + sub-block scales."""
        return self.scale_bits + self.zero_bits + self.sub_bits

    def blocks(self, out_features: int, in_features: int) -> int:
        """First-level blocks of an ``out_features × in_features`` matrix (module docstring)."""
        if self.granularity == "flat":
            return -(-out_features * in_features // self.block)
        if self.granularity == "group":
            return out_features * -(-in_features // self.block)
        if self.granularity == "row":
            return out_features
        return 1

    def bits_per_weight(self) -> Fraction:
        """Bits per weight of a large matrix whose sizes are multiples of the block: values +
        block metadata / block + second-level scale / (block × second_block) + outliers.

        Exact for ``flat``/``group``; for ``row``/``tensor`` (whose metadata depends on the
        shape) the metadata per weight tends to 0 and only the value bits and outliers count —
        use :func:`tensor_bytes` for a given shape. NF4 with double quantization: 4 + 8/64 +
        32/16,384 = 4.127 (Dettmers et al. 2023, sec. 3).
        """
        bpw = Fraction(self.value_bits) + self.outlier_fraction * self.outlier_bits
        if self.granularity in ("flat", "group"):
            bpw += Fraction(self.block_bits, self.block)
            if self.second_block:
                bpw += Fraction(self.second_bits, self.block * self.second_block)
        return bpw


@dataclass(frozen=True, slots=True)
class TensorBytes:
    """Bytes of one or more matrices in a :class:`QuantLayout`, split as they are stored.

    ``values``: the packed weight values; ``scales``: first-level scales, zero points and
    sub-block scales; ``second_level``: second-level scales, per-tensor offsets and code tables;
    ``outliers``: outlier columns held again at higher precision. ``total`` is their sum.
    """

    values: int
    scales: int
    second_level: int
    outliers: int

    @property
    def total(self) -> int:
        """All bytes: values + scales + second level + outliers."""
        return self.values + self.scales + self.second_level + self.outliers

    @property
    def overhead(self) -> int:
        """Bytes beyond the packed values: scales + second level + outliers."""
        return self.scales + self.second_level + self.outliers

    def __add__(self, other: TensorBytes) -> TensorBytes:
        return TensorBytes(
            self.values + other.values,
            self.scales + other.scales,
            self.second_level + other.second_level,
            self.outliers + other.outliers,
        )

    def times(self, n: int) -> TensorBytes:
        """``n`` identical matrices."""
        return TensorBytes(self.values * n, self.scales * n, self.second_level * n,
                           self.outliers * n)


ZERO_BYTES = TensorBytes(0, 0, 0, 0)


def _ceil8(bits: int) -> int:
    return -(-bits // 8)


def tensor_bytes(layout: QuantLayout, out_features: int, in_features: int) -> TensorBytes:
    """Bytes of one ``out_features × in_features`` weight matrix stored in ``layout``.

    Each stored array is rounded up to whole bytes on its own: the packed values
    ``⌈out·in·value_bits / 8⌉``, the block metadata ``⌈blocks·block_bits / 8⌉``, the second
    level ``⌈⌈blocks / second_block⌉·second_bits / 8⌉ + ⌈tensor_bits / 8⌉`` (with the per-column
    index ``⌈in·column_bits / 8⌉``) and the outlier
    columns ``out × ⌈in·outlier_fraction⌉ × outlier_bits / 8``.

    Example (bitsandbytes NF4, double quantization, Llama-2-7B q_proj 4096 × 4096): 16,777,216
    values → 8,388,608 bytes; 262,144 blocks → 262,144 bytes of 8-bit absmax; 1,024 FP32
    second-level absmax + offset + 16- and 256-entry FP32 code tables = 5,188 bytes.

    Raises:
        ValueError: a size below 1.
    """
    if out_features < 1 or in_features < 1:
        raise ValueError(f"matrix sizes must be at least 1, got {out_features} × {in_features}")
    n = out_features * in_features
    blocks = layout.blocks(out_features, in_features)
    values = _ceil8(n * layout.value_bits)
    scales = _ceil8(blocks * layout.block_bits)
    second = _ceil8(layout.tensor_bits) + _ceil8(in_features * layout.column_bits)
    if layout.second_block:
        second += _ceil8(-(-blocks // layout.second_block) * layout.second_bits)
    outliers = 0
    if layout.outlier_fraction:
        cols = -(-in_features * layout.outlier_fraction.numerator
                 // layout.outlier_fraction.denominator)
        outliers = _ceil8(out_features * cols * layout.outlier_bits)
    return TensorBytes(values, scales, second, outliers)


def matrices_bytes(layout: QuantLayout, mats: Iterable[tuple[int, int, int]]) -> TensorBytes:
    """Sum of :func:`tensor_bytes` over ``(out_features, in_features, how_many)`` triples (the
    shape of :func:`quiz.footprint.inputs.arch.linear_matrices`)."""
    total = ZERO_BYTES
    for out, inp, count in mats:
        total = total + tensor_bytes(layout, out, inp).times(count)
    return total


def bnb_4bit_layout(
    quant_type: Literal["nf4", "fp4"] = "nf4", *, double_quant: bool = False,
    blocksize: int = BNB_BLOCK,
) -> QuantLayout:
    """The bitsandbytes 4-bit layout (``Linear4bit`` / ``BitsAndBytesConfig(load_in_4bit)``).

    Per block of ``blocksize`` (default 64) flattened values: an FP32 absmax, or with double
    quantization an 8-bit absmax plus one FP32 second-level absmax per 256 blocks. Per tensor:
    the 16-entry FP32 code table (64 bytes); with double quantization also the FP32 offset and
    the 256-entry FP32 dynamic code table (1,028 bytes). NF4 and FP4 have the same layout (only
    the 16 code values differ). Source: :data:`BNB_SRC`.

    Raises:
        ValueError: an unknown ``quant_type`` or a block size bitsandbytes rejects (it accepts
            32, 64, 128, ..., 4096).
    """
    if quant_type not in ("nf4", "fp4"):
        raise ValueError(f"quant_type must be 'nf4' or 'fp4', got {quant_type!r}")
    if blocksize not in (32, 64, 128, 256, 512, 1024, 2048, 4096):
        raise ValueError(f"bitsandbytes rejects block size {blocksize}")
    name = quant_type.upper()
    code_table = 16 * 32
    if double_quant:
        return QuantLayout(
            key=f"{quant_type}-dq",
            label=f"bitsandbytes {name} with double quantization",
            value_bits=4,
            granularity="flat",
            block=blocksize,
            scale_bits=8,
            second_block=BNB_DQ_BLOCK,
            second_bits=32,
            tensor_bits=code_table + 32 + 256 * 32,
            source=BNB_SRC,
            meta="8-bit absmax",
            tensor_meta="FP32 offset + 16- and 256-entry FP32 code tables",
        )
    return QuantLayout(
        key=quant_type,
        label=f"bitsandbytes {name}",
        value_bits=4,
        granularity="flat",
        block=blocksize,
        scale_bits=32,
        tensor_bits=code_table,
        source=BNB_SRC,
        meta="FP32 absmax",
        tensor_meta="16-entry FP32 code table",
    )


@dataclass(frozen=True, slots=True)
class QuantizedModelBytes:
    """The weights of a whole model under a weight-only quantization scheme.

    ``quantized_params`` weights (the linear layers inside the transformer blocks) take
    ``quantized`` bytes in the layout; ``kept_params`` (embeddings, LM head, norms, biases,
    router) stay at ``kept_bytes_per_param`` bytes each, ``kept`` bytes in all.
    """

    quantized_params: int
    quantized: TensorBytes
    kept_params: int
    kept_bytes_per_param: int
    kept: int

    @property
    def total(self) -> int:
        """All weight bytes: quantized matrices (values and metadata) + kept parameters."""
        return self.quantized.total + self.kept


@lru_cache(maxsize=256)
def bnb_4bit_model_bytes(
    arch: Architecture, quant_type: Literal["nf4", "fp4"] = "nf4", *,
    double_quant: bool = False, kept_bytes_per_param: int = 2,
) -> QuantizedModelBytes:
    """Weights of ``arch`` loaded with bitsandbytes 4-bit (QLoRA's frozen base).

    Every linear layer inside the transformer blocks (attention Q, K, V, O and the MLP
    matrices) in :func:`bnb_4bit_layout`; the rest — embeddings, the LM head (transformers
    skips it: ``get_keys_to_not_convert``), norms, biases and the MoE router — stays in the
    16-bit compute dtype (``kept_bytes_per_param``, default 2).

    Llama-2-7B, NF4 without double quantization: 6,476,005,376 quantized weights → 3,238,002,688
    bytes of values + 404,750,336 of FP32 absmax + 14,336 of code tables; 262,410,240 kept
    × 2 bytes = 524,820,480; total 4,167,587,840 bytes.
    """
    layout = bnb_4bit_layout(quant_type, double_quant=double_quant)
    counts = count_params(arch)
    quantized = matrices_bytes(layout, linear_matrices(arch))
    kept = counts.kept_16bit * kept_bytes_per_param
    return QuantizedModelBytes(counts.quantizable, quantized, counts.kept_16bit,
                               kept_bytes_per_param, kept)


# --- Layouts of the named schemes ---------------------------------------------------------------

GPTQ_SRC = (
    "Frantar et al. 2023 (GPTQ); AutoGPTQ QuantLinear checkpoint layout: qweight (INT4 packed in "
    "int32), scales FP16 [groups, out], qzeros INT4 packed in int32 [groups, out/8], g_idx int32 "
    "[in]"
)
GPTQ_SYM_SRC = (
    "Frantar et al. 2023 (GPTQ), symmetric as llm-compressor saves it (compressed-tensors "
    "pack-quantized: weight_packed, weight_scale FP16 per group, weight_shape 2 × int64; no zero "
    "point)"
)
AWQ_SRC = (
    "Lin et al. 2024 (AWQ); AutoAWQ WQLinear_GEMM checkpoint layout: qweight INT4 packed in "
    "int32, scales FP16 [in/group, out], qzeros INT4 packed in int32 [in/group, out/8]"
)
INT8_SRC = (
    "Dettmers et al. 2022 (LLM.int8()), sec. 3: vector-wise quantization with per-row absmax "
    "and mixed-precision decomposition of outlier feature dimensions (threshold 6.0); "
    "bitsandbytes Int8Params (CB int8, SCB FP32 per row), int8_vectorwise_quant"
)
FP8_TENSOR_SRC = (
    "vLLM compressed_tensors_w8a8_fp8.py create_weights: FP8 E4M3 weight, weight_scale FP32 per "
    "matrix (QuantizationStrategy.TENSOR)"
)
FP8_CHANNEL_SRC = (
    "vLLM compressed_tensors_w8a8_fp8.py create_weights: FP8 E4M3 weight, weight_scale FP32 "
    "[out, 1] (QuantizationStrategy.CHANNEL)"
)
GGML_SRC = "ggml block structs in llama.cpp ggml/src/ggml-common.h"
LLAMA_QUANT_SRC = (
    "llama.cpp src/llama-quant.cpp llama_tensor_get_type (per-tensor types of each ftype) and "
    "llama_model_quantize_impl (1-D tensors, norms and ffn_gate_inp are not quantized); "
    "convert_hf_to_gguf.py (those stay F32)"
)

INT8_OUTLIER_FRACTION = Fraction(1, 1000)
"""Share of input columns LLM.int8() treats as outlier feature dimensions: 0.1%, from the paper's
abstract ("more than 99.9% of values are multiplied in 8-bit"). An explicit assumption: the real
share depends on the model and the inputs (Dettmers et al. 2022, sec. 4: about 6 to 25
outlier dimensions per layer above 6.7B parameters)."""


def group_layout(
    value_bits: int, group: int, *, scale_bits: int = 16, zero_bits: int | None = None,
    key: str = "", label: str = "", source: str = "",
) -> QuantLayout:
    """Group-wise integer quantization: ``value_bits`` per weight, one scale of ``scale_bits``
    and one zero point of ``zero_bits`` (default: the weight width; 0 for symmetric) per
    ``group`` consecutive input weights of each output row — the convention of ``--weights
    int4/int8`` (FP16 scale, zero point at the weight width, as AutoGPTQ/AWQ checkpoints)."""
    zb = value_bits if zero_bits is None else zero_bits
    return QuantLayout(
        key=key or f"int{value_bits}", label=label or f"INT{value_bits}", value_bits=value_bits,
        granularity="group", block=group, scale_bits=scale_bits, zero_bits=zb, source=source,
    )


def _ggml(key: str, value_bits: int, block: int, scale: int, zero: int = 0,
          sub: int = 0, meta: str = "") -> QuantLayout:
    return QuantLayout(key=key, label=key, value_bits=value_bits,
                       granularity="group", block=block, scale_bits=scale, zero_bits=zero,
                       sub_bits=sub, source=GGML_SRC, meta=meta)


GGML_TYPES: dict[str, QuantLayout] = {
    # block_q4_0: ggml_half d; uint8_t qs[16]            → 18 bytes / 32 weights = 4.5 bpw
    "Q4_0": _ggml("Q4_0", 4, 32, 16, meta="FP16 d"),
    # block_q4_1: d, m (ggml_half each); qs[16]         → 20 bytes / 32 = 5.0 bpw
    "Q4_1": _ggml("Q4_1", 4, 32, 16, 16, meta="FP16 d and m"),
    # block_q5_0: d; qh[4] (5th bits); qs[16]          → 22 bytes / 32 = 5.5 bpw
    "Q5_0": _ggml("Q5_0", 5, 32, 16, meta="FP16 d"),
    # block_q5_1: d, m; qh[4]; qs[16]                   → 24 bytes / 32 = 6.0 bpw
    "Q5_1": _ggml("Q5_1", 5, 32, 16, 16, meta="FP16 d and m"),
    # block_q8_0: ggml_half d; int8_t qs[32]            → 34 bytes / 32 = 8.5 bpw
    "Q8_0": _ggml("Q8_0", 8, 32, 16, meta="FP16 d"),
    # block_q4_K: d, dmin; scales[12] (6-bit scales and mins of 8 sub-blocks); qs[128]
    #                                                   → 144 bytes / 256 = 4.5 bpw
    "Q4_K": _ggml("Q4_K", 4, 256, 16, 16, 96, "FP16 d and dmin + 12 bytes of 6-bit scales "
                  "and mins"),
    # block_q5_K: d, dmin; scales[12]; qh[32]; qs[128]  → 176 bytes / 256 = 5.5 bpw
    "Q5_K": _ggml("Q5_K", 5, 256, 16, 16, 96, "FP16 d and dmin + 12 bytes of 6-bit scales "
                  "and mins"),
    # block_q6_K: ql[128]; qh[64]; int8 scales[16]; d   → 210 bytes / 256 = 6.5625 bpw
    "Q6_K": _ggml("Q6_K", 6, 256, 16, 0, 128, "FP16 d + 16 int8 scales"),
    "F16": QuantLayout("F16", "F16", 16, "tensor", 1, 0, source=GGML_SRC),
    "F32": QuantLayout("F32", "F32", 32, "tensor", 1, 0, source=GGML_SRC),
}
"""ggml tensor types by name, each from its block struct in ``ggml/src/ggml-common.h``."""


@dataclass(frozen=True, slots=True)
class Scheme:
    """A named weight quantization scheme (a ``--weights`` value).

    Attributes:
        key: the ``--weights`` value (``"gguf-q4_k_m"``).
        label: what the tool calls it.
        layout: the layout of the block matrices, given the group size (``None`` for a GGUF mix,
            whose types differ per tensor: :func:`gguf_tensor_types`).
        kept: what stays unquantized, in words.
        kept_bits: bits per parameter of what stays unquantized (16; 32 for GGUF's F32 norms).
        uses_group: whether ``--group-size`` applies.
        matmul: the number format of the matrix multiply (for the compute roofline).
        source: where the scheme's layout and kept layers come from.
    """

    key: str
    label: str
    layout: Callable[[int], QuantLayout] | None
    kept: str
    kept_bits: int
    uses_group: bool
    matmul: str
    source: str


_HF_KEPT = ("embeddings, LM head, norms, biases and MoE router in 16 bits (as published "
            "checkpoints: AutoGPTQ, AutoAWQ and llm-compressor quantize the linear layers of the "
            "blocks and leave lm_head out)")
_BNB_KEPT = ("embeddings, LM head (transformers' get_keys_to_not_convert skips it), norms, biases "
             "and MoE router in the 16-bit compute dtype")
_GGUF_KEPT = ("norms, biases and the MoE router in F32; token embeddings and the output matrix "
              "are quantized too (per llama_tensor_get_type)")


def _bnb4(quant_type: Literal["nf4", "fp4"], dq: bool) -> Callable[[int], QuantLayout]:
    def build(_group: int) -> QuantLayout:
        return bnb_4bit_layout(quant_type, double_quant=dq)
    return build


def _fixed(layout: QuantLayout) -> Callable[[int], QuantLayout]:
    def build(_group: int) -> QuantLayout:
        return layout
    return build


def _gptq(group: int) -> QuantLayout:
    return QuantLayout("gptq-int4", "GPTQ INT4", 4, "group", group, 16, 4, column_bits=32,
                       source=GPTQ_SRC, meta="FP16 scale + packed INT4 zero point")


def _gptq_sym(group: int) -> QuantLayout:
    return QuantLayout("gptq-int4-sym", "GPTQ INT4 symmetric", 4, "group", group, 16,
                       tensor_bits=128, source=GPTQ_SYM_SRC, meta="FP16 scale",
                       tensor_meta="weight_shape, 2 × int64")


def _awq(group: int) -> QuantLayout:
    return QuantLayout("awq-int4", "AWQ INT4", 4, "group", group, 16, 4, source=AWQ_SRC,
                       meta="FP16 scale + packed INT4 zero point")


_INT8_LAYOUT = QuantLayout("bnb-int8", "LLM.int8()", 8, "row", 1, 32,
                           outlier_fraction=INT8_OUTLIER_FRACTION, outlier_bits=16,
                           source=INT8_SRC, meta="FP32 absmax (SCB)")
_FP8_CHANNEL = QuantLayout("fp8-channel", "FP8 E4M3", 8, "row", 1, 32,
                           source=FP8_CHANNEL_SRC, meta="FP32 scale")

SCHEMES: dict[str, Scheme] = {
    s.key: s
    for s in (
        Scheme("gptq-int4", "GPTQ INT4 (AutoGPTQ, asymmetric)", _gptq, _HF_KEPT, 16, True,
               "bf16", GPTQ_SRC),
        Scheme("gptq-int4-sym", "GPTQ INT4 symmetric (compressed-tensors)", _gptq_sym, _HF_KEPT,
               16, True, "bf16", GPTQ_SYM_SRC),
        Scheme("awq-int4", "AWQ INT4 (AutoAWQ GEMM)", _awq, _HF_KEPT, 16, True, "bf16", AWQ_SRC),
        Scheme("bnb-int8", "bitsandbytes LLM.int8()", _fixed(_INT8_LAYOUT), _BNB_KEPT, 16, False,
               "int8", INT8_SRC),
        Scheme("bnb-nf4", "bitsandbytes NF4", _bnb4("nf4", False), _BNB_KEPT, 16, False, "bf16",
               BNB_SRC),
        Scheme("bnb-nf4-dq", "bitsandbytes NF4, double quantization", _bnb4("nf4", True),
               _BNB_KEPT, 16, False, "bf16", BNB_SRC),
        Scheme("bnb-fp4", "bitsandbytes FP4", _bnb4("fp4", False), _BNB_KEPT, 16, False, "bf16",
               BNB_SRC),
        Scheme("bnb-fp4-dq", "bitsandbytes FP4, double quantization", _bnb4("fp4", True),
               _BNB_KEPT, 16, False, "bf16", BNB_SRC),
        Scheme("fp8-channel", "FP8 E4M3, per-channel scales", _fixed(_FP8_CHANNEL), _HF_KEPT, 16,
               False, "fp8", FP8_CHANNEL_SRC),
        Scheme("gguf-q8_0", "GGUF Q8_0 (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q6_k", "GGUF Q6_K (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q4_k_m", "GGUF Q4_K_M (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q4_0", "GGUF Q4_0 (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
    )
}
"""The named schemes, by ``--weights`` value (the plain formats fp32 … int4 are not here)."""

GGUF_FTYPES = {"gguf-q8_0": "Q8_0", "gguf-q6_k": "Q6_K", "gguf-q4_k_m": "Q4_K",
               "gguf-q4_0": "Q4_0"}
"""Each GGUF scheme's default tensor type (``default_type`` in llama_model_quantize_impl)."""


# --- GGUF: which tensor gets which type -------------------------------------------------------

def use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama.cpp's ``use_more_bits`` (src/llama-quant.cpp): the first and last eighth of the
    layers and every third layer between them get more bits in the ``_M`` mixes."""
    return (i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8
            or (i_layer - n_layers // 8) % 3 == 2)


def _compatible(t: str, row: int) -> str:
    """llama_tensor_get_type's final check: a type whose block does not divide the row length
    ``row`` (``ne[0]``) falls back (Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0), then to F16."""
    layout = GGML_TYPES[t]
    if layout.granularity != "group" or row % layout.block == 0:
        return t
    fallback = {"Q4_K": "Q5_0", "Q5_K": "Q5_1", "Q6_K": "Q8_0"}.get(t, "F16")
    if fallback != "F16" and row % GGML_TYPES[fallback].block:
        fallback = "F16"
    return fallback


@dataclass(frozen=True, slots=True)
class TensorGroup:
    """Matrices of one role stored in one format: ``count`` matrices of ``out × in``.

    ``role`` is the GGUF / Hugging Face tensor name (``"attn_v"``, ``"token_embd"``),
    ``fmt`` the format (``"Q6_K"``, ``"bnb-nf4"``, ``"BF16"``), ``bytes`` their storage."""

    role: str
    fmt: str
    out: int
    inp: int
    count: int
    quantized: bool
    bytes: TensorBytes
    layout: QuantLayout

    @property
    def params(self) -> int:
        """Weights in the group: out × in × count."""
        return self.out * self.inp * self.count


def gguf_tensor_types(ftype: str, arch: Architecture) -> list[tuple[str, int, int, int, str]]:
    """Each 2-D tensor of ``arch`` as ``(role, out, in, count, type)`` under a llama.cpp ftype
    (``count`` > 1 for a layer's experts, which share one 3-D tensor and one type).

    ``ftype`` is a :data:`GGUF_FTYPES` key. Rules of ``llama_tensor_get_type`` (llama.cpp
    src/llama-quant.cpp) for llama-style architectures (LLM_ARCH_LLAMA: Llama, Mistral,
    Mixtral), without an importance matrix:

    * the output matrix (or the token embeddings when tied): Q8_0 stays Q8_0, otherwise Q6_K
      (Q8_0 when the row length is not a multiple of the default type's block); the token
      embeddings otherwise get the default type;
    * Q4_K_M: attn_v and ffn_down get Q6_K in the layers where :func:`use_more_bits` holds; an
      80-layer model with grouped-query attention (LLM_TYPE_70B) gets Q5_K for the other attn_v;
      with 8 experts attn_output gets Q5_K;
    * 8 experts (any of these ftypes): attn_k and attn_v get Q8_0;
    * a type whose block does not divide the row length falls back (:func:`_compatible`).

    Raises:
        KeyError: an unknown ftype.
    """
    name = GGUF_FTYPES[ftype]
    n, h = arch.layers, arch.hidden
    m_mix = ftype == "gguf-q4_k_m"
    eight = arch.experts == 8
    is_70b = n == 80 and arch.heads != arch.kv_heads
    out: list[tuple[str, int, int, int, str]] = []
    output = "Q8_0" if h % GGML_TYPES[name].block or name == "Q8_0" else "Q6_K"
    if arch.tied_embeddings:
        out.append(("token_embd", arch.vocab, h, 1, _compatible(output, h)))
    else:
        out.append(("token_embd", arch.vocab, h, 1, _compatible(name, h)))
        out.append(("output", arch.vocab, h, 1, _compatible(output, h)))
    e = arch.experts
    for i in range(n):
        more = m_mix and use_more_bits(i, n)
        v = "Q6_K" if more else name
        if is_70b and v in ("Q3_K", "Q4_K"):
            v = "Q5_K"
        k = name
        if eight:
            v = k = "Q8_0"
        o = "Q5_K" if (eight and m_mix) else name
        down = "Q6_K" if more else name
        out.append(("attn_q", arch.q_dim, h, 1, _compatible(name, h)))
        out.append(("attn_k", arch.kv_dim, h, 1, _compatible(k, h)))
        out.append(("attn_v", arch.kv_dim, h, 1, _compatible(v, h)))
        out.append(("attn_output", h, arch.q_dim, 1, _compatible(o, arch.q_dim)))
        if arch.gated_mlp:
            out.append(("ffn_gate", arch.ffn, h, e, _compatible(name, h)))
        out.append(("ffn_up", arch.ffn, h, e, _compatible(name, h)))
        out.append(("ffn_down", h, arch.ffn, e, _compatible(down, arch.ffn)))
    return out


# --- A whole model under a scheme -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class WeightPlan:
    """The weights of a whole model under a named scheme: the matrices by role and format
    (``groups``, identical matrices merged), and what stays unquantized.

    ``overhead_known`` is false without an architecture for per-row and per-tensor layouts
    (their scales count rows or matrices, which a bare parameter count does not give).

    ``kept_params`` parameters (:attr:`Scheme.kept`) take ``kept_bits`` each. Without an
    architecture (``exact`` false) there is one group holding every parameter at the scheme's
    default layout, and ``groups[0].bytes`` counts its scales from ``⌈params / block⌉`` blocks.
    """

    scheme: Scheme
    groups: tuple[TensorGroup, ...]
    kept_params: int
    kept_bits: int
    exact: bool
    _matrices: TensorBytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # The sum of the groups, once: a plan is cached (weight_plan) and every estimate reads
        # its weights and overhead bytes several times.
        total = ZERO_BYTES
        for g in self.groups:
            total = total + g.bytes
        object.__setattr__(self, "_matrices", total)

    @property
    def overhead_known(self) -> bool:
        """Whether :attr:`overhead_bytes` is the real count (see the class docstring)."""
        return self.exact or self.groups[0].layout.granularity in ("flat", "group")

    @property
    def quantized_params(self) -> int:
        """Weights stored in a quantized format (for GGUF, every matrix but F16/F32 ones)."""
        return sum(g.params for g in self.groups if g.quantized)

    @property
    def matrices(self) -> TensorBytes:
        """Bytes of all matrices in ``groups``."""
        return self._matrices

    @property
    def kept_bytes(self) -> int:
        """Bytes of the parameters that stay unquantized: ⌈kept_params × kept_bits / 8⌉."""
        return -(-self.kept_params * self.kept_bits // 8)

    @property
    def weight_bytes(self) -> int:
        """The ``weights`` item: packed values of the matrices + unquantized parameters."""
        return self.matrices.values + self.kept_bytes

    @property
    def overhead_bytes(self) -> int:
        """The ``quantization_overhead`` item: scales, zero points, second level, outliers."""
        return self.matrices.overhead

    @property
    def total(self) -> int:
        """All weight bytes."""
        return self.weight_bytes + self.overhead_bytes

    def by_format(self) -> dict[str, int]:
        """Weights per format, in first-seen order: ``{"Q4_K": …, "Q6_K": …}``."""
        out: dict[str, int] = {}
        for g in self.groups:
            out[g.fmt] = out.get(g.fmt, 0) + g.params
        return out


def _merge(rows: Iterable[tuple[str, int, int, int, QuantLayout, bool]]) -> tuple[TensorGroup, ...]:
    merged: dict[tuple[str, int, int, str], list[int]] = {}
    layouts: dict[str, tuple[QuantLayout, bool]] = {}
    for role, out, inp, count, layout, quantized in rows:
        key = (role, out, inp, layout.key)
        merged.setdefault(key, [0])[0] += count
        layouts[layout.key] = (layout, quantized)
    groups = []
    for (role, out, inp, fmt), (count,) in merged.items():
        layout, quantized = layouts[fmt]
        groups.append(TensorGroup(role, fmt, out, inp, count, quantized,
                                  tensor_bytes(layout, out, inp).times(count), layout))
    return tuple(groups)


_HF_ROLES = ("q_proj", "k_proj", "v_proj", "o_proj")


@lru_cache(maxsize=512)
def weight_plan(key: str, arch: Architecture | None, params: int,
                group_size: int = 128) -> WeightPlan:
    """The weights of a model under the named scheme ``key`` (a :data:`SCHEMES` key).

    With an architecture: GGUF schemes place every 2-D tensor per :func:`gguf_tensor_types`
    and keep the rest (norms, biases, router, learned positions) in F32; the other schemes
    quantize the linear layers of the blocks in their layout (``group_size`` for GPTQ/AWQ) and
    keep embeddings, LM head, norms, biases and router in 16 bits. Without one (``arch`` None),
    every one of ``params`` parameters counts as quantized in the default layout.

    Llama-2-7B ``gguf-q4_k_m``: 4,080,263,168 bytes (TheBloke's file: 4.08 GB).

    Raises:
        KeyError: an unknown scheme.
    """
    scheme = SCHEMES[key]
    if scheme.layout is None:
        default = GGML_TYPES[GGUF_FTYPES[key]]
    else:
        default = scheme.layout(group_size)
    if arch is None:
        layout = default
        values = _ceil8(params * layout.value_bits)
        if layout.granularity in ("flat", "group"):
            blocks = -(-params // layout.block)
            scales = _ceil8(blocks * layout.block_bits)
        else:
            scales = 0
        b = TensorBytes(values, scales, 0, 0)
        group = TensorGroup("all parameters", layout.key, params, 1, 1, True, b, layout)
        return WeightPlan(scheme, (group,), 0, scheme.kept_bits, False)
    counts = count_params(arch)
    rows: list[tuple[str, int, int, int, QuantLayout, bool]] = []
    if scheme.layout is None:
        for role, out, inp, count, t in gguf_tensor_types(key, arch):
            layout = GGML_TYPES[t]
            rows.append((role, out, inp, count, layout, t not in ("F16", "F32")))
    else:
        for role, (out, inp, count) in zip(_roles(arch), linear_matrices(arch), strict=True):
            rows.append((role, out, inp, count, default, True))
    groups = _merge(rows)
    kept = counts.total - sum(g.params for g in groups)
    return WeightPlan(scheme, groups, kept, scheme.kept_bits, True)


def _roles(arch: Architecture) -> tuple[str, ...]:
    """Names of the :func:`~quiz.footprint.inputs.arch.linear_matrices` entries, in order."""
    mlp = ("gate_proj + up_proj", "down_proj") if arch.gated_mlp else ("fc_in", "fc_out")
    return ("q_proj", "k_proj + v_proj", "o_proj", *mlp)


# --- Words for the derivation -------------------------------------------------------------------

def bytes_text(bits: int) -> str:
    """A per-item size in bytes from its bits: 16 → ``"2 bytes"``, 4 → ``"0.5 bytes"``,
    8 → ``"1 byte"``."""
    if bits == 8:
        return "1 byte"
    if bits % 8 == 0:
        return f"{format_count(bits // 8)} bytes"
    return f"{bits / 8:g} bytes"


def bits_text(bpw: Fraction) -> str:
    """Bits per weight, exact when short: 9/2 → ``"4.5"``, 2113/512 → ``"4.127"``."""
    if bpw.denominator == 1:
        return str(bpw.numerator)
    exact = f"{float(bpw):.6f}".rstrip("0")
    if Fraction(exact) == bpw:
        return exact
    return f"{float(bpw):.3f}"


def values_text(plan: WeightPlan) -> str:
    """The ``weights`` item's formula: the packed values per format and the kept parameters.

    ``"bitsandbytes NF4: 6,476,005,376 params (attention and MLP matrices) × 4 bits +
    262,410,240 params kept 16-bit (embeddings, LM head, norms, biases, router) × 2 bytes"``
    """
    s = plan.scheme
    if not plan.exact:
        layout = plan.groups[0].layout
        return (f"{s.label}: {count_noun(plan.groups[0].params, 'param')} × "
                f"{layout.value_bits} bits; without an architecture every parameter counts as "
                "quantized (real files keep some layers at higher precision: larger)")
    if s.layout is not None:
        text = (f"{s.label}: {count_noun(plan.quantized_params, 'param')} (attention and MLP "
                f"matrices) × {plan.groups[0].layout.value_bits} bits")
        kept_what = "kept 16-bit (embeddings, LM head, norms, biases, router)"
    else:
        parts = [f"{fmt} {count_noun(n, 'param')} × {GGML_TYPES[fmt].value_bits} bits"
                 for fmt, n in plan.by_format().items()]
        text = f"{s.label}: " + " + ".join(parts)
        kept_what = "kept F32 (norms, biases, router)"
    if plan.kept_params:
        text += (f" + {count_noun(plan.kept_params, 'param')} {kept_what} × "
                 f"{count_noun(plan.kept_bits // 8, 'byte')}")
    return text


def overhead_text(plan: WeightPlan) -> str:
    """The ``quantization_overhead`` item's formula: each layout's blocks and what they hold.

    ``"101,187,584 blocks of 64 × 4 bytes (FP32 absmax) + 224 matrices × 64 bytes (16-entry
    FP32 code table)"``
    """
    by_layout: dict[str, list[TensorGroup]] = {}
    for g in plan.groups:
        by_layout.setdefault(g.fmt, []).append(g)
    terms: list[str] = []
    several = len([k for k, gs in by_layout.items() if gs[0].layout.block_bits]) > 1
    for fmt, groups in by_layout.items():
        layout = groups[0].layout
        prefix = f"{fmt}: " if several else ""
        if plan.exact:
            blocks = sum(layout.blocks(g.out, g.inp) * g.count for g in groups)
        else:
            blocks = -(-groups[0].params // layout.block)
        matrices = sum(g.count for g in groups)
        if layout.block_bits:
            where = {"flat": f"block of {format_count(layout.block)}",
                     "group": f"block of {format_count(layout.block)}",
                     "row": "row", "tensor": "matrix"}[layout.granularity]
            if layout.granularity == "group" and fmt not in GGML_TYPES:
                where = f"group of {format_count(layout.block)}"
            noun = count_noun(blocks, where, where.replace("block", "blocks").replace(
                "group", "groups").replace("row", "rows").replace("matrix", "matrices"))
            terms.append(f"{prefix}{noun} × {bytes_text(layout.block_bits)} ({layout.meta})")
        if layout.second_block and plan.exact:
            second = sum(-(-layout.blocks(g.out, g.inp) // layout.second_block) * g.count
                         for g in groups)
            terms.append(f"{count_noun(second, 'second-level absmax', 'second-level absmax')} "
                         f"(one per {format_count(layout.second_block)} blocks) × "
                         f"{bytes_text(layout.second_bits)} FP32")
        if layout.tensor_bits and plan.exact:
            terms.append(f"{count_noun(matrices, 'matrix', 'matrices')} × "
                         f"{count_noun(layout.tensor_bits // 8, 'byte')} ({layout.tensor_meta})")
        if layout.column_bits and plan.exact:
            cols = sum(g.inp * g.count for g in groups)
            terms.append(f"{count_noun(cols, 'input column')} × "
                         f"{bytes_text(layout.column_bits)} int32 g_idx")
        if layout.outlier_fraction and plan.exact:
            frac = layout.outlier_fraction
            weights = sum(g.out * -(-g.inp * frac.numerator // frac.denominator) * g.count
                          for g in groups)
            terms.append(f"{count_noun(weights, 'outlier-column weight')} (assumed "
                         f"{float(frac):.1%} of input columns) × "
                         f"{bytes_text(layout.outlier_bits)} FP16")
    return " + ".join(terms)


def fixed_metadata(weights: str) -> str:
    """Why ``--scale-dtype`` / ``--zero-point`` do not apply to ``weights``: what the format or
    scheme stores instead (for the validation error)."""
    if weights in ("fp32", "fp16", "bf16"):
        return f"{weights} weights are not quantized (no scales or zero points)"
    if weights == "fp8":
        return "fp8 (per-tensor) fixes one FP32 scale per matrix and no zero point"
    scheme = SCHEMES[weights]
    if scheme.layout is None:
        return (f"{weights} fixes the scales of its ggml block types (FP16 d, 6-bit and 8-bit "
                "sub-block scales; ggml-common.h)")
    layout = scheme.layout(128)
    zero = "and no zero point" if not layout.zero_bits or "zero" not in layout.meta else ""
    return f"{weights} fixes its own: {layout.meta} per {_unit(layout)} {zero}".rstrip()


def _unit(layout: QuantLayout) -> str:
    if layout.granularity == "row":
        return "row"
    if layout.granularity == "tensor":
        return "matrix"
    if layout.key.startswith(("gptq", "awq")):
        return "group"
    return f"block of {format_count(layout.block)}"


# --- JSON and --explain ------------------------------------------------------------------------

def plan_json(plan: WeightPlan) -> dict[str, object]:
    """The ``quantization`` object of the inference JSON for a named scheme.

    ``{"scheme": str, "label": str, "exact": bool, "quantized_params": int, "kept_params": int,
    "kept_bits": int, "bits_per_weight": float, "formats": [{"format": str, "params": int,
    "bytes": int}, ...], "source": str}`` — ``formats`` lists each storage format of the
    matrices with its weights and bytes (values and metadata); ``bits_per_weight`` is
    8 × those bytes ÷ those weights, rounded to 4 decimals (the kept parameters excluded).
    """
    formats: dict[str, list[int]] = {}
    for g in plan.groups:
        entry = formats.setdefault(g.fmt, [0, 0])
        entry[0] += g.params
        entry[1] += g.bytes.total
    params = sum(p for p, _ in formats.values())
    total = plan.matrices.total if plan.overhead_known else plan.matrices.values
    return {
        "scheme": plan.scheme.key,
        "label": plan.scheme.label,
        "exact": plan.exact,
        "quantized_params": plan.quantized_params,
        "kept_params": plan.kept_params,
        "kept_bits": plan.kept_bits,
        "bits_per_weight": round(8 * total / params, 4) if params else 0.0,
        "formats": [{"format": f, "params": p, "bytes": b} for f, (p, b) in formats.items()],
        "source": plan.scheme.source,
    }


def placement_text(plan: WeightPlan, layers: int, experts: int = 1) -> str:
    """Which tensors each format holds: ``"Q6_K: output, attn_v (16 layers), ffn_down (16
    layers); Q4_K: token_embd, attn_q (32 layers), …"``."""
    parts: dict[str, list[str]] = {}
    for g in plan.groups:
        n = g.count // experts if g.role.startswith("ffn") and experts > 1 else g.count
        where = g.role if g.role in ("token_embd", "output") or layers <= 1 else (
            f"{g.role} ({count_noun(n, 'layer')})" if n != layers else f"{g.role} (all layers)")
        parts.setdefault(g.fmt, []).append(where)
    return "; ".join(f"{fmt}: {', '.join(w)}" for fmt, w in parts.items())


def scheme_notes(plan: WeightPlan, arch: Architecture | None,
                 size: Callable[[int], str]) -> list[str]:
    """``--explain`` notes for a named scheme: what stays unquantized and where common tools
    count differently, with this case's numbers (``size`` formats bytes; ``arch`` is the
    architecture ``plan`` was made for, ``None`` without one)."""
    s = plan.scheme
    notes: list[str] = []
    params = plan.quantized_params
    bpw = plan.matrices.total * 8 / params if params and plan.overhead_known else None
    if not plan.exact:
        notes.append(
            f"{s.label} without an architecture: every parameter counts as quantized at the "
            "default layout; give a model preset or a full architecture to keep "
            f"{s.kept} and count the scales exactly.")
        return notes
    lead = f"{s.label}: {s.kept}"
    if bpw is not None:
        lead += (f"; the quantized matrices average {bpw:.4f} bits per weight including their "
                 f"scales ({count_noun(params, 'weight')})")
    notes.append(lead + f". Source: {s.source}.")
    if s.layout is None:
        notes.append(
            "GGUF tensor types (llama_tensor_get_type's rules for llama-style architectures, "
            "without an importance matrix; the _M mixes give more bits to the layers where "
            "use_more_bits holds): "
            + placement_text(plan, arch.layers if arch else 0, arch.experts if arch else 1)
            + ". A .gguf file adds a header (hyperparameters and the tokenizer's vocabulary, "
            "about a megabyte for 32,000 entries) and pads each tensor to 32 bytes; published "
            "file sizes include them. Other architectures (fused QKV as in GPT-2 or Falcon) "
            "get other rules (attn_qkv Q5_K in Q4_K_M).")
    elif s.key.startswith("bnb-int8"):
        outliers = plan.matrices.outliers
        notes.append(
            f"LLM.int8() outliers: this estimate assumes {float(INT8_OUTLIER_FRACTION):.1%} of "
            f"each matrix's input columns are outlier feature dimensions held again in FP16 "
            f"({size(outliers)}); Dettmers et al. 2022 report more than 99.9% of values "
            "multiplied in 8-bit. bitsandbytes ≥ 0.45 keeps only the INT8 weights and the FP32 "
            "row scales resident and dequantizes the outlier columns for each matrix multiply "
            "(int8_mixed_scaled_mm): counting them as transient gives "
            f"{size(plan.total - outliers)}.")
    elif s.key.startswith("bnb-"):
        other_key = s.key[:-3] if s.key.endswith("-dq") else s.key + "-dq"
        arch_plan = weight_plan(other_key, arch, 0)
        dq = s.key.endswith("-dq")
        notes.append(
            "bitsandbytes 4-bit blocks the flattened weight in blocks of 64 (a block may cross "
            "rows). QLoRA (Dettmers et al. 2023, sec. 3): the FP32 absmax cost 32/64 = 0.5 bits "
            "per weight; double quantization (8-bit absmax, one FP32 scale per 256 blocks) "
            "brings them to 8/64 + 32/(64·256) ≈ 0.127. "
            + (f"Without double quantization this model takes {size(arch_plan.total)} instead "
               f"of {size(plan.total)}." if dq else
               f"With double quantization this model takes {size(arch_plan.total)} instead of "
               f"{size(plan.total)}."))
    elif s.key == "gptq-int4":
        notes.append(
            "GPTQ as AutoGPTQ saves it: packed INT4 zero points (qzeros) and an int32 act-order "
            "index g_idx per input column, even when the model was quantized with sym=True "
            "(qzeros then hold the midpoint). Symmetric checkpoints of llm-compressor "
            "(compressed-tensors) store no zero points and no g_idx: --weights gptq-int4-sym. "
            f"The plain int4 format leaves g_idx out ({size(plan.matrices.second_level)} here).")
    elif s.key == "gptq-int4-sym":
        notes.append(
            "Symmetric GPTQ as llm-compressor saves it (compressed-tensors): one FP16 scale per "
            "group and no zero point. An AutoGPTQ checkpoint made with sym=True still stores "
            "qzeros and g_idx: --weights gptq-int4.")
    elif s.key == "awq-int4":
        notes.append(
            "AWQ (AutoAWQ GEMM, zero_point=True by default): one FP16 scale and one packed INT4 "
            "zero point per group, no act-order index; the same bytes as the plain int4 format "
            "with its defaults.")
    elif s.key == "fp8-channel":
        per_tensor = sum(g.count for g in plan.groups) * 4
        notes.append(
            f"FP8 per-channel keeps one FP32 scale per output row ({size(plan.overhead_bytes)}); "
            f"per-tensor FP8 (--weights fp8) keeps one per matrix ({size(per_tensor)}). vLLM "
            "and llm-compressor load both; the weights themselves are the same 8 bits.")
    return notes

