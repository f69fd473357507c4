"""A speculative-decoding draft model (``--draft-model PRESET``): a small model that proposes
``k`` tokens which the served (target) model verifies in one step (Leviathan et al. 2023, Fast
Inference from Transformers via Speculative Decoding; Chen et al. 2023). The serving engine
keeps both models' weights and both models' KV caches (vLLM's draft-model speculative decoding
loads the draft beside the target and gives it its own KV cache, sized from its own
architecture).

Items (two named rows, so the draft's cost is visible on its own)
    ``draft_weights``: the draft's parameters × the serving activation width (2 bytes; 4 when
    the target runs in FP32): the draft loads unquantized in the engine's dtype.
    ``draft_kv_cache``: the draft's own KV cache for the same batch, context, KV format, block
    size and shared prefix (:func:`quiz.footprint.items.kv_cache.kv_item` with the draft's
    layers, KV heads and head size). Tensor parallelism replicates its KV heads by the same rule
    as the target's (:mod:`quiz.footprint.items.kv_layout`).
Not counted
    The ``k`` proposed tokens each sequence holds while they are verified (``k`` extra KV slots
    per sequence in each cache, a few tokens, usually inside the last block), and the draft's
    working memory (it runs between the target's steps and its working set is smaller).
"""

from __future__ import annotations

from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from quiz.footprint.inputs.units import count_noun
from quiz.footprint.items.item import Item, Omitted, lazy_item
from quiz.footprint.items.kv_cache import kv_item

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

DRAFT_SRC = ("Leviathan et al. 2023, Fast Inference from Transformers via Speculative Decoding; "
             "vLLM docs, Speculative Decoding (a draft model is loaded beside the target, with "
             "its own KV cache)")


@cache
def draft_resolved(preset: str) -> ResolvedModel:
    """The draft model preset ``preset`` in exact numbers (resolved once)."""
    from quiz.footprint.inputs.fields import ARCH_FIELDS
    from quiz.footprint.inputs.resolve import resolve

    blank: dict[str, Any] = dict.fromkeys(ARCH_FIELDS)
    return resolve(SimpleNamespace(model=preset, params=None, config=None, **blank))


def draft_weight_bytes(spec: InferenceSpec, d: ResolvedModel) -> int:
    """The draft's weights: its parameters × 2 bytes (× 4 when the target runs in FP32)."""
    return d.params * (4 if spec.weights == "fp32" else 2)


def draft_items(spec: InferenceSpec) -> tuple[list[Item], list[Omitted]]:
    """The ``draft_weights`` and ``draft_kv_cache`` items of ``spec.draft_model`` (none without
    a draft model)."""
    items: list[Item] = []
    omitted: list[Omitted] = []
    if spec.draft_model is None:
        return items, omitted
    d = draft_resolved(spec.draft_model)
    items.append(lazy_item("draft_weights", draft_weight_bytes(spec, d), DRAFT_SRC,
                           _draft_weights_text, spec, d))
    kv_item(spec, d, items, omitted, name="draft_kv_cache", prefix=f"draft model {d.name}: ")
    return items, omitted


def _draft_weights_text(spec: InferenceSpec, d: ResolvedModel) -> str:
    """The draft_weights item's formula: the draft model ``d``'s parameters × the bytes of
    the engine's 16-bit (or FP32) dtype."""
    width = "FP32" if spec.weights == "fp32" else ("FP16" if spec.weights == "fp16" else "BF16")
    per = 4 if spec.weights == "fp32" else 2
    return (f"draft model {d.name}: {count_noun(d.params, 'param')} × "
            f"{count_noun(per, 'byte')} ({width}, unquantized in the engine's dtype)")


def kv_models(spec: InferenceSpec, r: ResolvedModel) -> dict[str, ResolvedModel]:
    """Each KV item's name → the model whose heads it stores: the target's ``kv_cache``, and
    the draft model's ``draft_kv_cache`` when there is one."""
    models = {"kv_cache": r}
    if spec.draft_model is not None:
        models["draft_kv_cache"] = draft_resolved(spec.draft_model)
    return models
