"""One field table: the spec models' fields drive the CLI flags, ``--help``, the bank keys and
their errors, the TUI form and FORMAT.md's key table."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from pydantic import ValidationError

from quiz.cli.footprint import FIELDS, add_arguments, spec_mapping
from quiz.footprint.inputs.fields import ModelShape
from quiz.footprint.inputs.spec import FootprintSpec, key_table, spec_fields

FORMAT = Path(__file__).resolve().parents[2] / "question_bank" / "FORMAT.md"


def test_format_md_key_table_is_the_generated_one() -> None:
    text = FORMAT.read_text(encoding="utf-8")
    table = key_table()
    assert table in text, "regenerate with: python -c 'from quiz.footprint.inputs.spec import " \
        "key_table; print(key_table())' and paste it under '### Footprint keys'"
    assert text.count("| `training.dp` |") == 1


def test_every_spec_key_is_a_flag_and_a_documented_field() -> None:
    keys = {f.key for f in spec_fields()}
    from quiz.footprint.inputs.parts import InferenceSpec, StorageSpec, TrainingSpec

    nested = {f"{section}.{name}" for section, model in (
        ("training", TrainingSpec), ("inference", InferenceSpec), ("storage", StorageSpec))
        for name in model.model_fields}
    top = set(FootprintSpec.model_fields) - {"training", "inference", "storage"}
    assert keys == top | nested
    names = [f.name for f in spec_fields()]
    assert len(names) == len(set(names))  # one flag per key, no clash between sections
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    flags = {opt for action in parser._actions for opt in action.option_strings}
    assert {f.flag for f in spec_fields()} <= flags
    help_text = parser.format_help()
    for field in spec_fields():
        assert field.doc.help.split(" (")[0][:30] in " ".join(help_text.split())


def test_flags_become_the_bank_form() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    ns = parser.parse_args(["--model", "llama-2-7b", "--micro-batch", "4", "--weights", "int4",
                            "--dataset-size", "1TB", "--no-gated-mlp"])
    assert spec_mapping(ns) == {"model": "llama-2-7b", "gated_mlp": "false",
                                "training": {"micro_batch": "4"},
                                "inference": {"weights": "int4"},
                                "storage": {"dataset_size": "1TB"}}
    assert len(FIELDS) == len(spec_fields())


def test_help_states_the_models_defaults_and_bounds() -> None:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    text = " ".join(parser.format_help().split())
    assert "--seq-len N tokens per sequence (default 2048)" in text
    assert "--optimizer {sgd,sgd-momentum,adam,adamw,adam-8bit,adafactor} optimizer (default " \
        "adamw)" in text
    by_key = {f.key: f for f in spec_fields()}
    assert by_key["training.dp"].number is not None
    assert by_key["training.dp"].number.maximum == 10**6
    with pytest.raises(ValidationError, match="must be at most 1,000,000 \\(10\\^6\\) devices"):
        FootprintSpec.from_mapping({"model": "llama-2-7b", "training": {"dp": 10**6 + 1}})


def test_presets_are_validated_by_the_same_model() -> None:
    from quiz.footprint.inputs.presets import PresetError, _model

    entry = {"name": "X", "layers": 0, "hidden": 64, "heads": 4, "ffn": 256, "vocab": 100,
             "source": "s", "published_params": 1, "published_params_source": "s"}
    with pytest.raises(PresetError, match="models.yaml: x: layers: must be positive"):
        _model("x", entry)
    with pytest.raises(PresetError, match="unknown key 'layer'; did you mean 'layers'"):
        _model("x", {**entry, "layers": 2, "layer": 2})
    assert set(ModelShape.model_fields) <= {f.key for f in spec_fields()}


@pytest.mark.tui  # the app's form (quiz.tui) imports Textual
def test_the_tui_form_is_built_from_the_labelled_fields() -> None:
    from quiz.tui.screens.footprint import NONE, form_fields

    form = form_fields()
    labelled = [f for f in spec_fields() if f.doc.label]
    assert sorted(f.key for f in form) == sorted(f.key for f in labelled)
    by_key = {f.key: f for f in form}
    assert by_key["training.dp"].label == "Data-parallel"
    assert by_key["training.seq_len"].placeholder == "2048"
    assert by_key["inference.kv_dtype"].choices is not None
    assert by_key["inference.kv_dtype"].choices[0] == ("16-bit (default)", NONE)
    assert [f.key for f in form][-2:] == ["gpu", "units"]
