"""A bank's ``footprint:`` scenarios take the adapter keys (issue 12 §1) like the CLI flags:
``finetune``, ``lora_rank``, ``lora_alpha``, ``lora_targets`` (text or a YAML list),
``double_quant``; mistakes are located at their line and column."""

from __future__ import annotations

from pathlib import Path

from quiz.bank.load import load_bank_text
from quiz.cli import main

from .helpers import bank, found, question

OPTIONS = "{A: 8.39 MB, B: 16.78 MB}"
GOOD = """\
    worked_example:
      footprint:
        model: llama-2-7b
        phase: training
        training: {finetune: QLoRA, lora_rank: '16', lora_alpha: 32, double_quant: no,
                   lora_targets: [q_proj, v_proj]}
      expect: {figure: training.adapter_weights, value: 16.78 MB}
"""


def test_adapter_keys_load_from_a_bank_and_the_expected_figure_holds(pure: bool) -> None:
    report = load_bank_text(bank(question(options=OPTIONS, extra=GOOD)), "f.yaml",
                            pure_python=pure)
    assert report.ok, [str(d) for d in report.diagnostics]
    example = report.library.questions[0].worked_example
    t = example.footprint.training
    assert (t.finetune, t.lora_rank, t.lora_alpha, t.lora_targets, t.double_quant) == \
        ("qlora", 16, 32, "q,v", False)
    # 32 layers × 16 × 2 × (4,096 + 4,096) = 8,388,608 adapter params × 2 bytes (BF16)
    assert example.figure() == 16_777_216


def test_a_bad_target_is_located_with_a_hint(pure: bool) -> None:
    extra = ("    worked_example:\n"
             "      footprint: {model: llama-2-7b, training: {finetune: lora, "
             "lora_targets: 'q,vv'}}\n")
    report = load_bank_text(bank(question(extra=extra)), "f.yaml", pure_python=pure)
    assert found(report) == [
        (15, 79, "error", "worked_example.footprint.training.lora_targets: unknown LoRA target "
                          "'vv'; expected some of: q, k, v, o, gate, up, down, or all; did you "
                          "mean 'v'?")]


def test_quiz_validate_accepts_the_keys(tmp_path: Path) -> None:
    path = tmp_path / "lora.yaml"
    path.write_text(bank(question(options=OPTIONS, extra=GOOD)), encoding="utf-8")
    assert main(["validate", str(path)]) == 0
