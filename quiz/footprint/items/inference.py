"""Inference memory: weights (possibly quantized), quantization scales, KV cache, activations.

Weights
    FP32/FP16/BF16: params × 4/2/2 bytes. FP8/INT8/INT4 (weight-only quantization as in GPTQ,
    Frantar et al. 2023, and AWQ, Lin et al. 2024): the linear layers inside the transformer
    blocks are quantized; embeddings, the LM head, norms, biases and the MoE router stay 16-bit,
    as in the published GPTQ/AWQ checkpoints. Never below params × bytes per parameter of the
    chosen format: the 16-bit parts only add to it.
Quantization overhead (convention, exact)
    INT8/INT4: one FP16 scale and one zero point of the weight's own width (8 or 4 bits) per group
    of ``group_size`` consecutive input weights of each output row, i.e.
    ``out × ceil(in / group)`` groups per matrix — the layout of AutoGPTQ/AWQ checkpoints
    (``scales`` FP16, ``qzeros`` packed at the weight width). The ``g_idx`` act-order index some
    GPTQ checkpoints add (4 bytes per input channel) is not counted. Llama-2-7B INT4, group 128:
    6,476,005,376 quantized weights × 0.5 + 262,410,240 16-bit weights × 2 + 50,593,792 groups ×
    2.5 bytes = 3,889,307,648 bytes.
    FP8: one FP32 scale per quantized matrix (per-tensor scaling, as in FP8 checkpoints for vLLM
    and TensorRT-LLM); ``group_size`` does not apply.
KV cache
    2 (K and V) × layers × kv_heads × head_dim × bytes × tokens × batch (Pope et al. 2023,
    Efficiently Scaling Transformer Inference, sec. 2; grouped-query attention: Ainslie et al.
    2023); a sliding-window layer keeps at most ``window`` tokens (Jiang et al. 2023, Mistral 7B,
    sec. 2, rolling buffer cache). Llama-2-70B at 16 bits: 327,680 bytes per token. Formats
    below 8 bits, prefix caching and replicated KV heads: :mod:`quiz.footprint.items.kv_layout`;
    the item: :mod:`quiz.footprint.items.kv_cache`.
Activations and logits
    The working memory of a serving engine with chunked prefill:
    :mod:`quiz.footprint.items.serving`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.arch import linear_matrices, quant_groups
from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, lazy_item, make_item
from quiz.footprint.items.kv_cache import kv_bytes, kv_item
from quiz.footprint.items.kv_layout import KV_SRC as KV_SRC
from quiz.footprint.items.kv_layout import kv_dtype as kv_dtype
from quiz.footprint.items.memo import per_estimate
from quiz.footprint.quant.formulas import overhead_text, partial_groups_text, values_text
from quiz.footprint.quant.plan import WeightPlan, weight_plan
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import ParamCount
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

WEIGHT_BITS = {"fp32": 32, "fp16": 16, "bf16": 16, "fp8": 8, "int8": 8, "int4": 4,
               "fp8-channel": 8, "gptq-int4": 4, "gptq-int4-sym": 4, "awq-int4": 4,
               "bnb-int8": 8, "bnb-nf4": 4, "bnb-nf4-dq": 4, "bnb-fp4": 4, "bnb-fp4-dq": 4,
               "gguf-q8_0": 8, "gguf-q6_k": 6, "gguf-q5_k_m": 5, "gguf-q5_k_s": 5,
               "gguf-q4_k_m": 4, "gguf-iq4_xs": 4, "gguf-q4_0": 4, "gguf-q3_k_m": 3,
               "gguf-q2_k": 2}
"""Bits of each stored weight value of each inference weight format (a named scheme's default
tensor type; its scales and the layers it keeps come on top)."""
SCALE_BITS = {"fp16": 16, "bf16": 16, "fp32": 32, "fp8": 8}
"""Bits of a group scale per ``scale_dtype``."""
ZERO_BITS = {"none": 0, "int4": 4, "int8": 8, "fp16": 16, "bf16": 16}
"""Bits of a group zero point per ``zero_point``."""
KV_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}
"""Bytes per cached key/value element of the KV dtypes of 8 bits or more (the formats below 8
bits, with their scales: :data:`quiz.footprint.items.kv_layout.KV_FORMATS`)."""
GPTQ_SRC = (
    "Frantar et al. 2023 (GPTQ) and Lin et al. 2024 (AWQ): group-wise weight-only quantization; "
    "layout of AutoGPTQ/AWQ checkpoints"
)


def kv_bytes_per_token(
    *, layers: int, kv_heads: int, head_dim: int, bytes_per_value: int = 2
) -> int:
    """KV cache bytes per token of one sequence: 2 × layers × kv_heads × head_dim × bytes.

    Llama-2-7B (32 layers, 32 KV heads of 128) at 16 bits: 524,288; Llama-2-70B (80 layers,
    8 KV heads): 327,680.
    """
    return 2 * layers * kv_heads * head_dim * bytes_per_value


def kv_cache_bytes(spec: InferenceSpec, r: ResolvedModel) -> int | None:
    """KV cache bytes of one replica, one copy of each KV head
    (:func:`quiz.footprint.items.kv_cache.kv_bytes`: the spec's KV format, whole blocks, a
    sliding-window layer at most ``window`` tokens, a shared prefix's whole blocks once).
    ``None`` when the layers, key/value heads or head size are unknown."""
    return kv_bytes(spec, r)


def kv_values(r: ResolvedModel) -> int:
    """Values the KV cache keeps per layer and token: 2 × kv_heads × head_dim (K and V), or
    for multi-head latent attention the latent and the rotary key, kv_lora_rank + qk_rope_dim
    (:attr:`~quiz.footprint.inputs.arch.Architecture.kv_values_per_layer_token`)."""
    if r.arch is not None and r.arch.mla:
        return r.arch.kv_values_per_layer_token
    return 2 * (r.kv_heads or 0) * (r.head_dim or 0)


def scheme_plan(spec: InferenceSpec, r: ResolvedModel) -> WeightPlan | None:
    """The :class:`~quiz.footprint.quant.schemes.WeightPlan` of a named scheme (``None`` for the
    plain
    formats fp32 … int4): exact with an architecture, every parameter quantized without."""
    if spec.weights not in SCHEMES:
        return None
    key = (spec.weights, spec.group_size)
    if _LAST_PLAN and _LAST_PLAN[0][0] is r and _LAST_PLAN[0][1] == key:
        return _LAST_PLAN[0][2]
    arch = r.arch if r.counts is not None else None
    plan = weight_plan(spec.weights, arch, r.params, spec.group_size)
    _LAST_PLAN[:] = [(r, key, plan)]
    return plan


_LAST_PLAN: list[tuple[ResolvedModel, tuple[str, int], WeightPlan]] = []
"""The last answer of :func:`scheme_plan` with the resolved model it was for (resolutions are
cached): an estimate asks four times, and a hit does not hash the architecture again."""


def group_meta_bits(spec: InferenceSpec) -> tuple[int, int]:
    """``(scale_bits, zero_bits)`` per group of plain INT8/INT4: ``scale_dtype`` (default FP16)
    and ``zero_point`` (default the weight's own width)."""
    scale = SCALE_BITS[spec.scale_dtype or "fp16"]
    zero = WEIGHT_BITS[spec.weights] if spec.zero_point is None else ZERO_BITS[spec.zero_point]
    return scale, zero


def plain_weight_bytes(params: int, weights: str) -> int:
    """``params × bits / 8`` rounded up: every parameter in the format ``weights``, nothing kept
    16-bit and no scales (the count of a calculator that ignores both)."""
    return -(-params * WEIGHT_BITS[weights] // 8)


@per_estimate
def weight_bytes(spec: InferenceSpec, r: ResolvedModel) -> tuple[int, int | None]:
    """``(weights, quantization_overhead)`` in bytes for the whole model; the overhead is 0 for
    16/32-bit weights and ``None`` when it cannot be computed (FP8, FP8 per-channel and
    LLM.int8() without an architecture). A named scheme: the packed values plus the layers it
    keeps unquantized, and its scales (:func:`scheme_plan`). Kept for the last ``spec`` and
    ``r`` (:func:`~quiz.footprint.items.memo.per_estimate`): an estimate asks for the weights
    item and again for the stored file."""
    plan = scheme_plan(spec, r)
    if plan is not None:
        return plan.weight_bytes, plan.overhead_bytes if plan.overhead_known else None
    bits = WEIGHT_BITS[spec.weights]
    psi = r.params
    if bits >= 16:
        return psi * bits // 8, 0
    counts = r.counts
    meta = sum(group_meta_bits(spec)) if spec.weights != "fp8" else 0
    if counts is None or r.arch is None:
        weights = plain_weight_bytes(psi, spec.weights)
        if spec.weights == "fp8":
            return weights, None
        groups = -(-psi // spec.group_size)
        return weights, -(-groups * meta // 8)
    weights = -(-counts.quantizable * bits // 8) + counts.kept_16bit * 2
    if spec.weights == "fp8":
        return weights, counts.quantized_matrices * 4
    groups = _groups(r, spec.group_size)
    return weights, -(-groups * meta // 8)


def _groups(r: ResolvedModel, group: int) -> int:
    """:func:`~quiz.footprint.inputs.arch.quant_groups` of ``r``'s architecture, kept for the
    last model and group size (an estimate asks twice, for the weights and the stored file; a
    hit does not hash the architecture's many fields again)."""
    if _LAST_GROUPS and _LAST_GROUPS[0][0] is r and _LAST_GROUPS[0][1] == group:
        return _LAST_GROUPS[0][2]
    assert r.arch is not None
    n = quant_groups(r.arch, group)
    _LAST_GROUPS[:] = [(r, group, n)]
    return n


_LAST_GROUPS: list[tuple[ResolvedModel, int, int]] = []


def inference_items(spec: InferenceSpec, r: ResolvedModel) -> tuple[list[Item], list[Omitted]]:
    """The inference items for one model replica.

    Returns:
        ``(items, omitted)``: weights, quantization_overhead (quantized formats), kv_cache,
        activations — those that can be computed — and the others with their reasons.
    """
    items: list[Item] = []
    omitted: list[Omitted] = []
    fmt = spec.weights
    bits = WEIGHT_BITS[fmt]
    weights, overhead = weight_bytes(spec, r)
    psi = r.params
    plan = scheme_plan(spec, r)
    if plan is not None:
        _scheme_items(plan, weights, overhead, items, omitted)
    elif bits >= 16:
        items.append(
            make_item(
                "weights",
                weights,
                f"{count_noun(psi, 'param')} × {bits // 8} bytes ({fmt.upper()})",
                "bytes per parameter of the storage format (IEEE 754 / bfloat16)",
            )
        )
    elif r.counts is not None:
        items.append(lazy_item("weights", weights, GPTQ_SRC, _quantized_weights_text, r.counts,
                               bits, fmt))
    else:
        per = "0.5 byte" if bits == 4 else "1 byte"
        items.append(
            make_item(
                "weights",
                weights,
                f"{count_noun(psi, 'param')} × {per} ({fmt.upper()}); without an architecture "
                "every parameter counts as quantized (real checkpoints keep embeddings 16-bit: "
                "larger)",
                GPTQ_SRC,
            )
        )
    if bits < 16 and plan is None:
        _overhead_item(spec, r, overhead, items, omitted)
    kv_item(spec, r, items, omitted)
    return items, omitted


def _scheme_items(plan: WeightPlan, weights: int, overhead: int | None, items: list[Item],
                  omitted: list[Omitted]) -> None:
    """The weights and quantization_overhead items of a named scheme."""
    src = plan.scheme.source
    items.append(lazy_item("weights", weights, src, values_text, plan))
    if overhead is None:
        omitted.append(
            Omitted(
                "quantization_overhead",
                f"{plan.scheme.label} keeps one scale per row or matrix: their number needs a "
                "model preset or a full architecture",
                "inference",
                f"{plan.scheme.label} scales need the number of rows or matrices",
                ("model", "layers", "hidden", "heads", "ffn"),
            )
        )
        return
    items.append(lazy_item("quantization_overhead", overhead, src, overhead_text, plan))


def _overhead_item(
    spec: InferenceSpec, r: ResolvedModel, overhead: int | None, items: list[Item],
    omitted: list[Omitted],
) -> None:
    fmt = spec.weights
    if overhead is None:
        omitted.append(
            Omitted(
                "quantization_overhead",
                "FP8 per-tensor scales need the number of weight matrices: give a model preset "
                "or a full architecture",
                "inference",
                "FP8 per-tensor scales need the number of weight matrices",
                ("model", "layers", "hidden", "heads", "ffn"),
            )
        )
        return
    if fmt == "fp8" and r.counts is not None:  # FP8 overhead is known only with the counts
        n = r.counts.quantized_matrices
        items.append(
            make_item(
                "quantization_overhead",
                overhead,
                f"{count_noun(n, 'quantized matrix', 'quantized matrices')} × 4 bytes "
                "(one FP32 per-tensor scale each)",
                "per-tensor FP8 weight scales (weight_scale) of vLLM / TensorRT-LLM FP8 "
                "checkpoints",
            )
        )
        return
    src = GPTQ_SRC
    if spec.scale_dtype is not None or spec.zero_point is not None:
        src += "; scale dtype and zero point as chosen"
    items.append(lazy_item("quantization_overhead", overhead, src, _group_overhead_text, spec, r))


def _quantized_weights_text(c: ParamCount, bits: int, fmt: str) -> str:
    """The weights item's formula for INT8/INT4 weights with the counts ``c``: the quantized
    matrices at ``bits`` and the rest kept 16-bit."""
    per = "0.5 byte" if bits == 4 else "1 byte"
    return (f"{count_noun(c.quantizable, 'quantized param')} (attention and MLP "
            f"matrices) × {per} ({fmt.upper()}) + {count_noun(c.kept_16bit, 'param')} kept "
            "16-bit (embeddings, LM head, norms, biases, router) × 2 bytes")


def _group_overhead_text(spec: InferenceSpec, r: ResolvedModel) -> str:
    """The quantization_overhead item's formula for INT8/INT4 groups: the groups × their
    scale and zero point."""
    fmt, g, arch = spec.weights, spec.group_size, r.arch
    if arch is not None:
        groups = quant_groups(arch, g)
        what = (
            f"{count_noun(groups, 'group')} (out_features × ⌈in_features / "
            f"{format_count(g)}⌉ per matrix)"
        )
    else:
        groups = -(-r.params // g)
        what = (
            f"{count_noun(groups, 'group')} (⌈{count_noun(r.params, 'param')} / "
            f"{format_count(g)}⌉)"
        )
    scale_bits, zero_bits = group_meta_bits(spec)
    scale_dtype = (spec.scale_dtype or "fp16").upper()
    scale = f"{_bytes(scale_bits)} {scale_dtype} scale"
    if zero_bits:
        zdtype = (spec.zero_point or fmt).upper()
        meta = f"{scale} + {_bytes(zero_bits)} {zdtype} zero point"
    else:
        meta = f"{scale}, no zero point (symmetric)"
    partial = "" if arch is None else partial_groups_text(
        [(inp, n) for _, inp, n in linear_matrices(arch)], g)
    return f"{what} × ({meta}){partial}"


def _bytes(bits: int) -> str:
    """``"2-byte"``, ``"0.5-byte"``: a per-group size from its bits."""
    return f"{bits // 8}-byte" if bits % 8 == 0 else f"{bits / 8:g}-byte"
