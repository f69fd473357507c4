"""Kept screens (the question screen, the summary) are shown again without restyling every
widget, unless the theme or the app's focus changed meanwhile (issue 13)."""

from __future__ import annotations

import pytest

from quiz.tui.app import make_app
from quiz.tui.screens.summary import SummaryScreen
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import start


async def test_the_summary_is_restyled_on_showing_only_after_a_theme_change(
        monkeypatch: pytest.MonkeyPatch) -> None:
    restyled: list[str] = []
    real = SummaryScreen.update_node_styles

    def counting(self: SummaryScreen, animate: bool = True) -> None:
        restyled.append(self.app.theme)
        real(self, animate)

    monkeypatch.setattr(SummaryScreen, "update_node_styles", counting)
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("a", "s")
        await pilot.pause()
        summary = app.screen
        assert isinstance(summary, SummaryScreen) and restyled == []
        await pilot.press("escape", "s")
        await pilot.pause()
        assert app.screen is summary and restyled == []
        await pilot.press("escape")
        await pilot.pause()
        dark = summary.styles.background
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert app.screen is summary and restyled == ["textual-light"]
        assert summary.styles.background != dark
        assert summary.styles.background == app.screen_stack[-2].styles.background
