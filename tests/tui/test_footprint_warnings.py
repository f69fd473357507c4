"""The calculator screen shows the report's warning lines (issue 21 §7): a context longer than
the model was trained for is a visible "Warning:" line above the tables; the DeepSeek-V3 preset
(issue 21 §3) is offered by the model list."""

from __future__ import annotations

from quiz.tui.widgets.choice_field import ChoiceField
from tests.tui.calculator import open_calculator


async def test_a_context_longer_than_trained_is_a_warning_line_on_the_screen() -> None:
    async with open_calculator() as (app, pilot, screen):
        assert "Warning:" not in screen.report_text
        screen.query_one("#fp-inference-context").value = "8192"
        await pilot.pause()
        assert screen.spec.inference.context == 8192
        text = " ".join(screen.report_text.split())
        assert ("Warning: inference context 8,192 is longer than the 4,096 tokens Llama-2-7B "
                "was trained for") in text
        model = screen.query_one("#fp-model", ChoiceField)
        model.value = "deepseek-v3"
        await pilot.pause()
        assert screen.spec.model == "deepseek-v3"
        text = " ".join(screen.report_text.split())
        assert "DeepSeek-V3 — 671,026,419,200 parameters" in text
        assert "Warning:" not in text  # 8,192 is within its 163,840
