"""The calculator's entry point: :func:`estimate` turns a :class:`FootprintSpec` into a
:class:`~quiz.footprint.engine.report.Report`.

Pure arithmetic on exact integers (bytes), no I/O after the presets are read once; one estimate
takes tens of microseconds (``benchmarks/bench_footprint.py``), so the TUI can recompute on every
keystroke.

Fit (with a GPU preset; memory as the driver reports it, framework overhead not counted):

training
    ``headroom`` = GPU memory − per-device total of the described layout (negative: short).
    ``gpus_needed`` = the fewest GPUs dp' × tp × pp, keeping tp, pp, ZeRO stage and micro-batch
    and varying the data-parallel size dp', for which the per-device total fits; ``None`` when
    no dp' is enough (ZeRO-0 replicates the model states on every device; activations are never
    sharded by dp).
inference
    ``gpus_needed`` = ⌈total / GPU memory⌉, the footprint split evenly (tensor parallelism);
    ``headroom`` = gpus_needed × GPU memory − total.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.compute.figures import compute_items
from quiz.footprint.engine.report import (
    ModelSummary,
    Notes,
    PhaseEstimate,
    Report,
    StorageEstimate,
    Unused,
)
from quiz.footprint.inputs.parts import InferenceSpec, TrainingSpec
from quiz.footprint.inputs.units import count_noun, format_bytes, format_count
from quiz.footprint.items.activations import extra_activation_items, training_activation_bytes
from quiz.footprint.items.ep import uses_ep
from quiz.footprint.items.inference import inference_items, kv_dtype, scheme_plan
from quiz.footprint.items.item import Item, Omitted
from quiz.footprint.items.model_states import (
    bytes_per_param_text,
    state_bytes_by_item,
    training_items,
)
from quiz.footprint.items.offload import convention_head, gpu_state_bytes, offload_text, split_items
from quiz.footprint.items.serving import prefill_chunk, serving_items
from quiz.footprint.items.storage import storage_items
from quiz.footprint.quant.gguf import GGML_SRC
from quiz.footprint.quant.plan import plan_json
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel
    from quiz.footprint.inputs.spec import FootprintSpec

GROUPED_WEIGHTS = ("int4", "int8", "gptq-int4", "gptq-int4-sym", "awq-int4")
"""Weight formats whose scales come per ``group_size`` weights."""
MAX_DP = 2**24
"""Largest data-parallel size tried when searching the fewest GPUs."""


def estimate(spec: FootprintSpec) -> Report:
    """Estimate the memory (per device) and storage of ``spec``.

    Args:
        spec: a validated :class:`~quiz.footprint.inputs.spec.FootprintSpec`.

    Returns:
        A :class:`~quiz.footprint.engine.report.Report`: the model (total and active parameters),
        one
        :class:`~quiz.footprint.engine.report.PhaseEstimate` per requested phase (items with exact
        bytes,
        formula and source; totals; fit on the GPU preset), storage, the items that could not be
        computed (``omitted``) and the conventions used.

    Raises:
        Nothing for a validated spec (validation already rejected every impossible case).
    """
    r = spec.resolved
    gpu = spec.gpu_preset
    omitted: list[Omitted] = []
    training = inference = None
    if spec.phase != "inference":
        training = _training(spec.training, r, gpu, omitted, spec.overhead, spec.units)
    if spec.phase != "training":
        inference = _inference(spec, r, gpu, omitted)
    s_items, s_omitted = storage_items(spec, r)
    omitted.extend(s_omitted)
    compute, c_omitted = compute_items(spec, r, gpu, training, inference)
    omitted.extend(c_omitted)
    storage = StorageEstimate(s_items, sum(i.bytes for i in s_items))
    model = ModelSummary(r.name, r.preset, r.params, r.active_params, r.params_note)
    report = Report(
        model=model,
        training=training,
        inference=inference,
        storage=storage,
        omitted=omitted,
        conventions=Notes(lambda: _conventions(spec, r, gpu)),
        gpu=gpu,
        units=spec.units,
        spec=spec,
        compute=compute,
        unused=unused(spec),
    )
    report.warnings.extend(implausible(report))
    return report


MAX_DEVICE_BYTES = 10**15
"""Per-device memory above which a figure is physically absurd: 1 PB, thousands of times what the
largest accelerators hold (192 GB on an AMD MI300X, 180 GB on an NVIDIA B200)."""
MAX_STORAGE_BYTES = 10**21
"""Storage above which a figure is physically absurd: 1 ZB, about all the hard-disk and SSD
capacity in the world."""


def implausible(report: Report) -> list[str]:
    """Warnings for figures that pass any physical sense: more than :data:`MAX_DEVICE_BYTES` of
    memory on one device, or more than :data:`MAX_STORAGE_BYTES` on disk (the arithmetic is still
    exact; the inputs are probably wrong)."""
    out = []
    for phase in report.phases:
        if phase.total_bytes > MAX_DEVICE_BYTES:
            big = max(phase.items, key=lambda i: i.bytes)
            out.append(
                f"{phase.phase} needs {format_bytes(phase.total_bytes, report.units)} per device "
                f"(mostly {big.name.replace('_', ' ')}): more than 1 PB, thousands of times what "
                "any accelerator holds; check the sizes given")
    storage = report.storage
    if storage is not None and storage.total_bytes > MAX_STORAGE_BYTES:
        out.append(
            f"storage needs {format_bytes(storage.total_bytes, report.units)}: more than 1 ZB, "
            "about all the disk capacity in the world; check the sizes given")
    return out


def unused(spec: FootprintSpec) -> list[Unused]:
    """The settings given in ``spec`` (explicitly, not by default) that do nothing in its case:
    training settings with phase inference, inference settings with phase training, checkpoint
    settings without training, sequence parallelism without tensor parallelism, a quantization
    group size with weights that have no groups, a ZeRO stage over one data-parallel device."""
    out: list[Unused] = []
    t, inf, st = spec.training, spec.inference, spec.storage
    if spec.phase == "inference":
        out += [Unused(f"training.{k}", "the training settings do nothing when only inference "
                       "is estimated") for k in TrainingSpec.model_fields
                if k in t.model_fields_set]
        out += [Unused(f"storage.{k}", "checkpoints are kept in training, which is not "
                       "estimated") for k in ("checkpoints", "checkpoint_kind")
                if k in st.model_fields_set]
    else:
        if "sequence_parallel" in t.model_fields_set and t.sequence_parallel and t.tp == 1:
            out.append(Unused("training.sequence_parallel", "sequence parallelism splits "
                              "activations over the tensor-parallel group, and tensor "
                              "parallelism is 1"))
        if "zero" in t.model_fields_set and t.zero and t.dp * t.cp == 1:
            out.append(Unused("training.zero", "ZeRO partitions over data-parallel devices, and "
                              "data parallelism is 1"))
        if t.finetune == "full":
            out += [Unused(f"training.{k}", "the adapter settings apply to LoRA and QLoRA "
                           "fine-tuning, and every weight is trained")
                    for k in ("lora_rank", "lora_alpha", "lora_targets", "double_quant")
                    if k in t.model_fields_set]
        elif t.finetune == "lora" and "double_quant" in t.model_fields_set:
            out.append(Unused("training.double_quant", "double quantization applies to "
                              "QLoRA's 4-bit base, and LoRA keeps the base 16-bit"))
    if spec.phase == "training":
        out += [Unused(f"inference.{k}", "the inference settings do nothing when only training "
                       "is estimated") for k in InferenceSpec.model_fields
                if k in inf.model_fields_set]
    elif "group_size" in inf.model_fields_set and inf.weights not in GROUPED_WEIGHTS:
        if inf.weights == "fp8":
            why = "FP8 weights have one scale per matrix"
        elif inf.weights in SCHEMES:
            why = f"{SCHEMES[inf.weights].label} fixes its own blocks"
        else:
            why = f"{inf.weights.upper()} weights are not quantized"
        out.append(Unused("inference.group_size", f"the group size applies to INT8/INT4, GPTQ "
                          f"and AWQ weights; {why}"))
    return out


OVERHEAD_SRC = ("an assumption you set (--overhead): the CUDA context takes several hundred "
                "MiB per GPU and PyTorch's caching allocator fragments memory (PyTorch docs, "
                "CUDA semantics: memory management)")


def overhead_item(overhead: int, gpus: int = 1) -> Item:
    """The framework-overhead item: ``overhead`` bytes per GPU over ``gpus`` GPUs."""
    if gpus == 1:
        formula = "per-GPU framework overhead as set (CUDA context, allocator fragmentation)"
    else:
        formula = (f"{count_noun(overhead, 'byte')} per GPU × {count_noun(gpus, 'GPU')} "
                   "(CUDA context, allocator fragmentation)")
    return Item("framework_overhead", overhead * gpus, formula, OVERHEAD_SRC)


def _training(
    t: TrainingSpec, r: ResolvedModel, gpu: GpuPreset | None, omitted: list[Omitted],
    overhead: int = 0, units: str = "GB",
) -> PhaseEstimate:
    paper, missing = training_items(t, r)
    omitted.extend(missing)
    if any(i.name == "activations" for i in paper):
        extra, missing = extra_activation_items(t, r)
        paper.extend(extra)
        omitted.extend(missing)
    placed = split_items(t, r, paper, omitted)
    items = placed["gpu"]
    if overhead:
        items.append(overhead_item(overhead))
    total = sum(i.bytes for i in items)
    needed = headroom = None
    advice = ""
    if gpu is not None:
        headroom = gpu.memory_bytes - total
        needed = _fewest_training_gpus(t, r, gpu.memory_bytes - overhead)
        advice = _training_fit_advice(t, needed)
        if t.finetune != "full" and needed is None:
            from quiz.footprint.words.lora_notes import fit_advice

            advice = fit_advice(t, r, gpu.memory_bytes - overhead, units) or advice
    has_activations = any(i.name == "activations" for i in items)

    def convention() -> str:  # written when first read (PhaseEstimate.convention)
        recompute = _RECOMPUTE_TEXT[t.recompute]
        dp = format_count(t.dp)
        return _training_convention(t, r, recompute, dp, has_activations)

    def setup() -> str:  # written when first read (PhaseEstimate.setup)
        return _training_setup(t, r, _RECOMPUTE_TEXT[t.recompute])

    return PhaseEstimate("training", items, total, t.devices, needed, headroom, convention, setup,
                         advice, {"cpu": placed["cpu"], "nvme": placed["nvme"]})


_RECOMPUTE_TEXT = {
    "none": "no recomputation",
    "selective": "selective recomputation",
    "full": "full recomputation",
}


def _training_convention(t: TrainingSpec, r: ResolvedModel, recompute: str, dp: str,
                         has_activations: bool) -> str:
    """The conventions line of a training estimate."""
    states = bytes_per_param_text(t, r)
    if t.finetune != "full":
        from quiz.footprint.items.lora import convention_text

        states = f"{convention_text(t, r)}; adapters: {states}"
    convention = (
        f"{convention_head(t) or states}; ZeRO-{t.zero} over dp {dp}"
        f"{' (no effect with dp 1)' if t.dp == 1 and t.zero else ''}; model states split evenly "
        + (
            f"over tp × pp; activations: Korthikanti et al. 2022 Table 2, {recompute}"
            f"{', sequence parallel' if t.sequence_parallel and t.tp > 1 else ''}, plus the "
            "embedding, output-layer and logits terms of sec. 4.3"
            + (" (logits with the FP32 copy for cross-entropy)" if t.pp == 1 else
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


def _training_setup(t: TrainingSpec, r: ResolvedModel, recompute: str) -> str:
    """The one-line scenario of a training estimate."""
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
        from quiz.footprint.items.lora import method_text

        setup += f", {method_text(t, r)}"
    return setup


def _training_fit_advice(t: TrainingSpec, needed: int | None) -> str:
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


def _fewest_training_gpus(t: TrainingSpec, r: ResolvedModel, memory: int) -> int | None:
    def states(dp: int) -> int | None:
        return gpu_state_bytes(t, r, dp, lambda n: state_bytes_by_item(t, r, n))

    # With expert parallelism dp × cp must stay a multiple of ep: dp moves in steps of
    # ep / gcd(ep, cp) (quiz.footprint.items.ep); ``fits(k)`` tries dp = k steps.
    step = t.ep // math.gcd(t.ep, t.cp)
    most = MAX_DP // step
    one = states(step)
    if one is None:  # the optimizer state is unknown (Adafactor without an architecture)
        return None
    other = training_activation_bytes(t, r) or 0  # the same for every dp

    def fits(k: int) -> bool:
        value = states(k * step)
        return value is not None and value + other <= memory

    mp = t.tp * t.pp * t.cp * step
    if one + other <= memory:
        return mp
    if t.zero == 0 or other > memory:  # the activations alone fill a GPU at every dp
        return None
    floor = states(most * step)  # what no data-parallel size shards away
    if floor is None or floor + other > memory:
        return None
    # Model states per device are about floor + (one - floor) / dp: start there, then gallop
    # and bisect to the exact smallest dp (the bytes never grow with dp, so any search that
    # brackets the change finds the same dp as a bisection over 1 .. MAX_DP).
    room = memory - other - floor
    guess = most if room <= 0 else min(most, max(2, -(-(one - floor) // room)))
    return smallest_fitting(fits, 1, most, guess) * mp


def smallest_fitting(fits: Callable[[int], bool], bad: int, good: int, guess: int) -> int:
    """The smallest ``n`` in ``(bad, good]`` with ``fits(n)``, for a ``fits`` that is False at
    ``bad``, True at ``good`` and never turns False again once True; ``guess`` is where to look
    first (a few calls when it is close, about 2·log2 of the distance otherwise)."""
    if bad < guess < good:
        step = 1
        if fits(guess):
            good = guess
            while good - step > bad:
                probe = good - step
                if not fits(probe):
                    bad = probe
                    break
                good, step = probe, step * 2
        else:
            bad = guess
            while bad + step < good:
                probe = bad + step
                if fits(probe):
                    good = probe
                    break
                bad, step = probe, step * 2
    while good - bad > 1:
        mid = (bad + good) // 2
        if fits(mid):
            good = mid
        else:
            bad = mid
    return good


def _inference(
    spec: FootprintSpec, r: ResolvedModel, gpu: GpuPreset | None, omitted: list[Omitted]
) -> PhaseEstimate:
    inf = spec.inference
    items, missing = inference_items(inf, r)
    omitted.extend(missing)
    working, missing = serving_items(inf, r, gpu)
    items.extend(working)
    omitted.extend(missing)
    total = sum(i.bytes for i in items)
    needed = headroom = None
    advice = ""
    overhead = spec.overhead
    if gpu is not None:
        usable = gpu.memory_bytes - overhead
        if usable <= 0:
            needed, advice = None, "the framework overhead alone fills each GPU"
            headroom = gpu.memory_bytes - total - overhead
        else:
            needed, advice = inference_gpus(total, usable, r.heads, r.kv_heads)
            headroom = needed * usable - total
    if overhead:
        items.append(overhead_item(overhead, needed or 1))
        total += overhead * (needed or 1)

    def texts() -> tuple[str, str]:  # written when first read (PhaseEstimate)
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
            f"{format_count(prefill_chunk(inf, gpu))}"
        )
        return convention, setup

    def convention() -> str:
        return texts()[0]

    def setup() -> str:
        return texts()[1]

    plan = scheme_plan(inf, r)
    return PhaseEstimate("inference", items, total, 1, needed, headroom, convention, setup,
                         advice, quantization=None if plan is None else lambda: plan_json(plan))


def tensor_parallel_fits(t: int, heads: int, kv_heads: int) -> bool:
    """Whether ``t`` GPUs can split a model by tensor parallelism: ``t`` divides the attention
    heads, and divides the key/value heads or is a multiple of them (then each KV head is
    replicated) — the checks vLLM makes (``num_attention_heads % tp == 0``; ``num_key_value_heads
    % tp == 0`` or ``tp % num_key_value_heads == 0``)."""
    return heads % t == 0 and (kv_heads % t == 0 or t % kv_heads == 0)


def inference_gpus(total: int, memory: int, heads: int | None,
                   kv_heads: int | None) -> tuple[int, str]:
    """``(gpus, advice)``: the fewest GPUs of ``memory`` bytes that hold ``total`` bytes split
    evenly, rounded up to a count tensor parallelism can use (:func:`tensor_parallel_fits`).
    When no such count is at most the number of heads, the even-split count is kept and the
    advice says it assumes a pipeline split; without the heads, that the split is assumed even."""
    even = max(1, -(-total // memory))
    if not heads or not kv_heads:
        return even, "the footprint split evenly (no attention heads known to check the split)"
    if even == 1:
        return 1, ""
    for t in range(even, heads + 1):
        if tensor_parallel_fits(t, heads, kv_heads):
            if t == even:
                return t, f"tensor parallelism over {format_count(t)}"
            return t, (
                f"rounded up from {format_count(even)} so that tensor parallelism divides the "
                f"{count_noun(heads, 'attention head')} and {count_noun(kv_heads, 'KV head')}, "
                "as serving engines require")
    return even, (
        f"more GPUs than tensor parallelism can use ({count_noun(heads, 'attention head')}): "
        "this count assumes a pipeline split, layers spread over the GPUs")


_UNITS_NOTE = {
    "GB": "Sizes are exact byte counts, printed in decimal units (kB, MB, GB, TB, PB, … = "
    "powers of 1000: 1 GB = 10^9 bytes), two decimals rounded half up; units GiB prints binary "
    "units instead.",
    "GiB": "Sizes are exact byte counts, printed in binary units (KiB, MiB, GiB, TiB, PiB, … = "
    "powers of 1024: 1 GiB = 2^30 bytes), two decimals rounded half up; units GB prints decimal "
    "units instead.",
}
"""The conventions note on units, per unit family."""


def _conventions(spec: FootprintSpec, r: ResolvedModel, gpu: GpuPreset | None) -> list[str]:
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
    if spec.phase != "inference" and r.layers:
        notes.append(
            "Training activations use Korthikanti et al.'s formula for a GPT layer (4h MLP, "
            "dropout, attention scores stored unless recomputed); for gated (SwiGLU) or "
            "mixture-of-experts MLPs it is an approximation. The embedding dropout mask, the "
            "output layer's inputs and the logits are separate items (sec. 4.3)."
        )
    if r.context and spec.phase != "inference" and spec.training.seq_len > r.context:
        notes.append(
            f"seq_len {format_count(spec.training.seq_len)} is longer than the "
            f"{count_noun(r.context, 'token')} the model was trained with."
        )
    if r.context and spec.phase != "training" and spec.inference.context > r.context:
        notes.append(
            f"context {format_count(spec.inference.context)} is longer than the model's "
            f"{count_noun(r.context, 'token')}."
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
