"""Pilot tests of the TUI: answering, the reveal, shuffling, multiple response, literal text."""

from __future__ import annotations

from pathlib import Path

from rich.style import Style
from textual import events
from textual.widgets import Static

from quiz.tui.app import make_app
from quiz.tui.screens.confirm import ConfirmScreen
from quiz.tui.screens.help import HelpScreen
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.start import StartScreen
from quiz.tui.screens.summary import SummaryScreen
from quiz.tui.widgets.question_view import MARKER_WIDTH, VERDICT_MARKS, QuestionView
from quiz.tui.widgets.status_line import StatusLine
from tests.conftest import make_library, question_data
from tests.tui.waits import until

TABLE = {"table": {"columns": ["Aspect", "Training", "Inference"],
                   "rows": [["Memory", "weights+grads", "weights"]]}}


def plain(widget: Static) -> str:
    """The text a Static shows (its visual's plain text)."""
    return widget.visual.plain  # type: ignore[union-attr]


def view(screen: QuestionScreen) -> QuestionView:
    """The question screen's body: stem, hint line, options and reveal in one widget."""
    return screen.query_one("#body", QuestionView)


def shown(screen: QuestionScreen, key: str) -> str:
    """The plain text the body draws for block ``key`` ("" when it is not drawn)."""
    return view(screen).text_of(key)


def revealed(screen: QuestionScreen) -> bool:
    """True while the question screen shows a reveal."""
    return view(screen).span("verdict") is not None


def options_of(screen: QuestionScreen) -> dict[str, str]:
    """Letter → option text as drawn (wrapped lines joined, the verdict mark left out)."""
    out = {}
    for block in view(screen).blocks:
        if block.key.startswith("option-"):
            rows = shown(screen, block.key).split("\n")
            text = " ".join(r[MARKER_WIDTH:].strip() for r in rows)
            for mark in VERDICT_MARKS.values():
                text = text.removesuffix(mark.strip()).rstrip()
            out[block.key.removeprefix("option-")] = text
    return out


def markers(screen: QuestionScreen) -> dict[str, str]:
    """Letter → the marker column as drawn ("A ( )", "B [x]", ...)."""
    return {k.removeprefix("option-"): shown(screen, k)[:MARKER_WIDTH].strip()
            for k in (b.key for b in view(screen).blocks) if k.startswith("option-")}


def style_of(screen: QuestionScreen, key: str, column: int) -> Style:
    """The style of the first line of block ``key`` at ``column``."""
    strip = view(screen).strips_of(key)[0]
    x = 0
    for segment in strip:
        if x + len(segment.text) > column:
            assert segment.style is not None
            return segment.style
        x += len(segment.text)
    raise AssertionError(f"column {column} is past the line of {key}")


def component(screen: QuestionScreen, *names: str) -> Style:
    """The body's style for its component classes ``names`` (from the CSS)."""
    return view(screen).get_component_rich_style(*names)


def option_is(screen: QuestionScreen, letter: str, *states: str) -> bool:
    """True when option ``letter``'s text is drawn in the style of exactly ``states``
    (highlighted, chosen, right, wrong)."""
    want = component(screen, "question-view--option",
                     *(f"question-view--option-{s}" for s in states))
    return style_of(screen, f"option-{letter}", MARKER_WIDTH) == want


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
        keys = [b.key for b in view(screen).blocks]
        assert keys == ["stem", "hint", "option-A", "option-B", "option-C", "option-D"]
        assert view(screen).plain.split("\n") == [
            "", "Stem of q1?", "", "Choose one. Press A–D or 1–4, or ↑↓ and Enter, or click.",
            "", " A ( ) Alpha", " B ( ) Bravo", " C ( ) Charlie", " D ( ) Delta"]
        assert style_of(screen, "stem", 0) == component(screen, "question-view--stem")
        assert style_of(screen, "stem", 0).bold
        await pilot.press("d")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: D."
        assert style_of(screen, "verdict", 2) == component(screen, "reveal--verdict-correct")
        assert shown(screen, "short-explanation") == "Short explanation of q1."
        assert shown(screen, "full-explanation") == "Full explanation of q1."
        assert shown(screen, "infographic").split("\n")[1].split() == [
            "┃", "Aspect", "┃", "Training", "┃", "Inference", "┃"]
        assert shown(screen, "distractor-review").split("\n") == [
            "", "A  Alpha", "   Alpha is wrong because reasons.",
            "", "B  Bravo", "   Bravo is wrong because reasons.",
            "", "C  Charlie", "   Charlie is wrong because reasons."]
        assert shown(screen, "references") == "• Rajbhandari et al. 2020, sec. 3"
        # The reveal's sections come in the documents' order, each under its title.
        keys = [b.key for b in view(screen).blocks]
        assert keys[keys.index("option-D") + 1:] == [
            "verdict", "short-title", "short-explanation", "infographic-title", "infographic",
            "full-title", "full-explanation", "review-title", "distractor-review",
            "references-title", "references", "reveal-end"]
        spans = [view(screen).span(k) for k in keys]
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
        assert [shown(screen, k) for k in keys if k.endswith("-title")] == [
            "Short explanation", "Infographic", "Full explanation", "Distractor review",
            "References"]
        assert style_of(screen, "short-title", 0) == component(screen, "reveal--section-title")
        assert app.session.score.correct == 1


async def test_wrong_answer_names_right_option_and_choice() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("3")  # digits choose too: 3 → C
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✗ Not quite: the right answer was B; you chose C."
        assert style_of(screen, "verdict", 2) == component(screen, "reveal--verdict-wrong")
        assert style_of(screen, "verdict", 0) == component(screen,
                                                           "reveal--verdict-wrong-edge")
        assert shown(screen, "verdict-detail") == " Right answer: B  Bravo"
        assert option_is(screen, "B", "right") and option_is(screen, "C", "chosen", "wrong")
        assert option_is(screen, "A") and option_is(screen, "D")
        assert shown(screen, "option-B").endswith("✓ right")
        assert shown(screen, "option-C").endswith("✗ your choice")
        assert markers(screen) == {"A": "A ( )", "B": "B ( )", "C": "C (•)", "D": "D ( )"}
        headings = [row for row in shown(screen, "distractor-review").split("\n")
                    if row[:1].isalpha()]
        assert headings == ["A  Alpha", "C  Charlie  (your choice)", "D  Delta"]


async def test_arrows_and_enter_answer_the_highlighted_option() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("down", "down")  # nothing is highlighted at first
        await pilot.pause()
        assert option_is(screen, "B", "highlighted") and option_is(screen, "A")
        await pilot.press("enter")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: B."


async def test_click_answers() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        body = view(screen)
        await pilot.click("#body", offset=(1, body.span("option-A")[0] - body.scroll_y - 1))
        await pilot.pause()
        assert not revealed(screen)  # the blank line above the options chooses nothing
        await pilot.click("#body", offset=(30, body.span("option-A")[0] - body.scroll_y))
        await pilot.pause()
        assert shown(screen, "verdict").startswith("█ ✗ Not quite")
        assert [o.letter for o in app.session.outcome().chosen] == ["A"]


async def test_shuffled_reveal_uses_the_letters_shown() -> None:
    options = {"A": "Alpha", "B": "Bravo", "C": "Charlie", "D": "Delta"}
    lib = make_library(question_data("q1", answer="B", options=options))
    for seed in range(4):
        app = make_app(lib, seed=seed)
        async with app.run_test(size=(100, 30)) as pilot:
            screen = await start(app, pilot)
            seen = options_of(screen)
            assert sorted(seen.values()) == ["Alpha", "Bravo", "Charlie", "Delta"]
            letter_of_bravo = next(k for k, v in seen.items() if "Bravo" in v)
            wrong = next(k for k, v in seen.items() if "Bravo" not in v)
            await pilot.press(wrong.lower())
            await pilot.pause()
            assert shown(screen, "verdict") == (
                f"█ ✗ Not quite: the right answer was {letter_of_bravo}; you chose {wrong}.")
            # Each review sits under the letter and text the student saw for that option.
            rows = [r for r in shown(screen, "distractor-review").split("\n") if r]
            entries, reviews = rows[0::2], rows[1::2]
            assert len(entries) == 3
            for entry, review in zip(entries, reviews, strict=True):
                letter, text = entry.split("  ")[:2]
                assert text == seen[letter]
                assert review == f"   {text} is wrong because reasons."
            assert "Bravo" not in " ".join(entries)


async def test_multiple_response_scored_right_only_for_the_exact_set() -> None:
    q = question_data("m1", answer=["A", "C"])
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        assert shown(screen, "hint").startswith("Choose 2. Tick with A–D or 1–4")
        await pilot.press("a", "enter")  # one chosen: not submitted
        await pilot.pause()
        assert not revealed(screen)
        assert markers(screen) == {"A": "A [x]", "B": "B [ ]", "C": "C [ ]", "D": "D [ ]"}
        assert option_is(screen, "A", "highlighted", "chosen")
        await pilot.press("b", "b", "c")  # b toggled on and off again
        await pilot.pause()
        assert markers(screen) == {"A": "A [x]", "B": "B [ ]", "C": "C [x]", "D": "D [ ]"}
        assert option_is(screen, "A", "chosen") and option_is(screen, "B")
        await pilot.press("enter")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: A, C."

    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a", "b", "enter")
        await pilot.pause()
        assert shown(screen, "verdict") == (
            "█ ✗ Not quite: the right answers were A, C. Your ticks: right A; wrong B; "
            "missed C.")
        assert shown(screen, "verdict-detail") == " Right answers:\n A  Alpha\n C  Charlie"
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
        assert shown(screen, "stem") == stem
        assert options_of(screen) == {"A": "[@click=app.quit]", "B": "[/]", "C": "[b]",
                                   "D": "[red]x"}
        assert app.title == "Bank [INT8]" and screen.title is None  # the header shows it
        body = view(screen)
        # Clicking markup-like text must not run an action: it chooses the option.
        await pilot.click("#body", offset=(10, body.span("option-A")[0] - body.scroll_y))
        await pilot.pause()
        assert app.is_running and revealed(screen)
        assert shown(screen, "short-explanation") == "[INT8] stays"
        assert shown(screen, "infographic") == "[diagram] [/]\n  └─ [INT4]"


async def test_control_characters_never_reach_the_terminal() -> None:
    q = question_data("q1", question="Red \x1b[31malert\x1b[0m \x1b]8;;http://x\x07link\u202e!")
    app = make_app(make_library(q, title="Bank\x1b]0;pwned\x07"), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        assert app.title == "Bank␛]0;pwned␇" and screen.title is None
        text = shown(screen, "stem")
        assert "\x1b" not in view(screen).plain and "\x07" not in view(screen).plain
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
        assert shown(screen, "stem") == "Stem of q2?"
        assert not revealed(screen)
        assert "Question 2/2" in screen.query_one("#status", StatusLine).left
        await pilot.press("p")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: B."
        await pilot.press("n", "a", "n")
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert app.screen.view.text_of("score") == (
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
        assert shown(screen, "verdict") == "█ ✓ Correct: H."
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
        body = view(screen)
        assert body.max_scroll_y > 0
        before = body.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > before
        # Every line is at most the width of the body (40 columns, its padding and scrollbar
        # taken off): nothing is cut at the right.
        assert max(len(row) for row in body.plain.split("\n")) <= 40 - 3


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
        body = view(screen)
        assert body.max_scroll_y > 0  # the question does not fit
        await pilot.press("down", "down", "down")
        await pilot.pause()
        # The highlighted option is scrolled into view, every line of it.
        first, end = body.span("option-C")
        assert body.scroll_y <= first
        assert end <= body.scroll_y + body.scrollable_content_region.height
        assert option_is(screen, "C", "highlighted")
        await pilot.press("enter")
        await pilot.pause()
        assert [o.letter for o in app.session.outcome().chosen] == ["C"]
        assert shown(screen, "verdict") == "█ ✓ Correct: C."


async def test_every_reveal_section_gets_its_full_height_at_80x24() -> None:
    q = question_data("q1", answer="A", options=LONG, infographic=TABLE,
                      full_explanation="Line.\n\n" * 15)  # 15 paragraphs
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        body = view(screen)
        review = shown(screen, "distractor-review").split("\n")
        # Three wrong options, each a blank line, its heading (the long text wrapped) and
        # its review.
        assert [r[:3] for r in review if r[:1].isalpha()] == ["B  ", "C  ", "D  "]
        assert len(review) >= 9
        for key in ("short-explanation", "full-explanation", "infographic"):
            first, end = body.span(key)
            assert end - first >= 1, key
        first, end = body.span("full-explanation")
        assert end - first == 29  # 15 paragraphs and the 14 blank lines between them


async def test_keys_typed_fast_are_applied_in_order_to_the_right_question() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(1, 7)))
    for _ in range(3):
        app = make_app(lib, shuffle=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            for key in "bnbnbnbnbnb":  # answer, next, answer, ... with no pause between
                app.post_message(events.Key(key, key))
            await until(pilot, lambda a=app: len(a.session.outcomes) == 6, "six answers")
            await pilot.pause()
            assert [s.question.id for s in app.session.shown if app.session.outcome(s)] == [
                "q1", "q2", "q3", "q4", "q5", "q6"]
            screen = app.screen
            assert isinstance(screen, QuestionScreen)
            assert shown(screen, "stem") == "Stem of q6?"
            assert shown(screen, "verdict") == "█ ✓ Correct: B."


async def test_wide_text_infographic_wraps_instead_of_being_cut() -> None:
    q = question_data("q1", infographic={"text": "W" * 150 + "|END"})
    app = make_app(make_library(q), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        body = view(screen)
        rows = shown(screen, "infographic").split("\n")
        width = body.scrollable_content_region.width
        assert width <= 80 - 2 and len(rows) == 2  # 154 cells over two lines
        assert rows[0] == "W" * width and "".join(rows) == "W" * 150 + "|END"


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
        await app.action_footprint()
        await pilot.pause()
        await app.action_footprint()
        await pilot.pause()
        assert sum(isinstance(s, FootprintScreen) for s in app.screen_stack) == 1


async def test_ticks_of_an_unsubmitted_question_survive_browsing() -> None:
    lib = make_library(question_data("m1", answer=["A", "C"]), question_data("q2"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a", "n", "p")
        await pilot.pause()
        assert markers(screen)["A"] == "A [x]"
        await pilot.press("c", "enter")
        await pilot.pause()
        assert shown(screen, "verdict") == "█ ✓ Correct: A, C."


async def test_the_reveal_always_shows_the_current_answer() -> None:
    """From question to question every text, every part present or absent, and the distractor
    review's length follow the question shown; going back shows that question's reveal."""
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
        body = view(screen)

        def has(key: str) -> bool:
            return body.span(key) is not None

        def reviews() -> list[str]:
            return [r for r in shown(screen, "distractor-review").split("\n") if r[:1].isalpha()]

        await pilot.press("a")  # wrong
        await pilot.pause()
        assert shown(screen, "verdict").startswith("█ ✗")
        assert has("verdict-detail") and has("infographic") and has("references")
        assert reviews() == ["A  Alpha  (your choice)", "B  Bravo", "C  Charlie"]
        await pilot.press("n")
        await pilot.pause()
        assert not revealed(screen) and body.scroll_y == 0
        assert options_of(screen) == {"A": "Ant", "B": "Bee", "C": "Cat", "D": "Dog", "E": "Eel"}
        await pilot.press("a", "c", "enter")  # right
        await pilot.pause()
        assert revealed(screen)
        # Issue 23: the stem, the marked options and the verdict fit at 100x30, so the view
        # keeps them in view together (a reveal that does not fit is scrolled to its verdict:
        # test_at_120x40_the_reveal_keeps_the_stem_and_the_marked_options_in_view).
        assert body.scroll_y == 0
        assert body.span("verdict")[1] <= body.scrollable_content_region.height
        assert shown(screen, "verdict") == "█ ✓ Correct: A, C."
        assert style_of(screen, "verdict", 2) == component(screen, "reveal--verdict-correct")
        assert not has("verdict-detail") and not has("infographic") and not has("references")
        assert shown(screen, "short-explanation") == "Short explanation of q2."
        assert reviews() == ["B  Bee", "D  Dog", "E  Eel"]
        await pilot.press("n", "b")  # q3, wrong: a diagram where q1 had a table
        await pilot.pause()
        assert shown(screen, "infographic") == "GPU ── HBM\nA diagram"
        caption = body.span("infographic")[1] - 1
        assert body.block_at(caption) == "infographic"
        assert style_of(screen, "infographic", 0) == component(screen, "reveal--text")
        assert not has("references")
        assert reviews() == ["B  Bravo  (your choice)", "C  Charlie", "D  Delta"]
        assert options_of(screen) == {"A": "Alpha", "B": "Bravo", "C": "Charlie", "D": "Delta"}
        await pilot.press("p", "p")  # back to q1: its own reveal again
        await pilot.pause()
        assert shown(screen, "verdict").startswith("█ ✗ Not quite")
        assert shown(screen, "full-explanation") == "Full explanation of q1."
        assert body.scroll_y == 0  # an answered question opens at its top
        assert has("verdict-detail") and has("references")
        assert "┃ Aspect" in shown(screen, "infographic")
        assert reviews() == ["A  Alpha  (your choice)", "B  Bravo", "C  Charlie"]
        assert option_is(screen, "A", "chosen", "wrong")
        assert option_is(screen, "D", "right")
        assert option_is(screen, "C")


async def test_a_theme_change_redraws_the_body_in_the_new_colours() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("a")
        await pilot.pause()
        before = style_of(screen, "verdict", 2)
        app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await pilot.pause()
        after = style_of(screen, "verdict", 2)
        assert after != before
        assert after == component(screen, "reveal--verdict-wrong")


async def test_resizing_lays_the_body_out_again_at_the_new_width() -> None:
    long = "A long explanation line that wraps. " * 12
    app = make_app(make_library(question_data("q1", full_explanation=long)), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        await pilot.press("b")
        await pilot.pause()
        body = view(screen)
        wide = shown(screen, "full-explanation").split("\n")
        await pilot.resize_terminal(60, 20)
        await pilot.pause()
        narrow = shown(screen, "full-explanation").split("\n")
        assert len(narrow) > len(wide)
        assert max(len(r) for r in narrow) <= body.scrollable_content_region.width <= 60
        assert " ".join(narrow).split() == long.split()


async def test_the_mouse_selects_and_copies_the_text_drawn() -> None:
    app = make_app(make_library(question_data("q1", answer="B")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        body = view(screen)
        from textual.geometry import Offset
        from textual.selection import Selection

        stem = body.span("stem")[0]
        selection = Selection(Offset(0, stem), Offset(4, stem))
        assert body.get_selection(selection) == ("Stem", "\n")
        # The selected cells are drawn in the screen's selection style, the rest as before.
        mark = screen.get_component_rich_style("screen--selection")
        screen.selections = {body: selection}
        await pilot.pause()
        drawn = list(body.render_line(stem - body.scroll_offset.y))
        assert "".join(seg.text for seg in drawn).startswith("Stem of q1?")
        selected = [seg for seg in drawn if seg.style and seg.style.bgcolor == mark.bgcolor]
        assert "".join(seg.text for seg in selected) == "Stem"


async def test_the_reveal_parts_that_do_not_depend_on_the_answer_are_drawn_ahead(
        monkeypatch) -> None:
    from quiz.tui.widgets import question_view, reveal

    drawn: list[str] = []
    real = reveal.prose

    def counting(text: str, *args, **kwargs):
        drawn.append(text)
        return real(text, *args, **kwargs)

    monkeypatch.setattr(reveal, "prose", counting)
    lib = make_library(question_data("q1", answer="B"), question_data("q2", answer="B"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await start(app, pilot)
        # The student reads; on a busy machine the timer may fire late, so wait for it.
        await until(pilot, lambda: "Full explanation of q1." in drawn, "the drawing ahead")
        await pilot.pause()
        assert "Full explanation of q1." in drawn and "Short explanation of q1." in drawn
        drawn.clear()
        await pilot.press("a")
        await pilot.pause()
        # The answer draws only what depends on it: the verdict, the right answer, the review.
        assert "Full explanation of q1." not in drawn
        assert "Short explanation of q1." not in drawn
        assert shown(screen, "full-explanation") == "Full explanation of q1."
        assert any(t.startswith("✗ Not quite") for t in drawn)
        # A question left before the delay is not drawn ahead.
        drawn.clear()
        # A longer delay, so that a busy machine still leaves q2 before it would be drawn;
        # no sleep: the timer q2 set is seen stopped when q2 is left.
        from textual.timer import Timer

        monkeypatch.setattr(question_view, "DRAW_AHEAD_DELAY", 1.0)
        body = view(screen)
        made: list[tuple[object, Timer]] = []
        real_set_timer = body.set_timer

        def recording(delay: float, callback: object = None, **kw: object) -> Timer:
            timer = real_set_timer(delay, callback, **kw)  # type: ignore[arg-type]
            made.append((callback, timer))
            return timer

        stopped: list[Timer] = []
        real_stop = Timer.stop

        def stop(timer: Timer) -> None:
            stopped.append(timer)
            real_stop(timer)

        monkeypatch.setattr(body, "set_timer", recording)
        monkeypatch.setattr(Timer, "stop", stop)
        await pilot.press("n", "p")
        await pilot.pause()
        for_q2 = [t for callback, t in made if "'q2'" in repr(callback)]
        assert for_q2 and all(t in stopped for t in for_q2)
        assert not any("q2" in t for t in drawn)


async def test_a_long_topic_name_ends_with_an_ellipsis_and_keeps_the_difficulty() -> None:
    from textual.geometry import Region

    topic = "A rather long topic display name about distributed training memory"
    lib = make_library(question_data("q1", difficulty="hard"), topics={"memory": topic})
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(60, 20)) as pilot:
        screen = await start(app, pilot)
        status = screen.query_one("#status", StatusLine)
        assert status.size.width == 60
        (strip,) = status.render_lines(Region(0, 0, 60, 1))
        drawn = "".join(segment.text for segment in strip)
        # 60 cells: a blank, the left part cut to 47 cells (its last one "…"), two blanks,
        # the score whole, a blank.
        left = "Question 1/1 · hard · " + topic
        assert drawn == f" {left[:46]}…  Score 0/0 "


async def test_after_a_rated_answer_the_rating_keys_are_a_line_of_their_own(
        tmp_path: Path) -> None:
    from quiz.study.store import Store

    lib = make_library(question_data("q1", answer="B"))
    with Store.open(tmp_path / "p.db") as store:
        # A right answer in no time (the clock stands still) is rated Easy.
        app = make_app(lib, shuffle=False, store=store, clock=lambda: 0.0)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await start(app, pilot)
            await pilot.press("b")
            await pilot.pause()
            # Issue 23: the rating line sits under the verdict, in view, not on the hint line.
            assert shown(screen, "hint").split("\n") == [
                "Answered. s Summary · p Previous · ↑↓ scroll · u Undo"]
            assert shown(screen, "rating").split("\n") == [
                "rated Easy · change it: 1 Again · 2 Hard · 3 Good · 4 Easy"]
