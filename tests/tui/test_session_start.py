"""Starting a session costs no pass over the library (issue 13): every topic ticked draws with no
topic filter, and without a progress store no plan is written."""

from __future__ import annotations

import pytest
from textual.widgets import SelectionList

from quiz.study import session as session_module
from quiz.study.session import StudySession
from quiz.tui.app import make_app
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.textual_internals import (
    SCREEN_LAYOUT,
    forget_repaint_request,
    layout_pending,
    repaint_pending,
    repaint_requested,
    run_frame_update,
    widgets_to_repaint,
)
from tests.conftest import make_library, question_data
from tests.tui.waits import until


def _library():
    return make_library(question_data("m1", topic="memory"), question_data("m2", topic="memory"),
                        question_data("p1", topic="precision"),
                        topics={"memory": "Memory", "precision": "Precision"})


async def test_every_topic_ticked_draws_without_a_topic_filter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    drawn = []
    real = session_module.draw_questions  # every study session is drawn by the lifecycle

    def spy(questions, config):  # type: ignore[no-untyped-def]
        drawn.append(config.topics)
        return real(questions, config)

    monkeypatch.setattr(session_module, "draw_questions", spy)
    monkeypatch.setattr(StudySession, "plan", lambda self: pytest.fail("plan without a store"))
    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.session is not None
        assert drawn and set(drawn) == {None} and app.session.total == 3  # (some drawn ahead)
        # The start screen's choice is kept as made (for "retry" and the next run).
        assert app.last_config is not None
        assert app.last_config.topics == frozenset({"memory", "precision"})
        app.action_new_session()
        await pilot.pause()
        topics = app.screen.query_one("#topics", SelectionList)
        topics.deselect("precision")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert drawn[-1] == frozenset({"memory"})
        assert [q.id for q in app.session.questions] == ["m1", "m2"]


async def test_the_question_screen_is_made_while_the_start_screen_waits_and_serves_each_session(
        ) -> None:
    app = make_app(make_library(*(question_data(f"q{i}", answer=["A", "C"]) for i in (1, 2))),
                   shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.ahead.question is not None
                    and app.ahead.question.is_mounted, "the question screen made ahead")
        ready = app.ahead.question
        assert ready is not None and ready.is_mounted and ready not in app.screen_stack
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is ready and ready.session is app.session
        first = app.session
        await pilot.press("a")  # a tick on a multiple-response question, not submitted
        await pilot.pause()
        assert ready._ticks_by_question == {"q1": frozenset({"A"})}
        app.action_new_session()
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        # The same screen, with the new session and nothing left from the last one.
        assert app.screen is ready and app.session is not first and ready.session is app.session
        assert ready._ticks_by_question == {} and app.session.position == 0


async def test_what_the_app_built_while_the_start_screen_waits_is_frozen_until_it_ends() -> None:
    import gc

    gc.unfreeze()
    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, gc.get_freeze_count, "the screens made ahead to be frozen")
        question, summary = app.ahead.question, app.ahead.summary
        assert question is not None and summary is not None and summary.is_mounted
        assert gc.get_freeze_count() > 1000
        # A full collection during a key press no longer scans the screens made ahead.
        tracked = gc.get_objects()
        assert not any(o is question or o is summary for o in tracked)
        del tracked
    assert gc.get_freeze_count() == 0  # the ended app's objects can be collected again


async def test_the_screens_made_ahead_are_laid_out_for_the_terminal_before_they_are_shown(
        ) -> None:
    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        def laid_out() -> bool:
            q, s = app.ahead.question, app.ahead.summary
            return (q is not None and s is not None and bool(s.size.width)
                    and all(w.size.width > 0 for w in q.query("TitleBar, KeyBar")))

        # The start screen lays them out when it is idle.
        await until(pilot, laid_out, "the screens made ahead to be laid out")
        question, summary = app.ahead.question, app.ahead.summary
        assert question is not None and summary is not None
        assert question not in app.screen_stack and summary not in app.screen_stack
        assert tuple(question.size) == (100, 30) and tuple(summary.size) == (100, 30)
        assert all(w.size.width > 0 for w in question.query("TitleBar, KeyBar"))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is question and app.session is not None
        assert app.session.current.question.id == "m1"


async def test_the_session_is_drawn_while_the_start_screen_waits_and_redrawn_when_the_form_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from quiz.study.session import SessionConfig

    library = make_library(*(question_data(f"m{i}", topic="memory") for i in range(6)),
                           *(question_data(f"p{i}", topic="precision") for i in range(6)),
                           topics={"memory": "Memory", "precision": "Precision"})
    expected = StudySession.from_questions(library.questions, SessionConfig(seed=7, count=12))
    drawn = []
    real = session_module.draw_questions  # every study session is drawn by the lifecycle

    def spy(questions, config):  # type: ignore[no-untyped-def]
        drawn.append(config.topics)
        return real(questions, config)

    monkeypatch.setattr(session_module, "draw_questions", spy)
    app = make_app(library, seed=7)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.study._drawn is not None, "the session drawn ahead")
        assert drawn and set(drawn) == {None} and app.study._drawn is not None  # ahead: all topics
        count = len(drawn)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(drawn) == count, "Enter took the session drawn ahead"
        assert app.session is app.ahead.question.session  # type: ignore[union-attr]
        # The same questions, order and option letters as drawing at Enter.
        assert [q.id for q in app.session.questions] == [q.id for q in expected.questions]
        assert app.session.current.options == expected.go(0).options
        app.action_new_session()
        await until(pilot, lambda: app.screen.query("#topics"), "the start screen's topics")
        app.screen.query_one("#topics", SelectionList).deselect("precision")
        # The form stays unchanged: the session is drawn again with one topic.
        await until(pilot, lambda: drawn[-1] is not None, "the session drawn again")
        assert drawn[-1] == frozenset({"memory"})
        count = len(drawn)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(drawn) == count
        assert sorted(q.id for q in app.session.questions) == [f"m{i}" for i in range(6)]


async def _ready(app, pilot) -> None:  # type: ignore[no-untyped-def]
    """Wait until the screens are made ahead, laid out, and the first session drawn."""
    def ready() -> bool:
        q = app.ahead.question
        return (q is not None and q.is_mounted and app.study._drawn is not None
                and q.view._prepared is not None and not layout_pending(q))

    await until(pilot, ready, "the screens made ahead to be ready")


async def test_enter_lays_out_nothing_and_shows_the_first_question_drawn_ahead(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.screen import Screen

    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        question = app.ahead.question
        assert question is not None
        shown, _, blocks = question.view._prepared  # type: ignore[misc]
        assert shown.question.id == "m1"
        # Drawn at the view's width already (the Enter draws none of these lines).
        assert all(b._drawn_for[0] == question.view.scrollable_content_region.width
                   for b in blocks)
        layouts: list[str] = []
        real = getattr(Screen, SCREEN_LAYOUT)

        def counting(self: Screen, size=None, scroll=False):  # type: ignore[no-untyped-def]
            layouts.append(type(self).__name__)
            return real(self, size, scroll)

        monkeypatch.setattr(Screen, SCREEN_LAYOUT, counting)
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is question
        assert layouts == []  # the screen and its widgets already had their sizes
        assert question.view.blocks[: len(blocks)] == blocks  # the very blocks drawn ahead
        assert question.view._prepared is None
        assert question.view.text_of("stem") == "Stem of m1?"
        assert question.query_one("#status").left == "Question 1/3 · Memory"  # type: ignore[attr-defined]


async def test_a_screen_covered_by_an_opaque_one_never_repaints_the_one_on_top() -> None:
    from textual.color import Color

    from quiz.tui.screens.confirm import ConfirmScreen
    from quiz.tui.screens.summary import SummaryScreen

    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        await pilot.press("enter", "a", "s")
        await pilot.pause()
        question, summary = app.ahead.question, app.screen
        assert isinstance(summary, SummaryScreen) and question is not None
        forget_repaint_request(summary)
        question.refresh()
        run_frame_update(question)  # what its frame timer would run
        assert not repaint_requested(summary) and not repaint_pending(question)
        # Under a dialog whose background lets the question show through, a change is drawn.
        await pilot.press("escape", "q")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        dialog.styles.background = Color(0, 0, 0, 0.5)
        forget_repaint_request(dialog)
        question.refresh()
        run_frame_update(question)
        assert repaint_requested(dialog)


async def test_with_a_store_the_plan_is_written_once_the_first_question_is_painted(
        tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]

    from quiz.study.session import plan_entries
    from quiz.study.store import Store

    store = Store.open(tmp_path / "p.db")
    seen: list[tuple[str, str]] = []
    real = Store.set_plan

    def watching(self: Store, session_id: int, plan: dict) -> None:  # type: ignore[type-arg]
        # When the plan is written, the first question is on screen and painted.
        question = app.ahead.question
        assert question is not None and app.screen is question
        assert not repaint_requested(question) and not widgets_to_repaint(question)
        seen.append((type(app.screen).__name__, question.view.text_of("stem")))
        real(self, session_id, plan)

    started: list[dict] = []  # type: ignore[type-arg]
    real_start = Store.start_session

    def starting(self: Store, *args: object, **kwargs: object) -> int:
        started.append(dict(args[3]))  # type: ignore[call-overload]
        return real_start(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Store, "set_plan", watching)
    monkeypatch.setattr(Store, "start_session", starting)
    app = make_app(_library(), shuffle=False, store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        await pilot.press("enter")
        assert started == [{}]  # Enter wrote the session, not its plan
        await until(pilot, lambda: seen, "the plan to be written")
        assert seen == [("QuestionScreen", "Stem of m1?")]
        (record,) = store.open_sessions()
        assert [qid for qid, _ in plan_entries(record.plan)] == ["m1", "m2", "p1"]
        # The session's lock says which quiz studies it (quiz.study.owners): no process id.
        assert "pid" not in record.plan
    store.close()


def test_a_practice_session_whose_plan_was_never_written_is_not_offered(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    from quiz.study.recorder import interrupted_sessions
    from quiz.study.store import Store
    from quiz.study.store_records import AnswerRecord

    with Store.open(tmp_path / "p.db") as store:
        unplanned = store.start_session("practice", ("b",), None, {"pid": 2 ** 22 + 12345})
        planned = store.start_session("practice", ("b",), None,
                                      {"pid": 2 ** 22 + 12345, "ids": "m1\nm2"})
        for sid in (unplanned, planned):
            store.record_answer(AnswerRecord(sid, "m1", "b", "h", ("A",), True, 3.0,
                                             datetime(2026, 11, 30, tzinfo=UTC)))
        offered = interrupted_sessions(store)
        assert [i.record.id for i in offered] == [planned]
        assert store.session(unplanned).status == "abandoned"


async def test_space_on_start_starts_and_an_empty_count_means_all_without_a_red_field(
        ) -> None:
    from textual.widgets import Input

    app = make_app(_library(), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await _ready(app, pilot)
        count = app.screen.query_one("#count", Input)
        count.value = ""
        count.validate(count.value)
        await pilot.pause()
        # Empty is every question that matches: not marked invalid, and the field says so.
        assert count.is_valid and not count.has_class("-invalid")
        assert count.placeholder == "all"
        app.screen.query_one("#start").focus()
        await pilot.press("space")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.session is not None
        assert app.session.total == 3


async def test_a_start_form_being_torn_down_is_not_drawn_ahead_and_raises_nothing() -> None:
    # A draw-ahead timer can fire as the app ends, after the start screen's fields are removed:
    # it read start.mode, whose query_one('#mode') raised NoMatches out of run_test's exit.
    library = make_library(*(question_data(f"m{i}", topic="memory") for i in range(3)),
                           topics={"memory": "Memory"})
    app = make_app(library, seed=7)
    async with app.run_test(size=(100, 30)) as pilot:
        await until(pilot, lambda: app.study._drawn is not None, "the session drawn ahead")
        start = app.screen
        assert start.form_ready  # type: ignore[attr-defined]
        await start.query_one("#mode").remove()
        assert not start.form_ready  # type: ignore[attr-defined]
        assert app._draw_ahead() is None
        assert app.study._drawn is None
