"""Inference working memory of a serving engine with chunked prefill: the activations of one
forward step, one layer at a time, and the logits of the sequences that sample.

A serving engine such as vLLM does not run a whole prompt through the model at once: with
chunked prefill each forward step carries at most ``max_num_batched_tokens`` tokens, prefill
chunks and the decode tokens of the running sequences together. Its working memory is therefore
bounded by that budget, not by context × batch (the KV cache is what grows with those).

Tokens per step
    ``T = min(batch × context, max(prefill_chunk, batch))``: the budget, never more than the
    tokens there are, and at least one token per sequence in the batch (a decode step; vLLM
    requires ``max_num_batched_tokens ≥ max_num_seqs``).
Default budget (:func:`default_prefill_chunk`)
    vLLM's default ``max_num_batched_tokens`` for ``vllm serve`` (the OpenAI-compatible server):
    8,192 on GPUs with at least 70 GiB that are not A100s (H100, H200, MI300X, B200), else 2,048
    (``vllm/engine/arg_utils.py``, ``EngineArgs._set_default_args``:
    ``default_max_num_batched_tokens = {LLM_CLASS: 16384, OPENAI_API_SERVER: 8192}`` when
    ``device_memory >= 70 * GiB_bytes and "a100" not in device_name``, else
    ``{LLM_CLASS: 8192, OPENAI_API_SERVER: 2048}``; V1 always uses chunked prefill).
Per-token working set of one layer (inference: nothing is kept for a backward pass; each
tensor is freed when its consumer is done), e bytes per value, derived from the layer's shapes:
    attention: the residual stream h, its norm h, the fused QKV output q + 2kv and the attention
    output q → ``2h + 2q + 2kv`` (q = heads × head_dim, kv = KV heads × head_dim; FlashAttention
    or PagedAttention never materialise the scores);
    dense MLP: residual h, norm h, the fused gate/up output 2f and the activation output f →
    ``2h + 3f`` (gated, SwiGLU; ``2h + 2f`` without a gate);
    mixture of experts: residual h, norm h, the router logits E, and for each of the k experts a
    token visits the gate/up output, the activation output and the expert output →
    ``2h + E + k(3f + h)`` (vLLM's fused_moe ``intermediate_cache1..3``), plus the FP32 routing
    weights and int32 expert ids, 8k bytes.
    The step's peak is T × e × the larger of the two.
Logits
    The LM head runs only for the positions that sample, one per sequence: ``batch × v × (e +
    4)``: the e-byte logits and the FP32 copy vLLM's sampler makes (``vllm/v1/sample/
    sampler.py``: ``logits = logits.to(torch.float32)``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, lazy_item
from quiz.footprint.items.model_states import activation_value_bytes

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.presets import GpuPreset
    from quiz.footprint.inputs.resolve import ResolvedModel

VLLM_CHUNK = 2048
"""vLLM's default ``max_num_batched_tokens`` for ``vllm serve`` on GPUs under 70 GiB or A100s."""
VLLM_CHUNK_LARGE = 8192
"""vLLM's default ``max_num_batched_tokens`` for ``vllm serve`` on GPUs of 70 GiB or more
that are not A100s (H100, H200, MI300X, B200)."""
LARGE_GPU_BYTES = 70 * 2**30
"""vLLM's threshold for the larger defaults: ``device_memory >= 70 * GiB_bytes``."""
VLLM_DEFAULT_SRC = (
    "vLLM vllm/engine/arg_utils.py, EngineArgs._set_default_args: default "
    "max_num_batched_tokens for vllm serve (OpenAI API server) 2,048, or 8,192 on GPUs of "
    "70 GiB or more other than A100; chunked prefill always on in the V1 engine"
)
WORKING_SRC = (
    "derived from the layer's shapes (inference frees each tensor after use; fused QKV and "
    "gate/up projections and FlashAttention/PagedAttention as in vLLM); one step of the chunked-"
    "prefill budget: " + VLLM_DEFAULT_SRC
)
SAMPLER_SRC = ("vLLM vllm/v1/sample/sampler.py (logits = logits.to(torch.float32)); the LM head "
               "runs only for the positions that sample, one per sequence")


def default_prefill_chunk(gpu: GpuPreset | None) -> int:
    """vLLM's default step budget for ``vllm serve`` on ``gpu`` (:data:`VLLM_CHUNK_LARGE` on
    GPUs of at least 70 GiB other than A100s, else :data:`VLLM_CHUNK`; :data:`VLLM_CHUNK`
    without a GPU preset)."""
    if gpu is None:
        return VLLM_CHUNK
    large = gpu.memory_bytes >= LARGE_GPU_BYTES and "a100" not in gpu.name.lower()
    return VLLM_CHUNK_LARGE if large else VLLM_CHUNK


def prefill_chunk(spec: InferenceSpec, gpu: GpuPreset | None) -> int:
    """The step budget: ``spec.prefill_chunk`` if given, else :func:`default_prefill_chunk`."""
    return spec.prefill_chunk if spec.prefill_chunk is not None else default_prefill_chunk(gpu)


def step_tokens(spec: InferenceSpec, gpu: GpuPreset | None) -> int:
    """Tokens in the largest forward step: ``min(batch × context, max(chunk, batch))``."""
    return min(spec.batch * spec.context, max(prefill_chunk(spec, gpu), spec.batch))


def per_token_parts(r: ResolvedModel) -> tuple[int, int, int] | None:
    """``(attention, mlp, fixed)``: values per token held at the attention and at the MLP peak
    of one layer (see the module docstring), and the bytes per token that do not scale with e
    (a mixture of experts' FP32 routing weights and int32 ids, 8k). ``None`` when the hidden
    size, MLP size or attention heads are unknown."""
    if not (r.hidden and r.ffn and r.heads and r.head_dim):
        return None
    h, f = r.hidden, r.ffn
    q = r.heads * r.head_dim
    kv = (r.kv_heads or r.heads) * r.head_dim
    attention = 2 * h + 2 * q + 2 * kv
    gated = r.arch.gated_mlp if r.arch is not None else True
    inner = 3 * f if gated else 2 * f
    experts = r.arch.experts if r.arch is not None else 1
    if experts > 1:
        assert r.arch is not None
        k = r.arch.active_experts
        return attention, 2 * h + experts + k * (inner + h), 8 * k
    return attention, 2 * h + inner, 0


def working_bytes_per_token(spec: InferenceSpec, r: ResolvedModel) -> int | None:
    """Bytes per token of one layer's peak working set: e × max(attention, MLP) + the fixed
    bytes of :func:`per_token_parts`; ``None`` when the shapes are unknown."""
    parts = per_token_parts(r)
    return None if parts is None else _per_token(spec, parts)


def _per_token(spec: InferenceSpec, parts: tuple[int, int, int]) -> int:
    """:func:`working_bytes_per_token` from the model's :func:`per_token_parts`."""
    attention, mlp, fixed = parts
    return activation_value_bytes(spec.weights) * max(attention, mlp) + fixed


def inference_activation_bytes(spec: InferenceSpec, r: ResolvedModel,
                               gpu: GpuPreset | None = None) -> int | None:
    """The working memory of one forward step: :func:`step_tokens` ×
    :func:`working_bytes_per_token`; ``None`` when the shapes are unknown."""
    per = working_bytes_per_token(spec, r)
    if per is None:
        return None
    return step_tokens(spec, gpu) * per


def sampling_logits_bytes(spec: InferenceSpec, r: ResolvedModel) -> int | None:
    """The logits of one step: batch × vocabulary × (e + 4) (e-byte logits and the sampler's
    FP32 copy; 4 bytes only when the model runs in FP32). ``None`` without the vocabulary."""
    if not r.vocab:
        return None
    e = activation_value_bytes(spec.weights)
    return spec.batch * r.vocab * (4 if e == 4 else e + 4)


def serving_items(spec: InferenceSpec, r: ResolvedModel,
                  gpu: GpuPreset | None) -> tuple[list[Item], list[Omitted]]:
    """The inference items ``activations`` (one step's working memory) and ``logits``, each
    with its formula and source, or their omissions."""
    items: list[Item] = []
    omitted: list[Omitted] = []
    parts = per_token_parts(r)
    # inference_activation_bytes, from the parts at hand
    act = None if parts is None else step_tokens(spec, gpu) * _per_token(spec, parts)
    if (parts is None or act is None) and r.arch is not None and not r.arch.attention_layers:
        omitted.append(Omitted(
            "activations",
            "the working memory of a Mamba layer's selective scan is not modelled (the state "
            "each sequence keeps is the ssm state item)", "inference",
            "the working memory of a Mamba layer's selective scan is not modelled"))
    elif parts is None or act is None:
        omitted.append(Omitted(
            "activations",
            "the working memory needs the hidden size, MLP size and attention heads: give a "
            "model preset or --hidden --ffn --heads",
            "inference", "the working memory needs the hidden size, MLP size and attention heads",
            ("model", "hidden", "ffn", "heads")))
    else:
        items.append(lazy_item("activations", act, WORKING_SRC, _working_text, spec, gpu,
                               parts))
    logits = sampling_logits_bytes(spec, r)
    if logits is None:
        omitted.append(Omitted(
            "logits", "the logits need the vocabulary size: give a model preset or --vocab",
            "inference", "the logits need the vocabulary size", ("model", "vocab")))
    else:
        items.append(lazy_item("logits", logits, SAMPLER_SRC, _sampled_text, spec, r))
    return items, omitted


def _working_text(spec: InferenceSpec, gpu: GpuPreset | None,
                  parts: tuple[int, int, int]) -> str:
    """The inference activations item's formula: the tokens of one forward step × the
    values of one layer's peak (``parts``: attention's and the MLP's values per token, and the
    fixed bytes of routing)."""
    attention, mlp, fixed = parts
    e = activation_value_bytes(spec.weights)
    chunk = prefill_chunk(spec, gpu)
    t = step_tokens(spec, gpu)
    if spec.prefill_chunk is None:
        where = " on this GPU" if gpu is not None else ""
        budget = f"vLLM's default max_num_batched_tokens{where}"
    else:
        budget = "the prefill chunk"
    if t == spec.batch * spec.context:
        why = (f"the {count_noun(t, 'token')} of batch × context, all in one step "
               f"(within {budget}, {format_count(chunk)})")
    elif t == chunk:
        why = f"{count_noun(t, 'token')} per step ({budget})"
    else:
        why = (f"{count_noun(t, 'token')} per step: one per sequence of the batch, "
               f"more than {budget} ({format_count(chunk)})")
    peak = "MLP" if mlp >= attention else "attention"
    extra = f" + {fixed} bytes of routing weights and ids" if fixed else ""
    return (f"one layer at a time, one forward step: {why} × ({e} bytes × "
            f"{format_count(max(attention, mlp))} values at the {peak} peak{extra})")


def _sampled_text(spec: InferenceSpec, r: ResolvedModel) -> str:
    """The logits item's formula: the sequences sampling × the vocabulary × the bytes each
    logit takes."""
    e = activation_value_bytes(spec.weights)
    per = 4 if e == 4 else e + 4
    kept = "FP32 logits" if e == 4 else f"{e}-byte logits + the sampler's FP32 copy"
    return (f"{count_noun(spec.batch, 'sequence')} sampling × "
            f"{count_noun(r.vocab or 0, 'vocabulary entry', 'vocabulary entries')} × "
            f"{per} bytes ({kept})")


