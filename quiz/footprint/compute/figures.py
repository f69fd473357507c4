"""Compute and time beside memory: training FLOPs and time, prefill FLOPs, decode throughput.

Every figure is an exact integer (FLOPs; whole seconds rounded up; tokens per second rounded
down; a batch size rounded up), from these formulas:

training FLOPs (model FLOPs)
    ``6 × N × D``: N parameters active per token (all of a dense model; for a mixture of experts
    the shared layers plus the ``active_experts`` routed ones), D training tokens. A forward pass
    costs 2N per token (a multiply and an add per parameter), the backward pass twice that
    (Kaplan et al. 2020, "Scaling Laws for Neural Language Models", sec. 2.1; Hoffmann et al.
    2022, "Training Compute-Optimal Large Language Models", sec. 3 and app. F). Attention's
    ``n_ctx``-dependent FLOPs are left out, as both papers do.
hardware FLOPs (with recomputation)
    full recomputation runs each layer's forward pass twice: ``8 × N × D`` (Narayanan et al.
    2021, "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM",
    sec. 5.1: four passes instead of three); selective recomputation re-runs only the attention
    score products ``QKᵀ`` and ``softmax·V``: ``4 × seq_len × heads × head_dim × layers``
    FLOPs per token on top of ``6 × N × D`` (Korthikanti et al. 2022, "Reducing Activation
    Recomputation in Large Transformer Models", sec. 5).
training time
    ``⌈6 × N × D ÷ (G × peak × MFU)⌉`` seconds on G = dp × tp × pp GPUs, ``peak`` the GPU's
    dense FLOP/s in the training precision's matrix format, MFU the model FLOPs utilization
    (Chowdhery et al. 2022, "PaLM", app. B: model FLOPs only, so recomputation lowers the MFU a
    run achieves rather than adding to the FLOPs counted).
prefill FLOPs
    ``2 × N × context × batch``: one forward pass over every held token (Kaplan et al. 2020,
    sec. 2.1), attention's quadratic term left out.
decode upper bound
    each decoding step reads every weight and the whole KV cache once, so at best
    ``batch × GPUs × bandwidth ÷ bytes read per step`` tokens per second (the roofline's
    memory-bound side: Williams, Waterman and Patterson 2009, "Roofline"; Pope et al. 2022,
    "Efficiently Scaling Transformer Inference", sec. 2).
decode crossover batch
    a step of batch B costs ``2 × N × B`` FLOPs and reads the weights W once; it becomes
    compute-bound when ``2 × N × B ÷ peak ≥ W ÷ bandwidth``, i.e. from
    ``B = ⌈W × peak ÷ (2 × N × bandwidth)⌉`` (the roofline's ridge point; KV cache reads, which
    grow with B, push it higher).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVarTuple

from quiz.footprint.inputs.lora_targets import active_adapter_params
from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, _new
from quiz.footprint.items.lora import ADAPTER_FLOPS_SRC, adapter_training_flops
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.engine.report import PhaseEstimate
    from quiz.footprint.inputs.parts import InferenceSpec, TrainingSpec
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel
    from quiz.footprint.inputs.spec import FootprintSpec

COMPUTE_NAMES = (
    "training_flops",
    "training_hardware_flops",
    "training_time",
    "prefill_flops",
    "decode_tokens_per_s",
    "decode_crossover_batch",
)
"""Every compute item name, in display order."""

UNITS = {
    "training_flops": "FLOPs",
    "training_hardware_flops": "FLOPs",
    "training_time": "s",
    "prefill_flops": "FLOPs",
    "decode_tokens_per_s": "tokens/s",
    "decode_crossover_batch": "sequences",
}
"""The unit of each compute item's value."""

TRAINING_FORMAT = {"fp32": "fp32", "mixed-fp16": "fp16", "mixed-bf16": "bf16", "bf16": "bf16",
                   "mixed-fp8": "fp8"}
"""The matrix number format that sets the peak FLOP/s, per training precision."""

INFERENCE_FORMAT = {"fp32": "fp32", "fp16": "fp16", "bf16": "bf16", "fp8": "fp8",
                    "int8": "bf16", "int4": "bf16",
                    **{key: scheme.matmul for key, scheme in SCHEMES.items()}}
"""The matrix number format per weight format: INT8/INT4 weights are dequantized to 16 bits
for the matrix multiply (weight-only quantization, as GPTQ/AWQ kernels do); a named scheme's
own (:attr:`quiz.footprint.quant.schemes.Scheme.matmul`: FP8 for FP8 per-channel, INT8 for
LLM.int8(), 16-bit for the weight-only ones)."""

_KAPLAN = "Kaplan et al. 2020, Scaling Laws for Neural Language Models, sec. 2.1"
_PREFILL_SRC = f"{_KAPLAN} (forward pass: 2N per token)"
_CHINCHILLA = "Hoffmann et al. 2022, Training Compute-Optimal LLMs, app. F"
_ROOFLINE = ("roofline (Williams, Waterman and Patterson 2009); Pope et al. 2022, Efficiently "
             "Scaling Transformer Inference, sec. 2")


Ts = TypeVarTuple("Ts")


def _figure(name: str, value: int, source: str, writer: Callable[[*Ts], str],
            *args: *Ts) -> Item:
    """A compute figure: an :class:`~quiz.footprint.items.item.Item` in its unit
    (:data:`UNITS`) whose formula ``writer(*args)`` is written when first read."""
    return _new(Item, (name, value, [writer, *args], source, UNITS[name]))  # lazy_item's


# The formulas of the figures (written when first read): N is r.active_params.

def _n_text(r: ResolvedModel) -> str:
    """N in words: the active parameters (of a mixture of experts) or the parameters."""
    return count_noun(r.active_params, "active param" if r.active_params != r.params else "param")


def _adapter_flops_text(r: ResolvedModel, na: int, d: int) -> str:
    """Adapter training's model FLOPs, ``(4N + 6Nₐ)D``, ``na`` adapter parameters."""
    return (f"(4 × {_n_text(r)} + 6 × {count_noun(na, 'adapter param')}) × "
            f"{count_noun(d, 'token')}: the frozen model runs forward and passes "
            "gradients back (2N + 2N) but computes no weight gradients")


def _flops_text(r: ResolvedModel, d: int) -> str:
    """Training's model FLOPs, ``6ND``."""
    return f"6 × {_n_text(r)} × {count_noun(d, 'token')}"


def _full_recompute_text(t: TrainingSpec, r: ResolvedModel, d: int, flops: int,
                         forward: int) -> str:
    """The hardware FLOPs of full recomputation: ``flops`` plus a second forward pass over
    ``forward`` parameters."""
    what = (f"(6 + 2) × {_n_text(r)} × {count_noun(d, 'token')}" if t.finetune == "full" else
            f"{format_count(flops)} + 2 × {count_noun(forward, 'param')} × "
            f"{count_noun(d, 'token')}")
    return f"{what}: full recomputation runs the forward pass twice"


def _selective_text(t: TrainingSpec, r: ResolvedModel, d: int) -> str:
    """The hardware FLOPs of selective recomputation: ``6ND`` plus attention's score products
    again."""
    return (f"6 × {_n_text(r)} × {count_noun(d, 'token')} + 4 × "
            f"{format_count(t.seq_len)} seq × {count_noun(r.heads or 0, 'head')} × "
            f"{format_count(r.head_dim or 0)} head dim × "
            f"{count_noun(r.layers or 0, 'layer')} × {count_noun(d, 'token')} "
            "(QKᵀ and softmax·V again)")


def _time_text(t: TrainingSpec, label: str, flops: int, g: int, peak: int) -> str:
    """The training time: ``flops`` (named by ``label``) over ``g`` GPUs at ``peak`` FLOP/s
    and the MFU."""
    return (f"{label} {format_count(flops)} FLOPs ÷ ({count_noun(g, 'GPU')} × "
            f"{_tera(peak)} {TRAINING_FORMAT[t.precision].upper()} dense × MFU "
            f"{t.mfu:g}), rounded up")


def _prefill_text(r: ResolvedModel, inf: InferenceSpec) -> str:
    """The prefill FLOPs, ``2N × context × batch``."""
    return (f"2 × {_n_text(r)} × {count_noun(inf.context, 'token')} × batch "
            f"{format_count(inf.batch)}")


def _decode_text(inf: InferenceSpec, gpus: int, bw: int, read: int) -> str:
    """The decode upper bound: ``batch × gpus × bw`` over ``read`` bytes a step."""
    return (f"batch {format_count(inf.batch)} × {count_noun(gpus, 'GPU')} × "
            f"{_bandwidth(bw)} ÷ {format_count(read)} bytes read per step (weights and KV "
            "cache), rounded down; an upper bound")


def _crossover_text(r: ResolvedModel, weights: int, peak: int, fmt: str, bw: int) -> str:
    """The decode crossover batch: ``weights`` bytes × ``peak`` over ``2N × bw``."""
    return (f"{format_count(weights)} weight bytes × {_tera(peak)} "
            f"{fmt.upper()} ÷ (2 × {_n_text(r)} × {_bandwidth(bw)}), rounded up; "
            "KV cache reads push it higher")


def training_flops(active_params: int, tokens: int) -> int:
    """Model FLOPs of training: ``6 × active_params × tokens`` (Kaplan et al. 2020, sec. 2.1)."""
    return 6 * active_params * tokens


def selective_extra_flops(
    *, seq_len: int, heads: int, head_dim: int, layers: int, tokens: int
) -> int:
    """FLOPs that selective recomputation adds: the forward ``QKᵀ`` and ``softmax·V`` again,
    ``2 × 2 × seq_len × heads × head_dim`` per token per layer (Korthikanti et al. 2022)."""
    return 4 * seq_len * heads * head_dim * layers * tokens


def ceil_div(a: int, b: int) -> int:
    """``⌈a ÷ b⌉`` exactly, for integers and positive ``b``."""
    return -(-a // b)


MFU_SCALE = 10**6
"""``mfu`` has at most six decimals (:class:`~quiz.footprint.inputs.fields.Ratio` rounds to them),
so
``round(mfu × 10^6)`` is exact."""


def training_seconds(flops: int, gpus: int, peak: int, mfu: float) -> int:
    """Whole seconds, rounded up, to run ``flops`` model FLOPs on ``gpus`` GPUs of ``peak``
    FLOP/s at model FLOPs utilization ``mfu`` (exact integer arithmetic on its six decimals)."""
    return ceil_div(flops * MFU_SCALE, gpus * peak * round(mfu * MFU_SCALE))


def crossover_batch(weight_bytes: int, active_params: int, peak: int, bandwidth: int) -> int:
    """The smallest decode batch that is compute-bound on the roofline (weights only):
    ``⌈W × peak ÷ (2 × N × bandwidth)⌉``."""
    return max(1, ceil_div(weight_bytes * peak, 2 * active_params * bandwidth))


def _tera(flops_per_s: int) -> str:
    return f"{flops_per_s / 10**12:,g} TFLOP/s"


def _bandwidth(bps: int) -> str:
    return f"{bps / 10**9:,g} GB/s"


def duration_text(seconds: int) -> str:
    """A duration in its two largest units: ``93,600`` → ``"1 d 2 h"``, ``"45 s"``,
    ``"12 min"``."""
    units = ((86_400, "d"), (3_600, "h"), (60, "min"), (1, "s"))
    for k, (size, unit) in enumerate(units):
        if seconds >= size or size == 1:
            big, rest = divmod(seconds, size)
            text = f"{format_count(big)} {unit}"
            if k + 1 < len(units) and rest // units[k + 1][0]:
                text += f" {rest // units[k + 1][0]} {units[k + 1][1]}"
            return text
    return f"{seconds} s"  # pragma: no cover - the loop always returns


def compute_items(
    spec: FootprintSpec,
    r: ResolvedModel,
    gpu: GpuPreset | None,
    training: PhaseEstimate | None,
    inference: PhaseEstimate | None,
) -> tuple[list[Item], list[Omitted]]:
    """The compute figures of ``spec``, and what could not be computed (phase ``"compute"``).

    Training figures need the training tokens (``training.train_tokens``, else
    ``storage.dataset_tokens``); times and throughput need a GPU preset with compute figures.

    Returns:
        ``(items, omitted)``, items in :data:`COMPUTE_NAMES` order.
    """
    items: list[Item] = []
    omitted: list[Omitted] = []
    n = r.active_params
    moe = r.active_params != r.params
    active_src = ("; N = active parameters of a mixture of experts (Fedus et al. 2022, Switch "
                  "Transformer, sec. 2)" if moe else "")

    if training is not None:
        t = spec.training
        d = t.train_tokens if t.train_tokens is not None else spec.storage.dataset_tokens
        if d:  # 0 dataset tokens: nothing to train on
            label = "6ND"
            if t.finetune != "full":  # adapters: no weight gradients for the frozen model
                assert r.arch is not None  # the spec refuses adapters without one
                na = active_adapter_params(r.arch, t.lora_rank, t.lora_targets)
                flops, forward, label = adapter_training_flops(t, r, n, d), n + na, "(4N + 6Nₐ)D"
                items.append(_figure("training_flops", flops, f"{ADAPTER_FLOPS_SRC}{active_src}",
                                     _adapter_flops_text, r, na, d))
            else:
                flops, forward = training_flops(n, d), n
                items.append(_figure("training_flops", flops,
                                     f"{_KAPLAN}; {_CHINCHILLA}{active_src}", _flops_text, r, d))
            if t.recompute == "full":
                items.append(_figure(
                    "training_hardware_flops", flops + 2 * forward * d,
                    "Narayanan et al. 2021, Megatron-LM on GPU clusters, sec. 5.1",
                    _full_recompute_text, t, r, d, flops, forward))
            elif t.recompute == "selective":
                if r.heads and r.head_dim and r.layers:
                    extra = selective_extra_flops(seq_len=t.seq_len, heads=r.heads,
                                                  head_dim=r.head_dim, layers=r.layers, tokens=d)
                    items.append(_figure(
                        "training_hardware_flops", flops + extra,
                        "Korthikanti et al. 2022, Reducing Activation Recomputation, sec. 5",
                        _selective_text, t, r, d))
                else:
                    omitted.append(Omitted(
                        "training_hardware_flops",
                        "selective recomputation's extra FLOPs need the attention shape",
                        "compute"))
            peak = _peak(gpu, TRAINING_FORMAT[t.precision], omitted, "training_time")
            if peak is not None and gpu is not None:
                g = t.devices
                seconds = training_seconds(flops, g, peak, t.mfu)
                items.append(_figure(
                    "training_time", seconds,
                    f"Chowdhery et al. 2022, PaLM, app. B (MFU); {_datasheet(gpu)}",
                    _time_text, t, label, flops, g, peak))
    if inference is not None:
        inf = spec.inference
        tokens = inf.context * inf.batch
        items.append(_figure("prefill_flops", 2 * n * tokens,
                             _PREFILL_SRC, _prefill_text, r, inf))
        fmt = INFERENCE_FORMAT[inf.weights]
        if gpu is not None and gpu.bandwidth is None:
            omitted.append(Omitted("decode_tokens_per_s",
                                   f"the {gpu.name} preset has no datasheet memory bandwidth",
                                   "compute"))
        elif gpu is not None and gpu.bandwidth is not None:
            bw = gpu.bandwidth
            sheet = _datasheet(gpu)
            # bytes a decode step reads: all but the working memory; the weights' among them
            # (a loop: a comprehension is a function made and called, ~2,000 instructions)
            read = weights = 0
            for i in inference.items:
                if i.name not in ("activations", "logits"):
                    read += i.value
                    if i.name in ("weights", "quantization_overhead"):
                        weights += i.value
            gpus = inference.gpus_needed or 1
            rate = inf.batch * gpus * bw // read
            items.append(_figure("decode_tokens_per_s", rate, f"{_ROOFLINE}; {sheet}",
                                 _decode_text, inf, gpus, bw, read))
            peak = _peak(gpu, fmt, omitted, "decode_crossover_batch")
            if peak is not None:
                batch = crossover_batch(weights, n, peak, bw)
                items.append(_figure("decode_crossover_batch", batch, f"{_ROOFLINE}; {sheet}",
                                     _crossover_text, r, weights, peak, fmt, bw))
    return items, omitted


def missing_inputs(spec: FootprintSpec, name: Callable[[str], str | None] | None = None) -> str:
    """What to give for the compute figures that were not asked for (``""``: nothing): the
    training tokens for training FLOPs and time, a GPU preset for time and throughput.

    ``name`` maps a spec key (``"training.train_tokens"``, ``"gpu"``) to what the user can set
    where they are — a flag on the command line (the default), a label in the app's form — or
    to ``None`` when it cannot be set there (then that input is not asked for)."""
    def called(key: str) -> str | None:
        return name(key) if name is not None else "--" + key.rpartition(".")[2].replace("_", "-")

    wants = []
    if spec.phase != "inference" and spec.training.train_tokens is None \
            and spec.storage.dataset_tokens is None:
        tokens, dataset = called("training.train_tokens"), called("storage.dataset_tokens")
        if tokens:
            also = f" (or {dataset})" if dataset else ""
            wants.append(f"{tokens}{also} for the training FLOPs and time")
    if spec.gpu is None:
        gpu = called("gpu")
        if gpu:
            wants.append(f"{gpu} for the training time and the decode throughput")
    return "give " + "; ".join(wants) if wants else ""


def _datasheet(gpu: GpuPreset) -> str:
    return f"{gpu.name} datasheet figures (see Conventions)"


def _peak(gpu: GpuPreset | None, fmt: str, omitted: list[Omitted], name: str) -> int | None:
    """The GPU's peak dense FLOP/s in ``fmt``, or ``None`` without one (the figure ``name``
    recorded in ``omitted`` when the GPU has no such peak)."""
    if gpu is None:
        return None
    peak = gpu.peak_flops.get(fmt)
    if peak is None:
        if gpu.peak_flops:
            reason = f"the {gpu.name} preset has no datasheet peak for {fmt.upper()}"
        else:
            reason = f"the {gpu.name} preset has no datasheet compute figures"
        omitted.append(Omitted(name, reason, "compute"))
    return peak
