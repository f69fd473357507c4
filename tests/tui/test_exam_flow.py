"""Pilot tests of exam mode, the question map, practice recording, undo, resume, the quit
dialog and the statistics dashboard — with a real store in tmp_path and injected clocks."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from rich.style import Style
from textual.widgets import Static

from quiz.study.launch import Launch
from quiz.study.lifecycle import settings_key
from quiz.study.store import Store
from quiz.tui.app import make_app
from quiz.tui.screens.confirm import ConfirmScreen
from quiz.tui.screens.exam import ExamScreen
from quiz.tui.screens.exam_map import ExamMapScreen, MapView
from quiz.tui.screens.exam_report import ExamReportScreen, ReportItem
from quiz.tui.screens.exam_reveal import ExamRevealScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.start import StartScreen
from quiz.tui.screens.stats import StatsScreen
from quiz.tui.widgets.reveal import RevealView
from quiz.tui.widgets.status_line import StatusLine
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import markers, option_is, revealed, shown, view


def plain(widget: Static) -> str:
    return widget.visual.plain  # type: ignore[union-attr]


def map_view(screen) -> MapView:
    """The question map's summary and grid (one widget)."""
    return screen.query_one("#map-view", MapView)


def map_summary(screen) -> str:
    """The map's summary lines as drawn, lines that wrapped joined again (with a space)."""
    return map_view(screen).text_of("summary").replace("\n", " ")


def map_cell(screen, number: int) -> tuple[str, Style]:
    """The label drawn in question ``number``'s cell and the cell's style."""
    view = map_view(screen)
    x, y = view.cell_offset(number - 1)
    strip = view.strips_of("grid")[y - view.span("grid")[0]]
    cell = strip.crop(x, x + view.cell_width)
    styles = {segment.style for segment in cell}
    assert len(styles) == 1, f"cell {number} is drawn in more than one style"
    return cell.text.strip(), styles.pop()


def cell_style(screen, *states: str) -> Style:
    """The map's style of a cell in ``states`` (answered, flagged, current, cursor)."""
    return map_view(screen).get_component_rich_style(
        "map-view--cell", *(f"map-view--{s}" for s in states))


async def click_cell(pilot, number: int) -> None:
    view = map_view(pilot.app.screen)
    x, y = view.cell_offset(number - 1)
    await pilot.click("#map-view", offset=(x + 1, y - round(view.scroll_y)))


class Clock:
    def __init__(self) -> None:
        self.t = 500.0

    def __call__(self) -> float:
        return self.t


def now() -> datetime:
    return datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def library():
    return make_library(*(question_data(f"q{i}", difficulty="easy") for i in range(4)),
                        question_data("p1", topic="precision", difficulty="hard"))


def sheet_rows(report: ExamReportScreen) -> list[list[str]]:
    """The answer sheet's rows as plain text."""
    sheet = report.sheet
    return [[str(cell) for cell in sheet.get_row_at(i)] for i in range(sheet.row_count)]


async def test_exam_flow_no_verdict_then_report(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = make_app(library(), shuffle=False, store=store, clock=clock, now=now,
                   launch=Launch(mode="exam", minutes=10))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        assert "0/5 answered · ⏱ 10:00 left" in screen.query_one("#status", StatusLine).right
        await pilot.press("a")  # wrong (B is right)
        await pilot.pause()
        # An exam reveals nothing before the end: the body is the stem, the hint line and the
        # options, A drawn as chosen (and highlighted: the last one pressed), none marked.
        assert [b.key for b in view(screen).blocks] == [
            "stem", "hint", "option-A", "option-B", "option-C", "option-D"]
        assert markers(screen) == {"A": "A (•)", "B": "B ( )", "C": "C ( )", "D": "D ( )"}
        assert option_is(screen, "A", "highlighted", "chosen") and option_is(screen, "B")
        assert "1/5 answered" in screen.query_one("#status", StatusLine).right
        await pilot.press("b")  # changed to the right one
        await pilot.pause()
        assert markers(screen) == {"A": "A ( )", "B": "B (•)", "C": "C ( )", "D": "D ( )"}
        assert option_is(screen, "A") and option_is(screen, "B", "highlighted", "chosen")
        assert "1/5 answered" in screen.query_one("#status", StatusLine).right
        await pilot.press("n", "r", "b")
        clock.t += 95
        screen.tick()
        await pilot.pause()
        assert "2/5 answered · ⏱ 8:25 left" in screen.query_one("#status", StatusLine).right
        assert screen.query_one("#status", StatusLine).left == (
            "Question 2/5 · ⚑ flagged · easy · Memory footprint")
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ExamMapScreen)
        summary = map_summary(app.screen)
        assert "Warning: 3 questions not answered (3, 4, 5)" in summary
        assert "Flagged for review: 2." in summary
        await pilot.click("#map-submit")
        await pilot.pause()
        report = app.screen
        assert isinstance(report, ExamReportScreen)
        assert plain(report.query_one("#report-score", Static)) == (
            "Score 2 of 5 right (40%); 3 not answered")
        assert plain(report.query_one("#report-pass", Static)) == (
            "Below the pass mark (pass mark 70%)")
        assert plain(report.query_one("#report-time", Static)) == "Time used 1:35 of 10:00"
        topics = plain(report.query_one("#report-topics", Static)).splitlines()
        assert topics[0].split()[-2:] == ["2/4", "50%"]
        assert topics[1].split()[-2:] == ["0/1", "0%"]
        # Issue 23: the first screen is the answer sheet, every question in exam order with
        # your answer, the key, right or wrong, flagged, and the time spent on it; no
        # explanation until a question is opened.
        assert plain(report.query_one("#report-pauses", Static)) == (
            "Taken in one sitting: no pause.")
        assert not list(report.query(ReportItem))
        rows = sheet_rows(report)
        assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
        assert rows[0][2:] == ["B", "B", "✓ right", "", "0:00"]
        assert rows[1][2:] == ["B", "B", "✓ right", "⚑", "1:35"]
        assert [r[4] for r in rows[2:]] == ["– none"] * 3 and [r[2] for r in rows[2:]] == [
            "–"] * 3
        await pilot.press("down", "enter")  # opens question 2's full reveal
        await pilot.pause()
        opened = app.screen
        assert isinstance(opened, ExamRevealScreen)
        item = opened.body
        titles = [item.text_of("title")]
        assert titles == ["Question 2 · right · ⚑ flagged"]
        # One widget per question: heading, stem and options as shown, then its reveal, from
        # the same parts as the question screen's.
        assert [b.key for b in item.blocks][:4] == ["title", "stem", "options", "verdict"]
        assert item.text_of("stem") == "Stem of q1?"
        assert item.text_of("options") == "A  Alpha\nB  Bravo\nC  Charlie\nD  Delta"
        assert sorted(item.classes) == ["-right", "report-item"]
        assert isinstance(item, RevealView)
        assert item.text_of("full-explanation") == "Full explanation of q1."
        assert item.text_of("verdict") == "█ ✓ Correct: B."
        await pilot.press("n")
        await pilot.pause()
        assert opened.body.text_of("title") == "Question 3 · not answered"
        assert opened.body.text_of("full-explanation") == "Full explanation of q2."
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is report
        await pilot.press("u")  # only the unanswered ones
        await pilot.pause()
        assert [r[0] for r in sheet_rows(report)] == ["3", "4", "5"]
    (rec,) = store.sessions()
    assert (rec.mode, rec.status) == ("exam", "finished")
    assert [(a.question_id, a.chosen, a.correct) for a in store.answers()] == [
        ("q0", ("B",), True), ("q1", ("B",), True)]
    assert store.cards() == {}
    store.close()


async def test_exam_times_out_into_the_report(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = make_app(library(), shuffle=False, store=store, clock=clock, now=now,
                   launch=Launch(mode="exam", minutes=1))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        await pilot.press("b")
        clock.t += 61
        screen.tick()
        await pilot.pause()
        assert isinstance(app.screen, ExamReportScreen)
        assert plain(app.screen.query_one("#report-time", Static)) == (
            "Time used 1:00 of 1:00 — the time ran out")
    store.close()


async def test_question_map_shows_states_and_jumps(tmp_path: Path) -> None:
    app = make_app(library(), shuffle=False, clock=Clock(), launch=Launch(mode="exam"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        await pilot.press("b", "n", "r", "l")
        await pilot.pause()
        assert isinstance(app.screen, ExamMapScreen)
        assert map_view(app.screen).text_of("summary").split("\n") == [
            "1 of 5 answered · 1 flagged", "● answered  ○ unanswered  ⚑ flagged"]
        assert app.focused is map_view(app.screen)  # its cursor on the current question
        assert map_cell(app.screen, 1) == ("1●", cell_style(app.screen, "answered"))
        assert map_cell(app.screen, 2) == ("2⚑○", cell_style(app.screen, "flagged", "current",
                                                              "cursor"))
        assert map_cell(app.screen, 5) == ("5○", cell_style(app.screen))
        assert not app.screen.query("#map-submit")
        assert map_view(app.screen).size.height == 4  # 2 summary lines, a blank, 1 row
        await click_cell(pilot, 4)
        await pilot.pause()
        assert app.screen is screen and screen.exam.position == 3
        assert shown(screen, "stem") == "Stem of q3?"


async def test_practice_records_rates_and_undoes(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = make_app(library(), shuffle=False, store=store, clock=clock, now=now)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, QuestionScreen)
        clock.t += 40
        await pilot.press("b")
        await pilot.pause()
        (a,) = store.answers()
        assert (a.question_id, a.correct, a.seconds, a.rating) == ("q0", True, 40.0, 3)
        assert "rated Good" in shown(screen, "rating")
        await pilot.press("1")
        await pilot.pause()
        assert store.answers()[0].rating == 1
        assert "rated Again" in shown(screen, "rating")
        await pilot.press("u")
        await pilot.pause()
        assert store.answers() == [] and store.cards() == {}
        assert not revealed(screen)
        await pilot.press("a")
        await pilot.pause()
        assert [(x.chosen, x.correct, x.rating) for x in store.answers()] == [
            (("A",), False, 1)]
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        text = app.screen.question
        assert "saved" in text and "resume" in text and "not be kept" not in text
    store.close()


async def test_an_interrupted_exam_resumes_with_its_time_left(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    store = Store.open(path)
    clock = Clock()
    app = make_app(library(), shuffle=False, store=store, clock=clock, now=now,
                   launch=Launch(mode="exam", minutes=5))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("b", "n", "r")
        clock.t += 130
        await pilot.press("c")  # saves the clock with the answer
        await pilot.pause()
    store.close()  # as if killed: the session was never finished

    store = Store.open(path)
    app = make_app(library(), shuffle=False, store=store, clock=Clock(), now=now)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "unfinished exam session" in app.screen.question
        assert "2 of 5 answered, 2:50 left" in app.screen.question
        await pilot.press("y")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        assert screen.exam.position == 1 and screen.exam.flagged() == [2]
        assert "2/5 answered · ⏱ 2:50 left" in screen.query_one("#status", StatusLine).right
    store.close()


async def test_dashboard_shows_topics_sessions_and_exams(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    app = make_app(library(), shuffle=False, store=store, clock=Clock(), now=now,
                   launch=Launch(mode="exam"))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("b", "n", "a", "s")
        await pilot.pause()
        await pilot.click("#map-submit")
        await pilot.pause()
        await pilot.press("ctrl+t")
        await pilot.pause()
        dash = app.screen
        assert isinstance(dash, StatsScreen)
        # Issue 23: "2 of 5 seen", and one line per topic at 80 columns.
        assert plain(dash.query_one("#stats-overview", Static)) == (
            "Questions 2 of 5 seen · 0 mastered · 0 due today · 2 answers given")
        topics = plain(dash.query_one("#stats-topics", Static)).splitlines()
        assert topics[0].startswith("Memory footprint") and " 50%" in topics[0]
        assert "2/4 seen" in topics[0]
        assert len(topics) == 2 and all(len(line) <= 76 for line in topics)
        exams = plain(dash.query_one("#stats-exams", Static))
        assert "1/5" in exams and "below the mark" in exams
        assert "exam" in plain(dash.query_one("#stats-sessions", Static))
    store.close()


async def test_settings_are_remembered_between_runs(tmp_path: Path) -> None:
    from textual.widgets import Input, SelectionList, Switch

    store = Store.open(tmp_path / "p.db")
    lib = library()
    key = settings_key(lib)  # issue 23: kept per set of banks
    store.set_setting(key, {"topics": ["precision"], "count": 1, "shuffle": False})
    store.set_setting("theme", "nord")
    app = make_app(lib, store=store, clock=Clock(), now=now)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        start = app.screen
        assert isinstance(start, StartScreen)
        assert app.theme == "nord"
        assert start.query_one("#topics", SelectionList).selected == ["precision"]
        assert start.query_one("#count", Input).value == "1"
        assert start.query_one("#shuffle", Switch).value is False
        start.query_one("#count", Input).value = "2"
        start.query_one("#topics", SelectionList).select_all()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.session is not None and app.session.total == 2
        app.theme = "gruvbox"
        await pilot.pause()
    kept = store.setting(key)
    assert kept["count"] == 2 and kept["shuffle"] is False
    assert kept["topics"] is None  # every topic ticked: a topic added later is ticked too
    assert store.setting("theme") == "gruvbox"
    store.close()


async def test_submit_stays_in_view_for_a_long_exam_at_80x24(tmp_path: Path) -> None:
    """64 unanswered questions: the warning is shortened, the map scrolls, Submit is on screen."""
    big = make_library(*(question_data(f"q{i}") for i in range(64)))
    store = Store.open(tmp_path / "p.db")
    app = make_app(big, shuffle=False, store=store, clock=Clock(), now=now,
                   launch=Launch(mode="exam", minutes=60))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert isinstance(app.screen, ExamMapScreen)
        summary = map_summary(app.screen)
        assert ("Warning: 64 questions not answered (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, "
                "14, 15 and 49 more)") in summary
        submit = app.screen.query_one("#map-submit")
        assert submit.region.height > 0 and submit.region.bottom <= 24
        assert app.focused is submit
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ExamReportScreen)


async def test_the_map_is_walked_with_the_arrows_and_follows_its_cursor(tmp_path: Path) -> None:
    big = make_library(*(question_data(f"q{i}") for i in range(150)))
    app = make_app(big, shuffle=False, clock=Clock(), now=now,
                   launch=Launch(mode="exam", minutes=60))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ExamScreen)
        await pilot.press("l")
        await pilot.pause()
        view = map_view(app.screen)
        assert app.focused is view and view.cursor == 0
        # 69 cells inside the dialog's border, padding and scrollbar: 10 cells of 6 and their
        # gaps per row (the widest label, "150○", is 4 cells).
        assert (view.cell_width, view.columns()) == (6, 10)
        assert view.text_of("grid").split("\n")[0].split() == [f"{n}○" for n in range(1, 11)]
        assert view.size.height == 14  # 60% of the screen's 24 lines; the 18 lines scroll
        await pilot.press("up", "left")  # at the first cell: nothing moves
        await pilot.press("right", "down")
        await pilot.pause()
        assert view.cursor == 11
        assert map_cell(app.screen, 12) == ("12○", cell_style(app.screen, "cursor"))
        assert map_cell(app.screen, 1) == ("1○", cell_style(app.screen, "current"))
        await pilot.press("end")
        await pilot.pause()
        x, y = view.cell_offset(149)
        assert view.scroll_y == y - 13  # scrolled just enough to show the last row
        await pilot.press("home")
        await pilot.pause()
        assert view.cursor == 0 and view.scroll_y == 0  # the summary back in view too
        await pilot.press("end", "left", "enter")
        await pilot.pause()
        assert app.screen is screen and screen.exam.position == 148
        assert shown(screen, "stem") == "Stem of q148?"
        await pilot.press("l")
        await pilot.pause()
        view = map_view(app.screen)
        assert view.cursor == 148  # the cursor starts on the current question, in view
        x, y = view.cell_offset(148)
        assert view.scroll_y <= y < view.scroll_y + view.size.height
        gap = view.cell_width  # the blank column after the first cell of a row
        await pilot.click("#map-view", offset=(gap, y - round(view.scroll_y)))
        await pilot.pause()
        assert isinstance(app.screen, ExamMapScreen)  # a click between cells chooses nothing
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.exam.position == 148
