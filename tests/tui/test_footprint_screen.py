"""The calculator screen: opened alone and from a question, live recomputation, input errors."""

from __future__ import annotations

from textual.widgets import Static

from quiz.footprint import FootprintSpec, estimate, format_bytes
from quiz.tui.app import make_app
from quiz.tui.screens.footprint import FootprintScreen
from quiz.tui.screens.question import QuestionScreen
from tests.conftest import make_library, question_data


def report_text(screen: FootprintScreen) -> str:
    return screen.query_one("#fp-report", Static).visual.plain  # type: ignore[union-attr]


async def test_calculator_alone_recomputes_on_every_change() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FootprintScreen)
        assert screen.spec.model == "llama-2-7b"
        text = report_text(screen)
        assert "6,738,415,616 parameters" in text
        # 16-bit inference weights of Llama-2-7B: 6,738,415,616 × 2 bytes.
        assert format_bytes(13_476_831_232) in text
        screen.query_one("#fp-training-zero").value = "3"
        screen.query_one("#fp-training-dp").value = "8"
        await pilot.pause()
        assert (screen.spec.training.zero, screen.spec.training.dp) == (3, 8)
        expected = estimate(FootprintSpec.from_mapping(
            {"model": "llama-2-7b", "training": {"zero": 3, "dp": 8}}))
        assert format_bytes(expected.training.total_bytes) in report_text(screen)
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FootprintScreen)


async def test_bad_input_is_reported_and_last_good_result_kept() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert screen.has_class("-narrow")
        before = report_text(screen)
        screen.query_one("#fp-training-micro-batch").value = "-1"
        await pilot.pause()
        error = screen.query_one("#fp-error", Static)
        assert error.has_class("-shown")
        assert "Micro-batch: must be positive (got -1)" in error.visual.plain
        assert "last valid input" in error.visual.plain
        assert report_text(screen) == before
        assert screen.query_one("#fp-report").has_class("-stale")
        screen.query_one("#fp-training-micro-batch").value = "2"
        await pilot.pause()
        assert not error.has_class("-shown")
        assert not screen.query_one("#fp-report").has_class("-stale")
        # A preset brings its own parameter count: the custom count is only typed for custom.
        params = screen.query_one("#fp-params")
        assert params.disabled
        screen.query_one("#fp-model").value = "custom"
        await pilot.pause()
        assert not params.disabled


async def test_opened_from_an_answered_question_uses_its_worked_example() -> None:
    example = {"footprint": {"params": "7B", "phase": "inference",
                             "inference": {"weights": "int8"}}}
    lib = make_library(question_data("q1", worked_example=example))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        await pilot.press("m")  # before the answer: the worked example stays hidden
        await pilot.pause()
        assert app.screen.spec.model == "llama-2-7b"
        await pilot.press("escape", "b")
        await pilot.pause()
        steps = app.screen.query_one("#worked-example .steps", Static).visual.plain
        assert "7,000,000,000" in steps
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FootprintScreen)
        assert (screen.spec.model, screen.spec.params) == (None, 7_000_000_000)
        assert screen.spec.inference.weights == "int8"
        assert screen.query_one("#fp-params").value == "7000000000"
        assert screen.query_one("#fp-model").value == "custom"
