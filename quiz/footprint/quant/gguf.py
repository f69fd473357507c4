"""GGUF (llama.cpp): the ggml block types, each from its struct in ggml-common.h, and which
tensor of a model gets which type under an ftype (llama_tensor_get_type)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.quant.layouts import QuantLayout

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture


GGML_SRC = "ggml block structs in llama.cpp ggml/src/ggml-common.h"


LLAMA_QUANT_SRC = (
    "llama.cpp src/llama-quant.cpp llama_tensor_get_type (per-tensor types of each ftype) and "
    "llama_model_quantize_impl (1-D tensors, norms and ffn_gate_inp are not quantized); "
    "convert_hf_to_gguf.py (those stay F32)"
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


GGUF_FTYPES = {"gguf-q8_0": "Q8_0", "gguf-q6_k": "Q6_K", "gguf-q4_k_m": "Q4_K",
               "gguf-q4_0": "Q4_0"}
"""Each GGUF scheme's default tensor type (``default_type`` in llama_model_quantize_impl)."""


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
