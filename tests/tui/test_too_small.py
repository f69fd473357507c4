"""A window too small to use shows a notice, not fragments; enlarged, everything is back
(issue 7 item 9)."""

from __future__ import annotations

from textual.widgets import Static

from quiz.tui.app import make_app
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.too_small import TooSmallScreen, notice
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import plain, shown, start


def test_the_notice_is_whole_or_absent() -> None:
    assert notice(80, 24).startswith("Make the window larger\n")
    assert "it is 30×10 now" in notice(30, 10)
    assert notice(22, 2) == "Make the window larger\n(at least 40×12)."
    assert notice(22, 1) == "Make the window larger"
    assert notice(12, 1) == "Too small"
    assert notice(1, 1) == ""


async def test_shrinking_covers_the_question_and_enlarging_brings_it_back() -> None:
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        await pilot.resize_terminal(30, 10)
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
        assert plain(app.screen.query_one("#too-small", Static)) == notice(30, 10)
        await pilot.press("n")  # keys do nothing while the app is covered
        await pilot.resize_terminal(1, 1)
        await pilot.pause()
        await pilot.pause()
        assert plain(app.screen.query_one("#too-small", Static)) == ""
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        assert app.session.position == 0
        assert shown(screen, "verdict") == "█ ✓ Correct: B."


async def test_starting_in_a_tiny_window_shows_the_notice() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(20, 5)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, TooSmallScreen)
