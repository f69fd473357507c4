"""The calculator's memos and shortcuts (issue 21: one estimate under 100 µs) give what is
computed afresh: a memo answers for the spec and model it is asked about, never for the ones
asked about before; a frozen report class built by fast_init is the instance its dataclass
builds, as frozen."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import pickle
from pathlib import Path
from typing import Any

import pytest

from quiz.footprint.engine.estimate import ACTIVATION_ITEMS, estimate
from quiz.footprint.engine.fit import fewest_training_gpus
from quiz.footprint.engine.report import ModelSummary, PhaseEstimate, StorageEstimate
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.inputs.views import spec_view, with_values
from quiz.footprint.items import ep
from quiz.footprint.items.activations import training_activation_bytes
from quiz.footprint.items.frozen import DATACLASS_INIT, fast_init
from quiz.footprint.items.inference import weight_bytes
from quiz.footprint.items.memo import new_estimate, per_estimate
from quiz.footprint.items.storage import whole_model

CONFIGS = Path(__file__).parent / "configs"


def spec(**data: object) -> FootprintSpec:
    return FootprintSpec.from_mapping(data)


# Layouts that change every per-device count: tp × pp (80 layers over 3 stages: uneven), the
# ZeRO stage, context parallelism and, for Mixtral, expert parallelism.
LAYOUTS = [
    {"dp": 64, "tp": 2, "pp": 3, "zero": 3},
    {"dp": 64, "tp": 2, "pp": 3, "zero": 1},
    {"dp": 8, "tp": 4, "pp": 2, "zero": 2, "cp": 2},
    {"dp": 8, "zero": 0},
    {"dp": 8, "ep": 8, "zero": 2},
]


def test_param_count_answers_for_the_spec_asked_not_the_last() -> None:
    # Two models and five layouts asked about in turn, each call checked against the count
    # computed afresh: a memo keyed on too little (the last spec, the stage) fails here.
    models = ["llama-2-70b", "mixtral-8x7b"]
    cases = [(spec(model=m, training=lay).training, spec(model=m).resolved)
             for m in models for lay in LAYOUTS
             if "ep" not in lay or m == "mixtral-8x7b"]
    seen = set()
    for (t, r), stage, dp in itertools.product(cases * 2, (3, 2, 1), (1, 8, 64)):
        got = ep.param_count(t, r, stage, dp)
        assert got == ep._param_count(t, r, stage, dp)
        seen.add(got)
    assert len(seen) >= 15  # the cases do differ, so a stale answer would be caught


def test_param_count_by_hand_after_another_spec() -> None:
    # Llama-2-70B, 68,976,648,192 params, pp 3 over 80 layers (27 on the first stage), tp 2:
    # 68,976,648,192 × 27 / 160 = 11,639,809,382.4, rounded up; ZeRO-3 over dp 64:
    # 181,872,021.6, rounded up (the estimate's weights item: 181,872,022 × 2 bytes).
    r = spec(model="llama-2-70b").resolved
    big = spec(model="llama-2-70b", training={"dp": 64, "tp": 2, "pp": 3, "zero": 3}).training
    small = spec(model="llama-2-70b", training={"dp": 64, "tp": 2, "pp": 3, "zero": 0}).training
    per = -(-68_976_648_192 * 27 // 160)
    assert per == 11_639_809_383
    assert ep.param_count(big, r, 3, 64) == -(-per // 64) == 181_872_022
    assert ep.param_count(small, r, 3, 64) == per  # ZeRO-0: nothing sharded over dp
    assert ep.param_count(big, r, 1, 64) == -(-per // 64)
    # the same values in a new object: the same count, from the new object
    again = spec(model="llama-2-70b", training={"dp": 64, "tp": 2, "pp": 3, "zero": 3}).training
    assert again is not big and ep.param_count(again, r, 2, 64) == -(-per // 64)
    # the checkpoints' whole-model view of the same spec: every parameter
    assert ep.param_count(whole_model(big), r, 3, 1) == 68_976_648_192
    assert ep.param_count(big, r, 3, 1) == per
    # the same spec with another model: Llama-2-7B's 6,738,415,616 params, 32 layers over 3
    # stages (11 on the first) ÷ tp 2: 1,158,165,184; ÷ dp 64: 18,096,331
    r7 = spec(model="llama-2-7b").resolved
    assert ep.param_count(big, r7, 3, 64) == 18_096_331
    assert ep.param_count(big, r, 3, 64) == 181_872_022


@pytest.mark.parametrize("data", [
    {"model": "llama-2-70b", "training": {"dp": 64, "tp": 2, "pp": 3, "zero": 3,
                                          "logits_bytes": 4}},
    {"model": "llama-2-7b", "training": {"finetune": "qlora"}},
    {"model": "llama-2-7b", "training": {"convention": "practice", "recompute": "none"}},
    {"model": "mixtral-8x7b", "training": {"dp": 8, "ep": 8, "zero": 2, "cp": 2,
                                           "seq_len": 8192}},
    {"params": "7B"},  # no architecture: no activation items at all
    {"model": "llama-2-7b", "training": {"pp": 2, "tp": 2, "sequence_parallel": True}},
    {"config": str(CONFIGS / "mamba-2.8b.json")},  # Mamba layers: activations not modelled
])
def test_activation_items_sum_to_what_the_fit_adds(data: dict[str, object]) -> None:
    # The estimate hands the fewest-GPU search the sum of its activation items instead of
    # computing training_activation_bytes again: the two must agree.
    s = spec(**data, phase="training")
    report = estimate(s)
    assert report.training is not None
    summed = sum(i.bytes for i in report.training.items if i.name in ACTIVATION_ITEMS)
    assert summed == (training_activation_bytes(s.training, s.resolved) or 0)
    for memory in (16 * 10**9, 80 * 10**9, 10**12):
        assert (fewest_training_gpus(s.training, s.resolved, memory, summed)
                == fewest_training_gpus(s.training, s.resolved, memory))


def test_per_estimate_keeps_the_last_pair_by_identity() -> None:
    calls: list[tuple[list[int], list[int]]] = []

    @per_estimate
    def summed(a: list[int], b: list[int]) -> int:
        calls.append((a, b))
        return sum(a) + sum(b)

    x, y, z = [1], [2], [3]
    assert summed(x, y) == summed(x, y) == 3 and len(calls) == 1
    assert summed(x, z) == 4 and len(calls) == 2  # another pair: computed
    assert summed(x, y) == 3 and len(calls) == 3  # only the last pair is kept
    assert summed(x, [2]) == 3 and len(calls) == 4  # equal is not the same object
    last = calls[-1]
    assert summed(*last) == 3 and len(calls) == 4
    new_estimate()
    assert summed(*last) == 3 and len(calls) == 5  # forgotten when an estimate starts


def test_weight_bytes_answers_for_the_spec_asked() -> None:
    # The inference weights of two formats and two models asked about in turn, each checked
    # against the weights computed afresh (weight_bytes.__wrapped__).
    fresh = weight_bytes.__wrapped__  # type: ignore[attr-defined]
    cases = [(spec(model=m, inference={"weights": w}).inference, spec(model=m).resolved)
             for m in ("llama-2-70b", "mixtral-8x7b") for w in ("int4", "gptq-int4", "fp8")]
    for inf, r in cases * 2:
        assert weight_bytes(inf, r) == fresh(inf, r)
    assert len({weight_bytes(inf, r) for inf, r in cases}) == len(cases)
    # Llama-2-70B in BF16, by hand: 68,976,648,192 params × 2 bytes, no scales
    bf16 = spec(model="llama-2-70b", inference={"weights": "bf16"}).inference
    assert weight_bytes(bf16, cases[0][1]) == (137_953_296_384, 0)


FROZEN: list[tuple[type[Any], tuple[object, ...], dict[str, object]]] = [
    (PhaseEstimate, ("training", [], 5, 64, None, None, "c", "s"), {"usable_bytes": 3}),
    (StorageEstimate, ([], 7), {}),
    (ModelSummary, ("Llama", None, 1, 1, "note"), {}),
]


@pytest.mark.parametrize(("cls", "args", "kwargs"), FROZEN)
def test_fast_init_builds_the_frozen_instance_the_dataclass_would(
        cls: type[Any], args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    made = cls(*args, **kwargs)
    reference: Any = object.__new__(cls)
    DATACLASS_INIT[cls](reference, *args, **kwargs)  # the dataclass's own (frozen) __init__
    assert type(made) is cls and made == reference
    for f in dataclasses.fields(cls):
        assert getattr(made, f.name) == getattr(reference, f.name)
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, f.name, None)
        with pytest.raises(dataclasses.FrozenInstanceError):
            delattr(made, f.name)
    for again in (copy.copy(made), pickle.loads(pickle.dumps(made))):
        assert type(again) is cls and again == made
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(again, dataclasses.fields(cls)[0].name, None)
    with pytest.raises(TypeError, match="missing"):
        cls(*args[:1])
    with pytest.raises(TypeError, match="unexpected keyword argument 'nothing'"):
        cls(*args, **kwargs, nothing=1)
    with pytest.raises(TypeError, match="positional argument"):
        cls(*args, *([None] * len(dataclasses.fields(cls))))


def test_fast_init_default_factories_give_each_instance_its_own() -> None:
    one = PhaseEstimate("training", [], 5, 64, None, None, "c", "s")
    two = PhaseEstimate("training", [], 5, 64, None, None, "c", "s")
    assert one.host == {} and one.host is not two.host
    assert one.capacity_of == (None, None) and one.kv_tp == 1


def test_fast_init_refuses_what_it_cannot_build() -> None:
    @dataclasses.dataclass(slots=True)
    class Mutable:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            pass

    for cls in (Mutable, Checked):
        with pytest.raises(TypeError):
            fast_init(cls)


def test_a_view_reads_as_its_part() -> None:
    s = spec(model="llama-2-70b", gpu="h100-80gb", training={"dp": 8, "tp": 2, "pp": 4},
             inference={"weights": "int4"})
    seen = spec_view(s)
    assert spec_view(s) is seen  # kept for the last spec
    assert vars(seen.training) == vars(s.training)  # the same values, in the same order
    assert vars(seen.inference) == vars(s.inference)
    assert seen.training.devices == s.training.devices == 64
    assert seen.training.attention_kernel == s.training.attention_kernel
    assert seen.phases == s.phases and seen.resolved is s.resolved
    assert seen.gpu_preset == s.gpu_preset
    assert seen.training.model_fields_set == s.training.model_fields_set == {"dp", "tp", "pp"}
    assert seen.to_mapping() == s.to_mapping()
    assert seen.training.model_copy(update={"dp": 2}).devices == 16
    with pytest.raises(AttributeError, match="read-only"):
        seen.training.dp = 1  # type: ignore[misc]
    other = spec(model="llama-2-70b", training={"dp": 2})
    assert spec_view(other).training.dp == 2 and spec_view(other) is not seen
    whole = whole_model(seen.training)
    assert (whole.dp, whole.tp, whole.pp, whole.zero, whole.devices) == (1, 1, 1, 0, 1)
    assert whole.precision == s.training.precision and seen.training.devices == 64
    assert with_values(s.training, dp=4).devices == 4 * 2 * 4


@pytest.mark.parametrize("data", [
    {"model": "llama-2-70b", "gpu": "h100-80gb", "overhead": "1GiB",
     "training": {"zero": 3, "dp": 64, "tp": 2, "pp": 3, "offload": "cpu"},
     "inference": {"weights": "int4", "draft_model": "llama-2-7b", "batch": 8}},
    {"model": "mixtral-8x7b", "gpu": "a100-80gb",
     "training": {"convention": "deepspeed", "zero": 3, "dp": 8, "offload": "cpu"},
     "inference": {"weights": "gguf-q4_k_m", "gpu_layers": 20}},
    {"model": "llama-2-7b", "gpu": "rtx-4090", "training": {"finetune": "qlora"},
     "inference": {"weights": "gptq-int4"}},
])
def test_an_estimate_leaves_no_reference_cycle(data: dict[str, Any]) -> None:
    # What an estimate builds is freed when its report is dropped (reference counting), not
    # left to the garbage collector: the benchmark times estimates with the collector off, and
    # a report kept in a cycle (a lazy figure holding its own phase) left ~70 objects a time.
    import gc

    s = spec(**data)
    report = estimate(s)
    assert report.inference is not None and report.inference.capacity == report.inference.capacity
    del report
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(3):
            estimate(spec(**data))
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


@pytest.mark.parametrize("model", ["llama-2-70b", "mixtral-8x7b"])
@pytest.mark.parametrize("extra", [
    {}, {"precision": "mixed-fp8"}, {"optimizer": "adam-8bit"}, {"optimizer": "adafactor"},
    {"optimizer": "sgd-momentum", "precision": "bf16"}, {"optimizer": "sgd"},
])
def test_model_states_equal_the_counts_computed_afresh(model: str,
                                                       extra: dict[str, object]) -> None:
    # The estimate's ModelStates (one per training spec and model) answers what param_count,
    # fp8_weight_bytes and the Adafactor split compute one by one, for the layout and for the
    # whole model a checkpoint saves (the whole_model view's counts).
    from quiz.footprint.inputs.arch import adafactor_state_values
    from quiz.footprint.items.fp8 import fp8_weight_bytes
    from quiz.footprint.items.states import ModelStates

    r = spec(model=model).resolved
    seen = set()
    for lay in LAYOUTS:
        if "ep" in lay and model != "mixtral-8x7b":
            continue
        t = spec(model=model, training={**lay, **extra}).training
        states = ModelStates(t, r)
        for dp in (1, 2, 8, 64):
            counts = tuple(ep._param_count(t, r, stage, dp) for stage in (3, 2, 1))
            assert states.counts(dp) == counts
            seen.add(counts)
            assert states.fp8_weights(dp) == fp8_weight_bytes(t, r, dp)
            n, sb = counts[2], states.state_bytes
            assert states.optimizer(dp) == {
                "adamw": 2 * n * sb, "adam-8bit": 2 * (n + -(-n // 256) * 4),
                "sgd-momentum": n * sb, "sgd": 0,
                "adafactor": ep.split_count(t, r, sum(adafactor_state_values(r.arch)),
                                            ep.expert_adafactor_values(r), 1, dp) * sb,
            }[t.optimizer]
        whole = whole_model(t)
        counts = tuple(ep._param_count(whole, r, stage, 1) for stage in (3, 2, 1))
        assert counts == (r.params,) * 3
        assert states.whole() == (r.params * states.weight_bytes,
                                  r.params * 4 if states.master else 0,
                                  ModelStates(whole, r).optimizer(1))
    assert len(seen) >= 10  # the layouts do differ, so a wrong rule would be caught
