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

from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from quiz.footprint.inputs.arch import count_params, linear_matrices

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


def ceil8(bits: int) -> int:
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
    values = ceil8(n * layout.value_bits)
    scales = ceil8(blocks * layout.block_bits)
    second = ceil8(layout.tensor_bits) + ceil8(in_features * layout.column_bits)
    if layout.second_block:
        second += ceil8(-(-blocks // layout.second_block) * layout.second_bits)
    outliers = 0
    if layout.outlier_fraction:
        cols = -(-in_features * layout.outlier_fraction.numerator
                 // layout.outlier_fraction.denominator)
        outliers = ceil8(out_features * cols * layout.outlier_bits)
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
