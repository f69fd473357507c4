"""The KV cache item of a serving estimate (the target model's, or a draft model's), with its
formula in words: values per layer and token × bytes of the storage format × the slots the
batch keeps (whole blocks; a shared prefix once; a sliding window at most).

Formula (:mod:`quiz.footprint.items.kv_layout` has the sources)
    ``2 × kv_heads × (head_dim × value_bits + scale bits) / 8 × slots``, where slots =
    Σ over layers of :func:`~quiz.footprint.items.kv_layout.kv_slots`. Multi-head latent
    attention stores ``kv_lora_rank + qk_rope_dim`` values per layer and token instead (DeepSeek-
    AI 2024, DeepSeek-V2, sec. 2.1.2-2.1.3). The copies tensor parallelism adds when it has
    more GPUs than KV heads are applied by the fit (:mod:`quiz.footprint.engine.serving_fit`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, lazy_item, make_item
from quiz.footprint.items.kv_layout import (
    KV_FORMATS,
    KV_SRC,
    attention_layers,
    blocks_of,
    kv_dtype,
    kv_slots,
    kv_vectors,
    layer_token_bytes,
    shared_slots,
)

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

MLA_SRC = ("DeepSeek-AI 2024, DeepSeek-V2, sec. 2.1.2-2.1.3 (MLA caches the compressed latent "
           "c_KV and the decoupled rotary key: (d_c + d_h^R) per layer and token)")
BLOCK_SRC = "Kwon et al. 2023, PagedAttention, sec. 4.1 (whole blocks)"
PREFIX_SRC = ("vLLM docs, Automatic Prefix Caching (whole KV blocks of a common prefix stored "
              "once; Kwon et al. 2023, PagedAttention, sec. 4.4)")
WINDOW_SRC = "Jiang et al. 2023, Mistral 7B, sec. 2 (rolling buffer cache)"


def value_text(r: ResolvedModel, dtype: str) -> str:
    """The stored size of one head vector (or MLA latent) in words: ``"2 bytes (BF16)"`` per
    value, or for a grouped format ``"68 bytes per head and token (INT4: 128 × 4 bits + one
    FP16 scale and one FP16 zero point per head and token)"``."""
    fmt = KV_FORMATS[dtype]
    _, length = kv_vectors(r)
    if not fmt.grouped:
        return f"{count_noun(fmt.value_bits // 8, 'byte')} ({dtype.upper()})"
    bits = fmt.vector_bits(length)
    size = f"{bits // 8:,}" if bits % 8 == 0 else f"{bits / 8:g}"
    what = "latent" if r.arch is not None and r.arch.mla else "head"
    return (f"{size} bytes per {what} and token ({dtype.upper()}: {format_count(length)} × "
            f"{fmt.value_bits} bits + {fmt.meta}; {fmt.bits_per_value(length):g} bits per "
            "value)")


def slots_text(r: ResolvedModel, batch: int, context: int, block: int, shared: int) -> str:
    """The slots part of the formula: ``"4 sequences × 80 layers × 4,096 tokens"``, with the
    shared prefix, block rounding and sliding-window layers spelled out."""
    window = r.sliding_window or 0
    sliding = r.sliding_layers if window else 0
    full = attention_layers(r) - sliding
    once = shared_slots(shared, block)
    private = blocks_of(context - once, block)

    def held(tokens: int, rounded: int) -> str:
        if rounded == tokens:
            return count_noun(tokens, "token")
        return (f"{count_noun(rounded, 'token')} ({format_count(tokens)} in whole blocks of "
                f"{format_count(block)})")

    seqs = count_noun(batch, "sequence")
    noun = ("attention layer" if r.arch is not None and r.arch.mamba_layers
            else "full layer" if sliding else "layer")
    if once:
        per = held(context - once, private)
        tokens = (f"{count_noun(full, noun)} × "
                  f"({count_noun(once, 'shared prefix token')} stored once + {seqs} × {per} "
                  "of their own)")
    else:
        tokens = (f"{seqs} × {count_noun(full, noun)} × "
                  f"{held(context, private)}")
    if sliding:
        kept = min(context, window)
        tokens += (f" + {seqs} × {count_noun(sliding, 'sliding-window layer')} × "
                   f"{held(kept, blocks_of(kept, block))} (min(context, window "
                   f"{format_count(window)}))")
    return tokens


def kv_formula(spec: InferenceSpec, r: ResolvedModel) -> str:
    """The KV cache formula in words with the numbers filled in (without the result)."""
    dtype = kv_dtype(spec)
    per = value_text(r, dtype)
    slots = slots_text(r, spec.batch, spec.context, spec.kv_block, spec.shared_prefix)
    if r.arch is not None and r.arch.mla:
        a = r.arch
        return (f"multi-head latent attention: ({format_count(a.kv_lora_rank)} latent + "
                f"{format_count(a.qk_rope_dim)} rotary key) values × {per} × {slots}")
    gqa = ""
    if r.heads and r.kv_heads != r.heads:
        gqa = f" (grouped-query: {format_count(r.kv_heads or 0)} of " \
              f"{count_noun(r.heads, 'head')})"
    if KV_FORMATS[dtype].grouped:
        return f"2 (K and V) × {count_noun(r.kv_heads or 0, 'KV head')}{gqa} × {per} × {slots}"
    return (f"2 (K and V) × {count_noun(r.kv_heads or 0, 'KV head')}{gqa} × "
            f"{format_count(r.head_dim or 0)} head dim × {per} × {slots}")


def kv_source(spec: InferenceSpec, r: ResolvedModel) -> str:
    """The sources of :func:`kv_formula`: the KV cache, MLA, the storage format, whole blocks,
    prefix caching and the rolling buffer, each when it applies."""
    parts = [KV_SRC]
    if r.arch is not None and r.arch.mla:
        parts.append(MLA_SRC)
    fmt = KV_FORMATS[kv_dtype(spec)]
    if fmt.source:
        parts.append(fmt.source)
    block = spec.kv_block
    if blocks_of(spec.context, block) != spec.context or spec.shared_prefix % block:
        parts.append(BLOCK_SRC)
    if shared_slots(spec.shared_prefix, block):
        parts.append(PREFIX_SRC)
    if r.sliding_window:
        parts.append(WINDOW_SRC)
    return "; ".join(parts)


def kv_bytes(spec: InferenceSpec, r: ResolvedModel) -> int | None:
    """KV cache bytes of one replica, one copy of each KV head (see the module docstring);
    ``None`` when the layers, key/value heads or head size are unknown."""
    if not (r.layers and r.kv_heads and r.head_dim):
        return None
    return layer_token_bytes(r, kv_dtype(spec)) * kv_slots(
        r, spec.batch, spec.context, spec.kv_block, spec.shared_prefix)


def kv_item(spec: InferenceSpec, r: ResolvedModel, items: list[Item],
            omitted: list[Omitted], name: str = "kv_cache", prefix: str = "") -> None:
    """Append the KV cache item ``name`` of model ``r`` to ``items`` (its formula after
    ``prefix``), or its omission (the shapes are unknown) to ``omitted``."""
    if r.arch is not None and r.arch.mamba_layers and not r.arch.attention_layers:
        items.append(make_item(
            name, 0, "0: no layer has attention, so nothing keeps keys and values "
            "(the fixed state each sequence keeps is the ssm state item)",
            "Gu & Dao 2023, Mamba, sec. 3.4 (no attention, a recurrent state)"))
        return
    n_bytes = kv_bytes(spec, r)
    if n_bytes is None:
        omitted.append(
            Omitted(
                name,
                "the KV cache needs the layers, key/value heads and head size: give a model "
                "preset or --layers --hidden --heads (and --kv-heads for grouped-query "
                "attention)",
                "inference",
                "the KV cache needs the layers, key/value heads and head size",
                ("model", "layers", "hidden", "heads", "kv_heads"),
            )
        )
        return
    items.append(lazy_item(name, n_bytes, kv_source(spec, r), _kv_text, prefix, spec, r))


def _kv_text(prefix: str, spec: InferenceSpec, r: ResolvedModel) -> str:
    """A KV cache item's formula (:func:`kv_formula`) after ``prefix``."""
    return prefix + kv_formula(spec, r)
