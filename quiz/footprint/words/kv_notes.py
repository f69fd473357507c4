"""``--explain`` notes on how the KV cache is stored (issue 21 §5): a format below 8 bits with
its scales, prefix caching, a speculative-decoding draft model, and KV heads replicated by
tensor parallelism, each with this case's numbers and how a simpler count differs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.draft import draft_resolved, kv_models
from quiz.footprint.items.kv_layout import (
    KV_FORMATS,
    kv_dtype,
    kv_slots,
    kv_vectors,
    layer_token_bytes,
    replication,
    shared_slots,
)

if TYPE_CHECKING:
    from quiz.footprint.engine.report import Report


def _low_bit(report: Report, b: Callable[[int], str]) -> list[str]:
    inf = report.spec.inference
    r = report.spec.resolved
    dtype = kv_dtype(inf)
    fmt = KV_FORMATS[dtype]
    vectors, length = kv_vectors(r)
    if not fmt.grouped or not vectors or not r.layers:
        return []
    ours = layer_token_bytes(r, dtype) * r.layers
    bare = -(-vectors * length * fmt.value_bits // 8) * r.layers
    bf16 = vectors * length * 2 * r.layers
    if dtype == "int4":
        how = ("LMDeploy's online INT4 KV cache (quant_policy=4): asymmetric, per head and "
               "token; vLLM has no INT4 KV cache (its kv_cache_dtype offers FP8). KIVI (Liu et "
               "al. 2024) and Hugging Face's QuantizedCache quantize in smaller groups and keep "
               "the most recent tokens (residual_length) in 16 bits, so they hold more")
    else:
        how = ("NVFP4 as TensorRT-LLM stores it (NVFP4 KV Cache, Blackwell GPUs): 16 E2M1 values "
               "share one FP8 E4M3 scale; the per-tensor FP32 scale (4 bytes per layer) is left "
               "out")
    return [
        f"KV cache below 8 bits: {dtype.upper()} keeps {format_count(length)} values × "
        f"{fmt.value_bits} bits + {fmt.meta}, {fmt.bits_per_value(length):g} bits per value: "
        f"{count_noun(ours, 'byte')} per token against {format_count(bf16)} in BF16 "
        f"({bf16 / ours:.2f}× smaller, not {16 // fmt.value_bits}×). Counting a bare "
        f"{fmt.value_bits} bits per value gives {count_noun(bare, 'byte')} per token, "
        f"{(ours - bare) / bare:.1%} less than stored. Layout: {how}."
    ]


def _prefix(report: Report, b: Callable[[int], str]) -> list[str]:
    inf = report.spec.inference
    r = report.spec.resolved
    if not inf.shared_prefix or not r.layers or not kv_vectors(r)[0]:
        return []
    block = inf.kv_block
    once = shared_slots(inf.shared_prefix, block)
    per = layer_token_bytes(r, kv_dtype(inf))
    shared = per * kv_slots(r, inf.batch, inf.context, block, inf.shared_prefix)
    alone = per * kv_slots(r, inf.batch, inf.context, block)
    left = inf.shared_prefix - once
    partial = (f"; the other {count_noun(left, 'prefix token')} fill a partial block, which "
               "each sequence keeps (vLLM shares whole blocks only)") if left else ""
    return [
        f"Prefix caching: {count_noun(once, 'token')} of the "
        f"{format_count(inf.shared_prefix)}-token shared prefix ({format_count(once // block)} "
        f"whole blocks of {format_count(block)}) are stored once for the "
        f"{count_noun(inf.batch, 'sequence')}{partial}. Without prefix caching the KV cache "
        f"would be {b(alone)} instead of {b(shared)}. The shared blocks stay only while some "
        "sequence uses them or until vLLM evicts them from its free-block queue (least "
        "recently used first); a prefix that differs by one token in a block shares nothing "
        "from that block on."
    ]


def _draft(report: Report, b: Callable[[int], str]) -> list[str]:
    inf = report.spec.inference
    phase = report.inference
    if inf.draft_model is None or phase is None:
        return []
    d = draft_resolved(inf.draft_model)
    w = phase.item("draft_weights")
    kv = phase.item("draft_kv_cache")
    kv_text = b(kv.bytes) if kv is not None else "not estimated"
    return [
        f"Speculative decoding: the draft model {d.name} adds its weights "
        f"({b(w.bytes) if w is not None else 'not estimated'}) and its own KV cache "
        f"({kv_text}, from its own {count_noun(d.layers or 0, 'layer')} and "
        f"{count_noun(d.kv_heads or 0, 'KV head')}) to each replica. Each step it proposes k "
        "tokens (vLLM's num_speculative_tokens) that take up to k more KV slots per sequence "
        "in both caches while the target verifies them: not counted (a few tokens, usually "
        "inside the last block). Its working memory is not added either: it runs between the "
        "target's steps, whose working set is the larger. The draft must share the target's "
        "tokenizer."
    ]


def _replication(report: Report, b: Callable[[int], str]) -> list[str]:
    phase = report.inference
    if phase is None or phase.kv_tp == 1:
        return []
    inf = report.spec.inference
    notes = []
    for name, m in kv_models(inf, report.spec.resolved).items():
        rep = replication(m, phase.kv_tp)
        item = phase.item(name)
        if not rep.replicated or item is None:
            continue
        one = item.bytes // rep.copies
        who = "the draft model's" if name == "draft_kv_cache" else "the"
        if rep.mla:
            why = ("multi-head latent attention caches one latent per token that every "
                   "attention head reads, so each GPU keeps all of it (DeepSeek deployments "
                   "shard it with data-parallel attention instead, e.g. SGLang's "
                   "--enable-dp-attention)")
        else:
            why = (f"each GPU keeps max(1, {format_count(rep.kv_heads)} / "
                   f"{format_count(rep.tp)}) = {count_noun(rep.per_gpu, 'KV head')}, so each "
                   f"head is stored on {count_noun(rep.copies, 'GPU')} (vLLM replicates KV heads "
                   "when tensor parallelism exceeds them)")
        notes.append(
            f"KV heads replicated: {who} KV cache over tensor parallelism of "
            f"{count_noun(rep.tp, 'GPU')}: {why}. It takes {b(item.bytes)} in the replica "
            f"instead of {b(one)}. At most {count_noun(rep.kv_heads, 'GPU')} of tensor "
            "parallelism (pipeline parallelism for the rest) would not replicate it.")
    return notes


def kv_notes(report: Report, b: Callable[[int], str]) -> list[str]:
    """The ``--explain`` notes on the KV cache's storage that apply to ``report`` (none for a
    16-bit cache of one sequence group without a draft or replication); ``b`` formats bytes."""
    if report.inference is None:
        return []
    return (_low_bit(report, b) + _prefix(report, b) + _draft(report, b)
            + _replication(report, b))
