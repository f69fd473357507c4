"""The spec's validity rules that need the resolved model or several fields at once: expert
parallelism against the model's experts and the data-parallel ranks, offload against the ZeRO
stage and DeepSpeed's estimator convention, the largest layer against the model, an AWQ
group size against the matrices' widths. Each rule returns ``(loc, kind, message, value)``
entries that :class:`~quiz.footprint.inputs.spec.FootprintSpec` raises as validation errors;
the message says how to fix the value."""

from __future__ import annotations

from math import gcd
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec, TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel


def ep_problems(
    t: TrainingSpec, r: ResolvedModel
) -> list[tuple[tuple[str, ...], str, str, object]]:
    """What makes ``t.ep`` impossible for model ``r``: ``(loc, kind, message, value)`` each, at
    ``("training", "ep")``, with the fix in the message. None when ``ep`` is 1.

    * a dense model (or no architecture, so no experts are known): ep must be 1;
    * ep must divide the number of experts (each rank holds E/ep whole experts);
    * ep must divide dp × cp (the expert-parallel group is carved out of those ranks);
    * LoRA/QLoRA and DeepSpeed's estimator convention are not estimated with ep > 1.
    """
    if t.ep == 1:
        return []
    loc, ep = ("training", "ep"), format_count(t.ep)
    out: list[tuple[tuple[str, ...], str, str, object]] = []
    if r.arch is None or r.arch.experts <= 1:
        what = ("a dense model" if r.arch is not None
                else "a model without a known architecture (no experts are known)")
        out.append((loc, "ep_dense",
                    f"expert parallel size {ep} needs a mixture-of-experts model, and this is "
                    f"{what}: set ep to 1 (or choose an MoE preset such as mixtral-8x7b)", t.ep))
        return out
    n = r.arch.experts
    if n % t.ep:
        fits = [d for d in range(2, n + 1) if n % d == 0]
        out.append((loc, "ep_experts",
                    f"expert parallel size {ep} does not divide the {count_noun(n, 'expert')} "
                    f"of each MoE layer (each rank holds E/ep whole experts): use one of "
                    f"{', '.join(format_count(d) for d in fits)}", t.ep))
    group = t.dp * t.cp
    if group % t.ep:
        cp = " × cp" if t.cp > 1 else ""
        out.append((loc, "ep_dp",
                    f"expert parallel size {ep} must divide dp{cp} = {format_count(group)} (the "
                    f"expert-parallel ranks are carved out of the data-parallel ranks, as in "
                    f"Megatron-Core): set dp to a multiple of {ep}, or a smaller ep", t.ep))
    if t.finetune != "full":
        out.append((loc, "ep_finetune",
                    "expert parallelism is estimated for full fine-tuning; LoRA/QLoRA adapters "
                    "on an expert-parallel base are not: set ep to 1 or finetune to full", t.ep))
    if t.convention == "deepspeed":
        out.append((loc, "ep_convention",
                    "DeepSpeed's estimator convention has no expert-parallel case: set ep to 1 "
                    "or use the paper convention", t.ep))
    return out


OFFLOAD_DOC = "DeepSpeed config docs, zero_optimization.offload_optimizer"
"""Where DeepSpeed says which ZeRO stages can offload the optimizer: "CPU offloading is available
with ZeRO stage 1, 2, 3. NVMe offloading is available only with ZeRO stage 3." """


def offload_problems(t: TrainingSpec) -> list[tuple[tuple[str, ...], str, str, object]]:
    """What cannot be estimated in ``t``: ``(loc, kind, message, value)`` each.

    Optimizer offload needs ZeRO: to CPU RAM with stage 1, 2 or 3, to NVMe with stage 3 only
    (:data:`OFFLOAD_DOC`; ZeRO-0 has no partitioned optimizer for DeepSpeed to move).
    Parameter offload needs ZeRO-3 (DeepSpeed's ``offload_param`` is a ZeRO-3 feature: the
    parameters must be partitioned to be fetched layer by layer). The DeepSpeed convention has
    estimators for ZeRO-2 and ZeRO-3 with mixed-precision Adam, CPU offload only, and parameter
    offload only together with optimizer offload (the combinations it prints)."""
    out: list[tuple[tuple[str, ...], str, str, object]] = []
    if t.offload == "cpu" and t.zero == 0:
        out.append((("training", "offload"), "offload_zero",
                    "optimizer offload needs ZeRO: DeepSpeed offloads to CPU RAM with ZeRO "
                    f"stages 1, 2 and 3, to NVMe with stage 3 only ({OFFLOAD_DOC}): set the "
                    "ZeRO stage (zero) to 1, 2 or 3", t.offload))
    elif t.offload == "nvme" and t.zero != 3:
        out.append((("training", "offload"), "offload_zero",
                    "optimizer offload to NVMe needs ZeRO stage 3: DeepSpeed offloads to NVMe "
                    f"with stage 3 only, to CPU RAM with stages 1, 2 and 3 ({OFFLOAD_DOC}): set "
                    "the ZeRO stage (zero) to 3, or offload to cpu", t.offload))
    if t.offload_params != "none" and t.zero != 3:
        out.append((("training", "offload_params"), "offload_zero",
                    "parameter offload needs ZeRO stage 3 (parameters are fetched layer by "
                    "layer from their partitions)", t.offload_params))
    if t.convention == "deepspeed":
        if t.zero < 2:
            out.append((("training", "convention"), "deepspeed_zero",
                        "DeepSpeed's estimators cover ZeRO stages 2 and 3: set ZeRO 2 or 3, or "
                        "use the paper convention", t.convention))
        if t.optimizer not in ("adam", "adamw") or t.precision not in ("mixed-fp16",
                                                                       "mixed-bf16"):
            out.append((("training", "convention"), "deepspeed_adam",
                        "DeepSpeed's estimators assume mixed-precision Adam (mixed-fp16 or "
                        "mixed-bf16 with adam or adamw)", t.convention))
        if "nvme" in (t.offload, t.offload_params):
            out.append((("training", "offload" if t.offload == "nvme" else "offload_params"),
                        "deepspeed_nvme", "DeepSpeed's estimators have no NVMe case: use the "
                        "paper convention for NVMe offload", "nvme"))
        elif t.offload_params != "none" and t.offload == "none":
            out.append((("training", "offload_params"), "deepspeed_params",
                        "DeepSpeed's estimator offloads parameters only together with the "
                        "optimizer: add offload cpu", t.offload_params))
    return out


def layer_problems(t: TrainingSpec, r: ResolvedModel) -> list[tuple[tuple[str, ...], str, str,
                                                                      object]]:
    """``largest_layer`` larger than the whole model (``r.params``): one layer (one module's own
    parameters, as DeepSpeed's ``model_to_params`` counts it) cannot hold more parameters than
    the model; the message names both sizes."""
    n = t.largest_layer
    if n is None or n <= r.params:
        return []
    return [(("training", "largest_layer"), "largest_layer_model",
             f"the largest layer, {count_noun(n, 'parameter')}, is larger than the whole model "
             f"({count_noun(r.params, 'parameter')}): give the parameters of one module (an "
             "embedding or a projection matrix), at most the model's count", n)]


AWQ_GROUP_SRC = ("AutoAWQ awq/modules/linear/gemm.py: WQLinear_GEMM asserts that in_features "
                 "is a multiple of the group size")
"""Where AWQ refuses a group size that does not divide a matrix's input width."""


def group_problems(inf: InferenceSpec, r: ResolvedModel) -> list[tuple[tuple[str, ...], str,
                                                                         str, object]]:
    """An AWQ group size that does not divide the input width (``in_features``, the dimension
    groups run along) of every quantized matrix: AutoAWQ asserts against it
    (:data:`AWQ_GROUP_SRC`), so it is an error at ``("inference", "group_size")`` naming the
    widths and group sizes that fit. GPTQ and plain INT8/INT4 store a partial last group with a
    scale of its own, which the overhead item's formula states
    (:func:`quiz.footprint.quant.formulas.partial_groups_text`). Nothing without an
    architecture (the widths are unknown)."""
    if not inf.weights.startswith("awq") or r.arch is None:
        return []
    from quiz.footprint.inputs.arch import linear_matrices

    g = inf.group_size
    widths = sorted({inp for _, inp, _ in linear_matrices(r.arch)})
    bad = [w for w in widths if w % g]
    if not bad:
        return []
    common = 0
    for w in widths:
        common = gcd(common, w)
    fits = [d for d in (32, 64, 128, 256, 512, 1024) if common % d == 0]
    hint = (f"use one that divides them all, e.g. {', '.join(format_count(d) for d in fits)}"
            if fits else f"use a divisor of {format_count(common)}")
    return [(("inference", "group_size"), "group_divides",
             f"AWQ group size {format_count(g)} does not divide the input width (in_features) "
             f"of every quantized matrix ({', '.join(format_count(w) for w in bad)}), and "
             f"AutoAWQ refuses such a layer ({AWQ_GROUP_SRC}); {hint}", g)]


def hybrid_problems(t: TrainingSpec | None, inf: InferenceSpec | None,
                    r: ResolvedModel) -> list[tuple[tuple[str, ...], str, str, object]]:
    """What is not estimated for a model with Mamba (state-space) layers (Jamba, Mamba):
    adapters (LoRA/QLoRA target the attention and MLP projections), FP8 training (its copy
    counts transformer GEMMs) and expert parallelism (the GGUF layouts: :func:`gguf_problems`).
    ``t`` / ``inf`` are ``None`` for a phase not estimated. Errors at the offending key, with
    what to choose instead."""
    a = r.arch
    if a is None or not a.mamba_layers:
        return []
    kind = "a hybrid of Mamba and attention layers" if a.attention_layers else \
        "a Mamba (state-space) model"
    out: list[tuple[tuple[str, ...], str, str, object]] = []
    if t is not None and t.finetune != "full":
        out.append((("training", "finetune"), "hybrid_adapters",
                    f"LoRA and QLoRA are estimated for transformer projections, and this is "
                    f"{kind}: set finetune to full", t.finetune))
    if t is not None and t.precision == "mixed-fp8":
        out.append((("training", "precision"), "hybrid_fp8",
                    f"FP8 training is estimated for transformer GEMMs, and this is {kind}: use "
                    "mixed-bf16 or mixed-fp16", t.precision))
    if t is not None and t.ep > 1:
        out.append((("training", "ep"), "hybrid_ep",
                    f"expert parallelism is estimated for transformer MoE layers, and this is "
                    f"{kind}: set ep to 1", t.ep))
    return out


def gguf_problems(inf: InferenceSpec, r: ResolvedModel) -> list[tuple[tuple[str, ...], str, str,
                                                                        object]]:
    """A GGUF scheme for an architecture whose llama.cpp tensor types are not modelled: the
    GGUF layouts place Llama-style blocks (Q, K, V, O and the MLP or its experts) by
    ``llama_tensor_get_type``; multi-head latent attention, a shared expert and Mamba mixers
    have tensors of their own. An error at ``("inference", "weights")``."""
    a = r.arch
    if a is None or not inf.weights.startswith("gguf"):
        return []
    what = ("multi-head latent attention" if a.mla else "Mamba (state-space) layers"
            if a.mamba_layers else "a shared expert" if a.shared_ffn else "")
    if not what:
        return []
    return [(("inference", "weights"), "gguf_arch",
             f"the GGUF layouts place llama.cpp's tensor types for Llama-style blocks, and this "
             f"model has {what}: use bf16, fp8, int8, int4, gptq-int4, awq-int4 or a "
             "bitsandbytes scheme", inf.weights)]
