"""Issue 21 §5 in the calculator form: the KV precision below 8 bits, the shared prefix and the
draft model are fields like the others, recomputed live, with their errors at the field."""

from __future__ import annotations

from quiz.tui.screens.footprint import NONE, FootprintScreen
from quiz.tui.widgets.choice_field import ChoiceField
from tests.tui.calculator import open_calculator


def report_text(screen: FootprintScreen) -> str:
    return screen.report_text


async def test_calculator_offers_low_bit_kv_shared_prefix_and_draft_model() -> None:
    async with open_calculator() as (app, pilot, screen):
        screen.query_one("#fp-phase").value = "inference"  # type: ignore[attr-defined]
        screen.query_one("#fp-inference-kv-dtype").value = "int4"  # type: ignore[attr-defined]
        screen.query_one("#fp-inference-batch").value = "8"  # type: ignore[attr-defined]
        screen.query_one("#fp-inference-shared-prefix").value = "1000"  # type: ignore[attr-defined]
        draft = screen.query_one("#fp-inference-draft-model", ChoiceField)
        draft.value = "llama-3.2-1b"
        await pilot.pause()
        spec = screen.spec.inference
        assert (spec.kv_dtype, spec.shared_prefix, spec.draft_model) == ("int4", 1000,
                                                                        "llama-3.2-1b")
        text = report_text(screen)
        assert "INT4 KV cache" in text
        # Llama-2-7B INT4: 64 heads × 68 bytes per layer and token × 32 layers × (992 prefix
        # tokens once + 8 × 1,056) = 1,314,652,160 bytes
        assert "1.31 GB" in text
        assert "draft weights" in text and "2.47 GB" in text  # 1,235,814,400 × 2 bytes
        assert "draft kv cache" in text
        # a prefix longer than the context is the field's error; the last good result stays
        screen.query_one("#fp-inference-context").value = "512"  # type: ignore[attr-defined]
        await pilot.pause()
        assert "longer than the context" in screen.error_text
        screen.query_one("#fp-inference-context").value = "2048"  # type: ignore[attr-defined]
        draft.value = NONE
        await pilot.pause()
        assert not screen.error_text
        assert screen.spec.inference.draft_model is None
        assert "draft weights" not in report_text(screen)
