"""Mixture-of-experts activations in training, and the token counts per device they share with
:mod:`quiz.footprint.items.activations` (no import of :mod:`quiz.footprint.items.model_states`,
which reads
:func:`moe_layer_change`)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.regime import activation_value_bytes

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel


def _sp(t: TrainingSpec) -> bool:
    """Whether sequence parallelism splits the replicated activations over t."""
    return t.sequence_parallel and t.tp > 1


def _split(t: TrainingSpec) -> int:
    """The divisor of the activations outside the tensor-parallel regions: t with sequence
    parallelism, else 1 (they are replicated on every tensor-parallel rank)."""
    return t.tp if _sp(t) else 1


def _tokens(t: TrainingSpec) -> int:
    """Tokens of a micro-batch on one device: s × b, ÷ cp with context parallelism (each rank
    keeps its s/cp tokens; the spec checks that cp divides s)."""
    return t.seq_len // t.cp * t.micro_batch


MOE_SRC = (
    "mixture of experts, derived here: Korthikanti's dense 4h MLP replaced by the router and "
    "top-k experts (Fedus et al. 2022, Switch Transformers, sec. 2; Jiang et al. 2024, Mixtral, "
    "sec. 2: softmax over the top-k router logits; Megatron-LM moe token dispatcher: each token "
    "copied to its k experts); tokens spread evenly over the experts and expert-parallel ranks"
)


def moe_layer_change(t: TrainingSpec, r: ResolvedModel) -> Fraction:
    """What a mixture-of-experts layer keeps beyond Korthikanti's dense layer, per layer, in
    bytes (recomputation none or selective; full recomputation keeps only the layer input).

    For T = s/cp × b tokens, k active of E experts, MLP size f per expert, e-byte activations,
    tensor-parallel size t (``split`` = t with sequence parallelism, else 1):

    * minus the dense MLP's own tensors: Korthikanti's 4h GeLU input and output, 8e·Th/t
      (sec. 4.1), or under ``--convention practice`` those of
      :func:`~quiz.footprint.items.layer_activations.mlp_internal_bytes`;
    * plus each token's k copies through the experts: the dispatched input and the expert
      output (scaled by its routing weight, which keeps it for the backward pass), 2e·Tkh/split,
      and the first projection's outputs and the activation output, e·Tk·3f/t for a gated
      (SwiGLU) expert, e·Tk·2f/t without a gate;
    * plus the router: FP32 probabilities over E experts kept for the softmax's backward, the
      top-k FP32 weights and int64 expert indices, T(4E + 12k)/split.

    The router's input (the norm's output) and the MLP's dropout mask are already in Table 2.
    ``0`` for a dense model.
    """
    arch = r.arch
    if arch is None or arch.experts <= 1:
        return Fraction(0)
    e = activation_value_bytes(t.precision)
    tokens = _tokens(t)
    h, f, k, n = arch.hidden, arch.ffn, arch.active_experts, arch.experts
    inner = 3 * f if arch.gated_mlp else 2 * f
    split = _split(t)
    if t.convention == "practice":  # the dense MLP's own tensors of the family model
        from quiz.footprint.items.layer_activations import mlp_internal_bytes

        dense = mlp_internal_bytes(arch, tokens, e, 1 if t.precision == "mixed-fp8" else e)
    else:
        dense = 8 * e * tokens * h  # Korthikanti's 4h GeLU input and output
    return (Fraction(-dense, t.tp)
            + Fraction(2 * e * tokens * k * h + tokens * (4 * n + 12 * k), split)
            + Fraction(e * tokens * k * inner, t.tp))


def moe_formula(t: TrainingSpec, r: ResolvedModel) -> str:
    """The words of :func:`moe_layer_change` with this case's numbers, appended to the layers'
    formula."""
    arch = r.arch
    assert arch is not None
    e = activation_value_bytes(t.precision)
    k, n, f = arch.active_experts, arch.experts, arch.ffn
    inner = 3 if arch.gated_mlp else 2
    per = "/t" if t.tp > 1 else ""
    split = "/t" if _sp(t) else ""
    change = moe_layer_change(t, r)
    per_layer = format_count(-(-change.numerator // change.denominator))
    return (f"; mixture of experts ({count_noun(n, 'expert')}, top-{k}), per layer: − {8 * e}"
            f"sbh{per} (Table 2's dense 4h MLP) + {2 * e}sbkh{split} (each token's k copies in "
            f"and out) + {e * inner}sbkf{per} (f = {format_count(f)}, "
            f"{'gate, up and activation outputs' if inner == 3 else 'both projections'}) + "
            f"sb(4E + 12k){split} (router) = {per_layer} bytes per layer")
