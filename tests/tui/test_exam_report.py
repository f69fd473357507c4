"""The exam report as a certification simulator shows it, and time like a real exam (issue 23
§1, §2): the answer sheet first, Enter opens a question, retake, the report kept and read
again from the statistics; the pause, strict exams and the warnings."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from textual.widgets import Static

from quiz.study.launch import Launch
from quiz.study.mode import Mode
from quiz.study.store import Store
from quiz.tui.app import make_app
from quiz.tui.screens.exam import ExamScreen
from quiz.tui.screens.exam_map import ExamMapScreen
from quiz.tui.screens.exam_report import ExamReportScreen
from quiz.tui.screens.exam_reveal import ExamRevealScreen
from quiz.tui.screens.paused import PausedScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.stats import StatsScreen
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.status_line import StatusLine
from tests.conftest import make_library, question_data
from tests.tui.test_exam_flow import Clock, map_summary, plain, sheet_rows


def six():
    return make_library(*(question_data(f"q{i}", difficulty="easy") for i in range(4)),
                        *(question_data(f"p{i}", topic="precision", difficulty="hard")
                          for i in range(2)))


class Wall:
    """The app's ``now`` (UTC), moved by hand: a strict exam's clock."""

    def __init__(self) -> None:
        self.at = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.at


async def _take_exam(pilot, app, clock: Clock) -> ExamReportScreen:
    """Answer the 6-question exam: 1 right, 2 wrong (flagged), 3 right, the rest blank;
    20 s on the first, 40 s on the second; then submit."""
    screen = app.screen
    assert isinstance(screen, ExamScreen)
    clock.t += 20
    await pilot.press("b", "n")
    clock.t += 40
    await pilot.press("a", "r", "n", "b")
    await pilot.pause()
    screen.finish()
    await pilot.pause()
    report = app.screen
    assert isinstance(report, ExamReportScreen)
    return report


async def test_the_report_opens_on_an_answer_sheet_of_every_question_at_80x24(
        tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = make_app(six(), shuffle=False, store=store, clock=clock, now=Wall(),
                   launch=Launch(mode=Mode.EXAM, minutes=10))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        report = await _take_exam(pilot, app, clock)
        rows = sheet_rows(report)
        # Every question, its answer and its key, before any explanation.
        assert [(r[0], r[2], r[3], r[4], r[5], r[6]) for r in rows] == [
            ("1", "B", "B", "✓ right", "", "0:20"),
            ("2", "A", "B", "✗ wrong", "⚑", "0:40"),
            ("3", "B", "B", "✓ right", "", "0:00"),
            ("4", "–", "B", "– none", "", "0:00"),
            ("5", "–", "B", "– none", "", "0:00"),
            ("6", "–", "B", "– none", "", "0:00")]
        # All six on the first screen at 80x24 (the header line and six rows).
        assert report.sheet.size.height >= 7 and report.sheet.region.bottom <= 23
        assert "Full explanation" not in app.screen.query_one("#report-body").__str__()
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamRevealScreen)
        assert app.screen.body.text_of("title") == "Question 2 · wrong · ⚑ flagged"
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is report
        await pilot.press("w")
        await pilot.pause()
        assert [r[0] for r in sheet_rows(report)] == ["2"]
        assert plain(report.query_one("#sheet-filter", Static)) == (
            "Enter opens · a All 6 · [w Wrong 1] · f Flagged 1 · u Unanswered 3")
        await pilot.press("f")
        await pilot.pause()
        assert [r[0] for r in sheet_rows(report)] == ["2"]
        await pilot.press("a")
        await pilot.pause()
        assert len(sheet_rows(report)) == 6
        # Retake the missed ones (wrong or unanswered) as practice.
        await pilot.press("p")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.session is not None and app.session.mode is Mode.PRACTICE
        assert {q.id for q in app.session.questions} == {"q1", "q3", "p0", "p1"}
        await pilot.press("s")
        await pilot.pause()
        first = app.screen.query_one("#summary-body").text_of("first-attempt")
        assert first.replace("\n", " ").startswith(
            "First attempt 2 right of 3 answered (67%); 3 of 6 left unanswered")
    store.close()


async def test_the_missed_ones_are_retaken_as_an_exam_and_the_report_is_kept(
        tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = make_app(six(), shuffle=False, store=store, clock=clock, now=Wall(),
                   launch=Launch(mode=Mode.EXAM, minutes=10))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _take_exam(pilot, app, clock)
        await pilot.press("e")
        await pilot.pause()
        assert isinstance(app.screen, ExamScreen) and app.exam is not None
        assert app.exam.total == 4
    # The next run: the report is read again from the statistics, as it was.
    app = make_app(six(), shuffle=False, store=store, clock=Clock(), now=Wall())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_stats()
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("e")
        await pilot.pause()
        report = app.screen
        assert isinstance(report, ExamReportScreen)
        rows = sheet_rows(report)
        assert [(r[4], r[6]) for r in rows[:2]] == [("✓ right", "0:20"), ("✗ wrong", "0:40")]
        assert plain(report.query_one("#report-score", Static)) == (
            "Score 2 of 6 right (33%); 3 not answered")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
    store.close()


async def test_the_pause_hides_the_question_stops_the_clock_and_is_reported(
        tmp_path: Path) -> None:
    clock = Clock()
    app = make_app(six(), shuffle=False, clock=clock,
                   launch=Launch(mode=Mode.EXAM, minutes=10))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        clock.t += 30
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(app.screen, PausedScreen)  # opaque: the question is hidden
        assert app.screen.styles.background.a == 1
        clock.t += 300
        screen.tick()
        assert screen.exam.remaining == 570.0  # stopped
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is screen
        clock.t += 10
        assert screen.exam.remaining == 560.0
        screen.finish()
        await pilot.pause()
        report = app.screen
        assert isinstance(report, ExamReportScreen)
        assert plain(report.query_one("#report-pauses", Static)) == (
            "Paused 1 time for 5:00 in all: not a timed sitting.")
        assert plain(report.query_one("#report-time", Static)) == "Time used 0:40 of 10:00"


async def test_a_strict_exam_has_no_pause_and_runs_on_the_wall_clock(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    wall = Wall()
    app = make_app(six(), shuffle=False, store=store, clock=Clock(), now=wall,
                   launch=Launch(mode=Mode.EXAM, minutes=10, strict=True))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen) and screen.exam.strict
        # The key bar does not offer what a strict exam refuses.
        assert [c.description for c in screen.query_one(KeyBar).cells] == [
            "Next", "Prev", "Flag", "Map", "Submit…", "Help", "Quit", "palette"]
        await pilot.press("t")
        await pilot.pause()
        assert app.screen is screen
        assert "strict exam has no pause" in screen.view.text_of("hint")
        await pilot.press("b")
    # The terminal closes; the exam's clock runs on meanwhile, as at a test centre.
    wall.at += timedelta(minutes=4)
    app = make_app(six(), shuffle=False, store=store, clock=Clock(), now=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("enter")  # Resume
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        assert screen.exam.remaining == 360.0
        assert "6:00 left" in screen.query_one("#status", StatusLine).right
    store.close()


async def test_warnings_at_10_5_and_1_minutes_left() -> None:
    clock = Clock()
    app = make_app(six(), shuffle=False, clock=clock,
                   launch=Launch(mode=Mode.EXAM, minutes=12))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        said: list[str] = []
        real = screen.notify

        def notify(message: str, **kw: object) -> None:
            said.append(message)
            real(message, **kw)  # type: ignore[arg-type]

        screen.notify = notify  # type: ignore[method-assign]
        for left in (11 * 60, 10 * 60, 9 * 60, 5 * 60, 2 * 60, 60):
            clock.t = 500.0 + 12 * 60 - left
            screen.tick()
        assert said == ["10 minutes left.", "5 minutes left.", "1 minute left."]


def test_the_report_shows_the_digits_that_tell_the_score_from_the_pass_mark() -> None:
    from quiz.study.exam import ExamReport
    from quiz.study.score import Score
    from quiz.tui.screens.exam_report import pauses_text, percent_text

    report = ExamReport(score=Score(1, 3, 3), pass_mark=0.334, time_used_s=60,
                        time_limit_s=600, timed_out=False, by_topic={}, by_difficulty={},
                        items=())
    assert percent_text(report) == "33.3%" and report.score.percents(0.334)[1] == "33.4%"
    assert pauses_text(report) == "Taken in one sitting: no pause."


async def test_an_incomplete_multiple_response_question_shows_its_ticks(
        tmp_path: Path) -> None:
    lib = make_library(question_data("mr", answer=["A", "C"]), question_data("q2"))
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = make_app(lib, shuffle=False, store=store, clock=clock, now=Wall(),
                   launch=Launch(mode=Mode.EXAM, minutes=10))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        await pilot.press("c")  # one tick of the two it asks for
        await pilot.pause()
        await pilot.press("s")  # the review before submitting says so
        await pilot.pause()
        assert isinstance(app.screen, ExamMapScreen)
        summary = map_summary(app.screen)
        assert "Warning: 2 questions not answered (1, 2); each counts as wrong." in summary
        assert "Only partly ticked (not counted until complete): 1." in summary
        await pilot.click("#map-submit")
        await pilot.pause()
        report = app.screen
        assert isinstance(report, ExamReportScreen)
        assert [(r[0], r[2], r[3], r[4]) for r in sheet_rows(report)] == [
            ("1", "C of 2", "A,C", "– incomplete"), ("2", "–", "B", "– none")]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamRevealScreen)
        assert app.screen.body.text_of("title") == (
            "Question 1 · incomplete: C ticked of 2 asked for, not answered")
    # Read again from the statistics, the ticks are still there.
    app = make_app(lib, shuffle=False, store=store, clock=Clock(), now=Wall())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_stats()
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        report = app.screen
        assert isinstance(report, ExamReportScreen)
        assert [(r[2], r[4]) for r in sheet_rows(report)] == [
            ("C of 2", "– incomplete"), ("–", "– none")]
    store.close()


async def test_any_earlier_exam_report_is_chosen_from_the_statistics(tmp_path: Path) -> None:
    from textual.widgets import OptionList

    from quiz.tui.screens.exam_pick import ExamPickScreen

    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    wall = Wall()
    app = make_app(six(), shuffle=False, store=store, clock=clock, now=wall,
                   launch=Launch(mode=Mode.EXAM, minutes=10))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await _take_exam(pilot, app, clock)  # 6 questions, 2 right
        await pilot.press("e")  # the 4 missed ones again, as an exam
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen) and screen.exam.total == 4
        await pilot.press("b")
        await pilot.pause()
        screen.finish()
        await pilot.pause()
        assert isinstance(app.screen, ExamReportScreen)
    app = make_app(six(), shuffle=False, store=store, clock=Clock(), now=wall)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_stats()
        await pilot.pause()
        await pilot.press("e")
        await pilot.pause()
        picker = app.screen
        assert isinstance(picker, ExamPickScreen)
        options = picker.query_one(OptionList)
        labels = [str(options.get_option_at_index(i).prompt)
                  for i in range(options.option_count)]
        # Newest first: the retake (1 of 4 right), then the first exam (2 of 6).
        assert [label.split("  ", 1)[1] for label in labels] == [
            "███░░░░░░░░░  25%  1/4  below the mark  0:00",
            "████░░░░░░░░  33%  2/6  below the mark  1:00"]
        await pilot.press("down", "enter")
        await pilot.pause()
        report = app.screen
        assert isinstance(report, ExamReportScreen)
        assert len(sheet_rows(report)) == 6
        assert plain(report.query_one("#report-score", Static)) == (
            "Score 2 of 6 right (33%); 3 not answered")
        await pilot.press("escape")  # back to the statistics, and the list again
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
        await pilot.press("e", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamReportScreen) and len(sheet_rows(app.screen)) == 4
        await pilot.press("escape", "e", "escape")
        await pilot.pause()
        assert isinstance(app.screen, StatsScreen)
    store.close()
