"""The spec: text scalars as a bank writes them, precise error locations and messages."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from quiz.footprint.inputs.spec import FootprintSpec


def errors(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as info:
        FootprintSpec.from_mapping(data)
    return [(tuple(e["loc"]), e["msg"]) for e in info.value.errors()]


def test_every_scalar_may_be_text() -> None:
    data = {
        "model": "llama-2-7b",
        "phase": "both",
        "layers": "32",
        "tied_embeddings": "no",
        "training": {
            "precision": "MIXED_FP16",
            "optimizer": "adamw",
            "zero": "2",
            "dp": "8",
            "tp": "2",
            "pp": "1",
            "sequence_parallel": "yes",
            "micro_batch": "4",
            "seq_len": "4_096",
            "recompute": "selective",
        },
        "inference": {
            "weights": "int4",
            "group_size": "64",
            "kv_dtype": "fp8",
            "batch": "16",
            "context": "4Ki",
        },
        "storage": {
            "dataset_tokens": "2T",
            "bytes_per_token": "4",
            "checkpoints": "3",
            "checkpoint_kind": "weights",
        },
        "gpu": "H100-80GB",
        "units": "gib",
    }
    s = FootprintSpec.from_mapping(data)
    assert s.training.precision == "mixed-fp16"
    assert s.training.zero == 2 and s.training.seq_len == 4096
    assert s.training.sequence_parallel is True
    assert s.inference.context == 4096
    assert s.storage.dataset_tokens == 2 * 10**12
    assert s.gpu == "h100-80gb" and s.units == "GiB"
    assert s.tied_embeddings is False
    assert s.resolved.params == 6_738_415_616


def test_numbers_may_be_numbers() -> None:
    s = FootprintSpec.from_mapping({"params": 7_000_000_000, "training": {"zero": 3, "dp": 64}})
    assert s.params == 7 * 10**9 and s.training.devices == 64


@pytest.mark.parametrize(
    ("data", "loc", "message"),
    [
        (
            {"model": "llama-2-7b", "training": {"zero": 4}},
            ("training", "zero"),
            "ZeRO stage must be 0, 1, 2 or 3",
        ),
        (
            {"model": "llama-2-7b", "training": {"zero": "three"}},
            ("training", "zero"),
            "ZeRO stage must be 0, 1, 2 or 3",
        ),
        (
            {"model": "llama-2-7b", "training": {"tp": 3}},
            ("training", "tp"),
            "tensor parallel size 3 does not divide 32 attention heads",
        ),
        (
            # uneven stages are allowed (issue 21 §6); more stages than layers are not
            {"model": "llama-2-7b", "training": {"pp": 33}},
            ("training", "pp"),
            "pipeline parallel size 33 is more than the 32 layers: every stage needs at least "
            "one layer",
        ),
        (
            {"model": "llama-7b"},
            ("model",),
            "unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?",
        ),
        (
            {"model": "llama-2-7b", "gpu": "h100"},
            ("gpu",),
            "unknown GPU preset 'h100'; did you mean 'h100-80gb'?",
        ),
        ({"params": "-7B"}, ("params",), "must be positive (got -7,000,000,000)"),
        ({"params": "1.5"}, ("params",), "'1.5' is not a whole number"),
        (
            {"params": "7B", "inference": {"batch": 0}},
            ("inference", "batch"),
            "must be positive (got 0)",
        ),
        (
            {"model": "llama-2-7b", "params": "7B"},
            ("params",),
            "give either a model preset or a parameter count, not both",
        ),
        (
            {"layers": 32},
            ("model",),
            "give a model preset (model), a parameter count (params) or a full architecture "
            "(missing: hidden, heads, ffn, vocab)",
        ),
        (
            {"model": "llama-2-7b", "training": {"tpp": 2}},
            ("training", "tpp"),
            "unknown key 'tpp'; did you mean 'tp'?",
        ),
        (
            {"model": "llama-2-7b", "trainig": {}},
            ("trainig",),
            "unknown key 'trainig'; did you mean 'training'?",
        ),
        (
            {"model": "llama-2-7b", "training": {"optimizer": "adamm"}},
            ("training", "optimizer"),
            "unknown optimizer 'adamm'; expected one of: sgd, sgd-momentum, adam, adamw, "
            "adam-8bit, adafactor; did you mean 'adam'?",
        ),
        (
            {"model": "llama-2-7b", "kv_heads": 5},
            ("kv_heads",),
            "5 key/value heads do not divide the 32 attention heads (grouped-query attention "
            "shares each key/value head among heads / kv_heads queries)",
        ),
        (
            {"model": "mixtral-8x7b", "active_experts": 9},
            ("active_experts",),
            "9 active experts per token is more than the 8 experts",
        ),
        (
            {"params": "7B", "storage": {"dataset_tokens": "1T", "dataset_size": "2TB"}},
            ("storage", "dataset_size"),
            "give dataset_tokens or dataset_size, not both",
        ),
        (
            {"params": "7B", "training": {"sequence_parallel": "maybe"}},
            ("training", "sequence_parallel"),
            "'maybe' is not a yes/no value (use true/false or yes/no)",
        ),
        (
            {"params": "7B", "units": "MB"},
            ("units",),
            "unknown units 'MB'; expected one of: GB, GiB",
        ),
    ],
)
def test_errors_have_precise_loc_and_message(
    data: dict[str, Any], loc: tuple[str, ...], message: str
) -> None:
    found = errors(data)
    assert any(at == loc and m.startswith(message) for at, m in found), found


def test_several_field_errors_at_once() -> None:
    found = errors({"model": "llama-7b", "training": {"micro_batch": -1}, "gpu": "a100"})
    assert {loc for loc, _ in found} == {("model",), ("training", "micro_batch"), ("gpu",)}


def test_tp_is_not_checked_for_inference_only() -> None:
    s = FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "inference", "training": {"tp": 3}}
    )
    assert s.phases == ("inference",)


def test_architecture_overrides_a_preset() -> None:
    s = FootprintSpec.from_mapping({"model": "llama-2-7b", "layers": 16})
    assert s.resolved.params == 6_738_415_616 - 16 * 202_383_360
    assert "layers changed" in s.resolved.params_note
    assert s.resolved.name.endswith("(modified)")
    wide = FootprintSpec.from_mapping({"model": "llama-2-7b", "heads": 64})
    assert wide.resolved.head_dim == 64 and wide.resolved.kv_heads == 64


def test_custom_architecture() -> None:
    s = FootprintSpec.from_mapping(
        {
            "layers": 48,
            "hidden": 1600,
            "heads": 25,
            "ffn": 6400,
            "vocab": 50257,
            "tied_embeddings": True,
            "gated_mlp": False,
            "norm": "layernorm",
            "linear_bias": True,
            "learned_positions": 1024,
        }
    )
    assert s.resolved.params == 1_557_611_200  # GPT-2 XL


def test_moe_needs_active_experts() -> None:
    assert (
        ("active_experts",),
        "give the number of experts active per token (active_experts) with experts",
    ) in errors({"model": "llama-2-7b", "experts": 8})


def test_frozen_and_round_trip() -> None:
    s = FootprintSpec.from_mapping({"model": "llama-2-7b", "training": {"zero": "3", "dp": 8}})
    with pytest.raises(ValidationError):
        s.phase = "training"  # type: ignore[misc]
    assert s.to_mapping() == {"model": "llama-2-7b", "training": {"zero": 3, "dp": 8}}
    assert FootprintSpec.from_mapping(s.to_mapping()) == s
    t = s.replace({"training": {"zero": 1}, "gpu": "a100-80gb"})
    assert t.training.zero == 1 and t.training.dp == 8 and t.gpu == "a100-80gb"
    assert s.replace({"gpu": None}).gpu is None
    with pytest.raises(ValidationError):
        s.replace({"training": {"zero": 5}})


def test_replace_resets_fields_of_a_part_left_at_its_defaults() -> None:
    """A part whose every field is a default is not in the dump; None still resets there (the
    fp32-everything misconception replaces weights and clears group_size on a BF16 scenario)."""
    s = FootprintSpec.from_mapping({"model": "llama-2-70b", "inference": {"weights": "bf16"}})
    t = s.replace({"inference": {"weights": "fp32", "kv_dtype": "fp32", "group_size": None}})
    assert (t.inference.weights, t.inference.kv_dtype, t.inference.group_size) == ("fp32",
                                                                                  "fp32", 128)


@pytest.mark.parametrize(
    ("data", "loc", "message"),
    [
        (
            {"model": "llama-2-7b", "training": {"seq_len": "1e24"}},
            ("training", "seq_len"),
            "must be at most 1,000,000,000 (10^9) tokens (got 1,000,000,000,000,000,000,000,000)",
        ),
        (
            {"model": "llama-2-7b", "training": {"micro_batch": 10**7 + 1}},
            ("training", "micro_batch"),
            "must be at most 10,000,000 (10^7) sequences (got 10,000,001)",
        ),
        (
            {"params": "2e15"},
            ("params",),
            "must be at most 1,000,000,000,000,000 (10^15) parameters",
        ),
        ({"params": "1e30"}, ("params",), "must be at most 1,000,000,000,000,000 (10^15) "
         "parameters (got '1e30')"),
        (
            {"params": "7B", "training": {"dp": "2M"}},
            ("training", "dp"),
            "must be at most 1,000,000 (10^6) devices (got 2,000,000)",
        ),
        (
            {"params": "7B", "training": {"tp": 10**6 + 1}},
            ("training", "tp"),
            "must be at most 1,000,000 (10^6) devices",
        ),
        (
            {"params": "7B", "training": {"pp": 10**6 + 1}},
            ("training", "pp"),
            "must be at most 1,000,000 (10^6) devices",
        ),
        (
            {"params": "7B", "inference": {"context": "2e9"}},
            ("inference", "context"),
            "must be at most 1,000,000,000 (10^9) tokens",
        ),
        (
            {"params": "7B", "inference": {"batch": "999999999"}},
            ("inference", "batch"),
            "must be at most 10,000,000 (10^7) sequences (got 999,999,999)",
        ),
        (
            {"params": "7B", "storage": {"dataset_tokens": "2e16"}},
            ("storage", "dataset_tokens"),
            "must be at most 10,000,000,000,000,000 (10^16) tokens",
        ),
        (
            {"params": "7B", "storage": {"dataset_size": "2000PB"}},
            ("storage", "dataset_size"),
            "must be at most 1,000,000,000,000,000,000 (10^18) bytes (1 EB)",
        ),
        (
            {"params": "7B", "storage": {"bytes_per_token": 65}},
            ("storage", "bytes_per_token"),
            "must be at most 64 bytes (got 65)",
        ),
        (
            {"model": "llama-2-7b", "hidden": "1e7", "ffn": "1e8"},
            ("hidden",),
            "the architecture has 108,800,640,650,000,000 parameters; at most "
            "1,000,000,000,000,000 are supported",
        ),
        (
            {"model": "llama-2-7b", "layers": "1e6"},
            ("layers",),
            "must be at most 100,000 (10^5) layers",
        ),
    ],
)
def test_upper_bounds_are_located_errors(
    data: dict[str, Any], loc: tuple[str, ...], message: str
) -> None:
    found = errors(data)
    assert any(at == loc and m.startswith(message) for at, m in found), found


def test_values_at_the_bounds_are_accepted() -> None:
    s = FootprintSpec.from_mapping(
        {
            "params": 10**15,
            "training": {"seq_len": "1e9", "micro_batch": "1e7", "dp": "1e6"},
            "inference": {"context": 10**9, "batch": 10**7},
            "storage": {"dataset_tokens": "1e16", "bytes_per_token": 64},
        }
    )
    assert s.training.seq_len == 10**9 and s.storage.dataset_tokens == 10**16
    FootprintSpec.from_mapping({"params": "7B", "storage": {"dataset_size": "1000PB"}})
