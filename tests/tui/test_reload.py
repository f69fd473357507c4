"""``r`` on the start screen reloads the banks from disk; a broken bank shows its problems in a
panel, each at its place, and the app keeps the questions it had."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot
from textual.widgets import Static

from quiz.bank.load import load_library
from quiz.tui.app import QuizApp, make_app
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


def _write_two_topics(bank: Path) -> None:
    """Write ``bank`` with four questions of topic memory and one of a topic io."""
    head = HEAD.replace("topics: {memory: Memory}", "topics: {memory: Memory, io: Storage}")
    bank.write_text(head + "".join(QUESTION.format(qid=f"q{i}") for i in range(4))
                    + QUESTION.format(qid="s1").replace("topic: memory", "topic: io"),
                    encoding="utf-8")


def _app_of(bank: Path) -> QuizApp:
    """The app on ``bank``, loaded without a cache, reloading from its folder."""
    library = load_library([bank]).library
    assert library is not None
    return make_app(library, shuffle=False, paths=[str(bank.parent)])


async def _reload(pilot: Pilot[Any]) -> None:
    """Press r and wait until the banks are loaded again and shown."""
    await pilot.press("r")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_r_keeps_what_the_form_shows(tmp_path: Path) -> None:
    """A reload shows the form as it was (found by a tester: Exam went back to Practice): the
    mode, the topics, the count, the shuffle switch and the exam's minutes and strict switch,
    none of them saved yet."""
    from textual.widgets import Input, SelectionList, Switch

    bank = tmp_path / "demo.yaml"
    _write_two_topics(bank)
    app = _app_of(bank)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        start = app.screen
        assert isinstance(start, StartScreen) and start.mode == "practice"
        await pilot.click("#mode-exam")
        await pilot.pause()
        start.query_one("#topics", SelectionList).deselect("io")
        start.query_one("#count", Input).value = "3"
        start.query_one("#minutes", Input).value = "12"
        start.query_one("#strict", Switch).value = True
        start.query_one("#shuffle", Switch).value = True
        await pilot.pause()
        await _reload(pilot)
        fresh = app.screen
        assert isinstance(fresh, StartScreen) and fresh is not start
        assert fresh.mode == "exam"
        assert fresh.query_one("#topics", SelectionList).selected == ["memory"]
        assert fresh.query_one("#count", Input).value == "3"
        assert fresh.query_one("#minutes", Input).value == "12"
        assert fresh.query_one("#strict", Switch).value is True
        assert fresh.query_one("#shuffle", Switch).value is True
        assert fresh.query_one("#minutes-row").display


async def test_r_after_the_bank_grew_ticks_and_counts_what_it_brings(tmp_path: Path) -> None:
    """Every topic ticked and the whole count, untouched, stay "every topic" and "all" over a
    reload (found by a reviewer: the form's explicit values unticked a topic the edit added
    and kept the old count), as when they are remembered."""
    from textual.widgets import Input, SelectionList

    bank = tmp_path / "demo.yaml"
    bank.write_text(HEAD + "".join(QUESTION.format(qid=f"q{i}") for i in range(3)),
                    encoding="utf-8")
    app = _app_of(bank)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        start = app.screen
        assert isinstance(start, StartScreen)
        assert start.query_one("#count", Input).value == "3"
        _write_two_topics(bank)
        await _reload(pilot)
        fresh = app.screen
        assert isinstance(fresh, StartScreen) and fresh is not start
        assert fresh.query_one("#topics", SelectionList).selected == ["memory", "io"]
        assert fresh.query_one("#count", Input).value == "5"
