"""The header lines of a report in words: each phase's one-line scenario (``setup``), its
conventions line, what the fewest-GPU figure keeps fixed (fit advice), and the report's
conventions notes (parameters, units, mixture of experts, GPU). Written when first read."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

from quiz.footprint.inputs.fields import choice_list_values
from quiz.footprint.inputs.lora_targets import targets_of
from quiz.footprint.inputs.units import count_noun, format_bytes, format_count, format_number
from quiz.footprint.items.ep import uses_ep
from quiz.footprint.items.inference import kv_dtype
from quiz.footprint.items.layer_activations import gpt_style
from quiz.footprint.items.lora import trainable_params
from quiz.footprint.items.model_states import bytes_per_param_text
from quiz.footprint.items.offload import convention_head, offload_text
from quiz.footprint.items.pipeline import uneven
from quiz.footprint.items.serving import prefill_chunk
from quiz.footprint.quant.gguf import GGML_SRC
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture
    from quiz.footprint.inputs.parts import InferenceSpec, TrainingSpec
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel
    from quiz.footprint.inputs.spec import FootprintSpec

GROUPED_WEIGHTS = ("int4", "int8", "gptq-int4", "gptq-int4-sym", "awq-int4")
"""Weight formats whose scales come per ``group_size`` weights."""


_RECOMPUTE_TEXT = {
    "none": "no recomputation",
    "selective": "selective recomputation",
    "full": "full recomputation",
}


def training_convention(t: TrainingSpec, r: ResolvedModel, has_activations: bool) -> str:
    """The conventions line of a training estimate."""
    recompute, dp = _RECOMPUTE_TEXT[t.recompute], format_count(t.dp)
    states = bytes_per_param_text(t, r)
    if t.finetune != "full":
        states = f"{convention_text(t, r)}; adapters: {states}"
    convention = (
        f"{convention_head(t) or states}; ZeRO-{t.zero} over dp {dp}"
        f"{' (no effect with dp 1)' if t.dp == 1 and t.zero else ''}; model states split "
        + ("by the first pipeline stage's share of the layers (⌈L/p⌉ of L) and tp "
           if uneven(t, r) else "evenly ")
        + (
            f"over tp × pp; activations: {activation_model(t, r)}, {recompute}"
            f"{', sequence parallel' if t.sequence_parallel and t.tp > 1 else ''}, plus the "
            "embedding, output-layer and logits terms of sec. 4.3"
            + ((" (logits: the FP32 copy alone, Korthikanti's 4sbv/t)"
                if t.logits_bytes == 4 and t.precision != "fp32"
                else " (logits with the FP32 copy for cross-entropy)") if t.pp == 1 else
               " (the output layer and logits sit on the last pipeline stage)")
            if has_activations
            else "over tp × pp; activations not estimated (no architecture)"
        )
    )
    if uses_ep(t, r):
        convention += (f"; expert parallelism: the experts over tp × pp × ep "
                       f"{format_count(t.ep)}, their ZeRO shards over dp × cp / ep "
                       f"(Megatron-Core MoE Parallel Folding)")
    return convention + offload_text(t)


def activation_model(t: TrainingSpec, r: ResolvedModel) -> str:
    """How the layers' activations are counted, in words: the family model from the
    architecture (``--convention practice``) or Korthikanti's Table 2, and the attention."""
    attention = ("FlashAttention (no s × s scores kept)" if t.attention_kernel == "flash"
                 else "eager attention (s × s scores kept)")
    arch = r.arch
    if t.convention == "practice" and arch is not None:
        if gpt_style(arch):
            family = "GPT-style: LayerNorm, GeLU MLP, dropout"
        else:
            family = (f"Llama-style: {'RMSNorm' if arch.norm == 'rmsnorm' else 'LayerNorm'}, "
                      f"{'SwiGLU' if arch.gated_mlp else 'ungated'} MLP of "
                      f"{format_count(arch.ffn)}, no dropout")
        return f"per layer from the architecture ({family}), {attention}"
    return f"Korthikanti et al. 2022 Table 2 (a GPT layer), {attention}"


def recompute_text(t: TrainingSpec) -> str:
    """The recomputation in words, naming PEFT's QLoRA recipe when it chose it."""
    if t.recipe_recompute:
        return ("full recomputation (PEFT's QLoRA recipe: prepare_model_for_kbit_training turns "
                "on gradient checkpointing)")
    return _RECOMPUTE_TEXT[t.recompute]


def training_setup(t: TrainingSpec, r: ResolvedModel) -> str:
    """The one-line scenario of a training estimate."""
    recompute = recompute_text(t)
    if t.recompute != "full" and r.layers:
        recompute += ", FlashAttention" if t.attention_kernel == "flash" else ", eager attention"
    dp, tp, pp = format_count(t.dp), format_count(t.tp), format_count(t.pp)
    cp = " × cp" if t.cp > 1 else ""
    setup = (
        f"{count_noun(t.devices, 'device')} = dp {dp} × tp {tp} × pp {pp}"
        f"{f' × cp {format_count(t.cp)}' if t.cp > 1 else ''}"
        f"{f' (ep {format_count(t.ep)} within dp{cp})' if uses_ep(t, r) else ''}, "
        f"ZeRO-{t.zero}, {t.precision}, {t.optimizer}, micro-batch {format_count(t.micro_batch)} "
        f"× {count_noun(t.seq_len, 'token')}, {recompute}"
        + (f", offload {t.offload}" if t.offload != "none" else "")
        + (f", offload params {t.offload_params}" if t.offload_params != "none" else "")
        + (", DeepSpeed's count" if t.convention == "deepspeed" else "")
    )
    if t.finetune != "full":
        setup += f", {method_text(t, r)}"
    return setup


def training_fit_advice(t: TrainingSpec, needed: int | None) -> str:
    """What the fewest-GPU figure keeps fixed, or what to change when no count is enough."""
    tp, pp = format_count(t.tp), format_count(t.pp)
    cp = f" × cp {format_count(t.cp)}" if t.cp > 1 else ""
    if needed is not None:
        step = t.ep // math.gcd(t.ep, t.cp)
        steps = (f" in steps of {format_count(step)} (dp{' × cp' if t.cp > 1 else ''} a "
                 f"multiple of ep {format_count(t.ep)})" if step > 1 else "")
        return f"tp {tp} × pp {pp}{cp}, ZeRO-{t.zero}, data-parallel size varied{steps}"
    if t.zero == 0:
        more = "/expert" if t.ep > 1 else ""
        return ("ZeRO-0 keeps every model state on every device, so more data-parallel GPUs do "
                f"not help: try --zero 1, 2 or 3, or more tensor/pipeline{more} parallelism")
    higher = ", a higher ZeRO stage" if t.zero < 3 else ""
    return (f"what ZeRO-{t.zero} does not partition (the activations above) does not fit at "
            f"any data-parallel size: try recomputation, more tensor/pipeline/context "
            f"parallelism{higher} or a smaller micro-batch")


_UNITS_NOTE = {
    "GB": "Sizes are exact byte counts, printed in decimal units (kB, MB, GB, TB, PB, … = "
    "powers of 1000: 1 GB = 10^9 bytes), two decimals rounded half up; units GiB prints binary "
    "units instead.",
    "GiB": "Sizes are exact byte counts, printed in binary units (KiB, MiB, GiB, TiB, PiB, … = "
    "powers of 1024: 1 GiB = 2^30 bytes), two decimals rounded half up; units GB prints decimal "
    "units instead.",
}
"""The conventions note on units, per unit family."""


def conventions(spec: FootprintSpec, r: ResolvedModel, gpu: GpuPreset | None) -> list[str]:
    """The report's conventions notes: parameters, units, mixture of experts, activations, the
    GPU's memory and compute figures. (A context longer than the model was trained for is a
    warning: :func:`quiz.footprint.engine.estimate.implausible`.)"""
    notes = [
        f"Parameters: {format_count(r.params)} ({r.params_note}).",
        _UNITS_NOTE[spec.units],
    ]
    arch = r.arch
    if arch is not None and arch.experts > 1:
        notes.append(
            f"Mixture of experts: memory counts all {count_noun(arch.experts, 'expert')}; "
            f"{format_count(arch.active_experts)} "
            f"{'is' if arch.active_experts == 1 else 'are'} active per token = "
            f"{count_noun(r.active_params, 'active parameter')} (compute, not memory)."
        )
    if spec.phase != "inference" and r.layers and spec.training.convention == "practice" \
            and r.arch is not None:
        notes.append(
            "Training activations are counted per layer from the architecture: the tensors "
            "autograd keeps for the family's norm, MLP and dropout, with "
            + ("FlashAttention, which never stores the s × s scores (--attention eager stores "
               "them)" if spec.training.attention_kernel == "flash" else
               "eager attention, which stores the s × s scores")
            + ". Korthikanti et al.'s GPT formula: --convention paper. The embedding dropout "
            "mask, the output layer's inputs and the logits are separate items (sec. 4.3)."
        )
    elif spec.phase != "inference" and r.layers:
        notes.append(
            "Training activations use Korthikanti et al.'s formula for a GPT layer (4h MLP, "
            "dropout, attention scores stored unless recomputed); for gated (SwiGLU) or "
            "mixture-of-experts MLPs it is an approximation. The embedding dropout mask, the "
            "output layer's inputs and the logits are separate items (sec. 4.3)."
        )
    if gpu is not None:
        notes.append(
            f"{gpu.name}: {count_noun(gpu.memory_bytes, 'byte')} "
            f"({format_bytes(gpu.memory_bytes, 'GB')} = {format_bytes(gpu.memory_bytes, 'GiB')}) "
            f"as the driver reports it; datasheet: {gpu.datasheet}. CUDA context, allocator and "
            "framework overhead are not counted."
        )
        if gpu.compute_source:
            notes.append(f"{gpu.name} compute figures (peak dense FLOP/s, memory bandwidth): "
                         f"{gpu.compute_source}.")
    return notes
def inference_texts(inf: InferenceSpec, r: ResolvedModel, gpu: GpuPreset | None) -> tuple[str, str]:
    """The conventions line and the one-line scenario of an inference estimate."""
    group = ""
    if inf.weights in GROUPED_WEIGHTS:
        group = f" (groups of {format_count(inf.group_size)})"
    kv = kv_dtype(inf).upper()
    kept = ""
    scheme = SCHEMES.get(inf.weights)
    fmt = inf.weights.upper() if scheme is None else scheme.label
    if scheme is not None:
        kept = (f", {scheme.kept}" if r.counts is not None
                else ", every parameter quantized (no architecture)")
        layout_src = scheme.source if scheme.layout is not None else (
            f"block sizes from {GGML_SRC}; tensor types from {scheme.source}")
        kept += f" (layout: {layout_src})"
    elif inf.weights in ("fp8", "int8", "int4"):
        kept = (", embeddings and LM head kept 16-bit" if r.counts is not None
                else ", every parameter quantized (no architecture)")
        if inf.weights == "fp8":
            kept += ", one FP32 scale per weight matrix"
    convention = (
        f"weights {fmt}{group}{kept}; "
        f"KV cache {kv} = 2 × layers × KV heads × head dim × bytes per token; activations: "
        f"one layer's working set for one forward step of at most "
        f"{count_noun(prefill_chunk(inf, gpu), 'token')} (chunked prefill"
        f"{', vLLM' + chr(39) + 's default' if inf.prefill_chunk is None else ''}); logits "
        "for the sampled positions; the footprint split evenly over the GPUs needed"
    )
    setup = (
        f"{fmt} weights{group}, {kv} KV cache, batch {format_count(inf.batch)} × "
        f"{count_noun(inf.context, 'token')} of context, prefill chunks of "
        f"{format_count(prefill_chunk(inf, gpu))}{serving_extras(inf)}"
    )
    return convention, setup


def serving_extras(inf: InferenceSpec) -> str:
    """The setup line's tail for prefix caching and a draft model: ``", a 1,000-token shared
    prefix, draft model llama-3.2-1b"``; empty without them."""
    out = ""
    if inf.shared_prefix:
        out += f", a {format_count(inf.shared_prefix)}-token shared prefix"
    if inf.draft_model is not None:
        out += f", draft model {inf.draft_model}"
    return out


def targets_text(arch: Architecture | None, text: str) -> str:
    """``"q, v"``, or ``"all linear layers (q, k, v, o, gate, up, down)"``."""
    names = targets_of(arch, text) if arch is not None else choice_list_values(text,
                                                                               "lora_targets")
    listed = ", ".join(names)
    return f"all linear layers ({listed})" if text == "all" else listed


def method_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """``"LoRA r 8 on q, v"``, ``"QLoRA (NF4, double quantization) r 16 on all linear layers
    (...)"``, with alpha when given."""
    what = "LoRA" if t.finetune == "lora" else (
        "QLoRA (NF4" + (", double quantization)" if t.double_quant else ")"))
    text = f"{what} r {format_count(t.lora_rank)} on {targets_text(r.arch, t.lora_targets)}"
    if t.lora_alpha is not None:
        scale = format_number(Fraction(t.lora_alpha, t.lora_rank))
        text += f", alpha {format_count(t.lora_alpha)} (scale alpha/r = {scale})"
    return text


def convention_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The convention line of an adapter fine-tuning: the method, the share of trainable
    parameters, and where the base's bytes go."""
    n = trainable_params(t, r)
    share = f"{100 * n / r.params:.3g} %"
    base = ("frozen 16-bit base" if t.finetune == "lora" else
            "frozen NF4 base (embeddings, LM head and norms 16-bit)")
    return (f"{method_text(t, r)}: {count_noun(n, 'trainable param')} ({share} of the model), "
            f"{base} without gradients or optimizer states")
