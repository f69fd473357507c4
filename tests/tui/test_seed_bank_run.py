"""A practice run over a real bank: the frozen seed bank (tests/fixtures/seed_bank), never the
bundled one, so content changes in question_bank/ do not touch this test."""

from __future__ import annotations

from quiz.tui.app import make_app
from quiz.tui.screens.summary import SummaryScreen
from tests.conftest import seed_library
from tests.tui.test_question_screen import shown, start, view


async def test_practice_run_over_the_seed_bank_reveals_every_part() -> None:
    library = seed_library()
    assert [q.id for q in library.questions] == ["memory-train-vs-infer-001",
                                                 "compute-storage-train-vs-infer-002"]
    app = make_app(library, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("d")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: D."
        keys = [b.key for b in view(screen).blocks]
        parts = ["short-explanation", "infographic", "full-explanation", "distractor-review",
                 "worked-example", "references"]
        assert [k for k in keys if k in parts] == parts
        for part in parts:
            assert shown(screen, part).strip(), part
        await pilot.press("n", "a")
        await pilot.pause()
        assert shown(screen, "verdict").startswith("█ ✗")
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.view.text_of("score") == (
            "Score 1 right of 2 answered (50%); all 2 answered")
