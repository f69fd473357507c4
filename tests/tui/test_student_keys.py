"""Keys a student looks for, and what a student tripped over (issue 23 §3–§5): r flags in
every mode, the rating in view with the verdict, Esc back to the summary, settings per bank,
the command asked for wins over an unfinished session of another mode."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import Input, Static

from quiz.study.launch import Launch
from quiz.study.mode import Mode
from quiz.study.store import Store
from quiz.tui.app import make_app
from quiz.tui.screens.confirm import ConfirmScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.start import StartScreen
from quiz.tui.screens.summary import SummaryScreen
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.status_line import StatusLine
from tests.conftest import make_library, question_data
from tests.tui.test_bars import bar_text
from tests.tui.test_question_screen import shown, start, view


def now() -> datetime:
    return datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _library(n: int = 3):
    return make_library(*(question_data(f"q{i}") for i in range(n)))


async def test_r_flags_a_question_in_practice_for_cram(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as store:
        app = make_app(_library(), shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await start(app, pilot)
            await pilot.press("r")
            await pilot.pause()
            assert "⚑ flagged" in screen.query_one("#status", StatusLine).left
            assert shown(screen, "hint").startswith("⚑ Flagged for review.")
            assert store.flags() == {"q0"}
            await pilot.press("r")
            await pilot.pause()
            assert store.flags() == set()
            await pilot.press("r", "b", "n")
            await pilot.pause()
            assert store.flags() == {"q0"}
        # Cram goes over the flagged one.
        app = make_app(_library(), shuffle=False, store=store, now=now,
                       launch=Launch(mode=Mode.CRAM))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)  # the unfinished practice session
            await pilot.press("enter")  # the default: the cram session asked for
            await pilot.pause()
            assert app.session is not None and app.session.mode is Mode.CRAM
            assert [q.id for q in app.session.questions] == ["q0"]


async def test_the_rating_is_in_view_with_the_verdict_in_review_at_80x24(
        tmp_path: Path) -> None:
    long = "A long explanation sentence that fills the screen. " * 12
    lib = make_library(*(question_data(f"q{i}", short_explanation=long) for i in range(2)))
    with Store.open(tmp_path / "p.db") as store:
        app = make_app(lib, shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            await pilot.press("a")  # wrong: q0 is missed, so review asks it
            await pilot.pause()
        app = make_app(lib, shuffle=False, store=store, now=now,
                       launch=Launch(mode=Mode.REVIEW))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen)  # the unfinished practice session
            await pilot.press("enter")  # the default: the review asked for
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, QuestionScreen) and app.session is not None
            assert app.session.mode is Mode.REVIEW
            await pilot.press("b")
            await pilot.pause()
            body = view(screen)
            span = body.span("rating")
            assert span is not None
            top, height = round(body.scroll_y), body.scrollable_content_region.height
            assert top <= span[0] and span[1] <= top + height  # in view, under the verdict
            assert body.span("verdict") is not None and body.span("verdict")[1] == span[0]
            assert shown(screen, "rating").startswith("rated ")
            assert "1–4 Rate" in bar_text(screen.query_one(KeyBar))
            await pilot.press("1")
            await pilot.pause()
            assert shown(screen, "rating").startswith("rated Again")


async def test_esc_on_a_question_opened_from_the_summary_returns_there() -> None:
    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("a", "s")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        await pilot.press("enter")  # opens the first question to review
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        # Opened otherwise, Esc still asks to quit.
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)


async def test_a_6_question_bank_opened_after_a_2_question_bank_starts_with_6(
        tmp_path: Path) -> None:
    from quiz.bank.library import Library, LoadedBank
    from quiz.bank.model import BankFile

    def bank(bank_id: str, n: int) -> Library:
        data = BankFile.model_validate({
            "bank": {"id": bank_id, "title": bank_id, "topics": {"memory": "Memory"}},
            "questions": [question_data(f"{bank_id}{i}") for i in range(n)]})
        return Library(banks=(LoadedBank(Path(f"{bank_id}.yaml"), data.bank,
                                         tuple(data.questions)),), topics={"memory": "Memory"})

    with Store.open(tmp_path / "p.db") as store:
        app = make_app(bank("small", 2), shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            assert app.session is not None and app.session.total == 2
        app = make_app(bank("large", 6), shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert isinstance(app.screen, StartScreen)
            assert app.screen.query_one("#count", Input).value == "6"
            screen = await start(app, pilot)
            assert app.session is not None and app.session.total == 6
            assert "Question 1/6" in screen.query_one("#status", StatusLine).left


async def test_quiz_exam_with_an_unfinished_practice_speaks_of_the_exam_at_50x16(
        tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as store:
        app = make_app(_library(), shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            await pilot.press("b")
            await pilot.pause()
        app = make_app(_library(), shuffle=False, store=store, now=now,
                       launch=Launch(mode=Mode.EXAM))
        async with app.run_test(size=(50, 16)) as pilot:
            await pilot.pause()
            dialog = app.screen
            assert isinstance(dialog, ConfirmScreen)
            question = dialog.query_one("#dialog-question", Static)
            assert question.visual.plain.startswith(  # type: ignore[union-attr]
                "Before your exam: resume the unfinished practice session, or start the exam?")
            # Its first line and both buttons are on screen at 50x16, not cut off.
            assert 0 <= question.region.y < 16
            for button in ("#yes", "#no"):
                region = dialog.query_one(button).region
                assert region.y >= 0 and region.bottom <= 16
            await pilot.press("enter")  # the default: the exam
            await pilot.pause()
            assert app.exam is not None


async def test_the_start_screen_shows_the_exam_settings_only_in_exam_mode() -> None:
    from textual.widgets import RadioSet, Switch

    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        start = app.screen
        assert isinstance(start, StartScreen)
        assert not start.query_one("#minutes-row").display
        assert not start.query_one("#strict-row").display
        start.query_one("#mode-exam").value = True
        await pilot.pause()
        assert start.mode == "exam" and start.query_one("#minutes-row").display
        assert start.query_one("#strict-row").display
        start.query_one("#strict", Switch).value = True
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.exam is not None and app.exam.strict
        assert isinstance(start.query_one("#mode", RadioSet), RadioSet)


async def test_the_set_aside_notice_wraps_at_words_not_inside_a_path(tmp_path: Path) -> None:
    damaged = tmp_path / "progress.db"
    damaged.write_bytes(b"not a database at all" * 100)
    with Store.open(damaged) as store:
        assert store.notice is not None
        app = make_app(_library(), shuffle=False, store=store, now=now)
        said: list[str] = []
        real = app.notify

        def notify(message: str, **kw: object) -> None:
            said.append(message)
            real(message, **kw)  # type: ignore[arg-type]

        app.notify = notify  # type: ignore[method-assign]
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
        (notice,) = [m for m in said if "could not be used" in m]
        lines = notice.split("\n")
        assert str(damaged) in lines or any(line.endswith("/progress.db") for line in lines)
        assert any(line.startswith("progress.db.damaged-") for line in lines)


async def test_at_120x40_the_reveal_keeps_the_stem_and_the_marked_options_in_view() -> None:
    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        body = view(screen)
        assert body.scroll_y == 0 and body.span("stem") is not None
        verdict = body.span("verdict")
        assert verdict is not None and verdict[1] <= body.scrollable_content_region.height
    app = make_app(make_library(question_data(
        "q1", question="A long stem. " * 120)), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        body = view(screen)  # does not fit: the verdict is scrolled to the top
        assert round(body.scroll_y) == body.top_of("verdict")


async def test_the_dashboard_keeps_one_line_per_topic_at_80_columns(tmp_path: Path) -> None:
    from quiz.tui.screens.stats import StatsScreen

    lib = make_library(*(question_data(f"m{i}") for i in range(3)),
                       question_data("p0", topic="precision"),
                       topics={"memory": "Memory footprint: training vs inference",
                               "precision": "GPUs and precision formats for each phase"})
    with Store.open(tmp_path / "p.db") as store:
        app = make_app(lib, shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            await pilot.press("b")
            app.action_stats()
            await pilot.pause()
            dash = app.screen
            assert isinstance(dash, StatsScreen)
            overview = dash.query_one("#stats-overview", Static).visual.plain  # type: ignore
            assert overview.startswith("Questions 1 of 4 seen · ")
            topics = dash.query_one("#stats-topics", Static)
            assert topics.size.height == 2  # one line each, none wrapped
