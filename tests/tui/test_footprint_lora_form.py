"""The calculator form offers the adapter settings of issue 12 §1: fine-tuning method, rank,
targets and double quantization, recomputed live like every other field."""

from __future__ import annotations

from quiz.footprint import FootprintSpec, estimate, format_bytes
from quiz.tui.screens.footprint import FootprintScreen
from quiz.tui.widgets.choice_field import ChoiceField
from quiz.tui.widgets.report_view import ReportView
from tests.tui.calculator import open_calculator


def report_text(screen: FootprintScreen) -> str:
    return screen.query_one(ReportView).report


async def test_the_form_switches_to_qlora_and_reports_bad_targets() -> None:
    async with open_calculator() as (app, pilot, screen):
        assert screen.query_one("#fp-training-double-quant", ChoiceField).value == "true"
        screen.query_one("#fp-training-finetune", ChoiceField).value = "qlora"
        screen.query_one("#fp-training-lora-rank").value = "16"
        screen.query_one("#fp-training-lora-targets").value = "q, v"
        await pilot.pause()
        t = screen.spec.training
        assert (t.finetune, t.lora_rank, t.lora_targets, t.double_quant) == \
            ("qlora", 16, "q,v", True)
        text = report_text(screen)
        assert "QLoRA (NF4, double quantization) r 16 on q, v" in " ".join(text.split())
        expected = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "training": {
            "finetune": "qlora", "lora_rank": 16, "lora_targets": "q,v"}}))
        assert expected.training is not None
        assert format_bytes(expected.training.total_bytes) in text
        screen.query_one("#fp-training-lora-alpha").value = "32"
        await pilot.pause()
        assert screen.spec.training.lora_alpha == 32
        assert "alpha 32 (scale alpha/r = 2)" in " ".join(report_text(screen).split())
        assert format_bytes(expected.training.total_bytes) in report_text(screen)  # same bytes
        screen.query_one("#fp-training-double-quant", ChoiceField).value = "false"
        await pilot.pause()
        assert screen.spec.training.double_quant is False
        screen.query_one("#fp-training-lora-targets").value = "q,vv"
        await pilot.pause()
        error = screen.query_one(ReportView)
        assert error.stale
        assert "LoRA targets: unknown LoRA target 'vv'" in error.error_text
        assert "did you mean 'v'?" in error.error_text
