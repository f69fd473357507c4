"""Start-up paints first, then loads the banks in a worker: the start screen shows the progress
with Start disabled, then the form; a broken bank (or an unknown ``--topic``) ends the app with
the located errors on stderr, never a traceback."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Button, Input, ProgressBar, Static

from quiz import cli
from quiz.bank import load as load_module
from quiz.bank import load_progress
from quiz.bank.cache import BankCache
from quiz.bank.load import load_library
from quiz.bank.load_progress import LoadProgress
from quiz.cli import study as cli_study
from quiz.tui.app import QuizApp, make_app
from quiz.tui.screens.start import StartScreen, progress_text
from tests.tui.waits import UNTIL_TIMEOUT_S, until

QUESTION = """\
  - id: {qid}
    topic: {topic}
    question: Which state does training keep?
    options: {{A: Gradients, B: Nothing}}
    answer: A
    short_explanation: Training keeps gradients.
    full_explanation: Gradients exist only while training.
    distractor_review: {{B: Training keeps more.}}
"""


def bank_text(bank_id: str, *qids: str, topic: str = "memory") -> str:
    return (f"bank:\n  id: {bank_id}\n  title: Bank {bank_id}\n  topics: {{{topic}: Memory}}\n"
            "questions:\n" + "".join(QUESTION.format(qid=q, topic=topic) for q in qids))


async def settled(app: QuizApp, pilot: Any) -> None:
    """Wait until the app has loaded its banks and acted on them (the start form, a resume
    offer; the cache entries written), or has ended because it could not."""
    await until(pilot, lambda: app.loaded or app.failure is not None, "the banks to load")
    # ``loaded`` is set inside the app's handler of the loaded banks, which then shows them
    # and offers a resume: the app's next turn comes once that handler is done.
    await app.workers.wait_for_complete()
    await pilot.pause()


def text_of(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).visual.plain)


async def test_the_start_screen_shows_progress_then_the_form(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch,
                                                            ) -> None:
    (tmp_path / "a.yaml").write_text(bank_text("a", "q1", "q2"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(bank_text("b", "q3"), encoding="utf-8")
    gate = asyncio.Event()
    seen: list[LoadProgress] = []
    real = load_module.load_for_study

    def held(paths: Any, *, progress: Any = None, **kwargs: Any) -> Any:
        # The first paint happens before the load starts; hold the load until it is checked.
        def record(p: LoadProgress) -> None:
            seen.append(p)
            progress(p)

        asyncio.run_coroutine_threadsafe(gate.wait(), loop).result(timeout=10)
        return real(paths, progress=record, **kwargs)

    monkeypatch.setattr(load_module, "load_for_study", held)
    loop = asyncio.get_running_loop()
    app = make_app(None, shuffle=False, paths=[str(tmp_path)])
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen) and not app.loaded
        assert text_of(screen, "#bank-title") == "Loading the question banks"
        assert screen.query_one("#start", Button).disabled
        assert screen.query_one(ProgressBar)
        await pilot.press("ctrl+s")  # Start waits for the banks: nothing happens
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and app.session is None
        gate.set()
        await settled(app, pilot)
        assert app.loaded and app.screen is screen
        assert text_of(screen, "#bank-title") == "2 banks: Bank a, Bank b"
        assert text_of(screen, "#bank-count") == "3 questions in 1 topic"
        start = screen.query_one("#start", Button)
        assert not start.disabled and start.has_focus
        assert [q.id for q in app.library.questions] == ["q1", "q2", "q3"]
        assert set(app.index.hash_of) == {"q1", "q2", "q3"}
        await pilot.press("enter")
        await pilot.pause()
        assert app.session is not None and app.session.total == 3
    # Real progress: each file by number, the questions so far, the bytes read growing.
    assert [(p.file, p.files, p.stage) for p in seen if p.stage == "opening"] == [
        (1, 2, "opening"), (2, 2, "opening")]
    assert seen[-1].stage == "done" and seen[-1].questions == 3
    assert seen[-1].done_bytes == seen[-1].total_bytes > 0
    assert [p.done_bytes for p in seen] == sorted(p.done_bytes for p in seen)


def test_progress_reports_files_and_questions_as_they_are_read(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch,
                                                               ) -> None:
    monkeypatch.setattr(load_progress, "PROGRESS_INTERVAL_S", 0.0)  # every question reported
    (tmp_path / "a.yaml").write_text(bank_text("a", "q1", "q2", "q3"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(bank_text("b", "q4", "q5"), encoding="utf-8")
    seen: list[LoadProgress] = []
    report = load_library([tmp_path], progress=seen.append)
    assert report.ok
    reading = [(p.file, p.questions) for p in seen if p.stage == "reading"]
    assert reading == [(1, 1), (1, 2), (1, 3), (2, 4), (2, 5)]
    checking = [(p.file, p.questions) for p in seen if p.stage == "checking"]
    assert checking == [(1, 3), (2, 5)]
    assert progress_text(seen[0]) == "File 1 of 2, a.yaml: opening\n0 questions so far"
    first_check = next(p for p in seen if p.stage == "checking")
    assert progress_text(first_check) == (
        "File 1 of 2, a.yaml: checking its questions\n3 questions so far")
    assert progress_text(seen[-1]) == "Every file read\n5 questions from 2 files"
    # From the cache the second time: each file whole.
    seen.clear()
    assert load_library([tmp_path], progress=seen.append, cache_dir=tmp_path / "c").ok
    seen.clear()
    assert load_library([tmp_path], progress=seen.append, cache_dir=tmp_path / "c").ok
    assert [(p.file, p.stage, p.questions) for p in seen if p.stage != "opening"] == [
        (1, "cached", 3), (2, "cached", 5), (2, "done", 5)]
    assert "unchanged since last time" in progress_text(seen[1])


async def test_a_broken_bank_ends_the_app_with_its_errors(tmp_path: Path) -> None:
    bank = tmp_path / "bad.yaml"
    bank.write_text(bank_text("a", "q1").replace("answer: A", "answer: E"), encoding="utf-8")
    app = make_app(None, paths=[str(bank)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
    assert app.return_code == 1
    assert app.failure is not None and app.failure.usage is None
    assert [str(d) for d in app.failure.diagnostics] == [
        f"{bank}:10:13: error: the answer E is not one of the options (A, B)"]


def run_cli_in_terminal(monkeypatch: pytest.MonkeyPatch, argv: list[str]) -> int:
    """``quiz ARGV`` as if in a terminal: the app runs headless."""
    monkeypatch.setattr(cli_study, "has_terminal", lambda: True)
    real_run = QuizApp.run

    def headless(self: QuizApp, **kwargs: Any) -> Any:
        async def auto_pilot(pilot: Any) -> None:
            await settled(self, pilot)
            if self.failure is None:
                self.exit(0)

        return real_run(self, headless=True, size=(80, 24), auto_pilot=auto_pilot)

    monkeypatch.setattr(QuizApp, "run", headless)
    return cli.main(argv)


def test_the_cli_prints_a_broken_banks_errors_and_exits_1(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str],
                                                          ) -> None:
    bank = tmp_path / "bad.yaml"
    bank.write_text(bank_text("a", "q1").replace("answer: A", "answer: E"), encoding="utf-8")
    assert run_cli_in_terminal(monkeypatch, [str(bank)]) == 1
    err = capsys.readouterr().err
    assert f"{bank}:10:13: error: the answer E is not one of the options (A, B)" in err
    assert "fix the errors above" in err and "Traceback" not in err


def test_the_cli_reports_an_unknown_topic_once_the_banks_are_loaded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    bank = tmp_path / "ok.yaml"
    bank.write_text(bank_text("a", "q1"), encoding="utf-8")
    assert run_cli_in_terminal(monkeypatch, [str(bank), "--topic", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown topic nosuch (topics: memory)" in err and "Traceback" not in err
    assert run_cli_in_terminal(monkeypatch, [str(bank), "--topic", "memory"]) == 0
    # Now the cache serves the bank before the first paint: the same usage error.
    assert list((tmp_path / "quiz-cache").glob("*.bank"))
    assert run_cli_in_terminal(monkeypatch, [str(bank), "--topic", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "unknown topic nosuch (topics: memory)" in err and "Traceback" not in err


async def test_r_reloads_through_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           ) -> None:
    (tmp_path / "a.yaml").write_text(bank_text("a", "q1"), encoding="utf-8")
    (tmp_path / "b.yaml").write_text(bank_text("b", "q2"), encoding="utf-8")
    full: list[str] = []
    real = load_module._load_text

    def counting(text: Any, path: str, pure_python: bool, tracker: Any = None) -> Any:
        # Only this test's files: a loading thread an earlier test's app left running may
        # still load its own a.yaml through this patched function.
        if Path(path).resolve().parent == tmp_path.resolve():
            full.append(Path(path).name)
        return real(text, path, pure_python, tracker)

    monkeypatch.setattr(load_module, "_load_text", counting)
    # The entries are written after the library is shown; here they wait until "r" has been
    # pressed: "r" pressed before they are written must wait for them rather than load a.yaml
    # in full again.
    pressed = threading.Event()
    real_put = BankCache.put

    def held_put(self: BankCache, *args: Any, **kwargs: Any) -> Any:
        assert pressed.wait(UNTIL_TIMEOUT_S), "r was never pressed"
        return real_put(self, *args, **kwargs)

    monkeypatch.setattr(BankCache, "put", held_put)
    app = make_app(None, shuffle=False, paths=[str(tmp_path)])
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.loaded, "the banks to load")
        await pilot.pause()
        assert full == ["a.yaml", "b.yaml"]
        (tmp_path / "b.yaml").write_text(bank_text("b", "q2", "q3"), encoding="utf-8")
        await pilot.press("r")
        pressed.set()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert full == ["a.yaml", "b.yaml", "b.yaml"]  # a.yaml came from the cache
        assert text_of(app.screen, "#bank-count") == "3 questions in 1 topic"
        assert not app.screen.query_one("#start", Button).disabled



async def test_an_interrupted_session_is_offered_once_the_banks_are_loaded(tmp_path: Path,
                                                                          ) -> None:
    from quiz.study.store import Store
    from quiz.tui.screens.confirm import ConfirmScreen
    from quiz.tui.screens.question import QuestionScreen

    banks = tmp_path / "banks"
    banks.mkdir()
    (banks / "a.yaml").write_text(bank_text("a", "q1", "q2"), encoding="utf-8")
    path = tmp_path / "p.db"
    store = Store.open(path)
    app = make_app(None, shuffle=False, store=store, paths=[str(banks)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await pilot.press("enter", "a")  # start, answer the first question
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
    store.close()  # as if killed: the session was never finished

    store = Store.open(path)
    app = make_app(None, shuffle=False, store=store, paths=[str(banks)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "1 of 2 answered" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.session is not None
        assert app.session.position == 1
    store.close()


async def test_counts_of_a_thousand_or_more_have_thousands_separators(tmp_path: Path) -> None:
    """The start screen writes 1,000 as the progress line does, not 1000."""
    (tmp_path / "big.yaml").write_text(
        bank_text("big", *(f"q{i}" for i in range(1000))), encoding="utf-8")
    app = make_app(None, shuffle=False, paths=[str(tmp_path)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        screen = app.screen
        assert isinstance(screen, StartScreen)
        assert text_of(screen, "#bank-count") == "1,000 questions in 1 topic"
        count = screen.query_one("#count", Input)
        count.value = "2000"
        await pilot.pause()
        assert text_of(screen, "#count-note") == (
            "Only 1,000 questions match the chosen topics: the session will have 1,000.")


async def test_a_session_of_other_banks_is_left_open_for_when_they_are_studied(
        tmp_path: Path) -> None:
    from quiz.study.store import Store
    from quiz.tui.screens.confirm import ConfirmScreen
    from quiz.tui.screens.question import QuestionScreen
    from quiz.tui.screens.start import StartScreen

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "a.yaml").write_text(bank_text("a", "q1", "q2"), encoding="utf-8")
    (tmp_path / "b" / "b.yaml").write_text(bank_text("b", "q3", "q4"), encoding="utf-8")
    path = tmp_path / "p.db"
    store = Store.open(path)
    app = make_app(None, shuffle=False, store=store, paths=[str(tmp_path / "a")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await pilot.press("enter", "a")  # start bank a's session, answer its first question
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
    store.close()  # as if killed

    store = Store.open(path)
    app = make_app(None, shuffle=False, store=store, paths=[str(tmp_path / "b")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)  # bank b: nothing offered
    (record,) = store.open_sessions()  # bank a's session is still open, not abandoned
    assert record.bank_ids == ("a",) and record.status == "open"
    store.close()

    store = Store.open(path)
    app = make_app(None, shuffle=False, store=store, paths=[str(tmp_path / "a")])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        assert isinstance(app.screen, ConfirmScreen)
        assert "1 of 2 answered" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.session is not None
        assert app.session.position == 1
    store.close()


def test_a_file_is_reported_a_bounded_number_of_times_while_it_is_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However slow the machine (no time between reports is asked for here), a file's reading
    is reported at most once per PROGRESS_STEP of its text: each report costs the app a
    repaint, which holds the interpreter lock the loading thread needs."""
    monkeypatch.setattr(load_progress, "PROGRESS_INTERVAL_S", 0.0)
    qids = [f"q{i}" for i in range(200)]
    (tmp_path / "a.yaml").write_text(bank_text("a", *qids), encoding="utf-8")
    seen: list[LoadProgress] = []
    assert load_library([tmp_path], progress=seen.append).ok
    reading = [p for p in seen if p.stage == "reading"]
    assert 20 <= len(reading) <= 1 / load_progress.PROGRESS_STEP
    assert [p.questions for p in reading] == sorted({p.questions for p in reading})


async def test_the_collector_paused_for_the_start_up_resumes_after_the_first_frame(
        tmp_path: Path) -> None:
    import gc

    (tmp_path / "a.yaml").write_text(bank_text("a", "q1"), encoding="utf-8")
    app = make_app(None, shuffle=False, paths=[str(tmp_path)], collector_paused=True)
    gc.disable()
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await settled(app, pilot)
            assert gc.isenabled()  # resumed once the first frame was drawn
            assert isinstance(app.screen, StartScreen) and app.loaded
    finally:
        gc.enable()


def test_the_cli_pauses_the_collector_for_the_start_up_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gc

    bank = tmp_path / "ok.yaml"
    bank.write_text(bank_text("a", "q1"), encoding="utf-8")
    seen: list[bool] = []
    real = QuizApp.on_mount

    def noting(self: QuizApp) -> None:
        seen.append(gc.isenabled())
        real(self)

    monkeypatch.setattr(QuizApp, "on_mount", noting)
    assert run_cli_in_terminal(monkeypatch, [str(bank)]) == 0
    assert seen == [False] and gc.isenabled()
