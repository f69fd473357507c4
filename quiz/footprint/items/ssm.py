"""The per-sequence state of Mamba (state-space) layers in serving: the ``ssm_state`` item.

A Mamba layer keeps no keys and values; each sequence carries a fixed-size cache instead, the
same at any context length (Gu & Dao 2023, Mamba, sec. 3.4: a recurrent state of N per
channel): per Mamba layer the convolution state ``d_inner × d_conv`` and the SSM state
``d_inner × d_state``, in the model's dtype (Hugging Face ``MambaCache`` and Jamba's
``HybridMambaAttentionDynamicCache`` hold ``conv_states`` and ``ssm_states`` of those shapes;
vLLM's ``mamba_ssm_cache_dtype`` defaults to the model's dtype too, so an FP8 KV cache does not
shrink it).

``ssm_state`` bytes = batch × Mamba layers × d_inner × (d_conv + d_state) × e, with e = 2 bytes
(4 for FP32 weights).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, lazy_item
from quiz.footprint.items.regime import activation_value_bytes

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture
    from quiz.footprint.inputs.parts import InferenceSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

SSM_SRC = ("Gu & Dao 2023, Mamba, sec. 3.4 (a recurrent state per sequence); Hugging Face "
           "transformers MambaCache / HybridMambaAttentionDynamicCache (conv_states d_inner × "
           "d_conv, ssm_states d_inner × d_state per Mamba layer, in the model's dtype)")


def ssm_sequence_bytes(spec: InferenceSpec, r: ResolvedModel) -> int:
    """Bytes of one sequence's Mamba state over all Mamba layers (0 without Mamba layers)."""
    a = r.arch
    if a is None or not a.mamba_layers:
        return 0
    return a.mamba_layers * a.ssm_state_values * activation_value_bytes(spec.weights)


def ssm_items(spec: InferenceSpec, r: ResolvedModel) -> list[Item]:
    """The ``ssm_state`` item of a model with Mamba layers (none otherwise)."""
    per = ssm_sequence_bytes(spec, r)
    if not per:
        return []
    assert r.arch is not None
    return [lazy_item("ssm_state", spec.batch * per, SSM_SRC, _ssm_text, spec, r.arch)]


def _ssm_text(spec: InferenceSpec, a: Architecture) -> str:
    """The ssm_state item's formula: the sequences × the Mamba layers' state values × the
    bytes of one."""
    e = activation_value_bytes(spec.weights)
    layers = count_noun(a.mamba_layers, "Mamba layer")
    return (f"{count_noun(spec.batch, 'sequence')} × {layers} × "
            f"{format_count(a.ssm_inner)} d_inner × ({format_count(a.ssm_conv)} conv + "
            f"{format_count(a.ssm_state)} state) × {count_noun(e, 'byte')}: a fixed state per "
            "sequence, whatever the context length")
