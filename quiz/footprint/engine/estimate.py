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

from typing import TYPE_CHECKING

from quiz.footprint.compute.figures import compute_items
from quiz.footprint.engine.capacity import capacity
from quiz.footprint.engine.fit import fewest_training_gpus, usable_memory
from quiz.footprint.engine.report import (
    ITEM_NAMES,
    Later,
    ModelSummary,
    Notes,
    PhaseEstimate,
    Report,
    StorageEstimate,
    Unused,
)
from quiz.footprint.engine.serving_fit import (
    kv_models,
    kv_unused,
    replicated_items,
    serving_gpus,
)
from quiz.footprint.inputs.parts import InferenceSpec, TrainingSpec
from quiz.footprint.inputs.units import count_noun, format_bytes, format_count
from quiz.footprint.inputs.views import spec_view
from quiz.footprint.items.activations import EXTRA_ITEMS, extra_activation_items
from quiz.footprint.items.draft import draft_items
from quiz.footprint.items.inference import inference_items, scheme_plan
from quiz.footprint.items.item import NAME, VALUE, Item, Omitted, lazy_item, make_item
from quiz.footprint.items.memo import new_estimate
from quiz.footprint.items.model_states import (
    training_items,
)
from quiz.footprint.items.offload import split_items
from quiz.footprint.items.serving import serving_items
from quiz.footprint.items.storage import storage_items
from quiz.footprint.quant.plan import plan_json
from quiz.footprint.quant.schemes import SCHEMES
from quiz.footprint.words.headlines import (
    GROUPED_WEIGHTS,
    conventions,
    inference_texts,
    training_convention,
    training_fit_advice,
    training_setup,
)

if TYPE_CHECKING:
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel
    from quiz.footprint.inputs.spec import FootprintSpec



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
    new_estimate()  # what this estimate asks is computed from its own spec
    given, spec = spec, spec_view(spec)  # fields read fast (quiz.footprint.inputs.views)
    r = spec.resolved
    gpu = spec.gpu_preset
    omitted: list[Omitted] = []
    training = inference = None
    if spec.phase != "inference":
        training = _training(spec.training, r, gpu, omitted, spec.overhead, spec.units,
                             spec.gpu_util)
    if spec.phase != "training":
        inference = _inference(spec, r, gpu, omitted)
    s_items, s_omitted = storage_items(spec, r)
    omitted.extend(s_omitted)
    compute, c_omitted = compute_items(spec, r, gpu, training, inference)
    omitted.extend(c_omitted)
    storage = StorageEstimate(s_items, sum(map(VALUE, s_items)))
    model = ModelSummary(r.name, r.preset, r.params, r.active_params, r.params_note)
    report = Report(
        model=model,
        training=training,
        inference=inference,
        storage=storage,
        omitted=omitted,
        conventions=Notes(conventions, spec, r, gpu),
        gpu=gpu,
        units=spec.units,
        spec=given,
        compute=compute,
        unused=unused(spec),
    )
    report.warnings.extend(implausible(report, r, spec))
    return report


ACTIVATION_ITEMS = frozenset(("activations", *EXTRA_ITEMS))
"""The training items whose bytes :func:`~quiz.footprint.items.activations.
training_activation_bytes` counts: the layers' activations and the three of
:func:`~quiz.footprint.items.activations.extra_activation_items`."""


MAX_DEVICE_BYTES = 10**15
"""Per-device memory above which a figure is physically absurd: 1 PB, thousands of times what the
largest accelerators hold (192 GB on an AMD MI300X, 180 GB on an NVIDIA B200)."""
MAX_STORAGE_BYTES = 10**21
"""Storage above which a figure is physically absurd: 1 ZB, about all the hard-disk and SSD
capacity in the world."""


def implausible(report: Report, r: ResolvedModel | None = None,
                spec: FootprintSpec | None = None) -> list[str]:
    """Warnings for figures that pass any physical sense: more than :data:`MAX_DEVICE_BYTES` of
    memory on one device, or more than :data:`MAX_STORAGE_BYTES` on disk (the arithmetic is still
    exact; the inputs are probably wrong); and for a sequence longer than the model was trained
    for (:func:`context_warnings`). ``r`` and ``spec``: the report's resolved model and spec
    (or the estimate's view of it, :func:`~quiz.footprint.inputs.views.spec_view`), when the
    caller has them (else ``report.spec.resolved`` and ``report.spec``)."""
    if spec is None:
        spec = report.spec
    out = context_warnings(spec, spec.resolved if r is None else r)
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


def context_warnings(spec: FootprintSpec, r: ResolvedModel) -> list[str]:
    """A warning for each phase whose sequence (training ``seq_len``, inference ``context``) is
    longer than ``r.context``, the context the model was trained for (a preset's ``context``, a
    config.json's ``max_position_embeddings``): the memory is still computed, but the model was
    never trained on such positions; a model with learned positions (GPT-2) has no row for them
    at all (issue 21 §7)."""
    trained = r.context
    if not trained:
        return []
    out: list[str] = []
    phases = spec.phases
    for phase, what, tokens in (("training", "sequence length", spec.training.seq_len),
                                ("inference", "context", spec.inference.context)):
        if tokens <= trained or phase not in phases:
            continue
        limit = count_noun(trained, "token")
        table = r.arch.learned_positions if r.arch is not None else 0
        if table and tokens > table:
            why = (f"its table of {count_noun(table, 'learned position')} has no row past "
                   "that, so the model cannot take such a sequence as it is")
        else:
            why = ("the memory is estimated, but quality past the trained context is not "
                   "assured without an extension such as RoPE scaling")
        out.append(f"{phase} {what} {format_count(tokens)} is longer than the {limit} "
                   f"{r.name} was trained for: {why}")
    return out


def unused(spec: FootprintSpec) -> list[Unused]:
    """The settings given in ``spec`` (explicitly, not by default) that do nothing in its case:
    training settings with phase inference, inference settings with phase training, checkpoint
    settings without training, sequence parallelism without tensor parallelism, a quantization
    group size with weights that have no groups, a ZeRO stage over one data-parallel device."""
    out: list[Unused] = []
    t, inf, st = spec.training, spec.inference, spec.storage
    t_set, inf_set, st_set = t.model_fields_set, inf.model_fields_set, st.model_fields_set
    if spec.phase == "inference":
        out += [Unused(f"training.{k}", "the training settings do nothing when only inference "
                       "is estimated") for k in TrainingSpec.model_fields
                if k in t_set]
        out += [Unused(f"storage.{k}", "checkpoints are kept in training, which is not "
                       "estimated") for k in ("checkpoints", "checkpoint_kind")
                if k in st_set]
    else:
        if "sequence_parallel" in t_set and t.sequence_parallel and t.tp == 1:
            out.append(Unused("training.sequence_parallel", "sequence parallelism splits "
                              "activations over the tensor-parallel group, and tensor "
                              "parallelism is 1"))
        if "zero" in t_set and t.zero and t.dp * t.cp == 1:
            out.append(Unused("training.zero", "ZeRO partitions over data-parallel devices, and "
                              "data parallelism is 1"))
        if t.finetune == "full":
            for k in ("lora_rank", "lora_alpha", "lora_targets", "double_quant"):
                if k in t_set:
                    out.append(Unused(f"training.{k}", "the adapter settings apply to LoRA and "
                                      "QLoRA fine-tuning, and every weight is trained"))
        elif t.finetune == "lora" and "double_quant" in t_set:
            out.append(Unused("training.double_quant", "double quantization applies to "
                              "QLoRA's 4-bit base, and LoRA keeps the base 16-bit"))
    if ("largest_layer" in t_set and spec.phase != "inference"
            and (t.convention != "deepspeed" or t.zero != 3)):
        out.append(Unused("training.largest_layer", "the largest layer is gathered whole only "
                          "in DeepSpeed's ZeRO-3 estimate (the deepspeed convention with ZeRO "
                          "stage 3)"))
    if "bytes_per_token" in st_set and st.dataset_size is not None:
        out.append(Unused("storage.bytes_per_token", "the dataset size is given in bytes, so "
                          "the bytes per token are not used"))
    if spec.phase == "training":
        out += [Unused(f"inference.{k}", "the inference settings do nothing when only training "
                       "is estimated") for k in InferenceSpec.model_fields
                if k in inf_set]
    elif "group_size" in inf_set and inf.weights not in GROUPED_WEIGHTS:
        if inf.weights == "fp8":
            why = "FP8 weights have one scale per matrix"
        elif inf.weights in SCHEMES:
            why = f"{SCHEMES[inf.weights].label} fixes its own blocks"
        else:
            why = f"{inf.weights.upper()} weights are not quantized"
        out.append(Unused("inference.group_size", f"the group size applies to INT8/INT4, GPTQ "
                          f"and AWQ weights; {why}"))
    if spec.phase != "training":
        out += kv_unused(inf)
    return out


OVERHEAD_SRC = ("an assumption you set (--overhead): the CUDA context takes several hundred "
                "MiB per GPU and PyTorch's caching allocator fragments memory (PyTorch docs, "
                "CUDA semantics: memory management)")


def overhead_item(overhead: int, gpus: int = 1) -> Item:
    """The framework-overhead item: ``overhead`` bytes per GPU over ``gpus`` GPUs."""
    if gpus == 1:
        return make_item("framework_overhead", overhead,
                    "per-GPU framework overhead as set (CUDA context, allocator fragmentation)",
                    OVERHEAD_SRC)

    return lazy_item("framework_overhead", overhead * gpus, OVERHEAD_SRC, _overhead_text,
                     overhead, gpus)


def _overhead_text(overhead: int, gpus: int) -> str:
    """The framework-overhead item's formula over ``gpus`` GPUs."""
    return (f"{count_noun(overhead, 'byte')} per GPU × {count_noun(gpus, 'GPU')} "
            "(CUDA context, allocator fragmentation)")


def _training(
    t: TrainingSpec, r: ResolvedModel, gpu: GpuPreset | None, omitted: list[Omitted],
    overhead: int = 0, units: str = "GB", util: float | None = None,
) -> PhaseEstimate:
    paper, missing = training_items(t, r)
    omitted.extend(missing)
    activations = 0  # every activation item's bytes (training_activation_bytes)
    has_activations = "activations" in map(NAME, paper)  # they stay on the GPU
    if has_activations:
        extra, missing = extra_activation_items(t, r)
        paper.extend(extra)
        omitted.extend(missing)
        for i in paper:  # a loop: a comprehension is a function made and called
            if i.name in ACTIVATION_ITEMS:
                activations += i.value
    placed = split_items(t, r, paper, omitted)
    items = placed["gpu"]
    if overhead:
        items.append(overhead_item(overhead))
    total = sum(map(VALUE, items))
    needed = headroom = None
    advice: str | Later = ""
    usable = None
    if gpu is not None:
        usable = usable_memory(gpu.memory_bytes, "training", util, gpu.unified)
        headroom = usable - total
        needed = fewest_training_gpus(t, r, usable - overhead, activations)
        advice = (_training_advice, t, r, needed, usable - overhead, units)
    # the texts are written when first read (PhaseEstimate.convention, .setup, .fit_advice)
    return PhaseEstimate("training", items, total, t.devices, needed, headroom,
                         (training_convention, t, r, has_activations), (training_setup, t, r),
                         advice, {"cpu": placed["cpu"], "nvme": placed["nvme"]},
                         not_estimated=_not_estimated(omitted, "training"), usable_bytes=usable)


def _training_advice(t: TrainingSpec, r: ResolvedModel, needed: int | None, room: int,
                     units: str) -> str:
    """The training phase's fit advice (``needed`` GPUs of ``room`` bytes each; adapters that
    fit on none get their own advice)."""
    text = training_fit_advice(t, needed)
    if t.finetune != "full" and needed is None:
        from quiz.footprint.words.lora_notes import fit_advice

        text = fit_advice(t, r, room, units) or text
    return text


def _inference(
    spec: FootprintSpec, r: ResolvedModel, gpu: GpuPreset | None, omitted: list[Omitted]
) -> PhaseEstimate:
    inf = spec.inference
    items, missing = inference_items(inf, r)
    omitted.extend(missing)
    if r.arch is not None and r.arch.mamba_layers:
        from quiz.footprint.items.ssm import ssm_items

        items.extend(ssm_items(inf, r))
    working, missing = serving_items(inf, r, gpu)
    items.extend(working)
    omitted.extend(missing)
    drafted, missing = draft_items(inf)
    items.extend(drafted)
    omitted.extend(missing)
    cpu: list[Item] = []
    if inf.gpu_layers is not None:
        from quiz.footprint.items.gpu_layers import split_items as split_gpu_layers

        items, cpu = split_gpu_layers(inf, r, items)
    total = sum(map(VALUE, items))
    kv_tp = 1
    needed = headroom = None
    advice = ""
    overhead = spec.overhead
    usable_bytes = None
    if gpu is not None:
        usable_bytes = usable_memory(gpu.memory_bytes, "inference", spec.gpu_util, gpu.unified)
        usable = usable_bytes - overhead
        if usable <= 0:
            needed, advice = None, "the framework overhead alone fills each GPU"
            headroom = usable_bytes - total - overhead
        else:
            models = kv_models(inf, r)
            needed, advice, kv_tp = serving_gpus(total, usable, r, items, models)
            if kv_tp > 1:
                items = replicated_items(items, models, kv_tp)
                total = sum(i.bytes for i in items)
            headroom = needed * usable - total
    if overhead:
        items.append(overhead_item(overhead, needed or 1))
        total += overhead * (needed or 1)

    plan = scheme_plan(inf, r)
    # the texts are written when first read (PhaseEstimate.convention, .setup)
    phase = PhaseEstimate("inference", items, total, 1, needed, headroom,
                          (_inference_text, 0, inf, r, gpu), (_inference_text, 1, inf, r, gpu),
                          advice, {"cpu": cpu, "nvme": []},
                          quantization=None if plan is None else lambda: plan_json(plan),
                          not_estimated=_not_estimated(omitted, "inference"),
                          usable_bytes=usable_bytes, kv_tp=kv_tp)
    if needed is not None and inf.gpu_layers is None:  # partial offload: not modelled
        # given the phase when first read (PhaseEstimate.capacity): no reference cycle
        object.__setattr__(phase, "capacity_of", lambda of: capacity(inf, r, gpu, of))
    return phase


def _inference_text(which: int, inf: InferenceSpec, r: ResolvedModel,
                    gpu: GpuPreset | None) -> str:
    """The inference phase's convention (``which`` 0) or setup (1) line
    (:func:`~quiz.footprint.words.headlines.inference_texts`)."""
    return inference_texts(inf, r, gpu)[which]


def _not_estimated(omitted: list[Omitted], phase: str) -> tuple[str, ...]:
    """The memory items of ``phase`` among ``omitted``, each once, in the order omitted."""
    if not omitted:  # the usual case: every item estimated
        return ()
    return tuple(dict.fromkeys(o.item for o in omitted
                               if o.phase == phase and o.item in ITEM_NAMES))


