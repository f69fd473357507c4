"""The fit: the fewest GPUs that hold a training layout (varying the data-parallel size) or an
inference replica (split by tensor parallelism), from the per-device bytes of the items."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.activations import training_activation_bytes
from quiz.footprint.items.model_states import state_bytes_by_item
from quiz.footprint.items.offload import gpu_state_bytes

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel


MAX_DP = 2**24
"""Largest data-parallel size tried when searching the fewest GPUs."""


def fewest_training_gpus(t: TrainingSpec, r: ResolvedModel, memory: int,
                         activations: int | None = None) -> int | None:
    """The fewest GPUs dp' × tp × pp × cp whose per-device bytes fit in ``memory`` (usable
    bytes per GPU, framework overhead taken off), keeping everything of ``t`` but the
    data-parallel size dp'; ``None`` when no dp' up to :data:`MAX_DP` is enough (ZeRO-0, or
    what ZeRO does not partition fills a GPU) or the optimizer state is unknown.

    ``activations``: the training activation bytes per device
    (:func:`~quiz.footprint.items.activations.training_activation_bytes`, 0 when unknown), when
    the caller has them already (the estimate sums its activation items); computed otherwise.
    """
    def paper(dp: int) -> dict[str, int] | None:
        return state_bytes_by_item(t, r, dp)

    def states(dp: int) -> int | None:
        return gpu_state_bytes(t, r, dp, paper)

    # With expert parallelism dp × cp must stay a multiple of ep: dp moves in steps of
    # ep / gcd(ep, cp) (quiz.footprint.items.ep); ``fits(k)`` tries dp = k steps.
    step = t.ep // math.gcd(t.ep, t.cp)
    most = MAX_DP // step
    one = states(step)
    if one is None:  # the optimizer state is unknown (Adafactor without an architecture)
        return None
    other = (training_activation_bytes(t, r) or 0  # the same for every dp
             if activations is None else activations)

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


TRAINING_RESERVE = 2**30
"""Bytes of each GPU a training job cannot use by default: 1 GiB for the CUDA context (several
hundred MiB per process: PyTorch docs, CUDA semantics, "Memory management"; NVIDIA's CUDA C++
guide, lazy loading), cuBLAS/NCCL workspaces and the caching allocator's fragmentation. An
assumption, stated in every fit; ``--gpu-util`` replaces it."""
SERVING_FRACTION = (9, 10)
"""vLLM's default ``gpu_memory_utilization`` = 0.9 (vllm/engine/arg_utils.py): the share of each
GPU the engine may take, weights, activations and KV cache together."""
UNIFIED_FRACTION = (3, 4)
"""Unified memory (Apple M-series): the GPU may wire about three quarters of it by default
(Metal's ``recommendedMaxWorkingSetSize`` on large-memory Macs, as llama.cpp prints it)."""


def usable_memory(memory: int, phase: str, util: float | None, unified: bool = False) -> int:
    """The bytes of one GPU of ``memory`` bytes a ``phase`` (``"training"`` or
    ``"inference"``) may use: ``⌊memory × util⌋`` when ``util`` (``--gpu-util``) is given;
    else ¾ of unified memory; else 0.9 × memory for serving (vLLM's default) and memory − 1 GiB
    for training (:data:`TRAINING_RESERVE`). Never below 0."""
    if util is not None:
        num, den = round(util * 10**6), 10**6
    elif unified:
        num, den = UNIFIED_FRACTION
    elif phase == "inference":
        num, den = SERVING_FRACTION
    else:
        return max(0, memory - TRAINING_RESERVE)
    return memory * num // den


def usable_text(memory: int, phase: str, util: float | None, unified: bool = False) -> str:
    """Why :func:`usable_memory` is what it is, in a few words."""
    if util is not None:
        return f"--gpu-util {util:g}"
    if unified:
        return "¾ of unified memory, macOS's default GPU share"
    if phase == "inference":
        return "vLLM's gpu_memory_utilization 0.9"
    return "1 GiB kept for the CUDA context and allocator"
