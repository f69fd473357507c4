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
from typing import TYPE_CHECKING, Any

from quiz.footprint.inputs.lora_targets import active_adapter_params
from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, _new
from quiz.footprint.items.lora import ADAPTER_FLOPS_SRC, adapter_training_flops
from quiz.footprint.quant.schemes import SCHEMES

if TYPE_CHECKING:
    from quiz.footprint.engine.report import PhaseEstimate
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
_CHINCHILLA = "Hoffmann et al. 2022, Training Compute-Optimal LLMs, app. F"
_ROOFLINE = ("roofline (Williams, Waterman and Patterson 2009); Pope et al. 2022, Efficiently "
             "Scaling Transformer Inference, sec. 2")


def _figure(name: str, value: int, formula: str | Callable[[], str], source: str) -> Item:
    """A compute figure: an :class:`~quiz.footprint.items.item.Item` in its unit
    (:data:`UNITS`)."""
    return _new(Item, (name, value, [formula], source, UNITS[name]))  # make_item, inlined


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
    def n_text() -> str:
        return count_noun(n, "active param" if moe else "param")

    active_src = ("; N = active parameters of a mixture of experts (Fedus et al. 2022, Switch "
                  "Transformer, sec. 2)" if moe else "")

    def without(name: str, reason: str) -> None:
        omitted.append(Omitted(name, reason, "compute"))

    if training is not None:
        t = spec.training
        d = t.train_tokens if t.train_tokens is not None else spec.storage.dataset_tokens
        if d:  # 0 dataset tokens: nothing to train on
            label = "6ND"
            if t.finetune != "full":  # adapters: no weight gradients for the frozen model
                assert r.arch is not None  # the spec refuses adapters without one
                na = active_adapter_params(r.arch, t.lora_rank, t.lora_targets)
                flops, forward, label = adapter_training_flops(t, r, n, d), n + na, "(4N + 6Nₐ)D"
                items.append(_figure(
                    "training_flops", flops,
                    lambda: f"(4 × {n_text()} + 6 × {count_noun(na, 'adapter param')}) × "
                    f"{count_noun(d, 'token')}: the frozen model runs forward and passes "
                    "gradients back (2N + 2N) but computes no weight gradients",
                    f"{ADAPTER_FLOPS_SRC}{active_src}"))
            else:
                flops, forward = training_flops(n, d), n
                items.append(_figure("training_flops", flops,
                                      lambda: f"6 × {n_text()} × {count_noun(d, 'token')}",
                                      f"{_KAPLAN}; {_CHINCHILLA}{active_src}"))
            if t.recompute == "full":
                def what(flops: int = flops, forward: int = forward) -> str:
                    return (f"(6 + 2) × {n_text()} × {count_noun(d, 'token')}"
                            if t.finetune == "full" else
                            f"{format_count(flops)} + 2 × {count_noun(forward, 'param')} × "
                            f"{count_noun(d, 'token')}")

                items.append(_figure(
                    "training_hardware_flops", flops + 2 * forward * d,
                    lambda: f"{what()}: full recomputation runs the forward pass twice",
                    "Narayanan et al. 2021, Megatron-LM on GPU clusters, sec. 5.1"))
            elif t.recompute == "selective":
                if r.heads and r.head_dim and r.layers:
                    extra = selective_extra_flops(seq_len=t.seq_len, heads=r.heads,
                                                  head_dim=r.head_dim, layers=r.layers, tokens=d)
                    items.append(_figure(
                        "training_hardware_flops", flops + extra,
                        lambda: f"6 × {n_text()} × {count_noun(d, 'token')} + 4 × "
                        f"{format_count(t.seq_len)} seq × {count_noun(r.heads or 0, 'head')} × "
                        f"{format_count(r.head_dim or 0)} head dim × "
                        f"{count_noun(r.layers or 0, 'layer')} × {count_noun(d, 'token')} "
                        "(QKᵀ and softmax·V again)",
                        "Korthikanti et al. 2022, Reducing Activation Recomputation, sec. 5"))
                else:
                    without("training_hardware_flops",
                            "selective recomputation's extra FLOPs need the attention shape")
            peak = _peak(gpu, TRAINING_FORMAT[t.precision], without, "training_time")
            if peak is not None and gpu is not None:
                g = t.devices
                seconds = training_seconds(flops, g, peak, t.mfu)
                def time_text(label: str = label, flops: int = flops, g: int = g,
                              peak: int = peak) -> str:
                    return (f"{label} {format_count(flops)} FLOPs ÷ ({count_noun(g, 'GPU')} × "
                            f"{_tera(peak)} {TRAINING_FORMAT[t.precision].upper()} dense × MFU "
                            f"{t.mfu:g}), rounded up")

                items.append(_figure(
                    "training_time", seconds, time_text,
                    f"Chowdhery et al. 2022, PaLM, app. B (MFU); {_datasheet(gpu)}"))
    if inference is not None:
        inf = spec.inference
        tokens = inf.context * inf.batch
        items.append(_figure(
            "prefill_flops", 2 * n * tokens,
            lambda: f"2 × {n_text()} × {count_noun(inf.context, 'token')} × batch "
            f"{format_count(inf.batch)}", f"{_KAPLAN} (forward pass: 2N per token)"))
        fmt = INFERENCE_FORMAT[inf.weights]
        if gpu is not None and gpu.bandwidth is None:
            without("decode_tokens_per_s",
                    f"the {gpu.name} preset has no datasheet memory bandwidth")
        elif gpu is not None and gpu.bandwidth is not None:
            bw = gpu.bandwidth
            sheet = _datasheet(gpu)
            read = sum([i.value for i in inference.items
                        if i.name not in ("activations", "logits")])
            weights = sum([i.value for i in inference.items
                           if i.name in ("weights", "quantization_overhead")])
            gpus = inference.gpus_needed or 1
            rate = inf.batch * gpus * bw // read
            items.append(_figure(
                "decode_tokens_per_s", rate,
                lambda: f"batch {format_count(inf.batch)} × {count_noun(gpus, 'GPU')} × "
                f"{_bandwidth(bw)} ÷ {format_count(read)} bytes read per step (weights and KV "
                "cache), rounded down; an upper bound",
                f"{_ROOFLINE}; {sheet}"))
            peak = _peak(gpu, fmt, without, "decode_crossover_batch")
            if peak is not None:
                batch = crossover_batch(weights, n, peak, bw)
                def crossover_text(peak: int = peak) -> str:
                    return (f"{format_count(weights)} weight bytes × {_tera(peak)} "
                            f"{fmt.upper()} ÷ (2 × {n_text()} × {_bandwidth(bw)}), rounded up; "
                            "KV cache reads push it higher")

                items.append(_figure(
                    "decode_crossover_batch", batch, crossover_text,
                    f"{_ROOFLINE}; {sheet}"))
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


def _peak(gpu: GpuPreset | None, fmt: str, without: Any, name: str) -> int | None:
    """The GPU's peak dense FLOP/s in ``fmt``, or ``None`` (recorded as omitted) without one."""
    if gpu is None:
        return None
    peak = gpu.peak_flops.get(fmt)
    if peak is None:
        if gpu.peak_flops:
            without(name, f"the {gpu.name} preset has no datasheet peak for {fmt.upper()}")
        else:
            without(name, f"the {gpu.name} preset has no datasheet compute figures")
    return peak
