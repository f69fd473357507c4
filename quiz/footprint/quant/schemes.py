"""The named weight quantization schemes (a ``--weights`` value each: GPTQ, AWQ, bitsandbytes,
FP8 per-channel, GGUF mixes): their layouts, what they keep unquantized and their sources."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

from quiz.footprint.inputs.units import format_count
from quiz.footprint.quant.gguf import LLAMA_QUANT_SRC
from quiz.footprint.quant.layouts import BNB_SRC, QuantLayout, bnb_4bit_layout

if TYPE_CHECKING:
    pass


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


INT8_OUTLIER_FRACTION = Fraction(1, 1000)
"""Share of input columns LLM.int8() treats as outlier feature dimensions: 0.1%, from the paper's
abstract ("more than 99.9% of values are multiplied in 8-bit"). An explicit assumption: the real
share depends on the model and the inputs (Dettmers et al. 2022, sec. 4: about 6 to 25
outlier dimensions per layer above 6.7B parameters)."""


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
        Scheme("gguf-q5_k_m", "GGUF Q5_K_M (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q5_k_s", "GGUF Q5_K_S (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q4_k_m", "GGUF Q4_K_M (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-iq4_xs", "GGUF IQ4_XS (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q4_0", "GGUF Q4_0 (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q3_k_m", "GGUF Q3_K_M (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
        Scheme("gguf-q2_k", "GGUF Q2_K (llama.cpp)", None, _GGUF_KEPT, 32, False, "fp16",
               LLAMA_QUANT_SRC),
    )
}
"""The named schemes, by ``--weights`` value (the plain formats fp32 … int4 are not here)."""


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
