"""Expert parallelism (``--ep``): where the experts' model states live.

Layout convention (Megatron-Core MoE, "MoE Parallel Folding", the default since MCore v0.10):
the expert-parallel group is carved out of the data-parallel × context-parallel ranks of the
attention layers ("The EPxTP group in MoE is a sub-group of DPxCPxTP in Attention"), so

* the device count stays dp × tp × pp × cp, and ``ep`` must divide dp × cp;
* each expert-parallel rank holds E/ep experts of every MoE layer (``ep`` divides E), each
  expert split over tp × pp as the dense weights are (``--expert-tensor-parallel-size``
  defaults to ``--tensor-model-parallel-size``);
* the experts' gradients, FP32 master copy and optimizer states are sharded by ZeRO
  (Megatron's distributed optimizer) over the expert data-parallel group of dp × cp / ep
  ranks that hold the same experts; everything else (attention, embeddings, norms, the
  router) is replicated over the ep ranks and sharded over dp × cp as without EP.

DeepSpeed-MoE (Rajbhandari et al. 2022, sec. 4; DeepSpeed ``groups._create_expert_and_data_
parallel``) uses the same arithmetic without context parallelism: the expert-parallel group is a
sub-group of the data-parallel ranks (``ep`` divides dp) and the experts' ZeRO shards span the
dp / ep "expert data parallel" ranks.

Activations per device do not change with balanced routing: each rank sends its tokens' k
copies out and receives as many back (the all-to-all buffers are transient and not counted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import count_noun, format_count
from quiz.footprint.items.memo import cell
from quiz.footprint.items.pipeline import pp_split, split_text, uneven
from quiz.footprint.items.regime import shard_count

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel

EP_SRC = ("Megatron-Core MoE README, Parallelism and MoE Parallel Folding (--expert-model-"
          "parallel-size: each EP rank holds E/ep experts of every MoE layer; the EP group is a "
          "sub-group of dp × cp; experts' distributed-optimizer shards over dp × cp / ep)")


def expert_params(r: ResolvedModel) -> int:
    """Parameters of the routed experts' MLPs over all layers (weights and biases): the part of
    the model that expert parallelism shards; 0 for a dense model or without an architecture.
    Mixtral-8x7B: 32 layers × 8 experts × 3 × 4,096 × 14,336 = 45,097,156,608."""
    if r.arch is None or r.counts is None or r.arch.experts <= 1:
        return 0
    return r.counts.mlp


def uses_ep(t: TrainingSpec, r: ResolvedModel) -> bool:
    """Whether expert parallelism changes anything: ``ep`` > 1 and a mixture of experts."""
    return t.ep > 1 and expert_params(r) > 0


def expert_group(t: TrainingSpec, dp: int) -> int:
    """Ranks the experts' ZeRO shards span with ``dp`` data-parallel devices: dp × cp / ep
    (at least 1; the spec checks that ep divides dp × cp)."""
    return max(1, dp * t.cp // t.ep)


def split_count(t: TrainingSpec, r: ResolvedModel, n: int, experts: int, stage: int,
                dp: int) -> int:
    """How many of ``n`` values one device holds when ``experts`` of them belong to the routed
    experts: the rest as :func:`~quiz.footprint.items.regime.shard_count` (tp × pp, then ZeRO over
    dp × cp), the experts' part over tp × pp × ep, then ZeRO over dp × cp / ep. Each part is
    rounded up (its largest shard). Without expert parallelism, ``shard_count(t, n, ...)``."""
    if t.ep == 1 or experts <= 0 or not uses_ep(t, r):
        return shard_count(t, n, stage, dp, r)
    rest = shard_count(t, n - experts, stage, dp, r)
    per = pp_split(t, r, experts, t.ep)
    if t.zero >= stage:
        per = -(-per // expert_group(t, dp))
    return rest + per


def param_count(t: TrainingSpec, r: ResolvedModel, stage: int, dp: int) -> int:
    """Parameters per device whose state ZeRO ``stage`` partitions (3: weights, 2: gradients,
    1: master copy and optimizer states), with ``dp`` data-parallel devices: :func:`split_count`
    of every parameter with :func:`expert_params` of them experts.

    Kept in :data:`_PARAM_COUNTS` for the last ``t`` and ``r`` asked about: one estimate asks
    for the same counts about twelve times (the items, the optimizer states, the fewest-GPU
    search, the checkpoints)."""
    entry = _PARAM_COUNTS[0]
    if entry[0] is not t or entry[1] is not r:
        entry = (t, r, {})
        _PARAM_COUNTS[0] = entry
    counts: dict[int, int] = entry[2]
    key = dp if t.zero >= stage else -dp  # (t.zero >= stage, dp) as one int: dp >= 1
    n = counts.get(key)
    if n is None:
        n = counts[key] = _param_count(t, r, stage, dp)
    return n


def _param_count(t: TrainingSpec, r: ResolvedModel, stage: int, dp: int) -> int:
    """:func:`param_count`, computed."""
    if t.ep == 1:  # no expert parallelism: every parameter shards alike
        return shard_count(t, r.params, stage, dp, r)
    return split_count(t, r, r.params, expert_params(r), stage, dp)


_PARAM_COUNTS = cell()
"""The memo of :func:`param_count` (:mod:`quiz.footprint.items.memo`): the entry ``(t, r,
counts)``, the counts of that training spec and resolved model by ``dp`` when
``t.zero >= stage``, else by ``-dp``.
A count depends on ``t``, ``r``, ``dp``, and on ``stage`` only through ``t.zero >= stage``
(ZeRO partitions a state from its stage on: :func:`~quiz.footprint.items.regime.shard_count`
and :func:`split_count` read nothing else of it). Another pair replaces the whole entry (an
estimate asks about its training spec, then about the checkpoints' whole-model view), so the
memo never grows."""


def params_text(t: TrainingSpec, r: ResolvedModel, sharded: bool, n: int) -> str:
    """The per-device parameter count in words with expert parallelism: ``(dense ÷ tp × pp ÷
    ZeRO group) + (experts ÷ tp × pp × ep ÷ expert ZeRO group) = n``."""
    x = expert_params(r)
    dense = r.params - x
    m = t.tp * t.pp
    group = t.dp * t.cp
    egroup = expert_group(t, t.dp)
    dense_text = count_noun(dense, "non-expert param")
    if uneven(t, r):
        dense_text += split_text(t, r)
    elif m > 1:
        dense_text += f" ÷ {format_count(m)} (tp × pp)"
    over = "dp × cp" if t.cp > 1 else "dp"
    if sharded and group > 1:
        dense_text += f" ÷ {format_count(group)} (ZeRO-{t.zero} over {over})"
    expert_text = (f"{count_noun(x, 'expert param')} ÷ {format_count(m * t.ep)} "
                   f"(tp × pp × ep {format_count(t.ep)})")
    if uneven(t, r):
        expert_text = (f"{count_noun(x, 'expert param')}"
                       f"{split_text(t, r, t.ep, f' × ep {format_count(t.ep)}')}")
    if sharded and egroup > 1:
        expert_text += f" ÷ {format_count(egroup)} (ZeRO-{t.zero} over {over} / ep)"
    return f"({dense_text}) + ({expert_text}) = {format_count(n)}"


def expert_adafactor_values(r: ResolvedModel) -> int:
    """Of Adafactor's factored statistics (:func:`~quiz.footprint.inputs.arch.
    adafactor_state_values`), those of the routed experts: per expert and layer, r + c for each
    of its MLP matrices (gate, up, down of h × f: 3(h + f) gated, 2(h + f) without a gate) and
    its biases' full second moments; 0 for a dense model."""
    if r.arch is None or r.arch.experts <= 1:
        return 0
    a = r.arch
    mats = 3 if a.gated_mlp else 2
    bias = ((2 if a.gated_mlp else 1) * a.ffn + a.hidden) if a.linear_bias else 0
    return a.layers * a.experts * (mats * (a.hidden + a.ffn) + bias)
