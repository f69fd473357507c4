"""``--explain`` note on the serving engine's working memory (chunked prefill, sampling logits)
against how other tools count it."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.regime import activation_value_bytes
from quiz.footprint.items.serving import (
    VLLM_CHUNK,
    VLLM_CHUNK_LARGE,
    inference_activation_bytes,
    prefill_chunk,
    working_bytes_per_token,
)

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel


def serving_note(spec: InferenceSpec, r: ResolvedModel, gpu: GpuPreset | None,
                 b: Callable[[int], str]) -> str | None:
    """``--explain``: the working memory of a serving engine against counting the whole
    prefill at once (the first edition's convention, EleutherAI's calc_transformer_mem.py), with
    this case's numbers; ``None`` when the working memory cannot be computed."""
    ours = inference_activation_bytes(spec, r, gpu)
    per = working_bytes_per_token(spec, r)
    if ours is None or per is None or not r.hidden:
        return None
    chunk = prefill_chunk(spec, gpu)
    tokens = spec.batch * spec.context
    whole = tokens * r.hidden * (16 * activation_value_bytes(spec.weights) + 2)
    if spec.prefill_chunk is None:
        chosen = (f"vLLM's default max_num_batched_tokens for vllm serve: "
                  f"{format_count(VLLM_CHUNK_LARGE)} on GPUs of 70 GiB or more other than A100, "
                  f"else {format_count(VLLM_CHUNK)}; the offline LLM class uses twice that; "
                  "--prefill-chunk sets another engine's budget, e.g. TensorRT-LLM's "
                  "max_num_tokens")
    else:
        chosen = f"--prefill-chunk {format_count(chunk)}"
    return (
        f"Serving working memory: a serving engine with chunked prefill runs at most "
        f"{count_noun(chunk, 'token')} per forward step ({chosen}), one layer at a time, so "
        f"its activations are {b(ours)} whatever the context; it is the KV cache that grows "
        f"with context × batch. Counting one layer for the whole prefill of "
        f"{count_noun(tokens, 'token')} at once with Korthikanti's training formula (34 bytes "
        f"× hidden per token at 16 bits, EleutherAI's calc_transformer_mem.py and this tool's "
        f"first edition) gives {b(whole)} and overstates the GPUs long contexts need. vLLM "
        "measures this peak in a profiling run of max_num_batched_tokens dummy tokens before it "
        "sizes the KV cache (gpu_memory_utilization).")
