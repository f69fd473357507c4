"""``r`` on the start screen reloads the banks from disk; a broken bank shows its problems in a
panel, each at its place, and the app keeps the questions it had."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from quiz.bank.load import load_library
from quiz.tui.app import make_app
from quiz.tui.screens.bank_problems import BankProblemsScreen
from quiz.tui.screens.start import StartScreen

QUESTION = """\
  - id: {qid}
    topic: memory
    question: Which state does training keep?
    options: {{A: Gradients, B: Nothing}}
    answer: A
    short_explanation: Training keeps gradients.
    full_explanation: Gradients exist only while training.
    distractor_review: {{B: Training keeps more.}}
"""
HEAD = "bank:\n  id: demo\n  title: Demo bank\n  topics: {memory: Memory}\nquestions:\n"


def count_text(app: object) -> str:
    screen = app.screen  # type: ignore[attr-defined]
    return str(screen.query_one("#bank-count", Static).visual.plain)


async def test_r_reloads_and_a_broken_bank_opens_the_problems_panel(tmp_path: Path) -> None:
    bank = tmp_path / "demo.yaml"
    bank.write_text(HEAD + QUESTION.format(qid="q1"), encoding="utf-8")
    library = load_library([bank]).library
    assert library is not None
    app = make_app(library, shuffle=False, paths=[str(tmp_path)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert count_text(app).startswith("1 question in 1 topic")
        bank.write_text(HEAD + QUESTION.format(qid="q1") + QUESTION.format(qid="q2"),
                        encoding="utf-8")
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert count_text(app).startswith("2 questions in 1 topic")
        assert [q.id for q in app.library.questions] == ["q1", "q2"]

        bank.write_text(HEAD + QUESTION.format(qid="q1").replace("answer: A", "answer: E"),
                        encoding="utf-8")
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = app.screen
        assert isinstance(panel, BankProblemsScreen)
        lines = [str(s.visual.plain) for s in panel.query(".problem").results(Static)]
        assert lines == [f"{bank}:10:13: error: the answer E is not one of the options (A, B)"]
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen) and app.is_running
        assert [q.id for q in app.library.questions] == ["q1", "q2"]  # the old library stays

        bank.unlink()
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, BankProblemsScreen)
        assert "this folder has no bank files" in str(
            app.screen.query_one(".problem", Static).visual.plain)
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running


async def test_r_without_paths_says_there_is_nothing_to_reload(tmp_path: Path) -> None:
    bank = tmp_path / "demo.yaml"
    bank.write_text(HEAD + QUESTION.format(qid="q1"), encoding="utf-8")
    library = load_library([bank]).library
    assert library is not None
    app = make_app(library, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert any("nothing to reload" in str(n.message) for n in app._notifications)
