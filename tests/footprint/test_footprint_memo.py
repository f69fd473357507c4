"""The calculator's memos and shortcuts (issue 21: one estimate under 100 µs) give the values
computed afresh: a memo answers for the spec and model it is asked about, never for the ones
asked about before."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from quiz.footprint.engine.estimate import ACTIVATION_ITEMS, estimate
from quiz.footprint.engine.fit import fewest_training_gpus
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.items import ep
from quiz.footprint.items.activations import training_activation_bytes
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
