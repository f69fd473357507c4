"""Keys as a newcomer presses them (issue 7 items 1–3, 14): Caps Lock, a held or bounced Enter,
Ctrl+Z, and why-nothing-happened hints that never cover the options."""

from __future__ import annotations

import pytest
from textual import events

from quiz.tui.app import make_app
from quiz.tui.screens.confirm import ConfirmScreen
from quiz.tui.screens.question import REPEAT_GUARD, QuestionScreen
from quiz.tui.screens.summary import SummaryScreen
from quiz.tui.textual_internals import driver_of, event_clock
from quiz.tui.widgets.question_view import QuestionView
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import component, revealed, shown, start, style_of
from tests.tui.waits import until


def three_questions():
    return make_library(*(question_data(f"q{i}") for i in (1, 2, 3)))


async def test_every_single_letter_key_works_with_caps_lock() -> None:
    app = make_app(three_questions(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("B")  # an option letter in upper case
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: B."
        await pilot.press("N")
        await pilot.pause()
        assert app.session.position == 1
        await pilot.press("P")
        await pilot.pause()
        assert app.session.position == 0
        await pilot.press("S")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("escape", "M")
        await pilot.pause()
        assert type(app.screen).__name__ == "FootprintScreen"
        await pilot.press("escape", "Q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("Y")
        await pilot.pause()
    assert app.return_value == 0


def key_at(key: str, at: float) -> events.Key:
    """A key event stamped ``at`` (seconds, on the clock that stamps events): a key typed at
    that moment, without the test waiting for it."""
    event = events.Key(key, key if len(key) == 1 else None)
    event.time = at
    return event


async def test_enter_on_an_untouched_question_never_answers() -> None:
    """Enter to start, then Enter held (8 repeats 40 ms apart): nothing is answered."""
    app = make_app(three_questions(), seed=3)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        now = event_clock()
        for i in range(8):
            app.post_message(key_at("enter", now + 0.04 * i))
            await pilot.pause()
        assert app.session.outcomes == {} and app.session.position == 0
        assert isinstance(app.screen, QuestionScreen)
        assert shown(screen, "hint") == ("! Press A–D to choose, or move with ↑↓ and then "
                                         "press Enter.")
        assert screen.query_one(QuestionView).highlighted is None


async def test_a_queued_or_repeated_enter_does_not_skip_a_fresh_reveal() -> None:
    app = make_app(three_questions(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        # "b" answers; an Enter already in flight and its auto-repeats follow at once. Keys
        # are taken in the order typed: the "r" (flag) typed after them is taken last, so
        # once the flag is set, every Enter before it has been taken.
        for key in ("b", "enter", "enter", "enter", "r"):
            app.post_message(events.Key(key, key if len(key) == 1 else None))
        await until(pilot, lambda: app.session.flags, "the flag typed after the Enters")
        assert app.session.flags == {"q1"} and app.session.position == 0
        assert shown(screen, "verdict") == "█ ✓ Correct: B."
        # A fresh Enter once the reveal has been on screen a moment goes on.
        app.post_message(key_at("enter", event_clock() + REPEAT_GUARD + 0.05))
        await until(pilot, lambda: app.session.position == 1, "the fresh Enter to go on")
        assert app.session.position == 1 and not revealed(screen)


async def test_enter_answers_once_the_highlight_was_moved() -> None:
    app = make_app(three_questions(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("up", "enter")  # up from nothing: the last option
        await pilot.pause()
        assert [o.letter for o in app.session.outcome().chosen] == ["D"]


async def test_ctrl_z_says_why_it_cannot_suspend_here() -> None:
    app = make_app(three_questions(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("ctrl+z")
        await pilot.pause()
        texts = [n.message for n in app._notifications]
        assert any(t.startswith("Suspending is not possible") for t in texts), texts


async def test_ctrl_z_suspends_where_the_terminal_allows(monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(three_questions(), shuffle=False)
    calls: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        monkeypatch.setattr(type(driver_of(app)), "can_suspend", property(lambda self: True))
        monkeypatch.setattr(app, "action_suspend_process", lambda: calls.append("suspend"))
        await pilot.press("ctrl+z")
        await pilot.pause()
    assert calls == ["suspend"]


async def test_why_a_key_did_nothing_is_said_in_the_page_not_over_the_options() -> None:
    q = question_data("m1", answer=["A", "C"])
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a", "b", "c", "enter")
        await pilot.pause()
        view = screen.query_one(QuestionView)
        assert shown(screen, "hint") == "! Untick 1 option: this question asks for 2."
        assert view.hint_warning
        assert style_of(screen, "hint", 3) == component(screen, "question-view--hint-warning")
        await pilot.press("e")
        await pilot.pause()
        assert shown(screen, "hint") == "! There is no option E here: the options are A–D."
        assert list(app._notifications) == []
        await pilot.press("b", "enter")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: A, C."
        assert not view.hint_warning
        assert style_of(screen, "hint", 10) == component(screen, "question-view--hint")


async def test_moving_the_highlight_clears_the_last_warning() -> None:
    app = make_app(three_questions(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("enter")
        await pilot.pause()
        view = screen.query_one(QuestionView)
        assert view.hint_warning
        await pilot.press("down")
        await pilot.pause()
        assert not view.hint_warning
        assert shown(screen, "hint").startswith("Choose one.")
        assert style_of(screen, "hint", 12) == component(screen, "question-view--hint")
