"""Training activations outside the transformer layers: the embedding, the output layer and
the logits (Korthikanti et al. 2022, sec. 4.3).

For sequence length s, micro-batch b, hidden size h, vocabulary v, tensor-parallel size t,
pipeline-parallel size p and e-byte activations (e = 2 for 16-bit training, 4 for FP32), the
first pipeline stage keeps, besides its layers (:mod:`quiz.footprint.items.model_states`):

embedding
    the dropout mask after the input embedding, 1 byte per value, for the p micro-batches in
    flight: ``sbhp`` (``/t`` with sequence parallelism, which splits it along the sequence).
    Sec. 4.3: "the dropout in the embedding layer ... will require sbhp/t storage".
output layer (only when p = 1: with pipeline parallelism it sits on the last stage)
    the input of the final layer norm and the input of the output projection, e bytes each:
    ``2e·sbh`` (``/t`` with sequence parallelism). Sec. 4.3: "2sbh/t" each at 16 bits.
logits (only when p = 1)
    ``sbv/t × (e + 4)``: the e-byte logits the vocabulary-parallel output projection produces
    (split over t) and the FP32 copy cross-entropy makes of them and keeps for its backward pass.
    Megatron-LM's ``vocab_parallel_cross_entropy`` calls ``logits.float()`` and saves the
    softmax it computes in place on that FP32 copy (``megatron/core/tensor_parallel/
    cross_entropy.py``, ``ctx.save_for_backward(exp_logits, ...)``); Hugging Face's
    ``ForCausalLMLoss`` upcasts with ``logits.float()`` and ``log_softmax`` keeps its FP32
    output. The e-byte logits are alive while the loss is computed, at the end of the forward
    pass, which is when activation memory peaks (Megatron's GPTModel holds them until
    ``compute_language_model_loss`` returns; Hugging Face returns them in the model output).
    In the FP32 regime ``.float()`` returns the same tensor: ``4sbv/t`` only. Korthikanti's
    sec. 4.3 counts the FP32 copy alone (``4sbv/t``); the e-byte logits are this tool's
    addition, and ``--explain`` says so.

Sec. 4.3 sums the three as ``sbhL/t (p/L + δ(p=1) · 4/L · (1 + v/h))`` at 16 bits with sequence
parallelism: ``sbhp/t + δ(p=1) · (4sbh/t + 4sbv/t)``. Megatron-LM's
``theoretical_memory_usage.py`` adds the same terms (and 8sbp bytes of int64 token ids, not
counted here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, Omitted, lazy_item, make_item
from quiz.footprint.items.layer_activations import FAMILY_SRC, gpt_style
from quiz.footprint.items.model_states import activation_bytes
from quiz.footprint.items.moe import _sp, _split, _tokens
from quiz.footprint.items.regime import activation_value_bytes

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

SEC_4_3 = "Korthikanti et al. 2022, Reducing Activation Recomputation, sec. 4.3"
LOGITS_SRC = (
    f"{SEC_4_3} (FP32 logits for cross-entropy, 4sbv/t); Megatron-LM "
    "tensor_parallel/cross_entropy.py (logits.float(), softmax saved for backward); Hugging "
    "Face ForCausalLMLoss (logits.float(), log_softmax)"
)

EXTRA_ITEMS = ("embedding_activations", "output_activations", "logits")
"""The training items this module adds, in display order."""


def embedding_activation_bytes(t: TrainingSpec, r: ResolvedModel) -> int | None:
    """The embedding dropout mask on the first pipeline stage: s × b × h × p bytes (1 byte per
    value, p micro-batches in flight), ÷ t with sequence parallelism, rounded up
    (Korthikanti et al. 2022, sec. 4.3: sbhp/t); 0 with adapters (``finetune`` lora or qlora:
    the embedding is frozen, so nothing below the first layer needs a gradient). ``None``
    without the hidden size."""
    if not r.hidden:
        return None
    if t.finetune != "full":  # a frozen embedding gets no gradient: no mask is kept
        return 0
    if no_embedding_dropout(t, r):
        return 0
    return -(-_tokens(t) * r.hidden * t.pp // _split(t))


def no_embedding_dropout(t: TrainingSpec, r: ResolvedModel) -> bool:
    """Whether the family model (``--convention practice``) has no embedding dropout: a
    Llama-style architecture (:func:`~quiz.footprint.items.layer_activations.gpt_style`)."""
    return (t.convention == "practice" and r.arch is not None
            and not gpt_style(r.arch))


def output_activation_bytes(t: TrainingSpec, r: ResolvedModel) -> int | None:
    """The inputs of the final norm and of the output projection, e bytes each: 2e × s × b × h,
    ÷ t with sequence parallelism; 0 with pipeline parallelism (the output layer is on the last
    stage, not the first; Korthikanti et al. 2022, sec. 4.3: 2sbh/t + 2sbh/t). With adapters
    (``finetune`` lora or qlora) the frozen LM head keeps no input, only the norm's (as in
    :func:`quiz.footprint.items.lora.activation_change`). ``None`` without the hidden size."""
    if not r.hidden:
        return None
    if t.pp > 1:
        return 0
    e = activation_value_bytes(t.precision)
    kept = 1 if t.finetune != "full" else 2  # a frozen LM head keeps no input (LoRA, QLoRA)
    return -(-kept * e * _tokens(t) * r.hidden // _split(t))


def logit_value_bytes(t: TrainingSpec) -> int:
    """Bytes kept per logit: e (the output projection's logits) + 4 (cross-entropy's FP32
    copy) = 6 in 16-bit training; 4 in FP32 training, where no copy is made; ``logits_bytes``
    when given (4: the FP32 copy alone, Korthikanti et al. 2022 sec. 4.3)."""
    if t.logits_bytes is not None:
        return t.logits_bytes
    e = activation_value_bytes(t.precision)
    return 4 if e == 4 else e + 4


def logits_bytes(t: TrainingSpec, r: ResolvedModel) -> int | None:
    """The logits per device: s × b × v × :func:`logit_value_bytes` ÷ t (the output projection
    is vocabulary-parallel), rounded up; 0 with pipeline parallelism (first stage). ``None``
    without the vocabulary size."""
    if not r.vocab:
        return None
    if t.pp > 1:
        return 0
    return -(-_tokens(t) * r.vocab * logit_value_bytes(t) // t.tp)


def extra_activation_bytes(t: TrainingSpec, r: ResolvedModel) -> int:
    """The sum of the three items above (those that can be computed): what the fewest-GPU
    search adds to the layers' activations."""
    parts = (embedding_activation_bytes(t, r), output_activation_bytes(t, r),
             logits_bytes(t, r))
    return sum(p for p in parts if p is not None)


def training_activation_bytes(t: TrainingSpec, r: ResolvedModel) -> int | None:
    """Every activation item of training per device: the layers
    (:func:`~quiz.footprint.items.model_states.activation_bytes`) plus
    :func:`extra_activation_bytes`;
    ``None`` when the layers' activations cannot be computed. The fewest-GPU search adds this to
    the model states (it does not change with the data-parallel size)."""
    layers = activation_bytes(t, r)
    if layers is None:
        return None
    return layers + extra_activation_bytes(t, r)


def extra_activation_items(
    t: TrainingSpec, r: ResolvedModel
) -> tuple[list[Item], list[Omitted]]:
    """The items ``embedding_activations``, ``output_activations`` (pipeline parallel size 1)
    and ``logits`` (pipeline parallel size 1), each with its formula and source; nothing when
    the layers' activations cannot be computed (that item's omission says why)."""
    items: list[Item] = []
    omitted: list[Omitted] = []
    if not (r.layers and r.hidden and r.heads):
        return items, omitted
    e = activation_value_bytes(t.precision)
    # The formulas are written when first read (Item), by the writers below.

    emb = embedding_activation_bytes(t, r)
    assert emb is not None
    frozen = t.finetune != "full"
    if not frozen and no_embedding_dropout(t, r):
        items.append(make_item(
            "embedding_activations", emb,
            "0: this Llama-style model has no embedding dropout, so no mask is kept",
            FAMILY_SRC))
    elif frozen:
        items.append(make_item(
            "embedding_activations", emb,
            "0: the embedding is frozen (LoRA/QLoRA), so no gradient flows into it and its "
            "dropout keeps no mask",
            SEC_4_3 + " (embedding dropout, sbhp/t, needed only for the embedding's gradient)"))
    else:
        items.append(lazy_item("embedding_activations", emb,
                               SEC_4_3 + " (embedding dropout, sbhp/t)", _embedding_text, t, r))
    if t.pp > 1:
        last = (f"0 on the first pipeline stage, which this estimate describes: with pp "
                f"{format_count(t.pp)} the final norm, the output projection and the logits "
                "sit on the last stage (sec. 4.3 counts them only with p = 1)")
        items.append(make_item("output_activations", 0, last, SEC_4_3))
        items.append(make_item("logits", 0, last, SEC_4_3))
        return items, omitted
    out = output_activation_bytes(t, r)
    assert out is not None
    if frozen:
        items.append(lazy_item(
            "output_activations", out,
            SEC_4_3 + " (2sbh/t + 2sbh/t at 16 bits, the second for the output projection's "
            "weight gradient)", _frozen_output_text, t, r))
    else:
        items.append(lazy_item(
            "output_activations", out,
            SEC_4_3 + (" (2sbh/t + 2sbh/t at 16 bits)" if e == 2 else
                       " re-derived for 4-byte activations"), _output_text, t, r))
    lg = logits_bytes(t, r)
    if lg is None:
        omitted.append(Omitted(
            "logits",
            "the logits need the vocabulary size: give a model preset or --vocab",
            "training", "the logits need the vocabulary size", ("model", "vocab")))
        return items, omitted
    items.append(lazy_item("logits", lg, LOGITS_SRC, _logits_text, t, r))
    return items, omitted


# The formulas of extra_activation_items' items (s, b, h: tokens a sequence holds on a rank,
# micro-batch, hidden size; e: bytes of an activation value).

def _per_t(t: TrainingSpec) -> str:
    """``" / t (…, sequence parallel)"``, or ``""`` without sequence parallelism."""
    return f" / t ({format_count(t.tp)}, sequence parallel)" if _sp(t) else ""


def _where(t: TrainingSpec, r: ResolvedModel) -> str:
    """``"s = …, b = …, h = …"`` (s after context parallelism)."""
    text = f"s = {format_count(t.seq_len // t.cp)}"
    if t.cp > 1:
        text += f" ({format_count(t.seq_len)} / cp {format_count(t.cp)})"
    return text + f", b = {format_count(t.micro_batch)}, h = {format_count(r.hidden or 0)}"


def _sbh(t: TrainingSpec, r: ResolvedModel) -> str:
    """s × b × h as a number."""
    return format_count(t.seq_len // t.cp * t.micro_batch * (r.hidden or 0))


def _embedding_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The embedding's dropout mask: sbhp/t, one byte a value for p micro-batches."""
    return (f"sbhp{'/t' if _sp(t) else ''}: the embedding's 1-byte dropout mask for "
            f"{count_noun(t.pp, 'micro-batch', 'micro-batches')} in flight "
            f"(p = {format_count(t.pp)}) with {_where(t, r)}: "
            f"{_sbh(t, r)} × {format_count(t.pp)}{_per_t(t)}")


def _frozen_output_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The output activations of adapters: the final norm's input only."""
    e = activation_value_bytes(t.precision)
    return (f"{e}sbh{'/t' if _sp(t) else ''}: the input of the final norm, {e} bytes, "
            f"with {_where(t, r)}: {e} × {_sbh(t, r)}{_per_t(t)}; the frozen output "
            "projection keeps no input (its weight needs no gradient)")


def _output_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The output activations: the inputs of the final norm and of the output projection."""
    e = activation_value_bytes(t.precision)
    return (f"{2 * e}sbh{'/t' if _sp(t) else ''}: the inputs of the final norm and of the "
            f"output projection, {e} bytes each, with {_where(t, r)}: 2 × {e} × "
            f"{_sbh(t, r)}{_per_t(t)}")


def _logits_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The logits: sbv/t values and what precision they are kept in."""
    e = activation_value_bytes(t.precision)
    v = r.vocab or 0
    if e == 4:
        kept = "FP32 logits (no copy: .float() returns them)"
    elif logit_value_bytes(t) == 4:
        kept = "the FP32 copy for cross-entropy alone, as Korthikanti et al. count it"
    else:
        kept = f"{e}-byte logits + 4-byte FP32 copy for cross-entropy"
    tp_text = (f" / t ({format_count(t.tp)}, vocabulary-parallel output layer)"
               if t.tp > 1 else "")
    return (f"sbv{'/t' if t.tp > 1 else ''} × {logit_value_bytes(t)} bytes ({kept}) with "
            f"{_where(t, r).split(', h =')[0]}, v = {format_count(v)}: "
            f"{format_count(t.seq_len // t.cp * t.micro_batch * v)} × "
            f"{logit_value_bytes(t)}{tp_text}")


__all__ = [
    "EXTRA_ITEMS",
    "embedding_activation_bytes",
    "extra_activation_bytes",
    "extra_activation_items",
    "logit_value_bytes",
    "logits_bytes",

    "output_activation_bytes",
    "training_activation_bytes",
]
