"""The training regime's rules that every training quantity shares: the dtype of the weights
and gradients for a precision, bytes per optimizer-state value and per activation value, whether
an FP32 master copy is kept, and ZeRO's sharding over data-parallel devices.

They live below :mod:`quiz.footprint.items.model_states` (which re-exports them) so that the modules
that count something else in the same regime — :mod:`quiz.footprint.items.lora`'s adapters — share
them without importing the full-fine-tuning items.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.items.pipeline import pp_split

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

ZERO_SRC = "Rajbhandari et al. 2020, ZeRO, sec. 3.1 and 5 (Fig. 1)"
MIXED_SRC = "Micikevicius et al. 2018, Mixed Precision Training, sec. 3.1"
MIXED_ZERO_SRC = f"{MIXED_SRC}; {ZERO_SRC}"
"""The sources of a master copy (and of weights kept beside one), sharded by ZeRO."""
ADAM_SRC = f"Kingma & Ba 2015 (Adam), Loshchilov & Hutter 2019 (AdamW); {ZERO_SRC}"
"""The sources of Adam's and AdamW's states, sharded by ZeRO."""
ADAM_8BIT_BLOCK = 256
"""Block size of bitsandbytes' block-wise 8-bit optimizers: one FP32 absolute-maximum per block
of 256 values per state (bitsandbytes ``bitsandbytes/optim/optimizer.py``,
``Optimizer2State.init_state``: ``blocks = n // 256``, rounded up, ``absmax1`` and ``absmax2``
FP32). The paper used blocks of 2,048 (:data:`ADAM_8BIT_PAPER_BLOCK`)."""
ADAM_8BIT_PAPER_BLOCK = 2048
"""Block size of Dettmers et al. 2022, "8-bit Optimizers via Block-wise Quantization", sec. 2.1
(named in ``--explain``)."""
ADAM_8BIT_SRC = ("bitsandbytes optim/optimizer.py (Optimizer2State: blocks of 256, FP32 absmax); "
                 "Dettmers et al. 2022, 8-bit Optimizers via Block-wise Quantization, sec. 2")

_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
"""Bytes per value of each weight and gradient dtype."""
_WEIGHT_DTYPE = {"fp32": "fp32", "mixed-fp16": "fp16", "mixed-bf16": "bf16", "bf16": "bf16",
                 "mixed-fp8": "bf16"}


def weight_dtype(t: TrainingSpec) -> str:
    """The dtype the working weights are kept in: fp32, fp16 or bf16."""
    return _WEIGHT_DTYPE[t.precision]


def grad_dtype(t: TrainingSpec) -> str:
    """The gradient dtype: ``grad_precision`` if given, else that of the working weights."""
    return t.grad_precision or weight_dtype(t)


def state_bytes(t: TrainingSpec) -> int:
    """Bytes per optimizer-state value: 4 (FP32), or 2 in the pure-BF16 regime."""
    return 2 if t.precision == "bf16" else 4


def per_value_optimizer_bytes(optimizer: str, n: int, value_bytes: int) -> int | None:
    """Optimizer-state bytes of ``n`` parameters for the optimizers whose states are per value:
    SGD none; momentum 1 and Adam/AdamW 2 values per parameter of ``value_bytes`` each
    (:func:`state_bytes`); 8-bit Adam 2 × (1 byte per value + a 4-byte FP32 absmax per block
    of :data:`ADAM_8BIT_BLOCK`, counted over the ``n`` values at once). ``None`` for Adafactor,
    whose factored statistics depend on the matrices' shapes (the caller counts them)."""
    if optimizer == "sgd":
        return 0
    if optimizer == "sgd-momentum":
        return n * value_bytes
    if optimizer in ("adam", "adamw"):
        return 2 * n * value_bytes
    if optimizer == "adam-8bit":
        return 2 * (n + -(-n // ADAM_8BIT_BLOCK) * 4)
    return None


def has_master(t: TrainingSpec) -> bool:
    """Whether an FP32 master copy of the weights is kept (the mixed-precision regimes)."""
    return t.precision.startswith("mixed")


def activation_value_bytes(precision: str) -> int:
    """Bytes per activation value ``e``: 4 in the FP32 regime (``precision`` ``"fp32"``), else 2.
    The one place this rule lives: training items, ``--explain`` and inference activations read
    it (inference passes its weight format, whose FP32 also means FP32 activations)."""
    return 4 if precision == "fp32" else 2


def shard_count(t: TrainingSpec, n: int, stage: int, dp: int,
                r: ResolvedModel | None = None) -> int:
    """How many of ``n`` values (parameters, or Adafactor statistics) one device holds: split
    evenly over tp × pp first, then over ``dp`` × cp devices (context-parallel ranks hold the
    same weights and join the sharding, as Megatron-LM's distributed optimizer shards over the
    data-parallel group with context parallelism) when the ZeRO stage of ``t`` is ``stage`` or
    higher (3: weights, 2: gradients, 1: master copy and optimizer states;
    Rajbhandari et al. 2020, sec. 5). Rounded up: the largest shard.

    With ``r`` and pipeline stages of different sizes, the tp × pp split is the first stage's
    share (:func:`quiz.footprint.items.pipeline.pp_split`).

    The single home of ZeRO's sharding rule (with :func:`zero_shards`, its three stages at
    once): items, the fewest-GPU search and storage read it.
    """
    per = -(-n // (t.tp * t.pp)) if r is None else pp_split(t, r, n)
    return -(-per // (dp * t.cp)) if t.zero >= stage else per


def zero_shards(t: TrainingSpec, per: int, dp: int) -> tuple[int, int, int]:
    """``(stage 3, stage 2, stage 1)``: how many of the ``per`` values of one tp × pp rank one
    device holds when ZeRO partitions a state from stage 3, 2 or 1 on (weights, gradients,
    master copy and optimizer states) with ``dp`` data-parallel devices: :func:`shard_count`'s
    rule (over ``dp`` × cp, rounded up, when the ZeRO stage of ``t`` is that stage or
    higher) for the three stages, from the rank's share computed once."""
    zero = t.zero
    if not zero:
        return per, per, per
    shard = -(-per // (dp * t.cp))
    return (shard if zero >= 3 else per, shard if zero >= 2 else per, shard)
