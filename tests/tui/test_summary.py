"""The summary (issue 7 items 11–13): exact pass lines, the first attempt kept beside a retry,
and a review list that stays short and opens its questions."""

from __future__ import annotations

from textual.visual import RenderOptions
from textual.widgets import OptionList, Static

from quiz.study.session import Score
from quiz.tui.app import make_app
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.summary import (
    REVIEW_LIST_LIMIT,
    ReviewEntry,
    SummaryScreen,
    pass_line,
    score_line,
)
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import plain, shown, start


def test_summary_lines_say_how_many_were_needed() -> None:
    score = Score(correct=2, answered=3, total=3)
    assert score_line(score, 0.67) == "2 right of 3 answered (66.7%); all 3 answered"
    assert pass_line(score, 0.67) == "Below the pass mark: 3 right of 3 needed (pass mark 67%)"
    assert pass_line(Score(2, 3, 3), 0.6) == "Pass: 2 right of 3 needed (pass mark 60%)"
    assert score_line(Score(1, 2, 4), 0.7) == (
        "1 right of 2 answered (50%); 2 of 4 not answered yet")


async def test_two_of_three_against_a_mark_of_067_is_shown_as_a_fail_below_it() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in (1, 2, 3)))
    banks = lib.banks
    info = banks[0].info.model_copy(update={"pass_mark": 0.67})
    lib = type(lib)(banks=(type(banks[0])(banks[0].path, info, banks[0].questions),),
                    topics=lib.topics)
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("b", "n", "b", "n", "a", "s")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert plain(app.screen.query_one("#summary-score", Static)) == (
            "Score 2 right of 3 answered (66.7%); all 3 answered")
        verdict = app.screen.query_one("#summary-pass", Static)
        assert plain(verdict) == "Below the pass mark: 3 right of 3 needed (pass mark 67%)"
        assert "-fail" in verdict.classes


async def test_a_retry_keeps_the_first_attempt_beside_it() -> None:
    lib = make_library(question_data("q1"), question_data("q2"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("b", "n", "a", "s")
        await pilot.pause()
        await pilot.press("r")  # retry the one missed
        await pilot.pause()
        assert [s.question.id for s in app.session.shown] == ["q2"]
        await pilot.press("b", "s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SummaryScreen)
        assert plain(screen.query_one("#summary-score", Static)) == (
            "This retry 1 right of 1 answered (100%); all 1 answered")
        assert plain(screen.query_one("#summary-first-attempt", Static)) == (
            "First attempt 1 right of 2 answered (50%); all 2 answered. "
            "Below the pass mark: 2 right of 2 needed (pass mark 70%)")
        assert not screen.query_one("#summary-pass").display  # no "Pass" for the retry alone


async def test_a_long_review_list_is_capped_and_each_entry_opens_its_question() -> None:
    n = 1_000
    lib = make_library(*(question_data(f"q{i}") for i in range(n)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("a", "s")  # one wrong answer, the rest not answered
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SummaryScreen)
        entries = screen.query_one("#summary-missed", OptionList)
        assert entries.option_count == REVIEW_LIST_LIMIT
        assert plain(screen.query_one("#summary-more", Static)) == (
            f"… and {n - REVIEW_LIST_LIMIT:,} more questions. r retries all these; Ctrl+N "
            "starts a new session.")
        first = entries.get_option_at_index(0).prompt
        assert isinstance(first, ReviewEntry)
        assert (first.label, first.text) == ("  1. (wrong)", "Stem of q0?")
        await pilot.press("down", "down", "enter")  # the third entry: question 3
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.session.position == 2
        assert shown(app.screen, "stem") == "Stem of q2?"
        await pilot.press("s")
        await pilot.pause()
        await pilot.press("enter")  # the first entry: the wrong answer, with its reveal
        await pilot.pause()
        assert app.session.position == 0
        assert shown(app.screen, "verdict").startswith("█ ✗")


def test_review_entries_wrap_as_the_two_column_grid_did() -> None:
    """The review list's entries were two-column Rich grids (a label, then the stem wrapping
    under itself); ReviewEntry lays them out without a table and must look the same."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=100, color_system=None, legacy_windows=False)
    cases = [("  3. (wrong)", "A team serves Llama-2-7B in BF16 to one user at a time, with up "
                              "to 2,048 tokens of context, on an NVIDIA L4 (24 GB). How much…"),
             (" 61. (not answered)", "Short stem?"),
             ("100. (wrong)", "Averyveryverylongwordwithoutanyspacethatmustbefoldedsomewhere "
                              "then — unicode: 显存 and emoji ✓ fits"),
             ("  1. (wrong)", "")]
    for label, text in cases:
        for width in (24, 33, 40, 53, 61, 73, 78, 113):  # the list at 31 to 120 columns
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            grid.add_row(Text(label), Text(text))
            lines = console.render_lines(grid, console.options.update_width(width), pad=False)
            expected = ["".join(s.text for s in line).rstrip() for line in lines]
            entry = ReviewEntry(label, text)
            shown = [line.rstrip() for line in entry._content(width).plain.split("\n")]
            assert shown == expected, (label, text, width)
            assert entry.get_height({}, width) == len(expected)  # type: ignore[arg-type]


async def test_topic_table_and_review_entries_are_drawn_once_and_reused() -> None:
    lib = make_library(question_data("m1", topic="memory"), question_data("p1", topic="precision"),
                       question_data("p2", topic="precision"),
                       topics={"memory": "Memory footprint", "precision": "Precision"})
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("b", "n", "a", "s")  # m1 right, p1 wrong, p2 not answered
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SummaryScreen)
        table = screen.query_one("#summary-topics", Static)
        lines = [strip.text.rstrip() for strip in table.visual.render_strips(  # type: ignore[union-attr]
            60, None, table.visual_style, RenderOptions(table._get_style, {}))]
        rows = [" ".join(line.replace("┃", " ").replace("│", " ").split()) for line in lines]
        assert "Topic Right Answered Questions" in rows
        assert "Memory footprint 1 1 1" in rows and "Precision 0 1 2" in rows
        entries = [o.prompt for o in screen.query_one("#summary-missed", OptionList).options]
        drawn = table.visual
        await pilot.press("escape", "s")
        await pilot.pause()
        # Nothing answered since: the same table (drawn once), the same entries.
        assert app.screen.query_one("#summary-topics", Static).visual is drawn
        again = [o.prompt for o in app.screen.query_one("#summary-missed", OptionList).options]
        assert len(again) == 2 and all(a is b for a, b in zip(again, entries, strict=True))


async def test_the_summary_screen_is_made_while_the_start_screen_waits_and_filled_anew() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in (1, 2, 3)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        ready = app._summary_screen
        assert ready is not None and ready.is_mounted and ready not in app.screen_stack
        await pilot.press("a", "s")  # q1 wrong
        await pilot.pause()
        assert app.screen is ready
        assert plain(ready.query_one("#summary-score", Static)) == (
            "Score 0 right of 1 answered (0%); 2 of 3 not answered yet")
        missed = ready.query_one("#summary-missed", OptionList)
        assert missed.option_count == 3 and missed.has_focus and missed.highlighted == 0
        await pilot.press("escape", "n", "b", "n", "b", "s")  # q2 and q3 right: all answered
        await pilot.pause()
        assert app.screen is ready
        assert plain(ready.query_one("#summary-score", Static)) == (
            "Score 2 right of 3 answered (67%); all 3 answered")
        assert missed.option_count == 1 and missed.get_option_at_index(0).id == "missed-0"
        assert plain(ready.query_one("#summary-more", Static)) == (
            "r retries these; Ctrl+N starts a new session.")
        await pilot.press("r")  # retry q1, then answer it right: nothing missed
        await pilot.pause()
        await pilot.press("b", "s")
        await pilot.pause()
        assert app.screen is ready and not missed.display
        assert not ready.query_one("#summary-review-title").display
        assert plain(ready.query_one("#summary-more", Static)) == (
            "Nothing missed. Ctrl+N starts a new session.")
        assert ready.query_one("#summary-first-attempt").display
        assert plain(ready.query_one("#summary-score", Static)).startswith("This retry 1 right")
