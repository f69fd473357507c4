"""How a KV cache is stored: the bytes of each cached key/value element, with the per-group
scales of the formats below 8 bits, the slots shared by a common prefix, and the copies tensor
parallelism makes when it has more GPUs than key/value heads (issue 21 §5).

Formats (:data:`KV_FORMATS`; ``--kv-dtype``)
    ``fp32``, ``fp16``, ``bf16``: 4, 2, 2 bytes per value. ``fp8`` and ``int8``: 1 byte per value
    with one scale per tensor (vLLM's and TensorRT-LLM's FP8/INT8 KV cache: ``k_scale`` and
    ``v_scale`` per attention layer), whose few bytes are not counted.
    ``int4``: LMDeploy's online INT4 KV cache (``quant_policy=4``, since v0.4.0; docs
    "INT4/INT8 KV Cache"): asymmetric quantization per head and per token, so each head's
    ``head_dim`` values of one token are 4 bits each plus one FP16 scale and one FP16 zero point:
    ``head_dim × 4 + 32`` bits per head and token (Llama-3-70B, head_dim 128: 68 bytes against
    256 in BF16, 3.76 × smaller, not 4 ×). KIVI (Liu et al. 2024, sec. 3) quantizes the same way
    with smaller groups (32 values) and keeps the most recent tokens in 16 bits; not modelled.
    ``fp4``: NVFP4 (TensorRT-LLM's "NVFP4 KV Cache"; NVIDIA's NVFP4 format): blocks of 16 E2M1
    values sharing one FP8 E4M3 scale, ``16 × 4 + 8`` = 72 bits per 16 values, 4.5 bits per
    value; the second-level FP32 scale per tensor (4 bytes per layer) is not counted.
    A multi-head latent attention (MLA) cache is one vector of ``kv_lora_rank + qk_rope_dim``
    values per layer and token; ``int4`` treats that vector as its one "head" (one scale and zero
    point), ``fp4`` splits it in blocks of 16.
Prefix caching (``--shared-prefix N``)
    vLLM's automatic prefix caching (docs "Automatic Prefix Caching"; Kwon et al. 2023,
    PagedAttention, sec. 4.4 "shared prefix") shares whole KV blocks: the first ``⌊N / block⌋``
    blocks of the common prefix are stored once for the batch, and each sequence keeps the rest
    of its context (the partial block of the prefix included) in blocks of its own:
    ``S = ⌊N / block⌋ × block``; slots per full-attention layer ``S + batch × ⌈(context − S) /
    block⌉ × block``. A sliding-window layer keeps its window per sequence (sharing not counted).
Replicated key/value heads
    Tensor parallelism over ``t`` GPUs gives each GPU ``kv_heads / t`` KV heads; with more GPUs
    than KV heads each GPU still needs one, so vLLM replicates them: ``max(1, kv_heads / t)``
    heads per GPU (vLLM ``ModelConfig.get_num_kv_heads``: ``max(1, total_num_kv_heads //
    tensor_parallel_size)``; ``QKVParallelLinear`` replicates the KV heads when
    ``tp_size >= total_num_kv_heads``). The replica then stores ``t × max(1, ⌈kv_heads / t⌉)``
    heads, ``t / kv_heads`` copies of each. An MLA latent counts as one KV head (vLLM's
    ``get_num_kv_heads`` returns 1 with MLA): every GPU keeps the whole latent cache.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

KV_SRC = (
    "Pope et al. 2023, Efficiently Scaling Transformer Inference, sec. 2; Ainslie et al. 2023 (GQA)"
)
"""Where the KV cache formula comes from."""


def kv_dtype(spec: InferenceSpec) -> str:
    """The KV cache dtype: ``kv_dtype`` if given, else FP32 for FP32 weights, FP16 for FP16
    weights and BF16 otherwise."""
    if spec.kv_dtype:
        return spec.kv_dtype
    return spec.weights if spec.weights in ("fp32", "fp16") else "bf16"


@dataclass(frozen=True, slots=True)
class KvFormat:
    """One KV cache storage format.

    Attributes:
        name: the ``--kv-dtype`` value.
        value_bits: bits of each stored key/value element.
        group: elements per scale group (``0``: one group per head vector, ``head_dim`` values,
            or per MLA latent vector).
        meta_bits: bits of the scale (and zero point) of each group; 0 when the scales are per
            tensor (not counted).
        meta: the metadata in words ("one FP16 scale and one FP16 zero point").
        source: where the layout comes from.
    """

    name: str
    value_bits: int
    group: int = 0
    meta_bits: int = 0
    meta: str = ""
    source: str = ""

    @property
    def grouped(self) -> bool:
        """Whether each group of values carries its own scale bits."""
        return self.meta_bits > 0

    def vector_bits(self, length: int) -> int:
        """Bits of one stored vector of ``length`` values (one head of one token, or one MLA
        latent): ``length × value_bits + groups × meta_bits`` with ``groups = ⌈length /
        group⌉`` (one group when ``group`` is 0)."""
        groups = 0
        if self.meta_bits:
            groups = 1 if self.group == 0 else -(-length // self.group)
        return length * self.value_bits + groups * self.meta_bits

    def bits_per_value(self, length: int) -> float:
        """Average bits per value of a vector of ``length`` values, scales included."""
        return self.vector_bits(length) / length


LMDEPLOY_SRC = ("LMDeploy docs, INT4/INT8 KV Cache (quant_policy=4, since v0.4.0): online "
                "asymmetric quantization per head and per token (a scale and a zero point, FP16)")
NVFP4_SRC = ("TensorRT-LLM docs, Quantization: NVFP4 KV Cache; NVFP4 stores blocks of 16 E2M1 "
             "values with one FP8 E4M3 scale each (NVIDIA, Introducing NVFP4, 2025)")
PER_TENSOR_SRC = ("vLLM docs, Quantized KV Cache (FP8 with one k_scale/v_scale per layer); "
                  "TensorRT-LLM INT8/FP8 KV cache (per-tensor scales)")

KV_FORMATS: dict[str, KvFormat] = {
    "fp32": KvFormat("fp32", 32),
    "fp16": KvFormat("fp16", 16),
    "bf16": KvFormat("bf16", 16),
    "fp8": KvFormat("fp8", 8, source=PER_TENSOR_SRC),
    "int8": KvFormat("int8", 8, source=PER_TENSOR_SRC),
    "int4": KvFormat("int4", 4, 0, 32, "one FP16 scale and one FP16 zero point per head and "
                     "token", LMDEPLOY_SRC),
    "fp4": KvFormat("fp4", 4, 16, 8, "one FP8 E4M3 scale per block of 16 values", NVFP4_SRC),
}
"""Every ``--kv-dtype`` and how it stores a value (see the module docstring)."""


def kv_vectors(r: ResolvedModel) -> tuple[int, int]:
    """``(vectors, length)`` the KV cache stores per layer and token: ``2 × kv_heads`` vectors
    of ``head_dim`` values (K and V of each KV head), or for MLA one latent of ``kv_lora_rank +
    qk_rope_dim`` values. ``(0, 0)`` when the shapes are unknown."""
    if r.arch is not None and r.arch.mla:
        return 1, r.arch.kv_values_per_layer_token
    if not (r.kv_heads and r.head_dim):
        return 0, 0
    return 2 * r.kv_heads, r.head_dim


def layer_token_bytes(r: ResolvedModel, dtype: str) -> int:
    """Bytes one layer keeps per token of one sequence in format ``dtype``: vectors ×
    :meth:`KvFormat.vector_bits` / 8, rounded up to whole bytes. Llama-3-70B (8 KV heads of 128)
    in BF16: 4,096; INT4: 16 × (512 + 32) / 8 = 1,088; FP4: 16 × (512 + 64) / 8 = 1,152."""
    vectors, length = kv_vectors(r)
    return -(-vectors * KV_FORMATS[dtype].vector_bits(length) // 8)


def shared_slots(shared: int, block: int) -> int:
    """Slots of a common prefix of ``shared`` tokens that prefix caching stores once: its whole
    blocks, ``⌊shared / block⌋ × block`` (a partial block is not shared)."""
    return shared // block * block


def blocks_of(tokens: int, block: int) -> int:
    """``tokens`` rounded up to whole blocks of ``block`` tokens."""
    return -(-tokens // block) * block


def attention_layers(r: ResolvedModel) -> int:
    """Layers that keep a KV cache: every layer, except a hybrid's Mamba layers (Jamba keeps
    keys and values in 4 of its 32 layers; a Mamba model in none)."""
    if r.arch is not None and r.arch.mamba_layers:
        return r.arch.attention_layers
    return r.layers or 0


def kv_slots(r: ResolvedModel, batch: int, context: int, block: int, shared: int = 0) -> int:
    """Σ over layers of the KV slots ``batch`` sequences of ``context`` tokens keep, the first
    ``shared`` tokens common to all: full-attention layers ``S + batch × blocks(context − S)``
    with ``S`` = :func:`shared_slots`; sliding-window layers ``batch × blocks(min(context,
    window))``. Only attention layers keep keys and values: a hybrid's Mamba layers none."""
    window = r.sliding_window or 0
    sliding = r.sliding_layers if window else 0
    full = attention_layers(r) - sliding
    once = shared_slots(shared, block)
    out = full * (once + batch * blocks_of(context - once, block))
    if sliding:
        out += sliding * batch * blocks_of(min(context, window), block)
    return out


def kv_group_heads(r: ResolvedModel) -> int:
    """The KV heads tensor parallelism splits: ``kv_heads``, or 1 for an MLA latent."""
    if r.arch is not None and r.arch.mla:
        return 1
    return r.kv_heads or 1


def heads_per_gpu(kv_heads: int, tp: int) -> int:
    """KV heads each of ``tp`` GPUs keeps: ``max(1, ⌈kv_heads / tp⌉)`` (vLLM: ``max(1,
    kv_heads // tp)`` for the counts it accepts)."""
    return max(1, -(-kv_heads // tp))


def replicated(bytes_: int, kv_heads: int, tp: int) -> int:
    """A KV cache of ``bytes_`` (one copy of each of ``kv_heads`` heads) as ``tp`` GPUs of
    tensor parallelism store it: ``bytes_ × tp × heads_per_gpu / kv_heads``; ``bytes_`` itself
    when ``tp ≤ kv_heads`` (no head is replicated)."""
    stored = tp * heads_per_gpu(kv_heads, tp)
    if stored <= kv_heads:
        return bytes_
    return bytes_ * stored // kv_heads


@dataclass(frozen=True, slots=True)
class Replication:
    """How tensor parallelism stores the KV heads of one model.

    Attributes:
        tp: GPUs of tensor parallelism (1: none, or a pipeline split).
        kv_heads: the model's KV heads (1 for an MLA latent).
        per_gpu: KV heads each GPU keeps, ``max(1, ⌈kv_heads / tp⌉)``.
        mla: whether the heads are an MLA latent.
    """

    tp: int
    kv_heads: int
    per_gpu: int
    mla: bool = False

    @property
    def copies(self) -> int:
        """Copies of each KV head the replica stores (1: none replicated); a whole number for
        the counts tensor parallelism accepts."""
        return max(1, self.tp * self.per_gpu // self.kv_heads)

    @property
    def replicated(self) -> bool:
        """Whether some KV head is stored on more than one GPU."""
        return self.tp * self.per_gpu > self.kv_heads


def replication(r: ResolvedModel, tp: int) -> Replication:
    """The :class:`Replication` of model ``r`` over ``tp`` GPUs of tensor parallelism."""
    kv = kv_group_heads(r)
    return Replication(tp, kv, heads_per_gpu(kv, tp), r.arch is not None and r.arch.mla)


def kv_json(spec: InferenceSpec, r: ResolvedModel, tp: int) -> dict[str, Any]:
    """The inference JSON's ``kv`` object (issue 21 §5): the KV format (``dtype``, its
    ``bits_per_value`` with scales), ``bytes_per_token`` (one sequence, every layer, one copy of
    each head; ``None`` without the shapes), ``shared_prefix_tokens`` (the whole blocks stored
    once), ``tensor_parallel`` (the size whose replication the KV items include; 1: none),
    ``kv_heads_per_gpu`` and ``kv_copies`` (``None`` without the heads), ``draft_model``."""
    dtype = kv_dtype(spec)
    vectors, length = kv_vectors(r)
    per_gpu = copies = None
    if vectors:
        rep = replication(r, tp)
        per_gpu, copies = rep.per_gpu, rep.copies
    return {
        "dtype": dtype,
        "bits_per_value": KV_FORMATS[dtype].bits_per_value(length) if length else float(
            KV_FORMATS[dtype].value_bits),
        "bytes_per_token": layer_token_bytes(r, dtype) * r.layers if vectors and r.layers
        else None,
        "shared_prefix_tokens": shared_slots(spec.shared_prefix, spec.kv_block),
        "tensor_parallel": tp,
        "kv_heads_per_gpu": per_gpu,
        "kv_copies": copies,
        "draft_model": spec.draft_model,
    }
