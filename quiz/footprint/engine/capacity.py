"""Capacity answers of a serving fit: the most sequences of ``--context`` tokens
(``inference.max_batch``) and the longest context for ``--batch`` sequences
(``inference.max_context``) that fit on the GPUs the fit found, in their usable memory.

The inference footprint is a sum whose parts grow with the batch B and the context c
(:mod:`quiz.footprint.items.inference`, :mod:`quiz.footprint.items.serving`):

    total(B, c) = weights + overhead items (a draft model's weights among them)
                + Σ over KV caches (the target's, a draft model's) of
                  bytes per layer-token (--kv-dtype, scales included)
                  × (shared prefix blocks once + B × blocks of c − shared)
                  × copies (KV heads replicated when tensor parallelism exceeds them)
                + e × peak values per token × min(B·c, max(chunk, B))   (one forward step)
                + B × vocabulary × logit bytes            (the sampled positions)

Each part never shrinks when B or c grows, so the largest B (or c) with total ≤ N × usable
memory (N: the GPUs the fit needs for the given batch and context) is found by bisection on
that sum, exactly: the estimate at that value fits on N GPUs and one more does not (vLLM sizes
its KV cache the same way: gpu_memory_utilization × memory − weights − the profiled peak
activations, in blocks of block_size tokens; vllm/worker/gpu_worker.py,
determine_num_available_blocks).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from quiz.footprint.engine.serving_fit import kv_models
from quiz.footprint.items.kv_layout import (
    kv_dtype,
    kv_group_heads,
    kv_slots,
    layer_token_bytes,
    replicated,
)
from quiz.footprint.items.serving import prefill_chunk, working_bytes_per_token

if TYPE_CHECKING:
    from quiz.footprint.engine.report import PhaseEstimate
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel

MAX_BATCH = 10**7
"""The largest batch searched (the spec's bound on ``batch``)."""
MAX_CONTEXT = 10**9
"""The longest context searched (the spec's bound on ``context``)."""

_GROWING = ("kv_cache", "draft_kv_cache", "ssm_state", "activations", "logits")
"""The items that grow with the batch or the context."""


class _Parts(NamedTuple):
    fixed: int
    caches: tuple[tuple[ResolvedModel, int, int], ...]  # model, bytes per layer-token, KV heads
    work: int
    logit: int
    capacity: int
    state: int  # a hybrid's Mamba state per sequence (quiz.footprint.items.ssm)


def _parts(spec: InferenceSpec, r: ResolvedModel, phase: PhaseEstimate) -> _Parts | None:
    """What does not grow with B or c, each KV cache (its model, bytes per layer and token in
    the KV format, KV heads), the working bytes per step token, the logit bytes per sequence,
    and N × usable bytes; ``None`` when a part is unknown."""
    if phase.gpus_needed is None or phase.usable_bytes is None or not phase.complete:
        return None
    if not (r.layers and r.kv_heads and r.head_dim and r.vocab):
        return None
    work = working_bytes_per_token(spec, r)
    if work is None:
        return None
    fixed = sum(i.bytes for i in phase.items if i.name not in _GROWING)
    dtype = kv_dtype(spec)
    caches = tuple((m, layer_token_bytes(m, dtype), kv_group_heads(m))
                   for m in kv_models(spec, r).values())
    e = 4 if spec.weights == "fp32" else 2
    logit = r.vocab * (4 if e == 4 else e + 4)
    from quiz.footprint.items.ssm import ssm_sequence_bytes

    return _Parts(fixed, caches, work, logit, phase.gpus_needed * phase.usable_bytes,
                  ssm_sequence_bytes(spec, r))


def _total(spec: InferenceSpec, chunk: int, tp: int, parts: _Parts, batch: int,
           context: int) -> int:
    kv = 0
    for m, per, heads in parts.caches:
        one = per * kv_slots(m, batch, context, spec.kv_block, spec.shared_prefix)
        kv += replicated(one, heads, tp)
    step = min(batch * context, max(chunk, batch))
    return parts.fixed + kv + parts.work * step + batch * (parts.logit + parts.state)


def _largest(fits_at: int, limit: int, fits: object) -> int:
    """The largest n in [fits_at, limit] with ``fits(n)`` (monotone: true then false)."""
    assert callable(fits)
    low, high = fits_at, limit
    if fits(high):
        return high
    while high - low > 1:  # fits(low), not fits(high)
        mid = (low + high) // 2
        if fits(mid):
            low = mid
        else:
            high = mid
    return low


def capacity(spec: InferenceSpec, r: ResolvedModel, gpu: GpuPreset | None,
             phase: PhaseEstimate) -> tuple[int | None, int | None]:
    """``(max_batch, max_context)`` on the ``gpus_needed`` GPUs of ``phase``: the most sequences
    of ``spec.context`` tokens, and the longest context (a whole number of tokens) for
    ``spec.batch`` sequences, whose footprint fits in ``gpus_needed × usable_bytes``: every KV
    cache (the target's and a draft model's) in its format, a shared prefix once, KV heads
    replicated as the phase's tensor parallelism (``phase.kv_tp``) requires. ``(None, None)``
    without a GPU, with an incomplete estimate or unknown shapes."""
    parts = _parts(spec, r, phase)
    if parts is None:
        return None, None
    chunk = prefill_chunk(spec, gpu)
    cap = parts.capacity
    tp = phase.kv_tp

    def batch_fits(b: int) -> bool:
        return _total(spec, chunk, tp, parts, b, spec.context) <= cap

    def context_fits(c: int) -> bool:
        return _total(spec, chunk, tp, parts, spec.batch, c) <= cap

    if not batch_fits(spec.batch):
        return None, None
    return (_largest(spec.batch, MAX_BATCH, batch_fits),
            _largest(spec.context, MAX_CONTEXT, context_fits))
