"""Fine-tuning with adapters: LoRA (Hu et al. 2021) and QLoRA (Dettmers et al. 2023).

LoRA freezes the pretrained weights W₀ and learns a low-rank update ΔW = BA for each *target*
projection (Hu et al. 2021, sec. 4.1): for a linear layer with ``d_in`` inputs and ``d_out``
outputs, A has d_in × r values and B has r × d_out (PEFT's ``lora_A = nn.Linear(in_features, r)``,
``lora_B = nn.Linear(r, out_features)``, no biases). The targets are the projections of every
transformer block, named as in the issue and PEFT's ``target_modules`` without ``_proj``:

====== ============================ ============================
target d_in                         d_out
====== ============================ ============================
q      hidden                       heads × head_dim
k, v   hidden                       kv_heads × head_dim (GQA)
o      heads × head_dim             hidden
gate   hidden                       ffn (gated MLP only)
up     hidden                       ffn (the first MLP matrix)
down   ffn                          hidden
====== ============================ ============================

per layer, and the MLP targets once per expert in a mixture of experts (the router gets none).
Llama-2-7B (hidden 4,096, ffn 11,008, 32 layers): r = 8 on q and v gives
32 × 2 × 8 × (4,096 + 4,096) = 4,194,304 adapter parameters; r = 16 on every projection
32 × 16 × (4 × 8,192 + 3 × 15,104) = 39,976,960.

Memory per device, with ``P`` the model's parameters and ``Pₐ`` the adapters':

frozen base
    LoRA: P in the working weights' dtype (16-bit in mixed precision). QLoRA: every linear
    weight of the blocks in 4-bit NF4 with its block constants (:func:`qlora_base`, the
    layout of :mod:`quiz.footprint.quant.schemes`), everything else (embeddings, LM head, norms,
    biases) in the working dtype — what ``transformers`` does when it loads a model with
    bitsandbytes' 4-bit config (it replaces the linear layers by ``Linear4bit`` and skips the
    LM head). No gradients and no optimizer states for the base.
adapters
    Pₐ working weights, gradients, the FP32 master copy (mixed precision) and the optimizer
    states — the full fine-tuning count of :mod:`quiz.footprint.items.model_states` for Pₐ
    parameters.
    ZeRO stages, tensor and pipeline parallelism split them as they split the model.
activations
    :func:`activation_change`: what the frozen layers keep for the backward pass.

Sources: Hu et al. 2021, "LoRA", sec. 4.1; Dettmers et al. 2023, "QLoRA", sec. 2–3; PEFT
``tuners/lora/layer.py``; bitsandbytes ``functional.py`` (``quantize_4bit``) and
``autograd/_functions.py`` (``MatMul4Bit``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from quiz.footprint.inputs.arch import Architecture, linear_matrices
from quiz.footprint.inputs.lora_targets import (
    ATTENTION_TARGETS,
    MLP_TARGETS,
    active_adapter_params,
    adapted_matrices,
    adapter_params,
    targets_of,
)
from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.item import Item, lazy_item
from quiz.footprint.items.pipeline import layers_held, uneven
from quiz.footprint.items.regime import (
    _BYTES,
    ADAM_8BIT_BLOCK,
    ADAM_8BIT_SRC,
    ADAM_SRC,
    MIXED_ZERO_SRC,
    ZERO_SRC,
    activation_value_bytes,
    grad_dtype,
    has_master,
    per_value_optimizer_bytes,
    shard_count,
    state_bytes,
    weight_dtype,
)

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

LORA_SRC = "Hu et al. 2021, LoRA, sec. 4.1 (W₀ + BA; A: d_in × r, B: r × d_out)"
QLORA_SRC = "Dettmers et al. 2023, QLoRA, sec. 2–3"
PEFT_SRC = "PEFT tuners/lora/layer.py (lora_A: in_features → r, lora_B: r → out_features)"
NF4_SRC = ("Dettmers et al. 2023, QLoRA, sec. 2 (NF4, blocks of 64) and sec. 3 (double "
           "quantization); bitsandbytes functional.py quantize_4bit (FP32 absmax per block and a "
           "16-entry code table; with compress_statistics quantize_blockwise(absmax − offset, "
           "blocksize=256))")
BNB_LOAD_SRC = ("transformers integrations/bitsandbytes.py (replace_with_bnb_linear: every "
                "nn.Linear becomes Linear4bit except the LM head, get_keys_to_not_convert)")
PEFT_SAVE_SRC = ("PEFT PeftModel.save_pretrained (adapter weights only); a Trainer checkpoint "
                 "adds the adapters' optimizer states")
AUTOGRAD_SRC = ("PyTorch autograd (MmBackward0 saves the input only when the weight needs a "
                "gradient); bitsandbytes MatMul4Bit saves the 4-bit weight, not the input")
_LORA_ZERO_SRC = f"{LORA_SRC}; {ZERO_SRC}"
_QLORA_BASE_SRC = f"{QLORA_SRC}; {BNB_LOAD_SRC}"
_ADAPTER_SRC = f"{LORA_SRC}; {PEFT_SRC}"


ADAPTER_FLOPS_SRC = ("Kaplan et al. 2020, sec. 2.1 (2N per token forward; the backward pass "
                     "twice that: 2N for the gradients of the inputs, 2N for those of the "
                     "weights); Hu et al. 2021, LoRA, sec. 4.2 (the frozen weights need no "
                     "gradients)")


def adapter_training_flops(t: TrainingSpec, r: ResolvedModel, n: int, tokens: int) -> int:
    """Model FLOPs of training adapters on ``tokens`` tokens: (4N + 6Nₐ) × D. The frozen model
    (``n`` active parameters) runs forward (2N) and passes the gradients of its inputs back
    (2N) but computes no weight gradients; the adapters (Nₐ active) do all three (6Nₐ) —
    :data:`ADAPTER_FLOPS_SRC`."""
    na = active_adapter_params(_arch(r), t.lora_rank, t.lora_targets)
    return (4 * n + 6 * na) * tokens


# -- QLoRA's 4-bit base -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Nf4Base:
    """QLoRA's frozen base in numbers (from
    :func:`quiz.footprint.quant.schemes.bnb_4bit_model_bytes`).

    Attributes:
        weights: bytes of the packed 4-bit values of the quantized matrices.
        constants: bytes of their quantization constants: block absmax (FP32, or 8-bit with
            double quantization plus FP32 second-level scales and offsets) and code tables.
        blocks: blocks of 64 values over all quantized matrices.
        values: weights quantized (the linear layers of the blocks).
        tensors: matrices quantized.
        kept: parameters kept in the working dtype (embeddings, LM head, norms, biases, router).
    """

    weights: int
    constants: int
    blocks: int
    values: int
    tensors: int
    kept: int


@lru_cache(maxsize=256)
def qlora_base(arch: Architecture, double_quant: bool) -> Nf4Base:
    """The NF4 storage of ``arch``'s frozen base: bitsandbytes' layout, landed in
    :mod:`quiz.footprint.quant.schemes` (:data:`~quiz.footprint.quant.schemes.BNB_SRC`): per matrix
    of n values
    ⌈n/2⌉ bytes of 4-bit codes and b = ⌈n/64⌉ blocks, each with an FP32 absmax, or with double
    quantization an 8-bit absmax plus an FP32 scale per 256 blocks and an FP32 offset; the code
    tables per tensor. 4.5 and ≈4.127 bits per weight (QLoRA sec. 3)."""
    from quiz.footprint.quant.layouts import bnb_4bit_layout, bnb_4bit_model_bytes

    model = bnb_4bit_model_bytes(arch, "nf4", double_quant=double_quant)
    layout = bnb_4bit_layout("nf4", double_quant=double_quant)
    mats = linear_matrices(arch)
    return Nf4Base(
        weights=model.quantized.values,
        constants=model.quantized.overhead,
        blocks=sum(layout.blocks(out, inp) * k for out, inp, k in mats),
        values=model.quantized_params,
        tensors=sum(k for _, _, k in mats),
        kept=model.kept_params,
    )


# -- memory per device ------------------------------------------------------------------------


def _arch(r: ResolvedModel) -> Architecture:
    if r.arch is None:  # the spec refuses LoRA without an architecture
        raise ValueError("LoRA needs the model's architecture")
    return r.arch


def trainable_params(t: TrainingSpec, r: ResolvedModel) -> int:
    """Pₐ for the rank and targets of ``t``."""
    return adapter_params(_arch(r), t.lora_rank, t.lora_targets)


def base_bytes(t: TrainingSpec, r: ResolvedModel) -> tuple[int, int]:
    """``(weights, constants)``: bytes of the frozen base of the whole model, unsharded.
    LoRA: every parameter in the working dtype, no constants. QLoRA: the NF4 codes plus the
    parameters kept in the working dtype, and the NF4 block constants."""
    wb = _BYTES[weight_dtype(t)]
    if t.finetune != "qlora":
        return r.params * wb, 0
    base = qlora_base(_arch(r), t.double_quant)
    return base.weights + base.kept * wb, base.constants


def adapter_optimizer_bytes(t: TrainingSpec, r: ResolvedModel) -> int:
    """Optimizer-state bytes of all adapters, unsharded: SGD 0; momentum 1 and Adam/AdamW 2
    values per parameter; 8-bit Adam 2 × (1 byte per value + a 4-byte absmax per block of 256,
    counted over all adapter values as
    :func:`~quiz.footprint.items.model_states.optimizer_bytes_per_device`
    counts a model's); Adafactor r + c statistics for each r × c matrix."""
    arch, sb = _arch(r), state_bytes(t)
    # As for full fine-tuning (8-bit Adam: the blocks over all adapter values at once).
    per_value = per_value_optimizer_bytes(t.optimizer, trainable_params(t, r), sb)
    if per_value is not None:
        return per_value
    # adafactor: A is stored as r × d_in, B as d_out × r (nn.Linear weights)
    stats = sum(m.count * ((t.lora_rank + m.d_in) + (m.d_out + t.lora_rank))
                for m in adapted_matrices(arch, t.lora_targets))
    return stats * sb


@dataclass(frozen=True, slots=True)
class AdapterStates:
    """Bytes per device of the model states of an adapter fine-tuning (see the module
    docstring); :attr:`total` is their sum."""

    base: int
    constants: int
    adapter: int
    gradients: int
    master: int
    optimizer: int

    def by_item(self) -> dict[str, int]:
        """The bytes by item name (``weights`` is the frozen base), as the training items show
        them; items of 0 bytes (no NF4 constants, no master copy) left out."""
        named = {"weights": self.base, "quantization_overhead": self.constants,
                 "adapter_weights": self.adapter, "gradients": self.gradients,
                 "master_weights": self.master, "optimizer_states": self.optimizer}
        for k in ("quantization_overhead", "adapter_weights", "gradients", "master_weights"):
            if not named[k]:  # (a loop: a comprehension is a function made and called)
                del named[k]
        return named

    @property
    def total(self) -> int:
        """All model states per device."""
        return (self.base + self.constants + self.adapter + self.gradients + self.master
                + self.optimizer)


_WHOLE: dict[tuple[object, ...], tuple[int, int, int, int]] = {}
"""Unsharded ``(Pₐ, base bytes, NF4 constant bytes, optimizer bytes)`` by what they depend on:
the fewest-GPU search asks for the states at many data-parallel sizes."""


_LAST_WHOLE: list[tuple[ResolvedModel, tuple[object, ...], tuple[int, int, int, int]]] = []
"""The last answer of :func:`_whole` with the resolved model it was for (resolutions are cached,
so an estimate and the next one share it): no hashing of the architecture on a hit."""


def _whole(t: TrainingSpec, r: ResolvedModel) -> tuple[int, int, int, int]:
    fields = (r.params, t.finetune, t.lora_rank, t.lora_targets, t.double_quant, t.precision,
              t.optimizer)
    if _LAST_WHOLE and _LAST_WHOLE[0][0] is r and _LAST_WHOLE[0][1] == fields:
        return _LAST_WHOLE[0][2]
    key = (r.arch, *fields)
    found = _WHOLE.get(key)
    if found is None:
        if len(_WHOLE) >= 256:
            _WHOLE.clear()
        found = _WHOLE[key] = (trainable_params(t, r), *base_bytes(t, r),
                               adapter_optimizer_bytes(t, r))
    _LAST_WHOLE[:] = [(r, fields, found)]
    return found


_STATES: dict[tuple[object, ...], AdapterStates] = {}
"""Answers of :func:`adapter_states` for the resolved model in :data:`_STATES_MODEL`, by ``dp``
and every field value of the training spec (an estimate asks three to five times: items,
fewest-GPU search, checkpoints)."""
_STATES_MODEL: list[ResolvedModel] = []


def adapter_states(t: TrainingSpec, r: ResolvedModel, dp: int) -> AdapterStates:
    """The model states per device with ``dp`` data-parallel devices: the frozen base (ZeRO-3
    shards it), the adapters' working weights (ZeRO-3), gradients (ZeRO-2), FP32 master copy and
    optimizer states (ZeRO-1), each split over tp × pp first."""
    if not (_STATES_MODEL and _STATES_MODEL[0] is r):  # resolutions are cached: rarely new
        _STATES.clear()
        _STATES_MODEL[:] = [r]
    key = (dp, *t.__dict__.values())  # a frozen pydantic model: its field values
    found = _STATES.get(key)
    if found is None:
        if len(_STATES) >= 256:
            _STATES.clear()
        found = _STATES[key] = _adapter_states(t, r, dp)
    return found


def _adapter_states(t: TrainingSpec, r: ResolvedModel, dp: int) -> AdapterStates:
    n, weights, constants, optimizer = _whole(t, r)
    # shard_count depends on the stage only through zero ≥ stage: the adapters' share at stage
    # 3 is also the one at stage 2 unless zero is 2, and at stage 2 the one at 1 unless zero is 1
    n3 = shard_count(t, n, 3, dp, r)
    n2 = shard_count(t, n, 2, dp, r) if t.zero == 2 else n3
    n1 = shard_count(t, n, 1, dp, r) if t.zero == 1 else n2
    wd = weight_dtype(t)
    return AdapterStates(
        base=shard_count(t, weights, 3, dp, r),
        constants=shard_count(t, constants, 3, dp, r) if constants else 0,
        adapter=n3 * _BYTES[wd],
        gradients=n2 * _BYTES[grad_dtype(t)],
        master=n1 * 4 if has_master(t) else 0,
        optimizer=shard_count(t, optimizer, 1, dp, r),
    )


# -- activations ------------------------------------------------------------------------------


def activation_change(t: TrainingSpec, r: ResolvedModel, recompute: str) -> Fraction:
    """How much the activations of an adapter fine-tuning differ from full fine-tuning's
    (Korthikanti et al. 2022, Table 2), in bytes per device (negative: fewer).

    The model: a linear layer keeps its input only to compute its weight's gradient — the
    gradient of its input needs the weight alone (PyTorch's ``mm`` saves the input only when the
    weight requires a gradient; bitsandbytes' ``MatMul4Bit`` saves only the 4-bit weight). So a
    frozen projection *without* an adapter drops its input; one *with* an adapter keeps it (A
    reads the same tensor), and its adapter keeps A's output, s·b·r values, for B's gradient.
    Everything else (layer norms, Q, K, V, softmax, GeLU input, dropout masks) is needed to
    carry the gradient through the frozen layers to the adapters below, and stays. Of
    Korthikanti's per-layer terms (e bytes per value) this drops, per layer:

    * e·sbh, the shared input of Q, K and V, when none of q, k, v has an adapter (replicated
      under tensor parallelism, split by sequence parallelism);
    * e·sbh/t, the input of the output projection, without an adapter on o;
    * e·sbh, the input of the first MLP matrix, without an adapter on gate or up (replicated);
    * 4e·sbh/t, the input of the second MLP matrix (the 4h GeLU output), without one on down;

    and adds e·s·b·r per adapted matrix of a layer (a mixture of experts: per active expert;
    not split by tensor parallelism). With full recomputation only each layer's input is kept,
    adapters or not: no change. LoRA dropout is taken as 0 (PEFT's default ``lora_dropout``);
    with dropout each adapter also keeps a dropped copy of its input and the mask.
    """

    if recompute == "full" or not (r.layers and r.hidden and r.heads):
        return Fraction(0)
    fields = (t.lora_targets, activation_value_bytes(t.precision), t.seq_len * t.micro_batch,
              t.tp, t.sequence_parallel, t.lora_rank, t.convention == "practice", t.pp)
    if _LAST_CHANGE and _LAST_CHANGE[0][0] is r and _LAST_CHANGE[0][1] == fields:
        return _LAST_CHANGE[0][2]
    change = _activation_change(_arch(r), layers_held(t, r), r.hidden, *fields[:-1])
    _LAST_CHANGE[:] = [(r, fields, change)]
    return change


_LAST_CHANGE: list[tuple[ResolvedModel, tuple[str, int, int, int, bool, int, bool, int],
                         Fraction]] = []
"""The last answer of :func:`activation_change` with the resolved model it was for (an estimate
asks twice; a hit does not hash the architecture)."""


@lru_cache(maxsize=256)
def _activation_change(arch: Architecture, layers: int, hidden: int, lora_targets: str, e: int,
                       sb: int, tp: int, sp: bool, rank: int, family: bool = False) -> Fraction:
    """:func:`activation_change` from what it depends on (cached: an estimate asks for it for
    the activations item and again for the fewest-GPU search)."""
    targets = set(targets_of(arch, lora_targets))
    sbh = sb * hidden
    replicated = (not targets & {"q", "k", "v"}) + (not targets & {"gate", "up"})
    if family:  # --convention practice: o's input is q wide, down's the real MLP size f
        split_bytes = (0 if "o" in targets else arch.q_dim) + (0 if "down" in targets else arch.ffn)
        dropped = Fraction(e * (sbh * replicated * (1 if sp else tp) + sb * split_bytes), tp)
    else:
        split = (0 if "o" in targets else 1) + (0 if "down" in targets else 4)
        dropped = Fraction(e * sbh * (replicated * (1 if sp else tp) + split), tp)
    attn = len(targets & set(ATTENTION_TARGETS))
    mlp = len(targets & set(MLP_TARGETS)) * arch.active_experts
    added = e * sb * rank * (attn + mlp)
    return layers * (added - dropped)


def activation_change_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The words of :func:`activation_change` for this case, numbers filled in, to follow
    Korthikanti's formula in the activations item."""

    if t.recompute == "full":
        return ("; adapters change nothing under full recomputation (each layer keeps its "
                "input only)")
    arch = _arch(r)
    targets = set(targets_of(arch, t.lora_targets))
    e = activation_value_bytes(t.precision)
    tp = t.tp
    rep = "/t" if tp > 1 and t.sequence_parallel else ""
    split = "/t" if tp > 1 else ""
    terms: list[tuple[int, str, str]] = []  # (coefficient of sbh, its /t, what)
    if not targets & {"q", "k", "v"}:
        terms.append((e, rep, "input of q, k, v"))
    if "o" not in targets:
        terms.append((e, split, "input of o"))
    if not targets & {"gate", "up"}:
        terms.append((e, rep, "input of the first MLP matrix"))
    if "down" not in targets:
        terms.append((4 * e, split, "input of down"))
    n_layers = format_count(layers_held(t, r) if r.layers else 0)
    sbh = format_count(t.seq_len * t.micro_batch * (r.hidden or 0))
    text = ""
    if terms:
        words = " + ".join(f"{c}sbh{d} ({what})" for c, d, what in terms)
        nums = " + ".join(f"{c}{' / ' + format_count(tp) if d else ''}" for c, d, _ in terms)
        text += (f"; minus what frozen projections without an adapter no longer keep, "
                 f"{words}: {n_layers} × {sbh} × ({nums})")
    attn = len(targets & set(ATTENTION_TARGETS))
    mlp = len(targets & set(MLP_TARGETS)) * arch.active_experts
    k = attn + mlp
    sbr = format_count(t.seq_len * t.micro_batch * t.lora_rank)
    experts = (f" (MLP targets × {format_count(arch.active_experts)} active experts)"
               if mlp and arch.active_experts > 1 else "")
    text += (f"; plus {format_count(k)} adapted {'matrix' if k == 1 else 'matrices'}{experts} "
             f"× {e}sbr per layer (A's output, r = {format_count(t.lora_rank)}): {n_layers} × "
             f"{format_count(k)} × {e} × {sbr}")
    return text


# -- words ------------------------------------------------------------------------------------


def adapter_shapes_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The sum behind Pₐ: ``"32 layers × 8 × ((4,096 + 4,096) q + (4,096 + 4,096) v)"``."""
    arch = _arch(r)
    mats = adapted_matrices(arch, t.lora_targets)
    rank = format_count(t.lora_rank)
    if arch.experts > 1:
        terms = " + ".join(
            f"{format_count(m.count)} {m.target} × ({format_count(m.d_in)} + "
            f"{format_count(m.d_out)})" for m in mats)
        return f"{rank} × ({terms})"
    terms = " + ".join(f"({format_count(m.d_in)} + {format_count(m.d_out)}) {m.target}"
                       for m in mats)
    return f"{count_noun(arch.layers, 'layer')} × {rank} × ({terms})"


def lora_items(t: TrainingSpec, r: ResolvedModel) -> list[Item]:
    """The training items of an adapter fine-tuning, each with its formula and source: the
    frozen base (``weights``; QLoRA also ``quantization_overhead``, its NF4 constants), the
    ``adapter_weights``, their ``gradients``, ``master_weights`` and ``optimizer_states``.
    The activations item is :mod:`quiz.footprint.items.model_states`'s (see
    :func:`activation_change`).
    """

    arch = _arch(r)
    states = adapter_states(t, r, t.dp)
    n = _whole(t, r)[0]  # trainable_params, without hashing the architecture again
    items: list[Item] = []
    # Each formula is a writer and its arguments: Item writes it when first read, so an estimate
    # whose formulas nobody shows (the fewest-GPU search, a bank's figure check) does not
    # format them.
    if t.finetune == "lora":
        items.append(lazy_item("weights", states.base, _LORA_ZERO_SRC,
                               _lora_base_text, t, r))
    else:
        base = qlora_base(arch, t.double_quant)
        items.append(lazy_item("weights", states.base, _QLORA_BASE_SRC,
                               _qlora_base_text, t, r, base))
        items.append(lazy_item("quantization_overhead", states.constants, NF4_SRC,
                               _nf4_constants_text, t, r, base))
    items.append(lazy_item("adapter_weights", states.adapter, _ADAPTER_SRC,
                           _adapter_weights_text, t, r, n))
    items.append(lazy_item("gradients", states.gradients, _LORA_ZERO_SRC,
                           _adapter_gradients_text, t, r, n))
    if has_master(t):
        items.append(lazy_item("master_weights", states.master, MIXED_ZERO_SRC,
                               _adapter_master_text, t, r, n))
    opt = t.optimizer
    if opt == "sgd":
        source = "PyTorch torch.optim.SGD"
    elif opt == "sgd-momentum":
        source = "Sutskever et al. 2013; PyTorch torch.optim.SGD momentum_buffer"
    elif opt in ("adam", "adamw"):
        source = ADAM_SRC
    elif opt == "adam-8bit":
        source = ADAM_8BIT_SRC
    else:
        source = "Shazeer & Stern 2018, Adafactor, sec. 3 (Algorithm 4)"
    items.append(lazy_item("optimizer_states", states.optimizer, source,
                           _adapter_optimizer_text, t, r, n))
    return items


# The formulas of lora_items' items (written when first read); n is Pₐ, the adapters' params.

def _split_text(t: TrainingSpec, r: ResolvedModel, stage: int) -> str:
    """How a state is split over the devices: tp × pp (or the uneven stages), and dp from the
    ZeRO ``stage`` that shards it; ``""`` when it is not."""
    parts = []
    if uneven(t, r):
        from quiz.footprint.items.pipeline import split_text

        parts.append(split_text(t, r).strip())
    elif t.tp * t.pp > 1:
        parts.append(f"÷ {format_count(t.tp * t.pp)} (tp × pp)")
    if t.zero >= stage and t.dp > 1:
        parts.append(f"÷ {format_count(t.dp)} (ZeRO-{t.zero} over dp {format_count(t.dp)})")
    return (" " + " ".join(parts) + ", largest shard") if parts else ""


def _weight_bytes_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """``2 bytes (BF16)`` and the split of the weights' shard, for a count of values stored in
    the weight dtype."""
    wd = weight_dtype(t)
    return f"{_BYTES[wd]} bytes ({wd.upper()}){_split_text(t, r, 3)}"


def _lora_base_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """LoRA's frozen base: every parameter in the weight dtype."""
    return (f"frozen base: {count_noun(r.params, 'param')} × {_weight_bytes_text(t, r)}; "
            "no gradients or optimizer states")


def _qlora_base_text(t: TrainingSpec, r: ResolvedModel, base: Nf4Base) -> str:
    """QLoRA's frozen base: the linear layers' NF4 values and the parameters kept 16-bit."""
    return (f"frozen base: {count_noun(base.values, 'weight')} of the linear layers in "
            f"NF4 × ½ byte + {count_noun(base.kept, 'param')} (embeddings, LM head, norms) × "
            f"{_weight_bytes_text(t, r)}")


def _nf4_constants_text(t: TrainingSpec, r: ResolvedModel, base: Nf4Base) -> str:
    """QLoRA's NF4 constants: the absmax of each block (double-quantized or not) and the code
    tables."""
    tensors = count_noun(base.tensors, "tensor")
    if t.double_quant:
        const = (f"{count_noun(base.blocks, 'block')} of 64 × 1 byte (8-bit absmax) + "
                 f"an FP32 scale per 256 blocks, and for each of {tensors} an FP32 "
                 "offset and the 16- and 256-entry FP32 code tables")
    else:
        const = (f"{count_noun(base.blocks, 'block')} of 64 × 4 bytes (FP32 absmax) + "
                 f"the 16-entry FP32 code table of each of {tensors}")
    return f"NF4 constants: {const}{_split_text(t, r, 3)}"


def _adapter_weights_text(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """The adapters' weights: their shapes × the weight dtype's bytes."""
    return (f"{count_noun(n, 'adapter param')} = {adapter_shapes_text(t, r)} × "
            f"{_weight_bytes_text(t, r)}")


def _adapter_gradients_text(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """The adapters' gradients (the frozen base has none)."""
    gd = grad_dtype(t)
    return (f"{count_noun(n, 'adapter param')} × {_BYTES[gd]} bytes ({gd.upper()} gradients; "
            f"none for the frozen base){_split_text(t, r, 2)}")


def _adapter_master_text(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """The adapters' FP32 master copy."""
    return (f"{count_noun(n, 'adapter param')} × 4 bytes (FP32 master copy of the "
            f"adapters){_split_text(t, r, 1)}")


def _adapter_optimizer_text(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """The optimizer's states of the adapters only."""
    opt = t.optimizer
    sb = state_bytes(t)
    dtype = "FP32" if sb == 4 else "BF16"
    adapters = count_noun(n, "adapter param")
    if opt == "sgd":
        formula = "plain SGD keeps no optimizer state"
    elif opt == "sgd-momentum":
        formula = f"{adapters} × {sb} bytes ({dtype} momentum)"
    elif opt in ("adam", "adamw"):
        formula = f"{adapters} × {2 * sb} bytes ({dtype} momentum {sb} + variance {sb})"
    elif opt == "adam-8bit":
        blocks = -(-n // ADAM_8BIT_BLOCK)
        formula = (f"2 states × ({adapters} × 1 byte + {count_noun(blocks, 'block')} of "
                   f"{format_count(ADAM_8BIT_BLOCK)} × 4-byte FP32 absmax)")
    else:
        formula = (f"row and column statistics of each A (r × d_in) and B (d_out × r) × "
                   f"{sb} bytes ({dtype})")
    return f"adapters only: {formula}{_split_text(t, r, 1)}"


