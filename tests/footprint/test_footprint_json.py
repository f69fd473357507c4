"""The JSON contract of ``quiz footprint --json`` (issue 3): exact keys and types."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quiz.footprint.compute.figures import COMPUTE_NAMES, UNITS
from quiz.footprint.engine.estimate import estimate
from quiz.footprint.engine.report import ITEM_NAMES
from quiz.footprint.inputs.spec import FootprintSpec

ITEM_KEYS = {"name": str, "bytes": int, "formula": str, "source": str}


def check_items(items: list[dict[str, Any]]) -> int:
    total = 0
    for item in items:
        assert set(item) == set(ITEM_KEYS)
        for key, kind in ITEM_KEYS.items():
            assert type(item[key]) is kind, (key, item)
        assert item["name"] in ITEM_NAMES
        assert item["bytes"] >= 0 and item["formula"] and item["source"]
        total += item["bytes"]
    return total


def check_quantization(q: dict[str, Any] | None) -> None:
    if q is None:
        return
    kinds = {"scheme": str, "label": str, "exact": bool, "quantized_params": int,
             "kept_params": int, "kept_bits": int, "bits_per_weight": float, "formats": list,
             "source": str}
    assert set(q) == set(kinds)
    for key, kind in kinds.items():
        assert type(q[key]) is kind, (key, q)
    for f in q["formats"]:
        assert set(f) == {"format", "params", "bytes"}
        assert type(f["format"]) is str and type(f["params"]) is int and type(f["bytes"]) is int
    assert sum(f["params"] for f in q["formats"]) >= q["quantized_params"]


PHASE_GROWN = ("usable_bytes", "complete", "not_estimated")
"""Keys the third edition added to each phase (issue 21 §2, §8: the contract grows)."""


def check_phase_growth(phase: dict[str, Any]) -> None:
    assert phase["usable_bytes"] is None or type(phase["usable_bytes"]) is int
    assert type(phase["complete"]) is bool
    assert phase["not_estimated"] == [] if phase["complete"] else phase["not_estimated"]
    assert all(name in ITEM_NAMES for name in phase["not_estimated"])


KV_KINDS = {"dtype": (str,), "bits_per_value": (float,), "bytes_per_token": (int, type(None)),
            "shared_prefix_tokens": (int,), "tensor_parallel": (int,),
            "kv_heads_per_gpu": (int, type(None)), "kv_copies": (int, type(None)),
            "draft_model": (str, type(None))}
"""The inference ``kv`` object (issue 21 §5: KV format, prefix caching, replicated heads)."""


def check_kv(kv: dict[str, Any]) -> None:
    assert set(kv) == set(KV_KINDS)
    for key, kinds in KV_KINDS.items():
        assert type(kv[key]) in kinds, (key, kv)
    assert kv["tensor_parallel"] >= 1 and kv["shared_prefix_tokens"] >= 0


def check_contract(data: dict[str, Any]) -> None:
    assert set(data) == {"model", "training", "inference", "storage", "omitted", "gpu", "compute",
                         "warnings", "unused"}
    assert set(data["compute"]) == {"items"}
    assert all(type(w) is str and w for w in data["warnings"])
    assert all(set(u) == {"key", "reason"} and type(u["reason"]) is str for u in data["unused"])
    for q in data["compute"]["items"]:
        assert set(q) == {"name", "value", "unit", "formula", "source"}
        assert q["name"] in COMPUTE_NAMES and q["unit"] == UNITS[q["name"]]
        assert type(q["value"]) is int and q["value"] > 0 and q["formula"] and q["source"]
    assert set(data["model"]) == {"name", "preset", "params", "active_params",
                                  "trainable_params"}
    trainable = data["model"]["trainable_params"]
    assert trainable is None or type(trainable) is int
    assert type(data["model"]["name"]) is str
    assert type(data["model"]["params"]) is int
    assert type(data["model"]["active_params"]) is int
    assert data["model"]["preset"] is None or type(data["model"]["preset"]) is str
    training = data["training"]
    if training is not None:
        assert set(training) == {
            "per_device",
            "devices",
            "offloaded",
            "gpus_needed",
            "headroom_bytes",
            "convention",
            *PHASE_GROWN,
            "assumptions",
            "load_cpu",
            "pipeline_stages",
        }
        stages = training["pipeline_stages"]
        assert stages is None or (all(type(n) is int and n > 0 for n in stages)
                                  and len(stages) > 1)
        load = training["load_cpu"]
        assert set(load) == {"zero_init", "bytes_per_param", "params_per_process",
                             "per_process_bytes", "gpus_per_node", "nodes", "per_node_bytes",
                             "formula", "source"}
        assert type(load["zero_init"]) is bool and type(load["per_node_bytes"]) is int
        assert load["per_node_bytes"] == load["per_process_bytes"] * load["gpus_per_node"]
        assert set(training["assumptions"]) == {"convention", "attention", "recompute", "recipe",
                                                "usable", "logits_bytes"}
        assert training["assumptions"]["logits_bytes"] in (4, 6)
        assert set(training["per_device"]) == {"total_bytes", "items"}
        assert set(training["offloaded"]) == {"cpu", "nvme"}
        for host in training["offloaded"].values():
            assert set(host) == {"total_bytes", "items"}
            assert check_items(host["items"]) == host["total_bytes"]
        assert check_items(training["per_device"]["items"]) == training["per_device"]["total_bytes"]
        assert type(training["devices"]) is int
        assert training["gpus_needed"] is None or type(training["gpus_needed"]) is int
        assert training["headroom_bytes"] is None or type(training["headroom_bytes"]) is int
        assert type(training["convention"]) is str
        check_phase_growth(training)
    inference = data["inference"]
    if inference is not None:
        assert set(inference) == {"per_device", "gpus_needed", "headroom_bytes", "convention",
                                  "quantization", *PHASE_GROWN, "max_batch", "max_context",
                                  "assumptions", "kv", "offloaded"}
        assert set(inference["offloaded"]) == {"cpu", "nvme"}
        for host in inference["offloaded"].values():
            assert check_items(host["items"]) == host["total_bytes"]
        assert set(inference["assumptions"]) == {"kv_block", "usable"}
        check_kv(inference["kv"])
        for key in ("max_batch", "max_context"):
            assert inference[key] is None or type(inference[key]) is int
        check_quantization(inference["quantization"])
        assert set(inference["per_device"]) == {"total_bytes", "items"}
        assert (
            check_items(inference["per_device"]["items"]) == inference["per_device"]["total_bytes"]
        )
        assert inference["gpus_needed"] is None or type(inference["gpus_needed"]) is int
        check_phase_growth(inference)
    assert set(data["storage"]) == {"items", "total_bytes"}
    assert check_items(data["storage"]["items"]) == data["storage"]["total_bytes"]
    for entry in data["omitted"]:
        assert set(entry) == {"phase", "item", "reason"}
        assert entry["phase"] in ("training", "inference", "storage", "compute")
        names = COMPUTE_NAMES if entry["phase"] == "compute" else ITEM_NAMES
        assert entry["item"] in names and entry["reason"]
    if data["gpu"] is not None:
        assert set(data["gpu"]) == {"id", "name", "memory_bytes"}
        assert type(data["gpu"]["memory_bytes"]) is int


def test_contract_llama_2_7b() -> None:
    data = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b"})).to_json()
    check_contract(data)
    assert data["model"] == {
        "name": "Llama-2-7B",
        "preset": "llama-2-7b",
        "params": 6_738_415_616,
        "active_params": 6_738_415_616,
        "trainable_params": 6_738_415_616,  # full fine-tuning: every parameter
    }
    assert data["training"]["assumptions"] == {
        "convention": "practice", "attention": "flash", "recompute": "none", "recipe": None,
        "usable": None, "logits_bytes": 6}
    qlora = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "gpu": "rtx-4090", "training": {"finetune": "qlora"}})).to_json()
    # PEFT prints 19,988,480 trainable params for r 8 on every linear layer of Llama-2-7B:
    # 32 × 8 × (4 × (4,096 + 4,096) + 3 × (4,096 + 11,008))
    assert qlora["model"]["trainable_params"] == 32 * 8 * (4 * 8192 + 3 * 15104) == 19_988_480
    assert qlora["training"]["assumptions"]["recipe"] == "peft-qlora (gradient checkpointing)"
    assert qlora["inference"]["assumptions"] == {
        "kv_block": 16, "usable": "vLLM's gpu_memory_utilization 0.9"}
    names = [i["name"] for i in data["training"]["per_device"]["items"]]
    assert names == ["weights", "gradients", "master_weights", "optimizer_states", "activations",
                     "embedding_activations", "output_activations", "logits"]
    names = [i["name"] for i in data["inference"]["per_device"]["items"]]
    assert names == ["weights", "kv_cache", "activations", "logits"]
    assert data["training"]["devices"] == 1 and data["training"]["gpus_needed"] is None
    assert data["gpu"] is None
    # round-trips through JSON text unchanged (no floats, no NaN)
    assert json.loads(json.dumps(data)) == data


def test_contract_variants() -> None:
    for spec in (
        {"params": "7B"},
        {"params": "7.5B", "phase": "training", "training": {"zero": 3, "dp": 64}},
        {
            "model": "mixtral-8x7b",
            "phase": "inference",
            "gpu": "h100-80gb",
            "inference": {"weights": "int4"},
        },
        {
            "model": "gpt-3-175b",
            "gpu": "b200-180gb",
            "storage": {"dataset_tokens": "300B"},
            "training": {"tp": 8, "pp": 8, "zero": 1, "dp": 16},
        },
        {"model": "llama-2-7b", "overhead": "1GiB", "gpu": "h100-80gb",
         "training": {"zero": 3, "dp": 8, "offload": "nvme", "offload_params": "cpu"}},
        {"model": "llama-2-7b", "training": {"zero": 2, "dp": 8, "offload": "cpu",
                                             "convention": "deepspeed"}},
        {"model": "llama-2-7b", "phase": "inference", "inference": {"weights": "gguf-q4_k_m"}},
        {"params": "7B", "phase": "inference", "inference": {"weights": "bnb-int8"}},
        {"model": "llama-3-70b", "phase": "inference", "gpu": "t4",
         "inference": {"kv_dtype": "fp4", "shared_prefix": 1000, "context": 8192,
                       "draft_model": "llama-3.2-1b"}},
    ):
        data = estimate(FootprintSpec.from_mapping(spec)).to_json()
        check_contract(data)
        if spec.get("phase") == "training":
            assert data["inference"] is None
        if spec.get("phase") == "inference":
            assert data["training"] is None
    data = estimate(FootprintSpec.from_mapping({"params": "7B"})).to_json()
    assert {(o["phase"], o["item"]) for o in data["omitted"]} >= {
        ("training", "activations"),
        ("inference", "kv_cache"),
    }


def test_contract_with_explain(capsys: pytest.CaptureFixture[str]) -> None:
    from quiz.cli.footprint import main

    report = estimate(FootprintSpec.from_mapping({"model": "llama-2-70b", "units": "GiB"}))
    plain = report.to_json()
    assert main(["--model", "llama-2-70b", "--units", "GiB", "--json", "--explain"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == set(plain) | {"explain"}
    notes = data.pop("explain")
    assert data == plain
    check_contract(data)
    assert notes and all(type(n) is str and n for n in notes)
    assert any("GiB" in n for n in notes)
    assert json.loads(json.dumps(notes)) == notes


def test_figure_reads_the_numbers_every_view_shows() -> None:
    from quiz.footprint.engine.report import FIGURE_NAMES

    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "gpu": "h100-80gb", "storage": {"dataset_tokens": "2T"},
         "training": {"zero": 3, "dp": 8}}))
    data = report.to_json()
    assert report.figure("params") == 6_738_415_616 == data["model"]["params"]
    assert report.figure("inference.weights") == 13_476_831_232
    assert report.figure("training.total") == data["training"]["per_device"]["total_bytes"]
    assert report.figure("training.gpus_needed") == data["training"]["gpus_needed"] == 2
    assert report.figure("training.devices") == 8
    assert report.figure("inference.total") == data["inference"]["per_device"]["total_bytes"]
    assert report.figure("storage.dataset") == 2 * 10**12 * 2
    assert report.figure("storage.total") == data["storage"]["total_bytes"]
    for name in FIGURE_NAMES:  # every name answers, with an int or None
        value = report.figure(name)
        assert value is None or isinstance(value, int)
    inference_only = estimate(FootprintSpec.from_mapping({"params": "7B", "phase": "inference"}))
    assert inference_only.figure("training.total") is None
    assert inference_only.figure("inference.kv_cache") is None  # no architecture: omitted
    assert inference_only.figure("inference.gpus_needed") is None  # no GPU preset
    with pytest.raises(KeyError, match="did you mean 'training.total'"):
        report.figure("training.totl")


def test_quantization_object_of_a_named_scheme() -> None:
    # Llama-2-7B as GGUF Q4_K_M: Q4_K 5,617,221,632 weights × 144/256 bytes and Q6_K
    # 1,120,927,744 × 210/256 (llama.cpp ggml-common.h block_q4_K, block_q6_K); 266,240 norm
    # weights kept F32. 8 × 4,079,198,208 / 6,738,149,376 = 4.8431 bits per weight.
    data = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "inference",
         "inference": {"weights": "gguf-q4_k_m"}})).to_json()
    q = data["inference"]["quantization"]
    assert q["formats"] == [
        {"format": "Q4_K", "params": 5_617_221_632, "bytes": 5_617_221_632 * 144 // 256},
        {"format": "Q6_K", "params": 1_120_927_744, "bytes": 1_120_927_744 * 210 // 256},
    ]
    assert (q["scheme"], q["kept_params"], q["kept_bits"], q["bits_per_weight"]) == (
        "gguf-q4_k_m", 266_240, 32, 4.8431)
    plain = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "inference", "inference": {"weights": "int4"}}))
    assert plain.to_json()["inference"]["quantization"] is None
