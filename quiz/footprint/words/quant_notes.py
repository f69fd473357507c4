"""``--explain`` notes on a named weight quantization scheme: what stays unquantized and where
common tools count differently, with this case's numbers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun
from quiz.footprint.quant.plan import WeightPlan, weight_plan
from quiz.footprint.quant.schemes import INT8_OUTLIER_FRACTION

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture


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
            "without an importance matrix; the mixes give attn_v and ffn_down, and in Q2_K and "
            "Q3_K_M attn_output, more bits, the _M ones in the layers where use_more_bits "
            "holds): "
            + placement_text(plan, arch.layers if arch else 0, arch.experts if arch else 1)
            + ". A .gguf file adds a header (hyperparameters and the tokenizer's vocabulary, "
            "about a megabyte for 32,000 entries) and pads each tensor to 32 bytes; published "
            "file sizes include them. Other architectures (fused QKV as in GPT-2 or Falcon) "
            "get other rules (attn_qkv Q5_K in Q4_K_M)."
            + (" Made with an importance matrix (as most published IQ4_XS files are), "
               "IQ4_XS keeps the first eighth of ffn_down in IQ4_XS, not Q5_K: smaller."
               if s.key == "gguf-iq4_xs" else ""))
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
