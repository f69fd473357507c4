"""Pilot tests of the exam screen's body: the question screen's options widget (same drawing,
same keys, same clicks) with the exam's rules — a choice can change, no verdict, ticks count as
the answer once complete, flags and moves said on the hint line."""

from __future__ import annotations

from pathlib import Path

from textual import events

from quiz.study.launch import Launch
from quiz.study.store import Store
from quiz.tui.app import make_app
from quiz.tui.screens.exam import ExamScreen, ExamView
from quiz.tui.widgets.status_line import StatusLine
from tests.conftest import make_library, question_data
from tests.tui.test_exam_flow import Clock, now
from tests.tui.test_question_screen import markers, option_is, shown, view
from tests.tui.waits import until


def exam_app(*questions: dict[str, object], store: Store | None = None,
             clock: Clock | None = None, minutes: float = 10):
    return make_app(make_library(*questions), shuffle=False, store=store, clock=clock or Clock(),
                    now=now, launch=Launch(mode="exam", minutes=minutes))


async def exam_screen(app, pilot) -> ExamScreen:
    await pilot.pause()
    screen = app.screen
    assert isinstance(screen, ExamScreen)
    return screen


def answered(screen: ExamScreen) -> str:
    return screen.query_one("#status", StatusLine).right.split(" · ")[0]


async def test_the_body_is_the_question_screens_options_widget() -> None:
    app = exam_app(question_data("q1"), question_data("q2"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await exam_screen(app, pilot)
        body = view(screen)
        assert type(body) is ExamView and app.focused is body
        assert shown(screen, "stem") == "Stem of q1?"
        assert shown(screen, "hint") == (
            "Choose one. Press A–D or 1–4, or ↑↓ and Enter, or click; change it any time.\n"
            "n/p move · r flag · l map · s submit · t pause. No feedback until the end.")
        assert markers(screen) == {"A": "A ( )", "B": "B ( )", "C": "C ( )", "D": "D ( )"}
        assert all(option_is(screen, letter) for letter in "ABCD")  # nothing highlighted yet
        # An exam draws no reveal ahead (none will be shown): no drawing ahead is scheduled (a
        # question view's timer, DRAW_AHEAD_DELAY), and none was drawn.
        assert body._ahead is None and body._shared == {}


async def test_arrows_enter_and_click_choose_and_the_choice_can_change() -> None:
    store_clock = Clock()
    app = exam_app(question_data("q1"), question_data("q2"), clock=store_clock)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await exam_screen(app, pilot)
        await pilot.press("enter")  # nothing highlighted: Enter chooses nothing
        await pilot.pause()
        assert screen.exam.answers == {}
        assert shown(screen, "hint") == (
            "! Press A–D to choose, or move with ↑↓ and then press Enter.")
        await pilot.press("down", "down")
        await pilot.pause()
        assert option_is(screen, "B", "highlighted") and option_is(screen, "A")
        assert shown(screen, "hint").startswith("Choose one.")  # the warning is gone
        await pilot.press("enter")
        await pilot.pause()
        assert screen.exam.answers == {"q1": frozenset({"B"})}
        assert markers(screen)["B"] == "B (•)" and answered(screen) == "1/2 answered"
        body = view(screen)
        await pilot.click("#body", offset=(30, body.span("option-D")[0] - body.scroll_y))
        await pilot.pause()
        assert screen.exam.answers == {"q1": frozenset({"D"})}
        assert markers(screen) == {"A": "A ( )", "B": "B ( )", "C": "C ( )", "D": "D (•)"}
        assert option_is(screen, "D", "highlighted", "chosen")
        await pilot.press("3")
        await pilot.pause()
        assert screen.exam.answers == {"q1": frozenset({"C"})}
        assert answered(screen) == "1/2 answered"
        assert body.span("verdict") is None


async def test_multiple_response_ticks_count_once_complete() -> None:
    app = exam_app(question_data("m1", answer=["A", "C"]), question_data("q2"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await exam_screen(app, pilot)
        assert shown(screen, "hint").startswith(
            "Choose 2. Tick with A–D or 1–4 (or ↑↓ Space); answered once 2 are ticked")
        await pilot.press("a")
        await pilot.pause()
        assert markers(screen) == {"A": "A [x]", "B": "B [ ]", "C": "C [ ]", "D": "D [ ]"}
        assert screen.exam.ticks == {"m1": frozenset({"A"})} and screen.exam.answers == {}
        assert answered(screen) == "0/2 answered"
        await pilot.press("down", "down", "enter")  # Enter ticks the highlighted option (C)
        await pilot.pause()
        assert markers(screen) == {"A": "A [x]", "B": "B [ ]", "C": "C [x]", "D": "D [ ]"}
        assert screen.exam.answers == {"m1": frozenset({"A", "C"})}
        assert answered(screen) == "1/2 answered"
        await pilot.press("space")  # unticks C: no longer answered
        await pilot.pause()
        assert markers(screen)["C"] == "C [ ]" and screen.exam.answers == {}
        assert answered(screen) == "0/2 answered"
        await pilot.press("b", "n", "p")  # ticks survive browsing
        await pilot.pause()
        assert markers(screen) == {"A": "A [x]", "B": "B [x]", "C": "C [ ]", "D": "D [ ]"}
        assert screen.exam.answers == {"m1": frozenset({"A", "B"})}
        assert view(screen).span("verdict") is None


async def test_keys_that_do_nothing_say_why_on_the_hint_line() -> None:
    app = exam_app(question_data("q1"), question_data("q2"))
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await exam_screen(app, pilot)
        await pilot.press("e")
        await pilot.pause()
        assert shown(screen, "hint") == "! There is no option E here: the options are A–D."
        await pilot.press("p")
        await pilot.pause()
        assert shown(screen, "hint") == "! This is the first question."
        await pilot.press("b")  # a choice puts the instructions back
        await pilot.pause()
        assert shown(screen, "hint").startswith("Choose one.")
        await pilot.press("n", "n")
        await pilot.pause()
        assert shown(screen, "hint") == "! This is the last question: s reviews and submits."
        assert screen.exam.position == 1


async def test_flagging_is_said_on_the_status_and_hint_lines(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    app = exam_app(question_data("q1"), question_data("q2"), store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await exam_screen(app, pilot)
        await pilot.press("r")
        await pilot.pause()
        assert screen.query_one("#status", StatusLine).left == (
            "Question 1/2 · ⚑ flagged · Memory footprint")
        assert shown(screen, "hint").startswith("⚑ Flagged for review. Choose one. Press A–D")
        await pilot.press("r")
        await pilot.pause()
        assert screen.query_one("#status", StatusLine).left == (
            "Question 1/2 · Memory footprint")
        assert shown(screen, "hint").startswith("Flag removed. Choose one.")
        assert screen.exam.flags == set()
    store.close()


async def test_exam_keys_typed_fast_are_applied_in_order_to_the_right_question() -> None:
    questions = [question_data(f"q{i}") for i in range(1, 5)]
    for _ in range(3):
        app = exam_app(*questions)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await exam_screen(app, pilot)
            for key in "bncnanrd":  # choose, next, ... with no pause between
                app.post_message(events.Key(key, key))
            await until(pilot, lambda s=screen: "q4" in s.exam.answers, "the last choice")
            await pilot.pause()
            assert screen.exam.answers == {"q1": frozenset("B"), "q2": frozenset("C"),
                                           "q3": frozenset("A"), "q4": frozenset("D")}
            assert screen.exam.flags == {"q4"} and screen.exam.position == 3
            assert shown(screen, "stem") == "Stem of q4?"
            assert markers(screen)["D"] == "D (•)"


async def test_a_choice_after_the_time_limit_submits_instead(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    app = exam_app(question_data("q1"), question_data("q2"), store=store, clock=clock,
                   minutes=1)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await exam_screen(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        clock.t += 61
        await pilot.press("a")  # before the clock's tick notices: not taken, submitted
        await pilot.pause()
        assert screen.exam.report is not None
        assert screen.exam.answers == {"q1": frozenset({"B"})}
        assert [(a.question_id, a.chosen) for a in store.answers()] == [("q1", ("B",))]
    store.close()


async def test_a_notification_from_before_never_covers_the_exams_options() -> None:
    app = exam_app(question_data("q1"), question_data("q2"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await exam_screen(app, pilot)
        app.notify("The banks loaded with 5 warnings (quiz validate lists them).")
        await pilot.pause()
        assert len(app._notifications) == 1
        await screen.show_question()  # as every question is shown
        await pilot.pause()
        assert len(app._notifications) == 0
