"""The whole bundled bank in the app (moved here from tests/bank/test_bundled_bank.py: a pilot
test, so it belongs to the ``tui`` layer)."""

from __future__ import annotations

from quiz.bank.library import Library


async def test_a_full_practice_run_over_the_whole_bank(bundled_library: Library) -> None:
    """Every bundled question in the app, shuffled: answered right, revealed with every part it
    has, and the summary counts them all (issue 10: a full practice run works)."""
    from quiz.tui.app import make_app
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.screens.summary import SummaryScreen
    from quiz.tui.widgets.question_view import QuestionView

    library = bundled_library
    app = make_app(library, seed=10, shuffle=True)
    total = len(library.questions)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        for _ in range(total):
            shown = app.session.current
            letters = [o.letter for o in shown.options if o.key in shown.question.answer_keys]
            await pilot.press(*(c.lower() for c in letters))
            if shown.question.multiple_response:
                await pilot.press("enter")
            await pilot.pause()
            body = screen.query_one(QuestionView)
            assert body.text_of("verdict").startswith("█ ✓ Correct"), shown.question.id
            parts = ["short-explanation", "infographic", "full-explanation",
                     "distractor-review", "references"]
            if shown.question.worked_example is not None:
                parts.append("worked-example")
            for part in parts:
                assert body.text_of(part).strip(), (shown.question.id, part)
            await pilot.press("n")
            await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        score = app.screen.view.text_of("score")
        assert score == f"Score {total} right of {total} answered (100%); all {total} answered"
