"""Nothing accepted silently (issue 21 §7): the largest layer against the model, AWQ/GPTQ group
sizes against the matrices' widths, a context longer than the model was trained for, optimizer
offload against the ZeRO stage, DeepSpeed's CPU estimate split into what it holds, settings
given but not used, and `--help` that never splits a flag name."""

from __future__ import annotations

import json
import re

import pytest
from pydantic import ValidationError

from quiz.cli.footprint import build_parser, main
from quiz.footprint.engine.estimate import estimate
from quiz.footprint.inputs.spec import FootprintSpec, error_lines
from quiz.footprint.words.render import render_report


def _errors(data: dict) -> list[tuple[tuple, str]]:
    with pytest.raises(ValidationError) as info:
        FootprintSpec.from_mapping(data)
    return error_lines(info.value)


def test_a_largest_layer_larger_than_the_model_is_an_error_naming_both(capsys) -> None:
    data = {"model": "llama-2-7b", "phase": "training",
            "training": {"zero": 3, "dp": 8, "convention": "deepspeed", "largest_layer": "8B"}}
    [(loc, message)] = _errors(data)
    assert loc == ("training", "largest_layer")
    assert "8,000,000,000 parameters" in message and "6,738,415,616 parameters" in message
    # the model's own count is allowed (one module cannot hold more)
    ok = {**data, "training": {**data["training"], "largest_layer": 6_738_415_616}}
    assert estimate(FootprintSpec.from_mapping(ok)).training is not None
    assert main(["--model", "llama-2-7b", "--phase", "training", "--zero", "3", "--dp", "8",
                 "--convention", "deepspeed", "--largest-layer", "8B"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("quiz footprint: error: --largest-layer: the largest layer, "
                          "8,000,000,000 parameters, is larger than the whole model "
                          "(6,738,415,616 parameters)")


def test_an_awq_group_that_does_not_divide_in_features_is_an_error() -> None:
    # AutoAWQ's WQLinear_GEMM asserts in_features % group_size == 0; Llama-2-7B's matrices take
    # 4,096 and 11,008 inputs, and 96 divides neither (4,096 = 42 × 96 + 64).
    [(loc, message)] = _errors({"model": "llama-2-7b", "phase": "inference",
                                "inference": {"weights": "awq-int4", "group_size": 96}})
    assert loc == ("inference", "group_size")
    assert "(4,096, 11,008)" in message and "AutoAWQ" in message
    assert "e.g. 32, 64, 128, 256" in message  # gcd(4,096, 11,008) = 256
    # GPT-2 XL's 1,600 inputs: 128 does not divide them, 64 does
    [(loc, message)] = _errors({"model": "gpt-2-1.5b", "phase": "inference",
                                "inference": {"weights": "awq-int4"}})
    assert "(1,600)" in message and "e.g. 32, 64" in message
    FootprintSpec.from_mapping({"model": "gpt-2-1.5b", "phase": "inference",
                                "inference": {"weights": "awq-int4", "group_size": 64}})


def test_a_gptq_or_plain_partial_last_group_is_stated_with_its_own_scale() -> None:
    # AutoGPTQ / GPTQModel keep ⌈in_features / g⌉ scale rows (g_idx = i // g): GPT-2 XL with
    # the default 128 has ⌈1,600 / 128⌉ = 13 groups per row, the last of 64 weights. GPT-2 XL's
    # quantized matrices: per layer c_attn 1,600 → 4,800, c_proj 1,600 → 1,600, c_fc 1,600 →
    # 6,400 (in 1,600) and the MLP c_proj 6,400 → 1,600 (in 6,400 = 50 × 128), 48 layers.
    report = estimate(FootprintSpec.from_mapping(
        {"model": "gpt-2-1.5b", "phase": "inference", "inference": {"weights": "gptq-int4"}}))
    item = report.inference.item("quantization_overhead")
    assert f"{48 * (13 * (4_800 + 1_600 + 6_400) + 50 * 1_600):,} groups of 128" in item.formula
    assert "the last group of a row is partial (64 weights where in_features is 1,600)" \
        in item.formula
    assert "Marlin and ExLlama kernels refuse" in item.formula
    # plain INT4 with a group of 100 on Llama-2-7B: 4,096 = 40 × 100 + 96; 11,008 = 110 × 100 + 8
    plain = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "inference",
         "inference": {"weights": "int4", "group_size": 100}}))
    formula = plain.inference.item("quantization_overhead").formula
    assert ("partial (96 weights where in_features is 4,096, 8 weights where in_features is "
            "11,008) with a scale of its own") in formula
    # a group that divides every width says nothing of it
    whole = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                                 "inference": {"weights": "int4"}}))
    assert "partial" not in whole.inference.item("quantization_overhead").formula


def test_a_context_longer_than_trained_is_a_warning_in_text_json_and_stderr(capsys) -> None:
    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "training": {"seq_len": 8192},
                                       "inference": {"context": 8192}})
    report = estimate(spec)
    assert report.warnings == [
        "training sequence length 8,192 is longer than the 4,096 tokens Llama-2-7B was trained "
        "for: the memory is estimated, but quality past the trained context is not assured "
        "without an extension such as RoPE scaling",
        "inference context 8,192 is longer than the 4,096 tokens Llama-2-7B was trained for: "
        "the memory is estimated, but quality past the trained context is not assured without "
        "an extension such as RoPE scaling"]
    assert not any("longer than" in note for note in report.conventions)
    text = render_report(report, width=200)
    assert "Warning: inference context 8,192 is longer than the 4,096 tokens" in text
    assert report.to_json()["warnings"] == report.warnings
    # at the trained length: nothing
    assert estimate(FootprintSpec.from_mapping({"model": "llama-2-7b",
                                                "inference": {"context": 4096}})).warnings == []
    # GPT-2's learned positions have no row past 1,024
    gpt2 = estimate(FootprintSpec.from_mapping({"model": "gpt-2-1.5b", "phase": "inference"}))
    assert gpt2.warnings == [
        "inference context 2,048 is longer than the 1,024 tokens GPT-2 XL (1.5B) was trained "
        "for: its table of 1,024 learned positions has no row past that, so the model cannot "
        "take such a sequence as it is"]
    assert main(["--model", "llama-2-7b", "--phase", "inference", "--context", "8192",
                 "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["warnings"][0].startswith("inference context 8,192")
    assert "quiz footprint: warning: inference context 8,192" in out.err


@pytest.mark.parametrize(("zero", "offload", "expected"), [
    (0, "cpu", "set the ZeRO stage (zero) to 1, 2 or 3"),
    (1, "nvme", "set the ZeRO stage (zero) to 3, or offload to cpu"),
    (2, "nvme", "set the ZeRO stage (zero) to 3, or offload to cpu"),
])
def test_optimizer_offload_needs_the_zero_stages_deepspeed_offloads_with(
        zero: int, offload: str, expected: str) -> None:
    # DeepSpeed config docs, offload_optimizer: "CPU offloading is available with ZeRO stage
    # 1, 2, 3. NVMe offloading is available only with ZeRO stage 3."
    [(loc, message)] = _errors({"model": "llama-2-7b", "phase": "training",
                                "training": {"zero": zero, "offload": offload}})
    assert loc == ("training", "offload")
    assert message.endswith(expected) and "offload_optimizer" in message
    for stage in (1, 2, 3):
        FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                    "training": {"zero": stage, "offload": "cpu"}})
    FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "training",
                                "training": {"zero": 3, "offload": "nvme"}})


def test_deepspeeds_zero2_cpu_figure_splits_into_the_load_copy_and_the_buffer_margin() -> None:
    # estimate_zero2_model_states_mem_needs(7.5e9, 8, 8, cpu_offload=True): CPU =
    # max(4Ψ, 16Ψ/N) × 1.5 = 4 × 7.5e9 × 1.5 = 45e9 per process (2.88e12 over 64 GPUs). Of it:
    # the offloaded states 16Ψ/64 = 1.875e9; the FP32 load-time copy beyond them 30e9 − 1.875e9;
    # the buffer factor's 0.5 × 30e9 = 15e9.
    data = {"params": "7.5B", "phase": "training",
            "training": {"zero": 2, "dp": 64, "convention": "deepspeed", "offload": "cpu"}}
    t = estimate(FootprintSpec.from_mapping(data)).training
    cpu = {i.name: i.bytes for i in t.host["cpu"]}
    assert cpu == {"fp32_gradients": 468_750_000, "master_weights": 468_750_000,
                   "optimizer_states": 937_500_000, "load_fp32_copy": 28_125_000_000,
                   "estimator_margin": 15_000_000_000}
    assert sum(cpu.values()) * 64 == 2_880_000_000_000
    copy = next(i for i in t.host["cpu"] if i.name == "load_fp32_copy")
    assert "an FP32 copy of the whole model each process holds while loading" in copy.formula
    margin = next(i for i in t.host["cpu"] if i.name == "estimator_margin")
    assert "additional_buffer_factor" in margin.formula
    # with 4 GPUs 16Ψ/N = 4Ψ: no load-copy excess, the margin alone
    four = estimate(FootprintSpec.from_mapping(
        {**data, "training": {**data["training"], "dp": 4}})).training
    assert [i.name for i in four.host["cpu"]][-1] == "estimator_margin"
    assert "load_fp32_copy" not in {i.name for i in four.host["cpu"]}


def test_bytes_per_token_beside_a_dataset_size_is_reported_in_text_and_json() -> None:
    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "storage": {"dataset_size": "1TB", "bytes_per_token": 4}}))
    text = render_report(report, width=200, name=lambda key: "--" + key.split(".")[-1]
                         .replace("_", "-"))
    assert "Given but not used in this case:" in text
    assert "--bytes-per-token" in text
    assert report.to_json()["unused"][0]["key"] == "storage.bytes_per_token"


def test_largest_layer_outside_deepspeeds_zero3_estimate_is_given_but_not_used() -> None:
    report = estimate(FootprintSpec.from_mapping(
        {"model": "llama-2-7b", "phase": "training", "training": {"largest_layer": "200M"}}))
    assert [u.key for u in report.unused] == ["training.largest_layer"]


@pytest.mark.parametrize("columns", [60, 80, 100, 132])
def test_help_never_splits_a_flag_name(columns: int, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", str(columns))
    text = build_parser().format_help()
    flags = {o for a in build_parser()._actions for o in a.option_strings}
    assert "--no-tied-embeddings" in text and "--no-double-quant" in text
    for line, nxt in zip(text.splitlines(), text.splitlines()[1:], strict=False):
        # a line never ends inside a word joined by a hyphen ("--no-tied-" / "embeddings")
        assert not re.search(r"[\w-]-$", line.rstrip()), (line, nxt)
    for flag in flags:
        assert flag in text or flag.startswith("--no-")
