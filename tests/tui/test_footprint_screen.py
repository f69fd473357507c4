"""The calculator screen: opened alone and from a question, live recomputation, input errors."""

from __future__ import annotations

from quiz.footprint import FootprintSpec, estimate, format_bytes
from quiz.tui.app import make_app
from quiz.tui.screens.footprint import FootprintScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.widgets.choice_field import ChoiceField
from quiz.tui.widgets.question_view import QuestionView
from quiz.tui.widgets.report_view import ReportView
from tests.conftest import make_library, question_data
from tests.tui.calculator import open_calculator
from tests.tui.waits import until


def report_text(screen: FootprintScreen) -> str:
    return screen.query_one(ReportView).report


async def test_calculator_alone_recomputes_on_every_change() -> None:
    async with open_calculator() as (app, pilot, screen):
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
        error = screen.query_one(ReportView)
        assert error.stale
        assert "Micro-batch: must be positive (got -1)" in error.error_text
        assert "last valid input" in error.error_text
        assert report_text(screen) == before
        assert screen.query_one(ReportView).stale
        screen.query_one("#fp-training-micro-batch").value = "2"
        await pilot.pause()
        assert not error.stale
        assert not screen.query_one(ReportView).stale
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
        steps = app.screen.query_one(QuestionView).text_of("worked-example")
        assert "7,000,000,000" in steps
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FootprintScreen)
        assert (screen.spec.model, screen.spec.params) == (None, 7_000_000_000)
        assert screen.spec.inference.weights == "int8"
        assert screen.query_one("#fp-params").value == "7000000000"
        assert screen.query_one("#fp-model").value == "custom"


async def _open_calculator(pilot: object, app: object) -> FootprintScreen:
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press("m")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, FootprintScreen)
    return screen


async def test_params_follow_the_model_and_a_blank_count_is_an_error() -> None:
    # issue 7 item 16: a stale count after switching models; clearing it reused the old value
    from textual.widgets import Input

    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_calculator(pilot, app)
        model = screen.query_one("#fp-model", ChoiceField)
        params = screen.query_one("#fp-params", Input)
        model.value = "custom"
        await pilot.pause()
        assert params.value == "6738415616"  # starts from the model shown
        params.value = "13B"
        await pilot.pause()
        assert screen.spec.params == 13_000_000_000
        model.value = "llama-2-13b"
        await pilot.pause()
        assert params.value == "" and params.disabled  # no stale count under a preset
        assert screen.spec.model == "llama-2-13b"
        model.value = "custom"
        await pilot.pause()
        assert params.value == str(screen.spec.resolved.params)
        params.value = ""
        await pilot.pause()
        error = screen.query_one(ReportView).error_text
        assert error.startswith("Params (custom): type a parameter count (e.g. 7B), or choose "
                                "a model preset")
        assert screen.query_one(ReportView).stale


async def test_calculator_keeps_its_changes_and_opens_help_with_question_mark() -> None:
    from quiz.tui.screens.help import HelpScreen

    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open_calculator(pilot, app)
        screen.query_one("#fp-training-zero").value = "3"  # type: ignore[attr-defined]
        screen.query_one("#fp-training-dp").value = "8"  # type: ignore[attr-defined]
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, FootprintScreen)
        again = await _open_calculator(pilot, app)
        assert (again.spec.training.zero, again.spec.training.dp) == (3, 8)
        assert again.query_one("#fp-training-dp").value == "8"  # type: ignore[attr-defined]


async def test_calculator_hints_name_what_the_form_offers() -> None:


    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await _open_calculator(pilot, app)
        model = screen.query_one("#fp-model", ChoiceField)
        model.value = "custom"
        await pilot.pause()
        text = " ".join(report_text(screen).split())
        assert "activation memory needs the layers, hidden size and attention heads: choose a " \
            "model preset" in text
        omitted = text.split("Not estimated:")[1].split("Conventions:")[0]
        assert "--" not in omitted and "dataset_tokens" not in omitted
        assert omitted.rstrip().endswith("storage dataset: no dataset size given")  # no field here
        # the custom choice is named in full in the 80-column form
        labels = [label for label, value in screen.fields[0].choices or () if value == "custom"]
        assert labels == ["Custom model"]


def test_cli_names_its_flags_not_bank_keys(capsys: object) -> None:
    from quiz.cli.footprint import main

    assert main([]) == 2
    err = capsys.readouterr().err  # type: ignore[attr-defined]
    assert err == ("quiz footprint: error: --model: give a model preset (--model), a parameter "
                   "count (--params) or a full architecture (missing: --layers, --hidden, "
                   "--heads, --ffn, --vocab)\n")


async def test_pgdn_pages_the_results_while_a_field_has_the_focus() -> None:
    """At 80x24 only part of the breakdown fits: PgDn/PgUp page it from the form."""
    app = make_app(make_library(question_data("q1")))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await until(pilot, lambda: isinstance(app.screen, FootprintScreen)
                    and app.screen.query_one("#fp-output").max_scroll_y > 0,
                    "the calculator's results")
        screen = app.screen
        assert isinstance(screen, FootprintScreen)
        output = screen.query_one(ReportView)
        assert output.max_scroll_y > 0 and output.scroll_y == 0
        assert app.focused is not None and app.focused is not output
        await pilot.press("pagedown")
        await until(pilot, lambda: output.scroll_y > 0, "PgDn to page the results")
        await pilot.wait_for_scheduled_animations()
        assert output.scroll_y > 0
        await pilot.press("pageup")
        await until(pilot, lambda: output.scroll_y == 0, "PgUp to page back")
        assert output.scroll_y == 0


async def test_calculator_offers_the_quantization_schemes() -> None:
    async with open_calculator() as (app, pilot, screen):
        screen.query_one("#fp-phase").value = "inference"  # type: ignore[attr-defined]
        screen.query_one("#fp-inference-weights").value = "gguf-q4_k_m"  # type: ignore[attr-defined]
        await pilot.pause()
        assert screen.spec.inference.weights == "gguf-q4_k_m"
        text = report_text(screen)
        # Llama-2-7B Q4_K_M tensors: 4,080,263,168 bytes (TheBloke's file: 4.08 GB).
        assert "GGUF Q4_K_M (llama.cpp): Q4_K" in text
        assert format_bytes(4_080_263_168) in text
        # A named scheme fixes its scales: choosing a scale dtype is an error in the form.
        screen.query_one("#fp-inference-scale-dtype").value = "bf16"  # type: ignore[attr-defined]
        await pilot.pause()
        error = screen.query_one(ReportView).error_text
        assert "Scale dtype: applies to plain int4/int8 weights only" in error


def test_a_bank_chart_shows_time_and_throughput_only_when_asked() -> None:
    # issue 12 §5: the infographic can show time and throughput beside memory (compute: true)
    from quiz.footprint import FootprintSpec
    from quiz.tui.widgets.reveal import chart_text

    spec = FootprintSpec.from_mapping({"model": "llama-2-7b", "phase": "inference",
                                       "gpu": "h100-80gb"})
    shown = chart_text(spec, True, 80)
    assert "Time and throughput" in shown and "tokens/s" in shown
    assert "tokens/s" not in chart_text(spec, False, 80)


async def test_calculator_offers_context_parallel_and_prefill_chunk() -> None:
    # issue 12 §4: the form has the same choices as the CLI (--cp, --prefill-chunk)
    async with open_calculator() as (app, pilot, screen):
        screen.query_one("#fp-training-cp").value = "4"
        screen.query_one("#fp-inference-prefill-chunk").value = "512"
        await pilot.pause()
        assert screen.spec.training.cp == 4 and screen.spec.inference.prefill_chunk == 512
        text = " ".join(report_text(screen).split())  # wrapped to the results' width
        assert "dp 1 × tp 1 × pp 1 × cp 4" in text
        assert "prefill chunks of 512" in text and "at most 512 tokens (chunked prefill)" in text


async def test_calculator_offers_expert_parallel() -> None:
    # issue 12 §4: --ep in the form; a dense model shows the field's error, Mixtral splits experts
    async with open_calculator() as (app, pilot, screen):
        screen.query_one("#fp-training-dp").value = "8"
        screen.query_one("#fp-training-ep").value = "8"
        await pilot.pause()
        error = screen.query_one(ReportView)
        assert error.stale
        assert "needs a mixture-of-experts model" in error.error_text
        screen.query_one("#fp-model").value = "mixtral-8x7b"
        await pilot.pause()
        assert not error.stale
        assert screen.spec.training.ep == 8
        text = report_text(screen)
        assert "(ep 8 within dp)" in text
        weights = 2 * (1_605_636_096 + 45_097_156_608 // 8)  # one expert of 8 per layer
        assert format_bytes(weights) == "14.49 GB" and "14.49 GB" in text
