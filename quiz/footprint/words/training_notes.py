"""``--explain`` notes on the training layout: FP8 training's extra copies, expert parallelism,
DeepSpeed's estimator convention and offload, each with this case's numbers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.ep import expert_group, expert_params
from quiz.footprint.items.fp8 import gemm_weights
from quiz.footprint.items.offload import PLACE_NAMES, deepspeed_bytes, layer_params, place

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel


def fp8_note(t: TrainingSpec, r: ResolvedModel, size: object) -> str:
    """``--explain``: what FP8 training saves and costs here, and the variants not counted.
    ``size`` formats bytes (a callable)."""
    assert callable(size)
    n, _ = gemm_weights(r)
    return (f"FP8 training (Transformer Engine style): the GEMMs run in FP8 but the weights "
            f"stay BF16 with an FP32 master copy and FP32 Adam states, so the model states grow "
            f"by the FP8 copy of {count_noun(n, 'GEMM weight')} ({size(n)} unsharded) instead of "
            "shrinking; the saving is in activations (GEMM inputs saved in FP8: 27 instead of "
            "34 sbh per layer) and in time (the FP8 peak is about twice the BF16 one). Not "
            "counted: the transposed FP8 weight copy Hopper's backward GEMM may cache (one more "
            "byte per GEMM weight), and the per-tensor scales and amax histories (kilobytes). "
            "With te.fp8_model_init the module weights themselves are FP8 (1 byte instead of "
            "2 + the copy), master weights still FP32.")


def ep_note(t: TrainingSpec, r: ResolvedModel, size: object) -> str:
    """``--explain``: the layout convention, what one rank holds, and what is not counted.
    ``size`` formats bytes (a callable)."""
    assert callable(size) and r.arch is not None
    x = expert_params(r)
    n, ep = r.arch.experts, t.ep
    local = n // ep
    egroup = expert_group(t, t.dp)
    per_layer = x // r.arch.layers // n
    cp = " × cp" if t.cp > 1 else ""
    return (
        f"Expert parallelism: each of the {format_count(ep)} expert-parallel ranks holds "
        f"{count_noun(local, 'expert')} of every MoE layer ({format_count(n)} / ep "
        f"{format_count(ep)}; {count_noun(per_layer, 'param')} per expert), so the "
        f"{count_noun(x, 'expert param')} ({size(2 * x)} in 16 bits) are split over ep; "
        f"attention, embeddings, norms and the router ({count_noun(r.params - x, 'param')}) "
        f"are replicated over the ep ranks. Layout: Megatron-Core MoE Parallel Folding — the "
        f"ep group is carved out of the dp{cp} ranks (ep must divide dp{cp}; the device count "
        f"stays dp × tp × pp{cp}), each expert keeps the dense layers' tp × pp split, and the "
        f"experts' ZeRO shards (distributed optimizer) span the dp{cp} / ep = "
        f"{count_noun(egroup, 'rank')} holding the same experts (DeepSpeed-MoE's expert data "
        "parallel group is the same without cp). Sources: Megatron-Core MoE README (Parallelism; "
        "MoE Parallel Folding: \"the EPxTP group in MoE is a sub-group of DPxCPxTP in "
        "Attention\"; Tuning Guide: EP gives 1/N weight memory in the MoE layer and 1/N "
        "optimizer states, activation memory 1); Rajbhandari et al. 2022, DeepSpeed-MoE, sec. 4. "
        + ("ZeRO-3 already shards every state over dp × cp, so ep changes no byte here "
           "(up to the rounding of the shards); it changes which ranks gather and reduce the "
           "experts. " if t.zero >= 3 else "")
        + "Activations per device are unchanged with "
        "balanced routing; not counted: the all-to-all dispatch and combine buffers (each "
        "token's k copies of h values, sent and received, transient) and the imbalance of an "
        "under-trained router, which Megatron warns can run out of memory in the first few "
        "hundred steps.")


def convention_note(t: TrainingSpec, r: ResolvedModel, size: Callable[[int], str]) -> str | None:
    """``--explain``: the paper's and DeepSpeed's counts of this case side by side (model states
    on one GPU, and CPU RAM per GPU), or ``None`` where DeepSpeed has no estimator (ZeRO 0/1,
    not mixed-precision Adam). ``size`` formats bytes."""
    if t.zero < 2 or t.optimizer not in ("adam", "adamw") or t.precision not in (
            "mixed-fp16", "mixed-bf16"):
        return None
    from quiz.footprint.items.model_states import state_bytes_by_item

    paper_t = t.model_copy(update={"convention": "paper", "grad_precision": None,
                                   "offload": "none" if t.offload == "nvme" else t.offload,
                                   "offload_params": "none" if t.offload_params == "nvme"
                                   else t.offload_params})
    ds_t = paper_t.model_copy(update={"convention": "deepspeed"})
    parts = state_bytes_by_item(paper_t, r, t.dp) or {}
    paper_gpu = sum(v for k, v in parts.items() if place(paper_t, k) == "gpu")
    paper_cpu = sum(v for k, v in parts.items() if place(paper_t, k) == "cpu")
    if ds_t.offload_params != "none" and ds_t.offload == "none":
        ds_t = ds_t.model_copy(update={"offload": ds_t.offload_params})
    ds = deepspeed_bytes(ds_t, r, t.dp)
    ds_gpu = sum(v for v, w in ds.values() if w == "gpu")
    ds_cpu = sum(v for v, w in ds.values() if w == "cpu")
    layer = layer_params(ds_t, r)
    case = (f"ZeRO-{t.zero} over {count_noun(t.dp, 'GPU')}"
            + (", optimizer offloaded to CPU" if ds_t.offload == "cpu" else "")
            + (", parameters too" if ds_t.offload_params == "cpu" else ""))
    text = (f"Two conventions for model states ({case}): the ZeRO paper (sec. 3.1, 5) counts "
            f"16 bytes/param — 2 (16-bit weights) + 2 (16-bit gradients) + 12 (FP32 master, "
            f"Adam) — split by the stage: {size(paper_gpu)} per GPU"
            + (f" and {size(paper_cpu)} of CPU RAM per GPU" if paper_cpu else "")
            + " (--convention paper, the default). DeepSpeed's estimator "
            f"(estimate_zero{3 if t.zero >= 3 else 2}_model_states_mem_needs) keeps FP32 "
            "gradient shards next to the 16-bit ones (18 bytes/param partitioned"
            + (", with 2 bytes of 16-bit parameters on every GPU" if t.zero == 2 else "")
            + ")")
    if t.zero >= 3:
        text += (", adds the largest layer gathered whole (4 bytes × "
                 + (f"{count_noun(layer[0], 'param')}" if layer else "its parameters, unknown "
                    "here: --largest-layer")
                 + ")")
    text += (f" and multiplies its CPU figure by a buffer factor of 1.5: {size(ds_gpu)} per "
             "GPU" + (f" and {size(ds_cpu)} of CPU RAM per GPU" if ds_cpu else "")
             + " (--convention deepspeed). DeepSpeed prints CPU RAM per node: multiply the "
             "per-GPU figure by the GPUs per node. Without offload it also prints the CPU RAM "
             "needed while loading (4 bytes × the largest layer × GPUs per node × 1.5 with "
             "zero.Init), a load-time peak not counted here.")
    return text


def offload_note(t: TrainingSpec, size: Callable[[int], str], cpu: int, nvme: int) -> str | None:
    """``--explain``: what offload does not count (staging buffers, bandwidth), or ``None``
    without offload."""
    if t.offload == "none" and t.offload_params == "none":
        return None
    where = ", ".join(f"{size(v)} in {PLACE_NAMES[k]}" for k, v in (("cpu", cpu), ("nvme", nvme))
                      if v)
    return ("Offload: this estimate moves the offloaded states unchanged off the GPU "
            f"({where} per GPU; a server needs that times its GPUs). Not counted: the pinned "
            "CPU buffers that stage NVMe transfers (DeepSpeed's aio buffer_count × buffer_size) "
            "and the GPU's gradient buckets (reduce_bucket_size); offload also costs time, as "
            "every step moves the states over PCIe (ZeRO-Offload sec. 4 overlaps it with the "
            "backward pass"
            + ("; ZeRO-Infinity sec. 6 reaches NVMe bandwidth with overlapped, bulk reads)."
               if "nvme" in (t.offload, t.offload_params) else ").")
            + (" With the parameters offloaded, ZeRO-3 still gathers one layer at a time on the "
               "GPU (16-bit parameters and gradients: 4 bytes × the largest layer, the working "
               "memory of ZeRO-Infinity sec. 3); the paper convention leaves it out, "
               "--convention deepspeed counts it."
               if t.offload_params != "none" and t.convention == "paper" else ""))
