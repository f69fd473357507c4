"""The model states of one training layout, worked out once per estimate.

An estimate asks for the same model-state quantities in several places: the training items
(weights, gradients, master copy, optimizer states at the layout's data-parallel size), the
fewest-GPU search (the same quantities at other data-parallel sizes) and the notes that explain
them. :class:`ModelStates` holds what they share — the regime's bytes per value, the parameters
one tensor × pipeline-parallel rank holds, the FP8 GEMM weights of that rank — and the
per-device counts and bytes of every data-parallel size asked about, so each is computed once.

:func:`states_of` gives the one object of a training spec and model for the current estimate
(kept for the last pair asked about, :mod:`quiz.footprint.items.memo`; an estimate starts with
none): :mod:`quiz.footprint.items.model_states`'s quantity functions, its items and the fit all
read it. The arithmetic is that of :func:`~quiz.footprint.items.regime.shard_count` (ZeRO's
sharding), :func:`~quiz.footprint.items.ep.split_count` (expert parallelism) and
:func:`~quiz.footprint.items.fp8.fp8_weight_bytes` (FP8 copies), each rule still in its module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quiz.footprint.inputs.arch import adafactor_state_values
from quiz.footprint.items.ep import expert_adafactor_values, expert_params, split_count
from quiz.footprint.items.fp8 import expert_gemm_weights, fp8_weight_bytes, gemm_weights, is_fp8
from quiz.footprint.items.lora import adapter_states
from quiz.footprint.items.memo import per_estimate
from quiz.footprint.items.pipeline import pp_split
from quiz.footprint.items.regime import (
    _BYTES,
    grad_dtype,
    has_master,
    per_value_optimizer_bytes,
    state_bytes,
    weight_dtype,
    zero_shards,
)

if TYPE_CHECKING:
    from quiz.footprint.inputs.parts import TrainingSpec
    from quiz.footprint.inputs.resolve import ResolvedModel


class ModelStates:
    """The model states per device of training spec ``t`` on model ``r``, at any data-parallel
    size ``dp`` (the rest of ``t`` as it is). Build it with :func:`states_of`.

    Attributes:
        t, r: the training spec and the resolved model.
        weight_bytes, grad_bytes: bytes per working weight and per gradient (their dtypes:
            :func:`~quiz.footprint.items.regime.weight_dtype`, :func:`~quiz.footprint.items.
            regime.grad_dtype`).
        state_bytes: bytes per optimizer-state value
            (:func:`~quiz.footprint.items.regime.state_bytes`).
        master: whether an FP32 master copy is kept.
        fp8: whether the GEMMs run in FP8 (an FP8 copy of their weights is kept).
        experts: the routed experts' parameters when expert parallelism splits them
            (:func:`~quiz.footprint.items.ep.uses_ep`), else 0.
    """

    __slots__ = ("t", "r", "weight_bytes", "grad_bytes", "state_bytes", "master", "fp8",
                 "experts", "_per", "_fp8_per", "_counts", "_optimizer", "_by_item")

    def __init__(self, t: TrainingSpec, r: ResolvedModel) -> None:
        self.t, self.r = t, r
        self.weight_bytes = _BYTES[weight_dtype(t)]
        self.grad_bytes = _BYTES[grad_dtype(t)]
        self.state_bytes = state_bytes(t)
        self.master = has_master(t)
        self.fp8 = is_fp8(t)
        self.experts = expert_params(r) if t.ep > 1 else 0  # uses_ep(t, r): its experts
        # one tp × pp rank's parameters (the first stage's share with uneven stages), which
        # ZeRO then shards over dp × cp, and the same of the FP8 copies of the GEMM weights:
        # worked out when first needed (adapters read neither)
        self._per: int | None = None
        self._fp8_per: int | None = None
        self._counts: dict[int, tuple[int, int, int]] = {}
        self._optimizer: dict[int, int | None] = {}
        self._by_item: dict[int, dict[str, int] | None] = {}

    def counts(self, dp: int) -> tuple[int, int, int]:
        """``(weights, gradients, master)``: the parameters per device whose state ZeRO stage
        3, 2 and 1 partitions (:func:`~quiz.footprint.items.ep.param_count` of each stage)
        with ``dp`` data-parallel devices."""
        found = self._counts.get(dp)
        if found is None:
            t = self.t
            if self.experts:
                r, n, x = self.r, self.r.params, self.experts
                found = (split_count(t, r, n, x, 3, dp), split_count(t, r, n, x, 2, dp),
                         split_count(t, r, n, x, 1, dp))
            else:  # every parameter alike
                if self._per is None:
                    self._per = pp_split(t, self.r, self.r.params)
                found = zero_shards(t, self._per, dp)
            self._counts[dp] = found
        return found

    def optimizer(self, dp: int) -> int | None:
        """Bytes of optimizer state per device with ``dp`` data-parallel devices (ZeRO-1
        shards): SGD 0; SGD with momentum 1 value and Adam/AdamW 2 values per parameter of
        ``state_bytes``; 8-bit Adam 2 × (1 byte per parameter + one 4-byte FP32 absmax per
        block of :data:`~quiz.footprint.items.regime.ADAM_8BIT_BLOCK`; Dettmers et al. 2022);
        Adafactor its factored statistics (:func:`~quiz.footprint.inputs.arch.
        adafactor_state_values`) × ``state_bytes``, or ``None`` without an architecture."""
        if dp in self._optimizer:
            return self._optimizer[dp]
        out = self._optimizer_bytes(self.counts(dp)[2], dp)
        self._optimizer[dp] = out
        return out

    def whole(self) -> tuple[int, int, int | None]:
        """``(weights, master, optimizer)``: bytes of the whole model's working weights, FP32
        master copy (0 without mixed precision) and optimizer states (``None``: unknown, as
        :meth:`optimizer`) held once — on one device without ZeRO, tensor, pipeline, context or
        expert parallelism, the layout of :func:`~quiz.footprint.items.storage.whole_model`,
        where every count is the model's parameters — as a checkpoint saves them."""
        n = self.r.params
        return (n * self.weight_bytes, n * 4 if self.master else 0,
                self._optimizer_bytes(n, 1, whole=True))

    def _optimizer_bytes(self, n: int, dp: int, whole: bool = False) -> int | None:
        """Optimizer-state bytes of ``n`` parameters per device (:meth:`optimizer`); Adafactor's
        statistics split as ``t`` (and ``dp``) splits them, or unsplit for the ``whole``
        model."""
        t, r, sb = self.t, self.r, self.state_bytes
        if t.optimizer != "adafactor":
            return per_value_optimizer_bytes(t.optimizer, n, sb)
        if r.arch is None:
            return None
        stats = sum(adafactor_state_values(r.arch))
        return (stats if whole else split_count(t, r, stats, expert_adafactor_values(r), 1,
                                                dp)) * sb

    def fp8_weights(self, dp: int) -> int:
        """Bytes of the FP8 weight copies per device (:func:`~quiz.footprint.items.fp8.
        fp8_weight_bytes`); 0 without FP8."""
        if not self.fp8:
            return 0
        t, r = self.t, self.r
        if self._fp8_per is None:
            if expert_gemm_weights(t, r):  # the experts' copies split over ep too
                return fp8_weight_bytes(t, r, dp)
            self._fp8_per = pp_split(t, r, gemm_weights(r)[0])
        return zero_shards(t, self._fp8_per, dp)[0]

    def by_item(self, dp: int) -> dict[str, int] | None:
        """The model-state bytes per device with ``dp`` data-parallel devices by item name
        (weights, fp8_weights, gradients, master_weights, optimizer_states), wherever they
        live; ``None`` when the optimizer state is unknown (Adafactor without an architecture).
        With adapters (``finetune`` lora or qlora), the frozen base, its NF4 constants and the
        adapters' states (:meth:`quiz.footprint.items.lora.AdapterStates.by_item`). Do not
        change the mapping returned (it is kept for the next caller)."""
        if dp in self._by_item:
            return self._by_item[dp]
        out: dict[str, int] | None
        if self.t.finetune != "full":
            out = adapter_states(self.t, self.r, dp).by_item()
        else:
            opt = self.optimizer(dp)
            if opt is None:
                out = None
            else:
                n3, n2, n1 = self.counts(dp)
                out = {"weights": n3 * self.weight_bytes,
                       "fp8_weights": self.fp8_weights(dp),
                       "gradients": n2 * self.grad_bytes,
                       "master_weights": n1 * 4 if self.master else 0,
                       "optimizer_states": opt}
        self._by_item[dp] = out
        return out


@per_estimate
def states_of(t: TrainingSpec, r: ResolvedModel) -> ModelStates:
    """The :class:`ModelStates` of ``t`` and ``r``, kept for the last pair asked about in this
    estimate (:func:`~quiz.footprint.items.memo.per_estimate`): the items, the fit and the
    notes share it."""
    return ModelStates(t, r)
