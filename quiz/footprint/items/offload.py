"""Where training's model states live: GPU, CPU RAM or NVMe, under two conventions.

Two switches, as DeepSpeed has them (``offload_optimizer`` and ``offload_param``), because they
have different requirements and the middle ground (optimizer offloaded, parameters on the GPU) is
the common case:

``offload`` (none, cpu, nvme)
    the FP32 master weights, the optimizer states and the gradients (ZeRO-Offload: Ren et al.
    2021, "ZeRO-Offload: Democratizing Billion-Scale Model Training", sec. 3–4: the GPU keeps
    the 16-bit parameters and runs forward and backward; gradients stream to the CPU, which keeps
    the FP32 master copy and Adam's states and runs the update). Any ZeRO stage; with ZeRO the
    offloaded states stay partitioned over the data-parallel devices.
``offload_params`` (none, cpu, nvme; ZeRO-3 only)
    the 16-bit parameters too (ZeRO-Infinity: Rajbhandari et al. 2021, "ZeRO-Infinity: Breaking
    the GPU Memory Wall for Extreme Scale Deep Learning", sec. 5: every model state can live in
    CPU or NVMe memory; each layer is fetched to the GPU when it runs).

CPU RAM and NVMe bytes are per GPU (per data-parallel process): what one process's share of the
offloaded states occupies; a server with 8 GPUs needs 8 times that.

Conventions (``convention``):

``paper`` (default)
    the ZeRO paper's count (Rajbhandari et al. 2020, sec. 3.1 and 5): 16-bit weights, 16-bit
    gradients, FP32 master copy and optimizer states; offload moves items unchanged from the GPU
    to their destination, so the GPU, CPU and NVMe bytes add up to the no-offload total. The
    layer ZeRO-3 gathers while it runs (its working memory) is not counted, as in the paper.
``deepspeed``
    DeepSpeed's own estimators (``deepspeed/runtime/zero/stage3.py``
    ``estimate_zero3_model_states_mem_needs`` and ``stage_1_and_2.py``
    ``estimate_zero2_model_states_mem_needs``, DeepSpeed at commit 38327e0, 2025-02; explained in
    its docs ``docs/code-docs/source/memory.rst``), for ZeRO-2 and ZeRO-3 with mixed-precision
    Adam, per GPU:

    ======================  =======================================  =======================
    case                    GPU                                      CPU RAM
    ======================  =======================================  =======================
    ZeRO-2                  2Ψ + 18Ψ/N                               (load-time peak only)
    ZeRO-2, offload         2Ψ                                       max(4Ψ, 16Ψ/N) × 1.5
    ZeRO-3                  4·L + 18Ψ/N                              (load-time peak only)
    ZeRO-3, offload         4·L + 2Ψ/N                               16Ψ/N × 1.5
    ZeRO-3, both offloaded  4·L                                      18Ψ/N × 1.5
    ======================  =======================================  =======================

    with Ψ parameters, N GPUs, L the parameters of the largest layer (gathered whole, with its
    16-bit gradients: 2 + 2 bytes per parameter) and 1.5 the ``additional_buffer_factor``.
    Per parameter, ZeRO-2's 18 is "2_grads_16bit + 4_grads_32bit + 4_params_32bit +
    8_optimizer_states_32bit" (the function's comment): FP32 gradient shards kept next to the
    16-bit ones. ZeRO-3's 18 is 2 (16-bit parameters) + 16 (the same FP32 gradients, master and
    Adam states); its 16-bit gradients live only in the gathered layer. DeepSpeed prints CPU RAM
    per node (per machine for ZeRO-2): multiply this tool's per-GPU figure by the GPUs per node.
    ``zero_init=True`` (``deepspeed.zero.Init``) is assumed for ZeRO-3.

What DeepSpeed counts as a layer (``model_to_params``): every module's own parameters
(``m.parameters(recurse=False)``), i.e. one ``nn.Linear``, ``nn.Embedding`` or norm, never a
whole transformer block. :func:`largest_layer` finds it in the architecture's modules as the
Hugging Face Llama/Mistral/Mixtral classes lay them out (separate Q, K, V, O projections, each
expert its own ``nn.Linear``s): usually the token embedding or the LM head (vocab × hidden).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, _new, make_item

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

OFFLOAD_SRC = "Ren et al. 2021, ZeRO-Offload, sec. 3–4"
INFINITY_SRC = "Rajbhandari et al. 2021, ZeRO-Infinity, sec. 5"
DS3_SRC = ("DeepSpeed deepspeed/runtime/zero/stage3.py, estimate_zero3_model_states_mem_needs; "
           "docs/code-docs/source/memory.rst")
DS2_SRC = ("DeepSpeed deepspeed/runtime/zero/stage_1_and_2.py, "
           "estimate_zero2_model_states_mem_needs; docs/code-docs/source/memory.rst")
DS_LAYER_SRC = ("DeepSpeed stage3.py model_to_params: a layer is one module's own parameters "
                "(m.parameters(recurse=False))")
BUFFER_FACTOR_NUM, BUFFER_FACTOR_DEN = 3, 2
"""DeepSpeed's ``additional_buffer_factor`` (1.5) on the CPU RAM of its estimators."""

LOCATIONS = ("gpu", "cpu", "nvme")
"""Where an item lives: GPU memory, CPU RAM, NVMe."""

PLACE_NAMES = {"gpu": "GPU", "cpu": "CPU RAM", "nvme": "NVMe"}
"""How each location reads in text."""


def largest_layer(r: ResolvedModel) -> tuple[int, str] | None:
    """The parameters of the largest module of the architecture and what it is, as DeepSpeed's
    ``model_to_params`` counts a layer (a module's own parameters, biases included):
    ``(131_072_000, "token embedding, 32,000 × 4,096")`` for Llama-2-7B. ``None`` without a
    complete architecture."""
    a = r.arch
    if a is None:
        return None
    h, bias = a.hidden, a.linear_bias
    mlp = "gate and up projections" if a.gated_mlp else "MLP input projection"
    cands = [
        (a.vocab * h, f"token embedding, {format_count(a.vocab)} × {format_count(h)}"),
        (h * a.q_dim + (a.q_dim if bias else 0),
         f"query projection, {format_count(h)} × {format_count(a.q_dim)}"),
        (a.q_dim * h + (h if bias else 0),
         f"attention output projection, {format_count(a.q_dim)} × {format_count(h)}"),
        (h * a.ffn + (a.ffn if bias else 0),
         f"{mlp}, {format_count(h)} × {format_count(a.ffn)}"
         + (" per expert" if a.experts > 1 else "")),
        (a.ffn * h + (h if bias else 0),
         f"MLP output projection, {format_count(a.ffn)} × {format_count(h)}"
         + (" per expert" if a.experts > 1 else "")),
    ]
    if a.learned_positions:
        cands.append((a.learned_positions * h, f"position table, "
                      f"{format_count(a.learned_positions)} × {format_count(h)}"))
    if not a.tied_embeddings:
        cands.append((a.vocab * h, f"LM head, {format_count(a.vocab)} × {format_count(h)}"))
    if a.experts > 1:
        cands.append((h * a.experts, f"router, {format_count(h)} × {format_count(a.experts)}"))
    return max(cands, key=lambda c: c[0])  # max keeps the first of equals: the embedding


def layer_params(t: TrainingSpec, r: ResolvedModel) -> tuple[int, str] | None:
    """The largest layer's parameters on one device (``largest_layer`` given, else derived;
    split over the tensor-parallel group, rounded up) and how the number was obtained."""
    if t.largest_layer is not None:
        n, what = t.largest_layer, "given"
    else:
        found = largest_layer(r)
        if found is None:
            return None
        n, what = found
    if t.tp > 1:
        return -(-n // t.tp), f"{what}; ÷ tp {format_count(t.tp)}"
    return n, what


def _shard(t: TrainingSpec, n: int, stage: int, dp: int) -> int:
    per = -(-n // (t.tp * t.pp))
    return -(-per // dp) if t.zero >= stage else per


def deepspeed_bytes(t: TrainingSpec, r: ResolvedModel, dp: int) -> dict[str, tuple[int, str]]:
    """DeepSpeed's model-state bytes per device with ``dp`` data-parallel devices, by item:
    ``{name: (bytes, location)}`` (see the module docstring's table). The gathered layer is left
    out when its size is unknown (no architecture and no ``largest_layer``)."""
    p = r.params
    off = t.offload
    out: dict[str, tuple[int, str]] = {}
    if t.zero >= 3:
        s = _shard(t, p, 3, dp)
        layer = layer_params(t, r)
        if layer is not None:
            out["gathered_layer"] = (4 * layer[0], "gpu")
        params_off = t.offload_params != "none"
        out["weights"] = (2 * s, t.offload_params if params_off else "gpu")
        load_copy = 0
        margin = (16 * s + (2 * s if params_off else 0)) // 2
    else:
        s = _shard(t, p, 2, dp)
        local = -(-p // (t.tp * t.pp))
        out["weights"] = (2 * local, "gpu")
        if off == "none":
            out["gradients"] = (2 * s, "gpu")
        # DeepSpeed's CPU figure is max(4Ψ, 16Ψ/N) × 1.5: the part of 4Ψ (an FP32 copy of
        # the model per process while loading) beyond the 16Ψ/N offloaded states, then the
        # buffer factor's 0.5 on the larger of the two
        load_copy = max(0, 4 * local - 16 * s)
        bigger = max(4 * local, 16 * s)
        margin = bigger * BUFFER_FACTOR_NUM // BUFFER_FACTOR_DEN - bigger
    where = "gpu" if off == "none" else off
    out["fp32_gradients"] = (4 * s, where)
    out["master_weights"] = (4 * s, where)
    out["optimizer_states"] = (8 * s, where)
    if off != "none":
        if load_copy:
            out["load_fp32_copy"] = (load_copy, off)
        out["estimator_margin"] = (margin, off)
    return out


def place(t: TrainingSpec, name: str) -> str:
    """Where the paper convention keeps the item ``name``: the 16-bit weights (and their FP8
    copies) follow ``offload_params``; gradients, the master copy and the optimizer states
    follow ``offload``; everything else stays on the GPU. With adapters, the NF4 constants and
    the adapters' own weights go where the (frozen) weights go."""
    return places(t).get(name, "gpu")


_PARAM_ITEMS = ("weights", "fp8_weights", "quantization_overhead", "adapter_weights")
_OPTIMIZER_ITEMS = ("gradients", "master_weights", "optimizer_states")


def places(t: TrainingSpec) -> dict[str, str]:
    """:func:`place` of every item that can move, as a mapping (items not in it stay on the
    GPU): one lookup per item instead of a call. Do not change the mapping returned (it is
    shared by every spec with the same two offload settings)."""
    return _PLACES[t.offload_params, t.offload]


def _where(off: str) -> str:
    return "gpu" if off == "none" else off


_PLACES = {(p, o): {**dict.fromkeys(_PARAM_ITEMS, _where(p)),
                    **dict.fromkeys(_OPTIMIZER_ITEMS, _where(o))}
           for p in ("none", "cpu", "nvme") for o in ("none", "cpu", "nvme")}


def _offloaded(name: str, where: str) -> str:
    """What the source of the item ``name`` gains when it moves to ``where``: ZeRO-Infinity for
    the 16-bit weights and for NVMe, ZeRO-Offload otherwise."""
    return f"; offloaded: {INFINITY_SRC if name == 'weights' or where == 'nvme' else OFFLOAD_SRC}"


_MOVES = {key: {name: (where, _offloaded(name, where))
                for name, where in placed.items() if where != "gpu"}
          for key, placed in _PLACES.items()}
"""For each ``(offload_params, offload)``: the items that leave the GPU, each with
``(location, what its source gains)`` (:func:`place`, :func:`_offloaded`)."""


def split_items(
    t: TrainingSpec, r: ResolvedModel, items: list[Item], omitted: list[Omitted]
) -> dict[str, list[Item]]:
    """The training items of ``items`` (built under the paper convention, in display order) by
    location (:data:`LOCATIONS`), under the convention of ``t``: moved by the offload settings
    (sources extended with ZeRO-Offload / ZeRO-Infinity), or replaced by DeepSpeed's model-state
    items. Omissions (the gathered layer without its size) go to ``omitted``."""
    out: dict[str, list[Item]] = {"gpu": [], "cpu": [], "nvme": []}  # LOCATIONS
    if t.convention == "deepspeed":
        states = _deepspeed_items(t, r, omitted)
        rest = [i for i in items if i.name not in ("weights", "gradients", "master_weights",
                                                   "optimizer_states")]
        for item, where in states:
            out[where].append(item)
        out["gpu"].extend(rest)
        order = {n: k for k, n in enumerate(_DS_ORDER)}
        out["gpu"].sort(key=lambda i: order.get(i.name, len(order)))
        return out
    if t.offload == "none" and t.offload_params == "none":  # nothing moves
        out["gpu"] = list(items)
        return out
    moves = _MOVES[t.offload_params, t.offload]
    gpu = out["gpu"]
    for item in items:
        move = moves.get(item.name)
        if move is None:
            gpu.append(item)
        else:
            where, offloaded = move
            name, value, cell, source, unit = item  # item.with_source(...), inlined
            out[where].append(_new(Item, (name, value, cell, source + offloaded, unit)))
    return out


_DS_ORDER = ("gathered_layer", "weights", "fp8_weights", "gradients", "fp32_gradients",
             "master_weights", "optimizer_states")


def _deepspeed_items(
    t: TrainingSpec, r: ResolvedModel, omitted: list[Omitted]
) -> list[tuple[Item, str]]:
    nums = deepspeed_bytes(t, r, t.dp)
    src = DS3_SRC if t.zero >= 3 else DS2_SRC
    psi, m, dp = r.params, t.tp * t.pp, t.dp
    n = _shard(t, psi, t.zero, dp)
    split = ""
    if m > 1:
        split += f" ÷ {format_count(m)} (tp × pp)"
    if dp > 1:
        split += f" ÷ {format_count(dp)} GPUs"
    exact = psi % (m * dp) == 0
    shard = (f"{count_noun(psi, 'param')}{split}"
             + (f" = {format_count(n)}" + ("" if exact else " (largest shard)") if split else ""))
    out: list[tuple[Item, str]] = []
    if t.zero >= 3:
        layer = layer_params(t, r)
        if layer is None:
            omitted.append(Omitted(
                "gathered_layer",
                "DeepSpeed's ZeRO-3 estimate gathers the largest layer whole: give a model "
                "preset, a full architecture or --largest-layer",
                "training",
                "DeepSpeed's ZeRO-3 estimate needs the largest layer's parameter count",
                ("model", "training.largest_layer")))
        else:
            out.append((make_item(
                "gathered_layer", nums["gathered_layer"][0],
                f"{count_noun(layer[0], 'param')} in the largest layer ({layer[1]}) × 4 bytes "
                "(16-bit parameters gathered whole + their 16-bit gradients)",
                f"{DS3_SRC} (largest_layer_memory = 4 × largest_layer_params); "
                f"{DS_LAYER_SRC}"), "gpu"))
        out.append((make_item("weights", nums["weights"][0],
                         f"{shard} × 2 bytes (16-bit parameters, partitioned)", src),
                     nums["weights"][1]))
    else:
        local = -(-psi // m)
        whole = count_noun(psi, "param") + (f" ÷ {format_count(m)} (tp × pp) = "
                                            f"{format_count(local)}" if m > 1 else "")
        out.append((make_item("weights", nums["weights"][0],
                         f"{whole} × 2 bytes (16-bit parameters, every GPU)", src), "gpu"))
        if "gradients" in nums:
            out.append((make_item("gradients", nums["gradients"][0],
                             f"{shard} × 2 bytes (16-bit gradients, partitioned)", src), "gpu"))
    for name, what in (("fp32_gradients", "4 bytes (FP32 gradients, kept next to the "
                                          "16-bit ones)"),
                       ("master_weights", "4 bytes (FP32 master parameters)"),
                       ("optimizer_states", "8 bytes (FP32 Adam momentum + variance)")):
        value, where = nums[name]
        out.append((make_item(name, value, f"{shard} × {what}", src), where))
    if "load_fp32_copy" in nums:
        value, where = nums["load_fp32_copy"]
        local = -(-psi // m)
        states = 16 * n
        out.append((make_item(
            "load_fp32_copy", value,
            f"4 bytes × {count_noun(local, 'param')} = {format_count(4 * local)} (an FP32 copy "
            f"of the whole model each process holds while loading) − {format_count(states)} "
            "(the offloaded states above): DeepSpeed's CPU estimate is max(4Ψ, 16Ψ/N) × 1.5, "
            "and 4Ψ is the larger from 5 GPUs on",
            src), where))
    if "estimator_margin" in nums:
        value, where = nums["estimator_margin"]
        moved = sum(v for k, (v, w) in nums.items() if w == where and k != "estimator_margin")
        formula = (f"{format_count(moved)} bytes × (1.5 − 1): DeepSpeed's "
                   "additional_buffer_factor 1.5 on its CPU estimate")
        if t.zero < 3:
            formula = (f"{format_count(moved)} bytes (the larger of the load-time FP32 copy and "
                       "the offloaded states) × (1.5 − 1): DeepSpeed's additional_buffer_factor "
                       "1.5 on its CPU estimate")
        out.append((make_item("estimator_margin", value, formula, src), where))
    return out


def gpu_state_bytes(t: TrainingSpec, r: ResolvedModel, dp: int,
                    paper: Callable[[int], dict[str, int] | None]) -> int | None:
    """GPU bytes of the model states per device with ``dp`` data-parallel devices under the
    convention and offload of ``t`` (the fewest-GPU search varies ``dp`` here). ``paper(dp)``
    gives the paper convention's state bytes by item (``None``: unknown)."""
    if t.convention == "deepspeed":
        return sum(v for v, w in deepspeed_bytes(t, r, dp).values() if w == "gpu")
    parts = paper(dp)
    if parts is None:
        return None
    if t.offload == "none" and t.offload_params == "none":
        return sum(parts.values())
    where_of = places(t)
    on_gpu = 0  # a loop: a comprehension is a function made and called on each search step
    for k, v in parts.items():
        if where_of.get(k, "gpu") == "gpu":
            on_gpu += v
    return on_gpu


def convention_head(t: TrainingSpec) -> str | None:
    """The DeepSpeed convention's bytes-per-parameter summary for the conventions line, or
    ``None`` under the paper convention (the caller states the paper's sum)."""
    if t.convention != "deepspeed":
        return None
    if t.zero >= 3:
        return ("DeepSpeed's ZeRO-3 estimator: 4 bytes × the largest layer (gathered whole) + "
                "18 bytes/param partitioned = 2 (16-bit params) + 4 (FP32 gradients) + 4 (FP32 "
                "master) + 8 (Adam), CPU estimate × 1.5")
    return ("DeepSpeed's ZeRO-2 estimator: 2 bytes/param (16-bit params, every GPU) + 18 "
            "bytes/param partitioned = 2 (16-bit gradients) + 4 (FP32 gradients) + 4 (FP32 "
            "master) + 8 (Adam), CPU estimate × 1.5")


def offload_text(t: TrainingSpec) -> str:
    """What ``t`` offloads, for the conventions line (``""`` without offload)."""
    parts = []
    if t.offload != "none":
        what = ("FP32 gradients, master weights and Adam states"
                if t.convention == "deepspeed"
                else "gradients, FP32 master weights and optimizer states")
        parts.append(f"{what} offloaded to {PLACE_NAMES[t.offload]} "
                     f"({OFFLOAD_SRC if t.offload == 'cpu' else INFINITY_SRC})")
    if t.offload_params != "none":
        parts.append(f"16-bit parameters offloaded to {PLACE_NAMES[t.offload_params]} "
                     f"({INFINITY_SRC})")
    if not parts:
        return ""
    return "; " + "; ".join(parts) + "; CPU RAM and NVMe per GPU (per process)"


