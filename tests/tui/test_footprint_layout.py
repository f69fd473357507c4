"""The calculator screen's form (issue 21 §9): fields that follow the phase, a focus ring, a
model list wide enough for its names, and one layout from the first frame."""

from __future__ import annotations

from typing import Any

import pytest
from rich.cells import cell_len
from textual.widgets import Input, OptionList

from quiz.tui.app import make_app
from quiz.tui.screens.choice_picker import ChoicePicker
from quiz.tui.screens.footprint import FootprintScreen, report_width
from quiz.tui.screens.footprint_form import form_sections
from quiz.tui.widgets.choice_field import ChoiceField
from quiz.tui.widgets.report_view import ReportView
from tests.conftest import make_library, question_data


def report_text(screen: FootprintScreen) -> str:
    return screen.query_one(ReportView).report


async def _open(pilot: Any, app: Any) -> FootprintScreen:
    await pilot.pause()
    await pilot.press("m")
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, FootprintScreen)
    return screen


def _shown(screen: FootprintScreen, selector: str) -> bool:
    return screen.query_one(selector).display


async def test_the_phase_hides_the_other_phases_fields_and_keeps_their_values() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, app)
        assert _shown(screen, "#fp-section-training") and _shown(screen, "#fp-section-inference")
        screen.query_one("#fp-training-dp", Input).value = "8"
        await pilot.pause()
        assert screen.spec.training.dp == 8
        screen.query_one("#fp-phase", ChoiceField).value = "inference"
        await pilot.pause()
        assert not _shown(screen, "#fp-section-training")
        assert not _shown(screen, "#fp-heading-training")
        assert _shown(screen, "#fp-section-inference")
        assert screen.spec.phase == "inference" and screen.spec.training.dp == 1
        assert "Training —" not in report_text(screen)
        # Infer batch is a few Tabs from the phase now (it was about 30).
        tabs = 0
        while app.focused is not screen.query_one("#fp-inference-batch"):
            await pilot.press("tab")
            tabs += 1
            assert tabs < 12, f"still not at Infer batch after {tabs} Tabs"
        assert tabs <= 8
        screen.query_one("#fp-phase", ChoiceField).value = "training"
        await pilot.pause()
        assert _shown(screen, "#fp-section-training")
        assert not _shown(screen, "#fp-section-inference")
        assert screen.query_one("#fp-training-dp", Input).value == "8"  # kept
        assert screen.spec.training.dp == 8
        assert "Inference —" not in report_text(screen)


async def test_the_adapter_fields_follow_the_fine_tuning_method() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, app)
        assert not _shown(screen, "#fp-training-lora-rank")
        assert not _shown(screen, "#fp-training-double-quant-label")
        finetune = screen.query_one("#fp-training-finetune", ChoiceField)
        finetune.value = "lora"
        await pilot.pause()
        assert _shown(screen, "#fp-training-lora-rank")
        assert _shown(screen, "#fp-training-lora-rank-label")
        assert not _shown(screen, "#fp-training-double-quant")
        finetune.value = "qlora"
        await pilot.pause()
        assert _shown(screen, "#fp-training-double-quant")
        assert screen.spec.training.finetune == "qlora"


async def test_the_focused_field_and_its_label_are_highlighted_in_screen_order() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, app)
        model = screen.query_one("#fp-model", ChoiceField)
        assert app.focused is model
        assert screen.query_one("#fp-model-label").has_class("-focused")
        await pilot.press("tab")  # Params is disabled under a preset: Phase is next
        assert app.focused is screen.query_one("#fp-phase")
        assert screen.query_one("#fp-phase-label").has_class("-focused")
        assert not screen.query_one("#fp-model-label").has_class("-focused")
        # The ring's colours differ from an unfocused field's.
        phase = screen.query_one("#fp-phase", ChoiceField)
        assert phase.styles.background != model.styles.background
        # Tab visits the fields in the order they are drawn: top to bottom, left to right.
        chain = [w for w in screen.focus_chain if isinstance(w, ChoiceField | Input)]
        places = [(w.region.y, w.region.x) for w in chain]
        assert len(chain) > 20 and places == sorted(places)


async def test_the_model_list_is_wide_enough_for_its_names() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, app)
        model = screen.query_one("#fp-model", ChoiceField)
        for name in ("mixtral-8x22b", "llama-3.1-405b", "mistral-nemo-12b"):
            model.value = name
            await pilot.pause()
            shown = model.render().plain  # type: ignore[union-attr]
            assert shown.startswith(name + " ") and shown.endswith("▾")
        await pilot.press("enter")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, ChoicePicker)
        # m is not offered over the calculator, nor over one of its lists.
        assert app.check_action("footprint", ()) is False
        options = picker.query_one(OptionList)
        widest = max(cell_len(c.listed) for c in model.choices)
        # Every choice whole: the list's inside (no border, padding, scrollbar) fits the longest.
        assert options.scrollable_content_region.width >= widest
        assert options.highlighted == [c.value for c in model.choices].index("mistral-nemo-12b")
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.screen is screen and app.focused is model
        assert screen.spec.model == model.value != "mistral-nemo-12b"
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("escape")  # closes the list, changes nothing
        await pilot.pause()
        assert app.screen is screen and screen.spec.model == model.value


@pytest.mark.parametrize(("size", "narrow", "tiny"), [((100, 30), False, False),
                                                      ((80, 24), True, False),
                                                      ((50, 16), True, True)])
async def test_the_layout_and_results_are_final_before_the_first_frame(
        monkeypatch: pytest.MonkeyPatch, size: tuple[int, int], narrow: bool,
        tiny: bool) -> None:
    """At mount (before the first frame) the layout classes are those of the terminal's size
    and the results are drawn for their final width; no later layout changes either."""
    seen: list[tuple[bool, bool, str]] = []
    original = FootprintScreen.on_mount

    def on_mount(self: FootprintScreen) -> None:
        original(self)
        seen.append((self.has_class("-narrow"), self.has_class("-tiny"), report_text(self)))

    monkeypatch.setattr(FootprintScreen, "on_mount", on_mount)
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=size) as pilot:
        screen = await _open(pilot, app)
        assert len(seen) == 1
        at_mount_narrow, at_mount_tiny, at_mount_report = seen[0]
        assert (at_mount_narrow, at_mount_tiny) == (narrow, tiny)
        assert "6,738,415,616 parameters" in at_mount_report
        assert report_text(screen) == at_mount_report  # not drawn again after the layout
        report = screen.query_one(ReportView)
        assert report.scrollable_content_region.width == report_width(size[0])
        assert max(cell_len(line) for line in at_mount_report.splitlines()) <= report.size.width


def test_every_labelled_field_is_in_a_section_in_the_specs_order() -> None:
    from quiz.footprint import spec_fields

    sections = form_sections()
    assert [s.name for s in sections][0] == "model"
    assert [s.name for s in sections][-1] == "output"
    assert {"training", "inference"} <= {s.name for s in sections}
    labelled = [f.key for f in spec_fields() if f.doc.label]
    assert sorted(f.key for s in sections for f in s.fields) == sorted(labelled)
    for section in sections:
        keys = [f.key for f in section.fields]
        assert keys == [k for k in labelled if k in keys]
        nested = {k.partition(".")[0] for k in keys if "." in k}
        assert nested <= {section.name}


async def test_m_shows_the_calculator_made_ahead_filled_in_with_the_scenario() -> None:
    """The app composes the calculator while the start screen waits; ``m`` fills it in and
    shows it (no new screen), each time from the scenario it is opened with."""
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        for _ in range(200):
            await pilot.pause()
            made = app.ahead.calculator
            if made is not None and made.is_mounted:
                break
        made = app.ahead.calculator
        assert made is not None and made.is_mounted and made not in app.screen_stack
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is made
        made.query_one("#fp-training-dp", Input).value = "8"
        made.query_one("#fp-phase", ChoiceField).value = "training"
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is not made and made.is_mounted  # kept for the next time
        await pilot.press("m")
        await pilot.pause()
        assert app.screen is made
        assert made.spec.phase == "training" and made.spec.training.dp == 8
        assert made.query_one("#fp-phase", ChoiceField).value == "training"
        assert not _shown(made, "#fp-section-inference")
        assert "Inference —" not in made.report_text and "dp 8" in made.report_text
        assert not made.error_text


async def test_typing_in_a_field_recomputes_without_laying_the_screen_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.screen import Screen

    from quiz.tui.textual_internals import SCREEN_LAYOUT

    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, app)
        screen.query_one("#fp-training-micro-batch", Input).focus()
        await pilot.pause()
        layouts: list[str] = []
        real = getattr(Screen, SCREEN_LAYOUT)

        def counting(self: Screen[Any], size: Any = None, scroll: bool = False) -> None:
            layouts.append(type(self).__name__)
            real(self, size, scroll)

        monkeypatch.setattr(Screen, SCREEN_LAYOUT, counting)
        await pilot.press("2")
        await pilot.pause()
        assert screen.spec.training.micro_batch == 2  # the focused field's "1" was selected
        assert "micro-batch 2 × 2,048 tokens" in " ".join(screen.report_text.split())
        assert layouts == []
