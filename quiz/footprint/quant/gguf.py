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
    # block_q2_K: scales[16] (4-bit scales and mins of 16 sub-blocks); qs[64]; d, dmin
    #                                                   → 84 bytes / 256 = 2.625 bpw
    "Q2_K": _ggml("Q2_K", 2, 256, 16, 16, 128, "FP16 d and dmin + 16 bytes of 4-bit scales "
                  "and mins"),
    # block_q3_K: hmask[32] (3rd bits); qs[64]; scales[12] (6-bit scales of 16 sub-blocks); d
    #                                                   → 110 bytes / 256 = 3.4375 bpw
    "Q3_K": _ggml("Q3_K", 3, 256, 16, 0, 96, "FP16 d + 12 bytes of 6-bit scales"),
    # block_q4_K: d, dmin; scales[12] (6-bit scales and mins of 8 sub-blocks); qs[128]
    #                                                   → 144 bytes / 256 = 4.5 bpw
    "Q4_K": _ggml("Q4_K", 4, 256, 16, 16, 96, "FP16 d and dmin + 12 bytes of 6-bit scales "
                  "and mins"),
    # block_q5_K: d, dmin; scales[12]; qh[32]; qs[128]  → 176 bytes / 256 = 5.5 bpw
    "Q5_K": _ggml("Q5_K", 5, 256, 16, 16, 96, "FP16 d and dmin + 12 bytes of 6-bit scales "
                  "and mins"),
    # block_q6_K: ql[128]; qh[64]; int8 scales[16]; d   → 210 bytes / 256 = 6.5625 bpw
    "Q6_K": _ggml("Q6_K", 6, 256, 16, 0, 128, "FP16 d + 16 int8 scales"),
    # block_iq4_xs: d; uint16_t scales_h; scales_l[4] (6-bit scales of 8 sub-blocks); qs[128]
    #                                                   → 136 bytes / 256 = 4.25 bpw
    "IQ4_XS": _ggml("IQ4_XS", 4, 256, 16, 0, 48, "FP16 d + 8 6-bit sub-block scales "
                    "(scales_h, scales_l)"),
    # block_iq4_nl: d; qs[16] (QK4_NL = 32)             → 18 bytes / 32 = 4.5 bpw (IQ4_XS's
    #                                                     fallback for rows not a multiple of 256)
    "IQ4_NL": _ggml("IQ4_NL", 4, 32, 16, meta="FP16 d"),
    "F16": QuantLayout("F16", "F16", 16, "tensor", 1, 0, source=GGML_SRC),
    "F32": QuantLayout("F32", "F32", 32, "tensor", 1, 0, source=GGML_SRC),
}
"""ggml tensor types by name, each from its block struct in ``ggml/src/ggml-common.h``."""


GGUF_FTYPES = {"gguf-q8_0": "Q8_0", "gguf-q6_k": "Q6_K", "gguf-q5_k_m": "Q5_K",
               "gguf-q5_k_s": "Q5_K", "gguf-q4_k_m": "Q4_K", "gguf-iq4_xs": "IQ4_XS",
               "gguf-q4_0": "Q4_0", "gguf-q3_k_m": "Q3_K", "gguf-q2_k": "Q2_K"}
"""Each GGUF scheme's default tensor type (``default_type`` in llama_model_quantize_impl)."""


def use_more_bits(i_layer: int, n_layers: int) -> bool:
    """llama.cpp's ``use_more_bits`` (src/llama-quant.cpp): the first and last eighth of the
    layers and every third layer between them get more bits in the ``_M`` mixes."""
    return (i_layer < n_layers // 8 or i_layer >= 7 * n_layers // 8
            or (i_layer - n_layers // 8) % 3 == 2)


def _compatible(t: str, row: int) -> str:
    """llama_tensor_get_type's final check (tensor_type_fallback): a type whose block does not
    divide the row length ``row`` (``ne[0]``) falls back (Q2_K, Q3_K → Q4_0; Q4_K → Q5_0;
    Q5_K → Q5_1; Q6_K → Q8_0; IQ4_XS → IQ4_NL), then to F16."""
    layout = GGML_TYPES[t]
    if layout.granularity != "group" or row % layout.block == 0:
        return t
    fallback = {"Q2_K": "Q4_0", "Q3_K": "Q4_0", "Q4_K": "Q5_0", "Q5_K": "Q5_1",
                "Q6_K": "Q8_0", "IQ4_XS": "IQ4_NL"}.get(t, "F16")
    if fallback != "F16" and row % GGML_TYPES[fallback].block:
        fallback = "F16"
    return fallback


def _attn_v(ftype: str, default: str, i: int, n: int, gqa: int, is_70b: bool) -> str:
    """attn_v's type in layer ``i`` of ``n`` (llama_tensor_get_type_impl, ``category_is_attn_v``;
    ``gqa`` = heads ÷ KV heads, llama.cpp's ``n_gqa()``), before the 8-expert rule."""
    v = default
    if ftype == "gguf-q2_k":
        v = "Q4_K" if gqa >= 4 else "Q3_K"
    elif ftype == "gguf-q3_k_m":
        v = "Q5_K" if i < 2 else "Q4_K"
    elif ftype == "gguf-iq4_xs" and gqa >= 4:
        v = "Q5_K"
    elif ftype in ("gguf-q4_k_m", "gguf-q5_k_m") and use_more_bits(i, n):
        v = "Q6_K"
    if is_70b and v in ("Q3_K", "Q4_K"):
        v = "Q5_K"
    return v


def _ffn_down(ftype: str, default: str, i: int, n: int) -> str:
    """ffn_down's type in layer ``i`` of ``n`` (llama_tensor_get_type_impl, FFN_DOWN; no
    importance matrix; not Falcon)."""
    if ftype == "gguf-q2_k":
        return "Q3_K"
    if ftype == "gguf-q3_k_m":
        return "Q5_K" if i < n // 16 else "Q4_K"
    if ftype in ("gguf-q4_k_m", "gguf-q5_k_m") and use_more_bits(i, n):
        return "Q6_K"
    if ftype == "gguf-iq4_xs" and i < n // 8:
        return "Q5_K"
    return default


_EIGHT_EXPERT_O = ("gguf-q2_k", "gguf-q3_k_m", "gguf-q4_k_m", "gguf-iq4_xs")
"""ftypes whose attn_output is Q5_K in an 8-expert model (llama_tensor_get_type_impl)."""


def _attn_output(ftype: str, default: str, eight: bool) -> str:
    """attn_output's type (llama_tensor_get_type_impl, ATTENTION_OUTPUT; not Falcon)."""
    if eight:
        return "Q5_K" if ftype in _EIGHT_EXPERT_O else default
    return {"gguf-q2_k": "Q3_K", "gguf-q3_k_m": "Q4_K"}.get(ftype, default)


def gguf_tensor_types(ftype: str, arch: Architecture) -> list[tuple[str, int, int, int, str]]:
    """Each 2-D tensor of ``arch`` as ``(role, out, in, count, type)`` under a llama.cpp ftype
    (``count`` > 1 for a layer's experts, which share one 3-D tensor and one type).

    ``ftype`` is a :data:`GGUF_FTYPES` key. Rules of ``llama_tensor_get_type`` (llama.cpp
    src/llama-quant.cpp) for llama-style architectures (LLM_ARCH_LLAMA: Llama, Mistral,
    Mixtral), without an importance matrix:

    * the output matrix (or the token embeddings when tied): Q8_0 stays Q8_0, otherwise Q6_K
      (Q8_0 when the row length is not a multiple of the default type's block); the token
      embeddings otherwise get the default type;
    * Q4_K_M and Q5_K_M: attn_v and ffn_down get Q6_K in the layers where
      :func:`use_more_bits` holds; Q5_K_S is Q5_K throughout;
    * Q3_K_M: attn_v Q5_K in the first 2 layers, Q4_K after; ffn_down Q5_K in the first
      sixteenth of the layers, Q4_K after; attn_output Q4_K;
    * Q2_K: attn_v Q4_K with 4 or more query heads per KV head, else Q3_K; ffn_down and
      attn_output Q3_K;
    * IQ4_XS: attn_v Q5_K with 4 or more query heads per KV head; ffn_down Q5_K in the first
      eighth of the layers (the rule without an importance matrix);
    * an 80-layer model with grouped-query attention (LLM_TYPE_70B) gets Q5_K for an attn_v
      that would be Q3_K or Q4_K;
    * 8 experts: attn_k and attn_v get Q8_0; attn_output Q5_K under Q2_K, Q3_K_M, Q4_K_M and
      IQ4_XS;
    * a type whose block does not divide the row length falls back (:func:`_compatible`).

    Raises:
        KeyError: an unknown ftype.
    """
    name = GGUF_FTYPES[ftype]
    n, h = arch.layers, arch.hidden
    eight = arch.experts == 8
    gqa = arch.heads // arch.kv_heads if arch.kv_heads else 1
    is_70b = n == 80 and arch.heads != arch.kv_heads
    out: list[tuple[str, int, int, int, str]] = []
    output = "Q8_0" if h % GGML_TYPES[name].block or name == "Q8_0" else "Q6_K"
    if arch.tied_embeddings:
        out.append(("token_embd", arch.vocab, h, 1, _compatible(output, h)))
    else:
        out.append(("token_embd", arch.vocab, h, 1, _compatible(name, h)))
        out.append(("output", arch.vocab, h, 1, _compatible(output, h)))
    e = arch.experts
    o = _attn_output(ftype, name, eight)
    for i in range(n):
        v = _attn_v(ftype, name, i, n, gqa, is_70b)
        k = name
        if eight:
            v = k = "Q8_0"
        down = _ffn_down(ftype, name, i, n)
        out.append(("attn_q", arch.q_dim, h, 1, _compatible(name, h)))
        out.append(("attn_k", arch.kv_dim, h, 1, _compatible(k, h)))
        out.append(("attn_v", arch.kv_dim, h, 1, _compatible(v, h)))
        out.append(("attn_output", h, arch.q_dim, 1, _compatible(o, arch.q_dim)))
        if arch.gated_mlp:
            out.append(("ffn_gate", arch.ffn, h, e, _compatible(name, h)))
        out.append(("ffn_up", arch.ffn, h, e, _compatible(name, h)))
        out.append(("ffn_down", h, arch.ffn, e, _compatible(down, arch.ffn)))
    return out
