"""Pilot tests of the TUI: answering, the reveal, shuffling, multiple response, literal text."""

from __future__ import annotations

from textual import events
from textual.widgets import Static

from quiz.tui.app import make_app
from quiz.tui.screens.confirm import ConfirmScreen
from quiz.tui.screens.help import HelpScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.start import StartScreen
from quiz.tui.screens.summary import SummaryScreen
from quiz.tui.widgets.option_item import OptionItem
from quiz.tui.widgets.reveal import Reveal
from tests.conftest import make_library, question_data

TABLE = {"table": {"columns": ["Aspect", "Training", "Inference"],
                   "rows": [["Memory", "weights+grads", "weights"]]}}


def plain(widget: Static) -> str:
    """The text a Static shows (its visual's plain text)."""
    return widget.visual.plain  # type: ignore[union-attr]


def revealed(screen: QuestionScreen) -> bool:
    """True while the question screen shows a reveal (its widgets stay, hidden, between
    answers: they are reused for the next one)."""
    return screen.query_one(Reveal).display


async def start(app, pilot) -> QuestionScreen:
    await pilot.pause()
    assert isinstance(app.screen, StartScreen)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, QuestionScreen)
    return app.screen


async def test_nothing_is_revealed_before_answering_then_everything_is() -> None:
    lib = make_library(question_data("q1", answer="D", infographic=TABLE,
                                     references=["Rajbhandari et al. 2020, sec. 3"]))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        assert not revealed(screen)
        for sel in ("#verdict", "#short-explanation", "#infographic", "#full-explanation",
                    "#distractor-review"):
            assert not screen.query(sel), f"{sel} built before the answer"
        assert plain(screen.query_one("#stem", Static)) == "Stem of q1?"
        assert [i.option.letter for i in screen.query(OptionItem)] == ["A", "B", "C", "D"]
        await pilot.press("d")
        await pilot.pause()
        verdict = screen.query_one("#verdict", Static)
        assert "-correct" in verdict.classes
        assert plain(verdict) == "✓ Correct: D."
        assert plain(screen.query_one("#short-explanation", Static)) == "Short explanation of q1."
        assert plain(screen.query_one("#full-explanation", Static)) == "Full explanation of q1."
        assert screen.query_one("#infographic")
        reviews = [plain(w) for w in screen.query(".distractor-why").results(Static)]
        assert reviews == ["Alpha is wrong because reasons.", "Bravo is wrong because reasons.",
                           "Charlie is wrong because reasons."]
        assert "Rajbhandari" in plain(screen.query_one("#references", Static))
        # The reveal's sections come in the documents' order.
        order = [w.id for w in screen.query("#reveal Static, #reveal InfographicView")
                 if w.id in {"verdict", "short-explanation", "infographic", "full-explanation",
                             "references"}]
        assert order == ["verdict", "short-explanation", "infographic", "full-explanation",
                         "references"]
        assert app.session.score.correct == 1


async def test_wrong_answer_names_right_option_and_choice() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("3")  # digits choose too: 3 → C
        await pilot.pause()
        verdict = screen.query_one("#verdict", Static)
        assert "-wrong" in verdict.classes
        assert plain(verdict) == "✗ Not quite: the right answer was B; you chose C."
        assert plain(screen.query_one("#verdict-detail", Static)) == "Right answer: B  Bravo"
        assert "-right" in screen.query_one("#option-B").classes
        assert "-wrong" in screen.query_one("#option-C").classes
        chosen = [plain(w) for w in screen.query(".distractor-option").results(Static)]
        assert chosen == ["A  Alpha", "C  Charlie  (your choice)", "D  Delta"]


async def test_arrows_and_enter_answer_the_highlighted_option() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("down", "down", "enter")  # nothing is highlighted at first
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: B."


async def test_click_answers() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.click("#option-A")
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)).startswith("✗ Not quite")


async def test_shuffled_reveal_uses_the_letters_shown() -> None:
    options = {"A": "Alpha", "B": "Bravo", "C": "Charlie", "D": "Delta"}
    lib = make_library(question_data("q1", answer="B", options=options))
    for seed in range(4):
        app = make_app(lib, seed=seed)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await start(app, pilot)
            shown = {i.option.letter: i.text for i in screen.query(OptionItem)}
            letter_of_bravo = next(k for k, v in shown.items() if "Bravo" in v)
            wrong = next(k for k, v in shown.items() if "Bravo" not in v)
            await pilot.press(wrong.lower())
            await pilot.pause()
            assert plain(screen.query_one("#verdict", Static)) == (
                f"✗ Not quite: the right answer was {letter_of_bravo}; you chose {wrong}.")
            # Each review sits under the letter and text the student saw for that option.
            entries = [plain(w) for w in screen.query(".distractor-option").results(Static)]
            reviews = [plain(w) for w in screen.query(".distractor-why").results(Static)]
            for entry, review in zip(entries, reviews, strict=True):
                letter, text = entry.split("  ")[:2]
                assert text in shown[letter]
                assert review == f"{text} is wrong because reasons."
            assert "Bravo" not in " ".join(entries)


async def test_multiple_response_scored_right_only_for_the_exact_set() -> None:
    q = question_data("m1", answer=["A", "C"])
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        assert "Choose 2" in plain(screen.query_one("#hint", Static))
        await pilot.press("a", "enter")  # one chosen: not submitted
        await pilot.pause()
        assert not revealed(screen)
        await pilot.press("b", "b", "c", "enter")  # b toggled on and off again
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: A, C."

    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a", "b", "enter")
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)) == (
            "✗ Not quite: the right answers were A, C. Your ticks: right A; wrong B; "
            "missed C.")
        assert plain(screen.query_one("#verdict-detail", Static)) == (
            "Right answers:\nA  Alpha\nC  Charlie")
        assert app.session.score.correct == 0


async def test_bank_text_renders_literally() -> None:
    stem = "Use [INT8] with list[str], [/] and [bold]x[/bold] or \\[escaped] 🚀"
    q = question_data("q1", answer="A", question=stem,
                      options={"A": "[@click=app.quit]", "B": "[/]", "C": "[b]", "D": "[red]x"},
                      short_explanation="[INT8] stays",
                      infographic={"text": "[diagram] [/]\n  └─ [INT4]"})
    app = make_app(make_library(q, title="Bank [INT8]"), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        assert plain(screen.query_one("#stem", Static)) == stem
        assert screen.query_one("#option-A", OptionItem).text == "[@click=app.quit]"
        assert screen.query_one("#option-B", OptionItem).text == "[/]"
        assert app.title == "Bank [INT8]" and screen.title is None  # the header shows it
        await pilot.click("#option-A")  # clicking markup-like text must not run an action
        await pilot.pause()
        assert app.is_running
        assert plain(screen.query_one("#short-explanation", Static)) == "[INT8] stays"
        pre = screen.query_one("#infographic .preformatted", Static)
        assert plain(pre) == "[diagram] [/]\n  └─ [INT4]"


async def test_control_characters_never_reach_the_terminal() -> None:
    q = question_data("q1", question="Red \x1b[31malert\x1b[0m \x1b]8;;http://x\x07link\u202e!")
    app = make_app(make_library(q, title="Bank\x1b]0;pwned\x07"), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        assert app.title == "Bank␛]0;pwned␇" and screen.title is None
        text = plain(screen.query_one("#stem", Static))
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
        assert text == "Red ␛[31malert␛[0m ␛]8;;http://x␇link\ufffd!"


async def test_navigation_summary_and_previous_keeps_reveal() -> None:
    lib = make_library(question_data("q1"), question_data("q2", topic="precision"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.press("n")
        await pilot.pause()
        assert plain(screen.query_one("#stem", Static)) == "Stem of q2?"
        assert not revealed(screen)
        assert "Question 2/2" in plain(screen.query_one("#status-left", Static))
        await pilot.press("p")
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: B."
        await pilot.press("n", "a", "n")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert plain(app.screen.query_one("#summary-score", Static)) == (
            "Score 1 right of 2 answered (50%); all 2 answered")


async def test_option_letters_do_not_trigger_actions_and_help_and_quit_work() -> None:
    opts = {k: f"Option text {k}" for k in "ABCDEFGH"}
    app = make_app(make_library(question_data("q1", answer="H", options=opts)), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        bound = {b.key for b in screen.BINDINGS} | {b.key for b in app.BINDINGS}
        assert not bound & set("abcdefgh12345678")
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")  # stay
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.is_running
        await pilot.press("h")
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: H."
        await pilot.press("q", "y")
        await pilot.pause()
    assert app.return_value == 0


async def test_small_terminal_does_not_crash_and_scrolls() -> None:
    long = "A long explanation line. " * 40
    q = question_data("q1", full_explanation=long, infographic=TABLE)
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(40, 12)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        body = screen.query_one("#body")
        assert body.max_scroll_y > 0
        before = body.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > before


async def test_start_screen_topic_filter_and_count() -> None:
    lib = make_library(question_data("m1"), question_data("m2"),
                       question_data("p1", topic="precision"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        start_screen = app.screen
        assert plain(start_screen.query_one("#bank-count", Static)) == "3 questions in 2 topics"
        topics = start_screen.query_one("#topics")
        topics.deselect("memory")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert [s.question.id for s in app.session.shown] == ["p1"]


LONG = {k: f"Option {k}: " + "a long option text that wraps over several lines. " * 3
        for k in "ABCD"}


async def test_arrows_move_the_cursor_even_when_the_question_overflows() -> None:
    q = question_data("q1", answer="C", options=LONG, question="A long stem. " * 30)
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 14)) as pilot:
        screen = await start(app, pilot)
        assert screen.query_one("#body").max_scroll_y > 0  # the question does not fit
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()
        assert [o.letter for o in app.session.outcome().chosen] == ["C"]
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: C."


async def test_every_reveal_section_gets_its_full_height_at_80x24() -> None:
    q = question_data("q1", answer="A", options=LONG, infographic=TABLE,
                      full_explanation="Line.\n\n" * 15)  # 15 paragraphs
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        review = screen.query_one("#distractor-review")
        parts = list(review.children)
        assert len(parts) == 6  # three wrong options, each with its review
        assert all(p.size.height >= 1 for p in parts)
        assert review.size.height >= sum(p.outer_size.height for p in parts) >= 6
        for sel in ("#short-explanation", "#full-explanation", "#infographic"):
            widget = screen.query_one(sel)
            assert widget.size.height >= 1, sel
        assert screen.query_one("#full-explanation").size.height == 29


async def test_keys_typed_fast_are_applied_in_order_to_the_right_question() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(1, 7)))
    for _ in range(3):
        app = make_app(lib, shuffle=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            for key in "bnbnbnbnbnb":  # answer, next, answer, ... with no pause between
                app.post_message(events.Key(key, key))
            await pilot.pause(0.5)
            await pilot.pause()
            assert [s.question.id for s in app.session.shown if app.session.outcome(s)] == [
                "q1", "q2", "q3", "q4", "q5", "q6"]
            screen = app.screen
            assert isinstance(screen, QuestionScreen)
            assert plain(screen.query_one("#stem", Static)) == "Stem of q6?"
            assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: B."


async def test_wide_text_infographic_wraps_instead_of_being_cut() -> None:
    q = question_data("q1", infographic={"text": "W" * 150 + "|END"})
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        pre = screen.query_one("#infographic .preformatted", Static)
        assert pre.size.width <= 80 and pre.size.height == 2  # 154 cells over two lines


async def test_palette_commands_close_dialogs_and_never_stack_a_second_calculator() -> None:
    from quiz.tui.screens.footprint import FootprintScreen

    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(app, pilot)
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        app.action_summary()  # as the command palette would, with the quit dialog open
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        app.action_footprint()
        await pilot.pause()
        app.action_footprint()
        await pilot.pause()
        assert sum(isinstance(s, FootprintScreen) for s in app.screen_stack) == 1


async def test_ticks_of_an_unsubmitted_question_survive_browsing() -> None:
    lib = make_library(question_data("m1", answer=["A", "C"]), question_data("q2"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a", "n", "p")
        await pilot.pause()
        assert screen.query_one("#option-A", OptionItem).chosen
        await pilot.press("c", "enter")
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: A, C."


async def test_the_reveal_widgets_are_reused_and_always_show_the_current_answer() -> None:
    """The reveal is updated in place from question to question: every text, every part
    present or absent, and the distractor review's length follow the question shown."""
    diagram = {"text": "GPU ── HBM", "caption": "A diagram"}
    lib = make_library(
        question_data("q1", answer="D", infographic=TABLE, references=["Ref one"]),
        question_data("q2", answer=["A", "C"], options={"A": "Ant", "B": "Bee", "C": "Cat",
                                                         "D": "Dog", "E": "Eel"},
                      full_explanation="Line.\n\n" * 15),
        question_data("q3", answer="A", infographic=diagram))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)

        def shown(selector: str) -> bool:
            widget = screen.query_one(selector)
            return all(w.display for w in (widget, *widget.ancestors_with_self)
                       if hasattr(w, "display"))

        def reviews() -> list[str]:
            return [plain(w) for w in screen.query(".distractor-option").results(Static)]

        await pilot.press("a")  # wrong
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)).startswith("✗")
        assert shown("#verdict-detail") and shown("#infographic") and shown("#references")
        assert reviews() == ["A  Alpha  (your choice)", "B  Bravo", "C  Charlie"]
        await pilot.press("n")
        await pilot.pause()
        assert not revealed(screen)
        assert [i.text for i in screen.query(OptionItem)] == ["Ant", "Bee", "Cat", "Dog", "Eel"]
        await pilot.press("a", "c", "enter")  # right
        await pilot.pause()
        assert revealed(screen)
        # Scrolled to the verdict, as after the first answer (the reveal was hidden, not new).
        assert screen.query_one("#body").scroll_y > 0
        body_top = screen.query_one("#body").region.y
        assert screen.query_one("#verdict").region.y == body_top + 1  # below its top margin
        assert plain(screen.query_one("#verdict", Static)) == "✓ Correct: A, C."
        assert "-correct" in screen.query_one("#verdict").classes
        assert not shown("#verdict-detail") and not shown("#infographic")
        assert not shown("#references")
        assert plain(screen.query_one("#short-explanation", Static)) == "Short explanation of q2."
        assert reviews() == ["B  Bee", "D  Dog", "E  Eel"]
        await pilot.press("n", "b")  # q3, wrong: a diagram where q1 had a table
        await pilot.pause()
        assert plain(screen.query_one("#infographic .preformatted", Static)) == "GPU ── HBM"
        assert shown("#infographic") and not shown("#references")
        assert reviews() == ["B  Bravo  (your choice)", "C  Charlie", "D  Delta"]
        assert [i.text for i in screen.query(OptionItem)] == ["Alpha", "Bravo", "Charlie",
                                                             "Delta"]
        await pilot.press("p", "p")  # back to q1: its own reveal again
        await pilot.pause()
        assert plain(screen.query_one("#verdict", Static)).startswith("✗ Not quite")
        assert plain(screen.query_one("#full-explanation", Static)) == "Full explanation of q1."
        assert screen.query_one("#body").scroll_y == 0  # an answered question opens at its top
        assert shown("#verdict-detail") and shown("#references")
        assert screen.query_one("#infographic .table")
        assert reviews() == ["A  Alpha  (your choice)", "B  Bravo", "C  Charlie"]
        assert "-wrong" in screen.query_one("#option-A").classes
        assert "-right" in screen.query_one("#option-D").classes
        assert "-right" not in screen.query_one("#option-C").classes
