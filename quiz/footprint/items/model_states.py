"""Training memory per device: weights, gradients, master weights, optimizer states, activations.

Model states follow Rajbhandari et al. 2020 (ZeRO), sec. 3.1 and 5: with mixed-precision Adam a
parameter costs 2 (16-bit weights) + 2 (16-bit gradients) + K = 12 (FP32 master copy, momentum,
variance) bytes; ZeRO stage 1 partitions the K part over the N_d data-parallel devices, stage 2
also the gradients, stage 3 also the weights (Fig. 1: Ψ = 7.5B, N_d = 64 → 120, 31.4, 16.6,
1.88 GB). Tensor and pipeline parallelism split the model states evenly over tp × pp devices
first (an idealisation: the first and last pipeline stages also hold the embeddings).

Activations follow Korthikanti et al. 2022, Table 2 (sec. 4), per transformer layer, in bytes,
for sequence length s, micro-batch b, hidden size h, attention heads a, tensor-parallel size t
and 16-bit activations:

    no parallelism                          sbh(34 + 5as/h)
    tensor parallel                         sbh(10 + 24/t + 5as/(ht))
    tensor + sequence parallel              sbh/t (34 + 5as/h)
    tensor parallel + selective recompute   sbh(10 + 24/t)
    tensor + sequence parallel + selective  sbh(34/t)
    full recomputation                      2sbh (the layer's input; /t with sequence parallelism)

With e-byte activations (e = 4 in the FP32 regime) the same derivation (sec. 4.1) gives
34 → 16e + 2, 10 → 4e + 2, 24 → 12e, 5 → 2e + 1 and 2sbh → e·sbh. With pipeline parallelism the
first stage holds L layers' worth (p micro-batches of L/p layers in flight, sec. 4.2.3), so the
per-device activation memory is L × the per-layer figure.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeVarTuple

from quiz.footprint.inputs.arch import adafactor_state_values
from quiz.footprint.inputs.units import count_noun, format_count, format_number
from quiz.footprint.items import regime as _regime
from quiz.footprint.items.ep import (
    EP_SRC,
    expert_adafactor_values,
    split_count,
    uses_ep,
)
from quiz.footprint.items.ep import params_text as ep_params_text
from quiz.footprint.items.fp8 import (
    FP8_ACT_SRC,
    FP8_SRC,
    fp8_weight_bytes,
    fp8_weight_formula,
    is_fp8,
    layer_coefficients,
)
from quiz.footprint.items.item import Item, Omitted, _new
from quiz.footprint.items.layer_activations import (
    FAMILY_SRC,
    FLASH_SRC,
    layer_formula,
    layer_terms,
)
from quiz.footprint.items.lora import (
    AUTOGRAD_SRC,
    activation_change,
    activation_change_text,
    adapter_states,
    lora_items,
)
from quiz.footprint.items.pipeline import UNIFORM_SRC, layers_held, split_text, uneven
from quiz.footprint.items.states import states_of

if TYPE_CHECKING:
    from quiz.footprint.inputs.arch import Architecture
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

# The regime rules live in quiz.footprint.items.regime (below quiz.footprint.items.lora); the
# callers of
# this module read them from here.
_BYTES = _regime._BYTES
ADAM_8BIT_BLOCK = _regime.ADAM_8BIT_BLOCK
ADAM_8BIT_PAPER_BLOCK = _regime.ADAM_8BIT_PAPER_BLOCK
ADAM_8BIT_SRC = _regime.ADAM_8BIT_SRC
MIXED_SRC = _regime.MIXED_SRC
MIXED_ZERO_SRC = _regime.MIXED_ZERO_SRC
ZERO_SRC = _regime.ZERO_SRC
activation_value_bytes = _regime.activation_value_bytes
grad_dtype = _regime.grad_dtype
has_master = _regime.has_master
shard_count = _regime.shard_count
state_bytes = _regime.state_bytes
weight_dtype = _regime.weight_dtype

CP_SRC = ("Megatron-LM docs, Context parallelism (--context-parallel-size): each rank keeps the "
          "activations of s/cp tokens; K and V are exchanged in a ring")
KORTHIKANTI_SRC = "Korthikanti et al. 2022, Reducing Activation Recomputation, Table 2"
Ts = TypeVarTuple("Ts")

class _Add(Protocol):
    """``add(name, bytes, source, formula, *args)``: appends one item whose formula is the text
    ``formula`` or ``formula(*args)``, written when first read (see :func:`training_items`)."""

    def __call__(self, name: str, n_bytes: int, source: str,
                 formula: str | Callable[[*Ts], str], *args: *Ts) -> None: ...


# The quantities below read the estimate's ModelStates of t and r (quiz.footprint.items.states),
# which computes each count once for the items, the fewest-GPU search and the notes.


def weight_bytes_per_device(t: TrainingSpec, r: ResolvedModel, dp: int) -> int:
    """Bytes of working weights per device with ``dp`` data-parallel devices (ZeRO-3 shards)."""
    states = states_of(t, r)
    return states.counts(dp)[0] * states.weight_bytes


def gradient_bytes_per_device(t: TrainingSpec, r: ResolvedModel, dp: int) -> int:
    """Bytes of gradients per device with ``dp`` data-parallel devices (ZeRO-2 shards)."""
    states = states_of(t, r)
    return states.counts(dp)[1] * states.grad_bytes


def master_bytes_per_device(t: TrainingSpec, r: ResolvedModel, dp: int) -> int:
    """Bytes of the FP32 master copy per device (ZeRO-1 shards); 0 without mixed precision."""
    states = states_of(t, r)
    return states.counts(dp)[2] * 4 if states.master else 0


def optimizer_bytes_per_device(t: TrainingSpec, r: ResolvedModel, dp: int) -> int | None:
    """Bytes of optimizer state per device with ``dp`` data-parallel devices (ZeRO-1 shards).

    SGD 0; SGD with momentum 1 value and Adam/AdamW 2 values per parameter of
    :func:`state_bytes`; 8-bit Adam 2 × (1 byte per parameter + one 4-byte FP32 absmax per block
    of :data:`ADAM_8BIT_BLOCK`; Dettmers et al. 2022); Adafactor its factored statistics
    (:func:`~quiz.footprint.inputs.arch.adafactor_state_values`) × :func:`state_bytes`, or
    ``None`` without an architecture (:meth:`~quiz.footprint.items.states.ModelStates.
    optimizer`).
    """
    return states_of(t, r).optimizer(dp)


def state_bytes_by_item(t: TrainingSpec, r: ResolvedModel, dp: int) -> dict[str, int] | None:
    """The paper convention's model-state bytes per device with ``dp`` data-parallel devices, by
    item name (weights, gradients, master_weights, optimizer_states), wherever they live;
    ``None`` when the optimizer state is unknown (Adafactor without an architecture). With
    adapters (``finetune`` lora or qlora), the frozen base, its NF4 constants and the adapters'
    states (:meth:`quiz.footprint.items.lora.AdapterStates.by_item`). The mapping is the
    estimate's (:meth:`~quiz.footprint.items.states.ModelStates.by_item`): read it, do not
    change it."""
    if t.finetune != "full":  # the adapters' own arithmetic (and memo)
        return adapter_states(t, r, dp).by_item()
    return states_of(t, r).by_item(dp)


def model_state_bytes(t: TrainingSpec, r: ResolvedModel, dp: int) -> int | None:
    """Bytes per device of weights, gradients, master weights and optimizer states with ``dp``
    data-parallel devices (the rest of ``t`` unchanged); ``None`` when the optimizer state is
    unknown (Adafactor without an architecture). The sum of the four functions above, which the
    items of :func:`training_items` show; the fewest-GPU search varies ``dp`` here. With
    adapters (``finetune`` lora or qlora), the frozen base and the adapters' states instead
    (:func:`quiz.footprint.items.lora.adapter_states`)."""
    if t.finetune != "full":
        return adapter_states(t, r, dp).total
    opt = optimizer_bytes_per_device(t, r, dp)
    if opt is None:
        return None
    return (weight_bytes_per_device(t, r, dp) + fp8_weight_bytes(t, r, dp)
            + gradient_bytes_per_device(t, r, dp) + master_bytes_per_device(t, r, dp) + opt)


def activation_bytes(t: TrainingSpec, r: ResolvedModel, recompute: str | None = None) -> int | None:
    """Activation bytes per device of the layers (:func:`_activation_bytes`), kept for the last
    spec and model asked about: an estimate asks for the item and again for the fewest-GPU
    search (both frozen objects, so identity is enough)."""
    last = _LAST_ACTIVATIONS
    if last and last[0] is t and last[1] is r and last[2] == recompute:
        found: int | None = last[3]
        return found
    value = _activation_bytes(t, r, recompute)
    _LAST_ACTIVATIONS[:] = [t, r, recompute, value]
    return value


_LAST_ACTIVATIONS: list[Any] = []


def _activation_bytes(t: TrainingSpec, r: ResolvedModel,
                      recompute: str | None = None) -> int | None:
    """Activation bytes per device: layers × :func:`activation_bytes_per_layer`, rounded up
    (the first pipeline stage holds L layers' worth, Korthikanti et al. 2022 sec. 4.2.3).

    ``recompute`` overrides ``t.recompute`` (``--explain`` compares the three modes). ``None``
    when the layers, hidden size or attention heads are unknown, or the model has Mamba layers
    (their activations are not modelled). With adapters (``finetune``
    lora or qlora) the frozen layers keep less and the adapters a little more
    (:func:`quiz.footprint.items.lora.activation_change`).
    """
    if not (r.layers and r.hidden and r.heads) or (r.arch is not None and r.arch.mamba_layers):
        return None
    mode = t.recompute if recompute is None else recompute
    if t.convention == "practice" and r.arch is not None:
        num, den = _family_ratio(t, r.arch, mode)
    else:
        num, den = _activation_ratio(
            t.seq_len, t.micro_batch, r.hidden, r.heads, t.tp, t.sequence_parallel,
            mode, activation_value_bytes(t.precision), is_fp8(t), t.cp,
            t.attention_kernel == "flash",
        )
    if r.arch is not None and r.arch.experts > 1 and mode != "full":
        from quiz.footprint.items.moe import moe_layer_change

        held = layers_held(t, r)
        exact_moe = Fraction(held * num, den) + held * moe_layer_change(t, r)
        if t.finetune != "full":
            exact_moe += activation_change(t, r, mode)
        return -(-exact_moe.numerator // exact_moe.denominator)
    if t.finetune != "full":
        change = activation_change(t, r, mode)  # ⌈L·num/den + p/q⌉ in integers
        q = change.denominator
        return -(-(layers_held(t, r) * num * q + change.numerator * den) // (den * q))
    return -(-layers_held(t, r) * num // den)


def bytes_per_param(t: TrainingSpec) -> list[tuple[int, str]]:
    """The whole bytes per parameter of the model states, unsharded, as ``(bytes, what)`` parts:
    weights, gradients, the FP32 master copy (mixed precision) and, for SGD, SGD with momentum,
    Adam and AdamW, the optimizer states. 8-bit Adam's and Adafactor's states are not a whole
    number per parameter and are left out (see :func:`bytes_per_param_text`)."""
    wd, gd = weight_dtype(t), grad_dtype(t)
    parts = [(_BYTES[wd], f"{wd.upper()} weights"), (_BYTES[gd], f"{gd.upper()} gradients")]
    if has_master(t):
        parts.append((4, "FP32 master"))
    sb = state_bytes(t)
    per_opt = {"sgd": 0, "sgd-momentum": sb, "adam": 2 * sb, "adamw": 2 * sb}
    if t.optimizer in per_opt:
        parts.append((per_opt[t.optimizer], f"{t.optimizer} states"))
    return parts


def activation_bytes_per_layer(
    *,
    s: int,
    b: int,
    h: int,
    a: int,
    t: int = 1,
    sequence_parallel: bool = False,
    recompute: str = "none",
    act_bytes: int = 2,
    fp8: bool = False,
) -> Fraction:
    """Activation memory of one transformer layer in bytes (Korthikanti et al. 2022, Table 2).

    Args:
        s: sequence length (tokens); b: micro-batch size; h: hidden size; a: attention heads;
        t: tensor-parallel size; sequence_parallel: Megatron sequence parallelism;
        recompute: ``"none"``, ``"selective"`` (attention scores recomputed) or ``"full"``
            (only each layer's input kept); act_bytes: bytes per activation value (2 or 4);
        fp8: GEMM inputs saved in FP8 (:func:`quiz.footprint.items.fp8.layer_coefficients`).

    Returns:
        The exact value as a :class:`~fractions.Fraction` (``24/t`` need not be whole); callers
        round the total up.

    Raises:
        ValueError: an unknown ``recompute`` mode.
    """
    num, den = _activation_ratio(s, b, h, a, t, sequence_parallel, recompute, act_bytes, fp8)
    return Fraction(num, den)


def _family_ratio(t: TrainingSpec, arch: Architecture, mode: str) -> tuple[int, int]:
    """Per-layer activation bytes of ``--convention practice`` as ``(numerator, t)``
    (:func:`quiz.footprint.items.layer_activations.layer_terms`)."""
    tokens = t.seq_len // t.cp * t.micro_batch
    replicated, split = layer_terms(arch, tokens, t.seq_len, activation_value_bytes(t.precision),
                                    t.attention_kernel, mode, is_fp8(t))
    if mode == "full":
        return replicated * (1 if t.sequence_parallel else t.tp), t.tp
    if t.sequence_parallel:
        return replicated + split, t.tp
    return replicated * t.tp + split, t.tp


def _activation_ratio(
    s: int, b: int, h: int, a: int, t: int, sp: bool, recompute: str, e: int, fp8: bool = False,
    cp: int = 1, flash: bool = False,
) -> tuple[int, int]:
    """Per-layer activation bytes as an exact ratio ``(numerator, t)`` of integers. With context
    parallelism each of the ``cp`` ranks keeps s/cp tokens, whose attention scores span all s
    keys (``cp`` divides ``s``, as the spec checks). ``flash``: the scores are never stored
    (FlashAttention), as under selective recomputation."""
    local = s // cp
    sbh = local * b * h
    # softmax output, its dropout mask and dropout output
    scores = 0 if flash else (2 * e + 1) * a * local * s * b
    if recompute == "full":
        return e * sbh * (1 if sp else t), t
    if recompute not in ("none", "selective"):
        raise ValueError(f"unknown recompute mode {recompute!r}")
    keep = scores if recompute == "none" else 0
    c_all, c_rep, c_split = layer_coefficients(e, fp8)
    if sp:
        return c_all * sbh + keep, t
    return c_rep * sbh * t + c_split * sbh + keep, t


def _activation_formula(spec: TrainingSpec, L: int, h: int, a: int, e: int) -> str:
    t, s, b = spec.tp, spec.seq_len // spec.cp, spec.micro_batch
    sbh = s * b * h
    kept = spec.recompute == "none" and spec.attention_kernel == "eager"
    score = Fraction((2 * e + 1) * a * spec.seq_len, h)
    c_all, c_rep, c_split = layer_coefficients(e, is_fp8(spec))
    sp = spec.sequence_parallel and t > 1
    layers, tt, n_sbh = count_noun(L, "layer"), format_count(t), format_count(sbh)
    nl = format_count(L)
    if spec.recompute == "full":
        head = f"{layers} × {e}sbh{'/t' if sp else ''} (each layer's input only)"
        nums = f"{nl} × {e} × {n_sbh}" + (f" / {tt}" if sp else "")
    elif sp:
        extra = f" + {2 * e + 1}as/h" if kept else ""
        head = f"{layers} × sbh/t ({c_all}{extra})"
        nums = f"{nl} × {n_sbh} / {tt} × ({c_all}"
        nums += f" + {format_number(score)})" if kept else ")"
    elif t > 1:
        extra = f" + {2 * e + 1}as/(ht)" if kept else ""
        head = f"{layers} × sbh({c_rep} + {c_split}/t{extra})"
        nums = f"{nl} × {n_sbh} × ({c_rep} + {c_split}/{tt}"
        nums += f" + {format_number(score)}/{tt})" if kept else ")"
    else:
        extra = f" + {2 * e + 1}as/h" if kept else ""
        head = f"{layers} × sbh({c_all}{extra})"
        nums = f"{nl} × {n_sbh} × ({c_all}"
        nums += f" + {format_number(score)})" if kept else ")"
    where = f"s = {format_count(s)}"
    if spec.cp > 1:
        where += (f" ({format_count(spec.seq_len)} / cp {format_count(spec.cp)}; the scores "
                  f"span all {count_noun(spec.seq_len, 'key')})")
    where += f", b = {format_count(b)}, h = {format_count(h)}, "
    where += f"a = {format_count(a)}"
    if t > 1:
        where += f", t = {tt}"
    return f"{head} with {where}: {nums}"


def _ptext(r: ResolvedModel, m: int, t: TrainingSpec, sharded: bool, n: int) -> str:
    """The per-device parameter count in words: :func:`_params_text`, or with expert
    parallelism the experts' and the other parameters' splits (:func:`quiz.footprint.items.ep.
    params_text`)."""
    if uses_ep(t, r):
        return ep_params_text(t, r, sharded, n)
    if uneven(t, r):
        text = f"{count_noun(r.params, 'param')}{split_text(t, r)}"
        group = t.dp * t.cp
        if sharded and group > 1:
            text += f" ÷ {format_count(group)} (ZeRO-{t.zero})"
        return text + f" = {format_count(n)} (rounded up)"
    return _params_text(r.params, m, t, sharded, n)


def _params_text(psi: int, m: int, t: TrainingSpec, sharded: bool, n: int) -> str:
    text = count_noun(psi, "param")
    if m > 1:
        text += f" ÷ {format_count(m)} (tp {format_count(t.tp)} × pp {format_count(t.pp)})"
    group = t.dp * t.cp  # ZeRO shards over the data-parallel and context-parallel ranks
    if sharded and group > 1:
        dp = format_count(t.dp)
        over = f"dp {dp}" + (f" × cp {format_count(t.cp)}" if t.cp > 1 else "")
        text += f" ÷ {format_count(group)} (ZeRO-{t.zero} over {over})"
    if m > 1 or (sharded and group > 1):
        exact = psi % (m * (group if sharded else 1)) == 0
        text += f" = {format_count(n)}" + ("" if exact else " (largest shard)")
    return text


def training_items(t: TrainingSpec, r: ResolvedModel) -> tuple[list[Item], list[Omitted]]:
    """The training items per device for the layout of ``t``, each with its formula and source.
    Each item's bytes come from its quantity function above (``weight_bytes_per_device`` ...
    ``activation_bytes``); the formula words the same arithmetic.

    Returns:
        ``(items, omitted)``: items in display order; omitted items with their reasons.
    """
    dp = t.dp
    items: list[Item] = []
    omitted: list[Omitted] = []
    wd, gd = weight_dtype(t), grad_dtype(t)
    wb, gb = _BYTES[wd], _BYTES[gd]

    ep_src = f"; {EP_SRC}" if uses_ep(t, r) else ""

    def add(name: str, n_bytes: int, source: str, formula: str | Callable[[*Ts], str],
            *args: *Ts) -> None:
        if ep_src and name != "activations":
            source += ep_src
        items.append(_new(Item, (name, n_bytes, [formula, *args], source, "bytes")))  # lazy_item

    if t.finetune != "full":  # adapters on a frozen base
        items.extend(lora_items(t, r))
        _activation_item(t, r, add, omitted)
        return items, omitted

    # Formulas are written when first read (Item), each by its writer from the values given.
    states = states_of(t, r)  # the counts and bytes the fit and the notes read too
    n3, n2, n = states.counts(dp)
    master = states.master
    # the bytes below are weight_bytes_per_device, gradient_bytes_per_device and
    # master_bytes_per_device, from the counts above
    add("weights", n3 * wb, MIXED_ZERO_SRC if master else ZERO_SRC,
        _weights_formula, t, r, n3)
    if is_fp8(t):
        add("fp8_weights", states.fp8_weights(dp), FP8_SRC, fp8_weight_formula, t, r)
    add("gradients", n2 * gb, ZERO_SRC, _gradients_formula, t, r, n2)
    if master:
        add("master_weights", n * 4, MIXED_ZERO_SRC, _master_formula, t, r, n)
    _optimizer_item(t, r, n, add, omitted)
    _activation_item(t, r, add, omitted)
    return items, omitted


def _weights_formula(t: TrainingSpec, r: ResolvedModel, n3: int) -> str:
    """The weights item's formula: ``n3`` parameters per device (sharded from ZeRO-3) × the
    bytes of a weight."""
    wd = weight_dtype(t)
    return f"{_ptext(r, t.tp * t.pp, t, t.zero >= 3, n3)} × {_BYTES[wd]} bytes ({wd.upper()})"


def _gradients_formula(t: TrainingSpec, r: ResolvedModel, n2: int) -> str:
    """The gradients item's formula: ``n2`` parameters per device (sharded from ZeRO-2) × the
    bytes of a gradient."""
    gd = grad_dtype(t)
    return (f"{_ptext(r, t.tp * t.pp, t, t.zero >= 2, n2)} × {_BYTES[gd]} bytes "
            f"({gd.upper()} gradients)")


def _master_formula(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """The master weights item's formula: ``n`` parameters per device (sharded from ZeRO-1)
    × 4 bytes."""
    return f"{_ptext(r, t.tp * t.pp, t, t.zero >= 1, n)} × 4 bytes (FP32 master copy)"


def _state_dtype(t: TrainingSpec) -> tuple[int, str]:
    """The bytes of one optimizer state value and its dtype's name."""
    sb = state_bytes(t)
    return sb, "FP32" if sb == 4 else "BF16"


def _momentum_formula(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """SGD with momentum's state: ``n`` parameters per device × one buffer value."""
    sb, dtype = _state_dtype(t)
    return f"{_ptext(r, t.tp * t.pp, t, t.zero >= 1, n)} × {sb} bytes ({dtype} momentum buffer)"


def _adam_formula(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """Adam's states: ``n`` parameters per device × (momentum + variance)."""
    sb, dtype = _state_dtype(t)
    return (f"{_ptext(r, t.tp * t.pp, t, t.zero >= 1, n)} × {2 * sb} bytes ({dtype} momentum "
            f"{sb} + variance {sb})")


def _adam_8bit_formula(t: TrainingSpec, r: ResolvedModel, n: int) -> str:
    """8-bit Adam's states: two 1-byte states per parameter and an FP32 absmax per block."""
    blocks = -(-n // ADAM_8BIT_BLOCK)
    return (f"2 states × ({_ptext(r, t.tp * t.pp, t, t.zero >= 1, n)} × 1 byte + "
            f"{count_noun(blocks, 'block')} of {format_count(ADAM_8BIT_BLOCK)} × 4-byte FP32 "
            "absmax)")


def _optimizer_item(
    t: TrainingSpec, r: ResolvedModel, n: int, add: _Add, omitted: list[Omitted]
) -> None:
    """Add the optimizer-state item (``n``: parameters per device after ZeRO-1 sharding)."""
    n_bytes = optimizer_bytes_per_device(t, r, t.dp)
    if n_bytes is None:
        omitted.append(
            Omitted(
                "optimizer_states",
                "Adafactor's factored second moment depends on the shape of every weight "
                "matrix: give a model preset or a full architecture",
                "training",
                "Adafactor's factored second moment depends on the shape of every weight matrix",
                ("model", "layers", "hidden", "heads", "ffn", "vocab"),
            )
        )
        return
    opt = t.optimizer
    if opt == "sgd":
        add("optimizer_states", n_bytes,
            "Robbins & Monro 1951; PyTorch torch.optim.SGD with momentum=0",
            "plain SGD keeps no optimizer state (0 bytes per parameter)")
    elif opt == "sgd-momentum":
        add("optimizer_states", n_bytes,
            "Sutskever et al. 2013; PyTorch torch.optim.SGD momentum_buffer",
            _momentum_formula, t, r, n)
    elif opt in ("adam", "adamw"):
        add("optimizer_states", n_bytes,
            _regime.ADAM_SRC,
            _adam_formula, t, r, n)
    elif opt == "adam-8bit":
        add("optimizer_states", n_bytes, ADAM_8BIT_SRC, _adam_8bit_formula, t, r, n)
    else:
        sb, dtype = _state_dtype(t)
        m = t.tp * t.pp
        assert r.arch is not None  # optimizer_bytes_per_device returned a size
        mats, vectors = adafactor_state_values(r.arch)
        shard_n = split_count(t, r, mats + vectors, expert_adafactor_values(r), 1, t.dp)
        split = ""
        if m > 1 or (t.zero >= 1 and t.dp > 1):
            devices = count_noun(m * (t.dp if t.zero >= 1 else 1), "device")
            split = f" split over {devices} = {format_count(shard_n)}"
        if uses_ep(t, r):
            split = (f" split ({count_noun(expert_adafactor_values(r), 'expert value')} over "
                     f"tp × pp × ep, then dp × cp / ep; the rest over tp × pp, then dp × cp) = "
                     f"{format_count(shard_n)}")
        add(
            "optimizer_states",
            n_bytes,
            "Shazeer & Stern 2018, Adafactor, sec. 3 (Algorithm 4) and sec. 7 (beta1 = 0)",
            f"({count_noun(mats, 'row and column statistic')} of the weight matrices + "
            f"{count_noun(vectors, 'vector parameter')}){split} × {sb} bytes ({dtype}); "
            "no first moment (beta1 = 0)",
        )


def _activation_item(
    t: TrainingSpec, r: ResolvedModel, add: _Add, omitted: list[Omitted]
) -> None:
    n_bytes = activation_bytes(t, r)
    if r.arch is not None and r.arch.mamba_layers:
        omitted.append(Omitted(
            "activations",
            "the activations of Mamba (state-space) layers are not modelled (their selective "
            "scan keeps other tensors than attention and MLP): this training estimate counts "
            "the model states",
            "training", "the activations of Mamba (state-space) layers are not modelled"))
        return
    if n_bytes is None or not (r.layers and r.hidden and r.heads):
        omitted.append(
            Omitted(
                "activations",
                "activation memory needs the layers, hidden size and attention heads: give a model "
                "preset or --layers --hidden --heads",
                "training",
                "activation memory needs the layers, hidden size and attention heads",
                ("model", "layers", "hidden", "heads"),
            )
        )
        return
    e = activation_value_bytes(t.precision)
    family = t.convention == "practice" and r.arch is not None
    if family:
        source = FAMILY_SRC
    else:
        source = KORTHIKANTI_SRC + (
            " (16-bit activations)" if e == 2 else " re-derived for 4-byte activations (sec. 4.1)"
        )
    if t.attention_kernel == "flash" and t.recompute != "full":
        source += f"; {FLASH_SRC}"
    if is_fp8(t) and t.recompute != "full":
        source += f"; {FP8_ACT_SRC}"
    if t.pp > 1:
        source += "; first pipeline stage holds L layers' worth (sec. 4.2.3)"
    layers, hidden, heads = layers_held(t, r), r.hidden, r.heads
    if uneven(t, r):
        source += f" — with uneven stages p × ⌈L/p⌉ = {format_count(layers)}; {UNIFORM_SRC}"
    moe = r.arch is not None and r.arch.experts > 1 and t.recompute != "full"
    if t.finetune != "full":
        source += f"; frozen layers: {AUTOGRAD_SRC}"
    if moe:
        from quiz.footprint.items.moe import MOE_SRC

        source += f"; {MOE_SRC}"
    if t.cp > 1:
        source += f"; {CP_SRC}"
    add("activations", n_bytes, source, _activations_text, t, r, family, layers, hidden, heads,
        e, moe)


def _activations_text(t: TrainingSpec, r: ResolvedModel, family: bool, layers: int,
                      hidden: int, heads: int, e: int, moe: bool) -> str:
    """The activations item's formula: the model family's per-layer sum (``family``) or
    Korthikanti et al.'s, for ``layers`` layers of ``e``-byte values, with what adapters and a
    mixture of experts (``moe``) change."""
    if family and r.arch is not None:
        text = layer_formula(r.arch, layers, t.seq_len // t.cp * t.micro_batch, t.seq_len, e,
                             t.attention_kernel, t.recompute, t.tp,
                             t.sequence_parallel and t.tp > 1, is_fp8(t))
    else:
        text = _activation_formula(t, layers, hidden, heads, e)
    if t.finetune != "full":
        text += activation_change_text(t, r)
    if moe:
        from quiz.footprint.items.moe import moe_formula

        text += moe_formula(t, r)
    return text


def _places(x: Fraction) -> int:
    """Decimals that show ``x`` (a share of a byte per parameter): 3, or 4 below 0.01."""
    return 3 if x >= Fraction(1, 100) else 4


def bytes_per_param_text(t: TrainingSpec, r: ResolvedModel) -> str:
    """The bytes-per-parameter sum of the model states (:func:`bytes_per_param`), a total that
    equals its terms: ``"16 bytes/param = 2 (BF16 weights) + 2 (BF16 gradients) + 4 (FP32
    master) + 8 (adamw states)"``. 8-bit Adam's and Adafactor's states are not a whole number per
    parameter: their share is the optimizer bytes of the whole model over its parameters, shown
    to 3 decimals with ``≈`` (``"≈10.004 bytes/param = 2 + 2 + 4 + ≈2.004 (8-bit Adam ...)"``);
    Adafactor without an architecture is named, not summed."""
    parts = bytes_per_param(t)
    fixed = sum(p for p, _ in parts)
    terms = " + ".join(f"{p} ({w})" for p, w in parts)
    # FP8 training's copy is per GEMM weight, not per parameter: named beside the sum, not in it.
    fp8 = ", plus an FP8 copy of each GEMM weight (1 byte per GEMM weight)" if is_fp8(t) else ""
    if t.optimizer not in ("adam-8bit", "adafactor"):
        return f"{fixed} bytes/param = {terms}{fp8}"
    whole = t.model_copy(update={"dp": 1, "tp": 1, "pp": 1, "zero": 0, "ep": 1})
    opt = optimizer_bytes_per_device(whole, r, 1)
    if opt is None:
        return (f"{fixed} bytes/param = {terms}, plus Adafactor's factored states (not "
                f"estimated without an architecture){fp8}")
    share = Fraction(opt, r.params)
    if t.optimizer == "adam-8bit":
        what = (f"8-bit Adam: 2 states × (1 byte + a 4-byte absmax per "
                f"{format_count(ADAM_8BIT_BLOCK)} values)")
    else:
        what = "Adafactor's factored states"
    d = _places(share)
    return (f"≈{float(fixed + share):.{d}f} bytes/param = {terms} + ≈{float(share):.{d}f} "
            f"({what}){fp8}")
