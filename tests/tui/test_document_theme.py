"""A new theme redraws a document's blocks in the new look: Textual restyles a widget's
component classes only after telling it of a style change, so blocks drawn at that moment kept
the old theme's colours for every part (a highlighted option, the summary's heading)."""

from __future__ import annotations

from quiz.tui.app import make_app
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import start, view


async def test_a_new_theme_redraws_the_highlighted_option_in_the_new_accent() -> None:
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("down")  # option A highlighted: `$accent 30%` behind it
        await pilot.pause()
        body = view(screen)

        def backgrounds() -> tuple[object, object, object]:
            """The highlighted option's background as drawn, as styled now, and option B's."""
            drawn = [s.style.bgcolor for s in body.strips_of("option-A")[0]
                     if s.text.strip() and s.style is not None]
            other = [s.style.bgcolor for s in body.strips_of("option-B")[0]
                     if s.text.strip() and s.style is not None]
            wanted = body.get_component_rich_style(
                "question-view--option", "question-view--option-highlighted").bgcolor
            return drawn[0], wanted, other[0]

        drawn, wanted, other = backgrounds()
        assert drawn == wanted != other
        app.theme = "catppuccin-latte"
        await pilot.pause()
        latte = backgrounds()
        assert latte[1] != wanted  # the theme changed the accent
        assert latte[0] == latte[1] != latte[2]
        assert latte[2] == body.rich_style.bgcolor  # the page's new background
