"""The start screen's first frame (issue 26): laid out once, for the terminal's size, after its
widgets are mounted, and left whole on screen. Textual would lay it out during the app's
start-up batch, again for what its widgets' mounting asked, and again at each Resize of the
size it already has (its own first layout posts it one, the terminal driver's first size
report is another), and render a frame during the batch only to drop it
(:class:`quiz.tui.textual_internals.DrawsOnlyWhatIsShown`). The exam's own fields, hidden in
every other mode, are made when first needed, not for that frame."""

from __future__ import annotations

from typing import Any

import pytest
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

from quiz.tui.app import make_app
from quiz.tui.screens.start import StartScreen
from quiz.tui.textual_internals import SCREEN_LAYOUT, layout_pending, repaint_pending
from tests.conftest import make_library, question_data
from tests.tui.waits import until


@pytest.fixture
def sized_layouts(monkeypatch: pytest.MonkeyPatch) -> list[Size]:
    """The sizes the start screen is laid out for by a Resize or a resume (a layout a widget
    asks for, at the screen's next update, is given none)."""
    sizes: list[Size] = []
    real = getattr(Screen, SCREEN_LAYOUT)

    def counting(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
        if isinstance(self, StartScreen) and size is not None:
            sizes.append(size)
        real(self, size, scroll)

    monkeypatch.setattr(Screen, SCREEN_LAYOUT, counting)
    return sizes


def _settled(screen: Screen[Any]) -> bool:
    return not layout_pending(screen) and not repaint_pending(screen)


async def test_the_start_screen_is_laid_out_once_for_its_size(sized_layouts: list[Size]) -> None:
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen) and _settled(app.screen),
                    "the start screen drawn")
        screen = app.screen
        assert sized_layouts == [Size(100, 30)]
        assert str(screen.query_one("#bank-count", Static).content) == (
            "2 questions in 1 topic")
        # Another size is laid out as always, the narrow look included.
        await pilot.resize_terminal(58, 24)
        await until(pilot, lambda: screen.outer_size == Size(58, 24) and _settled(screen),
                    "the screen laid out at 58x24")
        assert sized_layouts == [Size(100, 30), Size(58, 24)]
        assert screen.has_class("-narrow")
        # A Resize of the size it has runs what is pending, without laying out again.
        screen.query_one("#bank-count", Static).update("changed")
        await pilot.resize_terminal(58, 24)
        await until(pilot, lambda: _settled(screen), "the change drawn")
        assert sized_layouts == [Size(100, 30), Size(58, 24)]
        assert str(screen.query_one("#bank-count", Static).content) == "changed"


async def test_a_narrow_terminal_styles_the_form_narrow_before_its_one_layout(
        monkeypatch: pytest.MonkeyPatch) -> None:
    looks: list[tuple[Size | None, bool]] = []  # every layout: its size, and the narrow look
    real = getattr(Screen, SCREEN_LAYOUT)

    def seeing(self: Screen[Any], size: Size | None = None, scroll: bool = False) -> None:
        if isinstance(self, StartScreen):
            looks.append((size, self.has_class("-narrow")))
        real(self, size, scroll)

    monkeypatch.setattr(Screen, SCREEN_LAYOUT, seeing)
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(58, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen) and _settled(app.screen),
                    "the start screen drawn")
        assert looks[0] == (Size(58, 24), True)
        assert [size for size, _ in looks if size is not None] == [Size(58, 24)]


async def test_the_exam_fields_are_made_when_first_needed() -> None:
    from textual.widgets import Input, Switch

    from quiz.study.launch import Launch

    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False,
                   launch=Launch(minutes=30.0, strict=True))
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, StartScreen) and _settled(app.screen),
                    "the start screen drawn")
        start = app.screen
        assert isinstance(start, StartScreen)
        assert not start.query("#minutes") and not start.query("#strict")  # not in the frame
        assert not start.query_one("#minutes-row").display
        await pilot.click("#mode-exam")
        await until(pilot, lambda: start.mode == "exam" and _settled(start), "Exam shown")
        assert start.query_one("#minutes-row").display
        assert start.query_one("#minutes", Input).value == "30"
        assert start.query_one("#strict", Switch).value is True
        assert str(start.query_one("#strict-state", Static).content) == "on"
        assert start.minutes() == 30.0
        # Laid out as the fields above and below them: the minutes as wide as the count (it
        # ran past the form's right edge), the strict state beside its switch's middle row.
        count, minutes = start.query_one("#count", Input), start.query_one("#minutes", Input)
        assert minutes.region.width == count.region.width == 14
        strict, shuffle = start.query_one("#strict-state"), start.query_one("#shuffle-state")
        assert strict.content_region.y - strict.parent.region.y == 1  # type: ignore[union-attr]
        assert shuffle.content_region.y - shuffle.parent.region.y == 1  # type: ignore[union-attr]
