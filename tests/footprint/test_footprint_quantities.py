"""Each calculator quantity has one function, and every place that shows it gets the same
number: items, the fewest-GPU search, storage, ``--explain``, the JSON, the table, the worked
example's steps and :meth:`Report.figure`."""

from __future__ import annotations

from typing import Any

import pytest

from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec
from quiz.footprint.inputs.units import format_bytes
from quiz.footprint.items.activations import (
    embedding_activation_bytes,
    logits_bytes,
    output_activation_bytes,
    training_activation_bytes,
)
from quiz.footprint.items.inference import (
    kv_cache_bytes,
    plain_weight_bytes,
    weight_bytes,
)
from quiz.footprint.items.model_states import (
    activation_bytes,
    gradient_bytes_per_device,
    master_bytes_per_device,
    model_state_bytes,
    optimizer_bytes_per_device,
    weight_bytes_per_device,
)
from quiz.footprint.items.serving import inference_activation_bytes, sampling_logits_bytes
from quiz.footprint.items.storage import checkpoint_bytes
from quiz.footprint.words.explain import explain_notes
from quiz.footprint.words.render import derivation_steps, render_report

SCENARIOS: list[dict[str, Any]] = [
    {"model": "llama-2-7b"},
    {"model": "llama-2-70b", "gpu": "h100-80gb",
     "training": {"zero": 3, "dp": 64, "tp": 8, "pp": 2, "recompute": "selective",
                  "sequence_parallel": True},
     "inference": {"weights": "int4", "context": 4096, "batch": 8}},
    {"model": "mixtral-8x7b", "gpu": "a100-80gb",
     "training": {"zero": 1, "dp": 8, "optimizer": "adam-8bit", "precision": "mixed-fp16"},
     "inference": {"weights": "fp8", "kv_dtype": "fp8"}},
    {"model": "mistral-7b", "gpu": "a100-40gb",
     "training": {"zero": 2, "dp": 4, "optimizer": "adafactor", "precision": "bf16"},
     "inference": {"weights": "int8", "group_size": 64, "context": 32768}},
    {"model": "gpt-2-1.5b", "training": {"precision": "fp32", "optimizer": "sgd-momentum",
                                         "recompute": "full"},
     "inference": {"weights": "fp32"}, "storage": {"checkpoints": 3}},
    {"params": "7B", "gpu": "h100-80gb", "training": {"zero": 3, "dp": 2},
     "inference": {"weights": "int4"}, "storage": {"dataset_tokens": "1T"}},
]


def _bytes(report_part: Any, name: str) -> int | None:
    item = report_part.item(name)
    return None if item is None else item.bytes


@pytest.mark.parametrize("data", SCENARIOS)
def test_every_view_reads_the_same_quantity(data: dict[str, Any]) -> None:
    spec = FootprintSpec.from_mapping(data)
    t, r, inf = spec.training, spec.resolved, spec.inference
    report = estimate(spec)
    training, inference, storage = report.training, report.inference, report.storage
    assert training is not None and inference is not None and storage is not None

    # training items = the quantity functions; their sum = model states + activations
    dp = t.dp
    assert _bytes(training, "weights") == weight_bytes_per_device(t, r, dp)
    assert _bytes(training, "gradients") == gradient_bytes_per_device(t, r, dp)
    assert (_bytes(training, "master_weights") or 0) == master_bytes_per_device(t, r, dp)
    assert _bytes(training, "optimizer_states") == optimizer_bytes_per_device(t, r, dp)
    assert _bytes(training, "activations") == activation_bytes(t, r)
    states = model_state_bytes(t, r, dp)
    assert states is not None
    assert _bytes(training, "embedding_activations") == (
        embedding_activation_bytes(t, r) if r.layers else None)
    assert _bytes(training, "output_activations") == (
        output_activation_bytes(t, r) if r.layers else None)
    assert _bytes(training, "logits") == (logits_bytes(t, r) if r.layers else None)
    assert training.total_bytes == states + (training_activation_bytes(t, r) or 0)

    # the fewest-GPU search: the count it gives fits, one data-parallel group fewer does not
    gpu = spec.gpu_preset
    if gpu is not None and training.gpus_needed is not None:
        m = t.tp * t.pp
        n = training.gpus_needed // m
        act = training_activation_bytes(t, r) or 0
        usable = training.usable_bytes  # the usable memory (issue 21 §1)
        assert (model_state_bytes(t, r, n) or 0) + act <= usable
        if n > 1:
            assert (model_state_bytes(t, r, n - 1) or 0) + act > usable

    # inference items = the quantity functions
    weights, overhead = weight_bytes(inf, r)
    assert _bytes(inference, "weights") == weights
    assert _bytes(inference, "quantization_overhead") == (overhead or None)
    assert _bytes(inference, "kv_cache") == kv_cache_bytes(inf, r)
    assert _bytes(inference, "activations") == inference_activation_bytes(
        inf, r, spec.gpu_preset)
    assert _bytes(inference, "logits") == sampling_logits_bytes(inf, r)

    # storage: checkpoints = the whole model's weights, master copy and optimizer states, as the
    # training phase shows them for one device without ZeRO; the artefact = inference weights
    whole = estimate(spec.replace({"training": {"dp": 1, "tp": 1, "pp": 1, "zero": 0}}))
    assert whole.training is not None
    kept = ("weights", "master_weights", "optimizer_states")
    if spec.storage.checkpoints:
        one = sum(_bytes(whole.training, k) or 0 for k in kept)
        assert _bytes(storage, "checkpoints") == checkpoint_bytes(spec, r) == \
            spec.storage.checkpoints * one
    assert _bytes(storage, "inference_artifact") == weights + (overhead or 0)

    # every view prints those numbers: JSON, figure(), the table, the steps, --explain
    data_json = report.to_json()
    for phase in report.phases:
        shown = render_report(report, width=160)
        steps = derivation_steps(report)
        for item, entry in zip(phase.items, data_json[phase.phase]["per_device"]["items"],
                               strict=True):
            assert entry["bytes"] == item.bytes == report.figure(f"{phase.phase}.{item.name}")
            size = format_bytes(item.bytes)
            assert size in shown
            assert any(line.endswith(f"{item.formula} = {size}") for line in steps)
    notes = " ".join(explain_notes(report))
    act_item = training.item("activations")
    if act_item is not None:
        assert f"{t.recompute} {format_bytes(act_item.bytes)}" in notes
    kv = inference.item("kv_cache")
    if kv is not None and r.kv_heads != r.heads:
        assert f"instead of {format_bytes(kv.bytes)}" in notes
    if inf.weights in ("fp8", "int8", "int4"):
        assert f'gives {format_bytes(plain_weight_bytes(r.params, inf.weights))}' in notes
        assert format_bytes(weights + (overhead or 0)) in notes


def test_adam_bytes_per_param_in_explain_is_the_items_sum() -> None:
    spec = FootprintSpec.from_mapping({"params": "1B", "training": {"convention": "paper",
                                                                    "optimizer": "adam",
                                                                   "grad_precision": "fp32"},
                                       "phase": "training"})
    report = estimate(spec)
    assert report.training is not None
    assert report.training.total_bytes == 18 * 10**9  # no activations without an architecture
    assert "this estimate counts 18 (FP32 gradients) = 18.00 GB" in " ".join(
        explain_notes(report))
