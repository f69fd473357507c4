"""The serving fit when tensor parallelism replicates key/value heads.

:func:`quiz.footprint.engine.fit.inference_gpus` splits a replica's footprint evenly over the
fewest GPUs tensor parallelism can use. With more GPUs ``t`` than KV heads each GPU still keeps
one KV head, so the replica stores ``t / kv_heads`` copies of its KV cache (vLLM:
``max(1, num_kv_heads // tp)`` heads per GPU; :mod:`quiz.footprint.items.kv_layout`); an MLA
latent is one head, so every GPU of the group keeps all of it. The footprint then grows with
``t``, so the fit tries each usable ``t`` from the even split up and takes the first whose
replicated total fits in ``t × usable``; the KV items are restated with their copies.

When no tensor-parallel count fits, the even-split count is kept with the advice that it
assumes a pipeline split (layers over GPUs: no head is replicated), as the plain fit does past
the number of heads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.engine.fit import inference_gpus, tensor_parallel_fits
from quiz.footprint.engine.report import Unused
from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.draft import kv_models as kv_models
from quiz.footprint.items.item import Item, lazy_item
from quiz.footprint.items.kv_layout import (
    Replication,
    kv_group_heads,
    replicated,
    replication,
)

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

KV_ITEMS = ("kv_cache", "draft_kv_cache")
"""The items tensor parallelism may replicate."""
REPLICATION_SRC = ("vLLM ModelConfig.get_num_kv_heads: max(1, total_num_kv_heads // "
                   "tensor_parallel_size) KV heads per GPU (QKVParallelLinear replicates KV "
                   "heads when tp > num_kv_heads; an MLA latent counts as one head)")


def _replicated_total(total: int, items: list[Item], models: dict[str, ResolvedModel],
                      t: int) -> int:
    extra = 0
    for i in items:
        m = models.get(i.name)
        if m is not None:
            kv = kv_group_heads(m)
            extra += replicated(i.bytes, kv, t) - i.bytes
    return total + extra


def serving_gpus(total: int, memory: int, r: ResolvedModel, items: list[Item],
                 models: dict[str, ResolvedModel]) -> tuple[int, str, int]:
    """``(gpus, advice, tp)``: the fewest GPUs of ``memory`` usable bytes that hold the
    replica, KV heads replicated as tensor parallelism over ``gpus`` requires, and the
    tensor-parallel size whose replication applies (1 when none applies: one GPU, a pipeline
    split, or no heads known). ``models`` maps each KV item's name to its model."""
    gpus, advice = inference_gpus(total, memory, r.heads, r.kv_heads)
    heads, kv_heads = r.heads, r.kv_heads
    if gpus == 1 or not heads or not kv_heads or gpus > heads:
        return gpus, advice, 1
    if _replicated_total(total, items, models, gpus) <= gpus * memory:
        return gpus, advice + _replication_advice(r, gpus), gpus
    for t in range(gpus + 1, heads + 1):
        if tensor_parallel_fits(t, heads, kv_heads) and \
                _replicated_total(total, items, models, t) <= t * memory:
            return t, (f"tensor parallelism over {format_count(t)}: more GPUs than the "
                       f"{format_count(gpus)} an even split needs, because the KV cache grows "
                       f"when KV heads are replicated{_replication_advice(r, t)}"), t
    return gpus, (f"no tensor-parallel count holds the replica once its KV heads are "
                  f"replicated: this count assumes a pipeline split, layers spread over "
                  f"{count_noun(gpus, 'GPU')}"), 1


def _replication_advice(r: ResolvedModel, tp: int) -> str:
    """``"; KV heads replicated: 16 GPUs for 8 KV heads, 2 copies of each"`` when tensor
    parallelism over ``tp`` replicates ``r``'s KV heads; empty otherwise."""
    rep = replication(r, tp)
    if not rep.replicated:
        return ""
    if rep.mla:
        return (f"; KV cache replicated: each of the {count_noun(tp, 'GPU')} keeps the whole "
                f"MLA latent, {format_count(rep.copies)} copies")
    return (f"; KV heads replicated: {count_noun(tp, 'GPU')} for "
            f"{count_noun(rep.kv_heads, 'KV head')}, each GPU keeps "
            f"{count_noun(rep.per_gpu, 'KV head')}, {format_count(rep.copies)} copies of each")


def replicated_items(items: list[Item], models: dict[str, ResolvedModel],
                     tp: int) -> list[Item]:
    """``items`` with each KV item restated as ``tp`` GPUs of tensor parallelism store it
    (bytes × copies, the formula saying why); the others unchanged."""
    if tp == 1:
        return items
    out = []
    for i in items:
        m = models.get(i.name)
        if m is None:
            out.append(i)
            continue
        rep = replication(m, tp)
        if not rep.replicated:
            out.append(i)
            continue
        out.append(lazy_item(i.name, replicated(i.bytes, rep.kv_heads, tp),
                             f"{i.source}; {REPLICATION_SRC}", _copies_text, i, rep))
    return out


def _copies_text(item: Item, rep: Replication) -> str:
    """A replicated KV item's formula: ``item``'s × the copies tensor parallelism keeps."""
    keeps = ("the MLA latent is one KV head: each GPU keeps all of it" if rep.mla
             else f"{count_noun(rep.kv_heads, 'KV head')}: each GPU keeps "
             f"{count_noun(rep.per_gpu, 'KV head')}")
    return (f"({item.formula}) × {rep.copies} copies (tensor parallelism over "
            f"{format_count(rep.tp)} GPUs, {keeps})")


def kv_unused(spec: InferenceSpec) -> list[Unused]:
    """A shared prefix that prefix caching cannot share: shorter than one KV block (vLLM shares
    whole blocks only), so every sequence keeps it (issue 21 §7: nothing accepted silently)."""
    if 0 < spec.shared_prefix < spec.kv_block:
        return [Unused("inference.shared_prefix", f"prefix caching shares whole KV blocks of "
                       f"{count_noun(spec.kv_block, 'token')}, and a prefix of "
                       f"{count_noun(spec.shared_prefix, 'token')} fills none, so each "
                       "sequence keeps it")]
    return []
