"""Capacity answers of a serving fit: the most sequences of ``--context`` tokens
(``inference.max_batch``) and the longest context for ``--batch`` sequences
(``inference.max_context``) that fit on the GPUs the fit found, in their usable memory.

The inference footprint is a sum whose parts grow with the batch B and the context c
(:mod:`quiz.footprint.items.inference`, :mod:`quiz.footprint.items.serving`):

    total(B, c) = weights + overhead items
                + B × KV bytes per sequence(c)            (whole blocks of --kv-block tokens)
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

from typing import TYPE_CHECKING

from quiz.footprint.items.inference import KV_BYTES, kv_dtype, kv_tokens_per_sequence, kv_values
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


def _parts(spec: InferenceSpec, r: ResolvedModel, gpu: GpuPreset | None,
           phase: PhaseEstimate) -> tuple[int, int, int, int, int] | None:
    """``(fixed, kv_per_layer_token, per_token_work, logit_bytes, capacity)``: what does not
    grow with B or c, the KV bytes per layer and token, the working bytes per step token, the
    logit bytes per sequence, and N × usable bytes; ``None`` when a part is unknown."""
    if phase.gpus_needed is None or phase.usable_bytes is None or not phase.complete:
        return None
    if not (r.layers and r.kv_heads and r.head_dim and r.vocab):
        return None
    work = working_bytes_per_token(spec, r)
    if work is None:
        return None
    names = ("kv_cache", "activations", "logits")
    fixed = sum(i.bytes for i in phase.items if i.name not in names)
    kv = kv_values(r) * KV_BYTES[kv_dtype(spec)]
    e = 4 if spec.weights == "fp32" else 2
    logit = r.vocab * (4 if e == 4 else e + 4)
    return fixed, kv, work, logit, phase.gpus_needed * phase.usable_bytes


def _total(spec: InferenceSpec, r: ResolvedModel, chunk: int,
           parts: tuple[int, int, int, int, int], batch: int, context: int) -> int:
    fixed, kv, work, logit, _ = parts
    kv_tokens = kv_tokens_per_sequence(context, spec.kv_block, r)
    step = min(batch * context, max(chunk, batch))
    return fixed + batch * kv * kv_tokens + work * step + batch * logit


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
    ``spec.batch`` sequences, whose footprint fits in ``gpus_needed × usable_bytes``. ``(None,
    None)`` without a GPU, with an incomplete estimate or unknown shapes."""
    parts = _parts(spec, r, gpu, phase)
    if parts is None:
        return None, None
    chunk = prefill_chunk(spec, gpu)
    cap = parts[4]

    def batch_fits(b: int) -> bool:
        return _total(spec, r, chunk, parts, b, spec.context) <= cap

    def context_fits(c: int) -> bool:
        return _total(spec, r, chunk, parts, spec.batch, c) <= cap

    if not batch_fits(spec.batch):
        return None, None
    return (_largest(spec.batch, MAX_BATCH, batch_fits),
            _largest(spec.context, MAX_CONTEXT, context_fits))
