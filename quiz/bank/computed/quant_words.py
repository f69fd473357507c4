"""What a served model's quantized weights store besides their values, in words, for the reviews
of the misconceptions about them (``weights-only``, ``int4-without-scales``).

The wording follows the calculator's layouts (:mod:`quiz.footprint.quant.schemes`,
:mod:`quiz.footprint.quant.gguf`): which constants each scheme keeps per group or block (scales,
zero points, absmax values) and which tensors it leaves unquantized. Pure: no Textual, no I/O.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.items.inference import group_meta_bits
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec

_GGUF_BLOCKS = {
    "gguf-q4_0": "an FP16 scale per block of 32 values",
    "gguf-q4_k_m": ("an FP16 scale and minimum per super-block of 256 values and 6-bit scales "
                    "and minimums per sub-block of 32"),
}
"""The block constants of the 4-bit GGUF types (ggml-common.h: block_q4_0, block_q4_K)."""

_GGUF_KEPT = {
    "gguf-q4_0": ("keeps the norms in F32 and the output matrix in Q6_K (the token embeddings "
                  "are quantized too)"),
    "gguf-q4_k_m": ("keeps the norms in F32 and the output matrix and some attn_v and ffn_down "
                    "matrices in Q6_K (the token embeddings are quantized too)"),
}
"""What a 4-bit GGUF mix stores at more than 4 bits (llama.cpp's llama_tensor_get_type)."""

_SCALE_NAMES = {"fp16": "FP16", "bf16": "BF16", "fp32": "FP32", "fp8": "FP8"}


def constants(spec: InferenceSpec) -> str:
    """The quantization constants of ``spec.weights`` in a few words, plural: ``"scales and
    zero points"`` (a zero point is stored), ``"absmax scales"`` (bitsandbytes), ``"scales"``."""
    scheme = SCHEMES.get(spec.weights)
    if scheme is not None:
        if scheme.layout is None:
            return "block scales"
        meta = scheme.layout(spec.group_size).meta
        if "absmax" in meta:
            return "absmax scales"
        return "scales and zero points" if "zero" in meta else "scales"
    if spec.weights == "fp8":
        return "scales"
    return "scales and zero points" if group_meta_bits(spec)[1] else "scales"


def int4_stores(spec: InferenceSpec, kept_16bit: bool) -> str:
    """What a 4-bit scheme stores besides 4 bits per parameter, as the end of a sentence
    starting "{label} also stores ...": its constants per group or block and what it keeps at
    more bits. ``kept_16bit``: the calculator counts some tensors unquantized (a plain ``int4``
    without an architecture counts none)."""
    weights = spec.weights
    if weights in _GGUF_BLOCKS:
        return f"{_GGUF_BLOCKS[weights]}, and {_GGUF_KEPT[weights]}"
    scheme = SCHEMES.get(weights)
    kept = (", and keeps the embeddings, LM head and norms in 16 bits" if kept_16bit else "")
    if scheme is not None and scheme.key.startswith("bnb-"):
        if scheme.key.endswith("-dq"):
            per = ("an 8-bit absmax scale per block of 64 values, with an FP32 scale per 256 "
                   "blocks (double quantization; no zero point)")
        else:
            per = "an FP32 absmax scale per block of 64 values (no zero point)"
        return per + kept
    if scheme is not None and scheme.layout is not None:
        meta = scheme.layout(spec.group_size).meta.replace(" + ", " and a ")
        return f"an {meta} per group of {spec.group_size:,} weights" + kept
    scale_bits, zero_bits = group_meta_bits(spec)
    scale = _SCALE_NAMES.get(spec.scale_dtype or "fp16", "FP16")
    zero = f" and a {zero_bits}-bit zero point" if zero_bits else ""
    return f"{'an' if scale[0] == 'F' else 'a'} {scale} scale{zero} per group of " \
           f"{spec.group_size:,} weights" + kept
