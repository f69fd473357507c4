"""The summary (issue 7 items 11–13): exact pass lines, the first attempt kept beside a retry,
and a review list that stays short and opens its questions. Its body is one line-API widget
(issue 13): every part is a block of the SummaryView."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from textual import events

from quiz.bank.terminal import cell_width
from quiz.study.score import Score
from quiz.tui.app import make_app
from quiz.tui.screens.question import QuestionScreen
from quiz.tui.screens.summary import SummaryScreen
from quiz.tui.widgets.summary_view import (
    REVIEW_LIST_LIMIT,
    STEM_PREVIEW,
    SummaryView,
    entry_lines,
    pass_line,
    score_line,
    topic_table,
    topic_table_lines,
)
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import shown, start


async def open_summary(app: object, pilot: Any, *answers: str) -> SummaryView:
    """Start the session, press ``answers`` (option letters, ``n``...), open the summary and
    return its body."""
    await start(app, pilot)
    await pilot.press(*answers, "s")
    await pilot.pause()
    return body(app)


def body(app: object) -> SummaryView:
    """The summary screen's body (the screen shown must be the summary)."""
    screen = getattr(app, "screen", None)
    assert isinstance(screen, SummaryScreen), screen
    return screen.view


def entries(view: SummaryView) -> list[str]:
    """The review entries as drawn, in list order (wrapped lines joined with a newline)."""
    return [view.text_of(view.entry_key(i)) for i in range(view.entry_count)]


def first_style(view: SummaryView, key: str) -> Style:
    """The style of the first line of block ``key`` at its first non-blank character."""
    for segment in view.strips_of(key)[0]:
        if segment.text.strip():
            assert segment.style is not None
            return segment.style
    raise AssertionError(f"block {key} draws nothing")


def highlighted_key(view: SummaryView) -> str | None:
    """The key of the entry drawn with the highlight's background (``None``: none is)."""
    mark = view.get_component_rich_style("summary-view--entry-highlighted").bgcolor
    keys = [view.entry_key(i) for i in range(view.entry_count)
            if first_style(view, view.entry_key(i)).bgcolor == mark]
    assert len(keys) <= 1, keys
    return keys[0] if keys else None


def test_summary_lines_say_how_many_were_needed() -> None:
    score = Score(correct=2, answered=3, total=3)
    assert score_line(score, 0.67) == "2 right of 3 answered (66.7%); all 3 answered"
    assert pass_line(score, 0.67) == "Below the pass mark: 3 right of 3 needed (pass mark 67%)"
    assert pass_line(Score(2, 3, 3), 0.6) == "Pass: 2 right of 3 needed (pass mark 60%)"
    assert score_line(Score(1, 2, 4), 0.7) == (
        "1 right of 2 answered (50%); 2 of 4 not answered yet")


def test_a_finished_one_question_session_does_not_say_all_1_answered() -> None:
    assert score_line(Score(1, 1, 1), None) == "1 right of 1 answered (100%)"
    assert score_line(Score(0, 1, 1), 0.7) == "0 right of 1 answered (0%)"
    assert score_line(Score(0, 0, 1), None) == "none of 1 question answered yet"
    assert score_line(Score(2, 2, 2), None) == "2 right of 2 answered (100%); all 2 answered"
    assert score_line(Score(1_000, 1_000, 1_000), None) == (
        "1,000 right of 1,000 answered (100%); all 1,000 answered")


async def test_two_of_three_against_a_mark_of_067_is_shown_as_a_fail_below_it() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in (1, 2, 3)))
    banks = lib.banks
    info = banks[0].info.model_copy(update={"pass_mark": 0.67})
    lib = type(lib)(banks=(type(banks[0])(banks[0].path, info, banks[0].questions),),
                    topics=lib.topics)
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "b", "n", "b", "n", "a")
        assert view.text_of("score") == "Score 2 right of 3 answered (66.7%); all 3 answered"
        assert view.text_of("verdict") == (
            "Below the pass mark: 3 right of 3 needed (pass mark 67%)")
        fail = view.get_component_rich_style("summary-view--fail").color
        assert fail is not None and fail != view.get_component_rich_style(
            "summary-view--pass").color
        assert first_style(view, "verdict").color == fail  # red, as the -fail class was
        assert first_style(view, "score").bold


async def test_a_pass_is_shown_in_the_pass_colour() -> None:
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "b", "n", "b")
        assert view.text_of("verdict") == "Pass: 2 right of 2 needed (pass mark 70%)"
        assert first_style(view, "verdict").color == view.get_component_rich_style(
            "summary-view--pass").color
        assert view.entry_count == 0 and view.span("review-title") is None
        assert view.text_of("closing") == "Nothing missed. Ctrl+N starts a new session."


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
        view = body(app)
        assert view.text_of("score") == "This retry 1 right of 1 answered (100%)"
        # Wrapped at the 80-column terminal as the Static wrapped it.
        assert view.text_of("first-attempt") == (
            "First attempt 1 right of 2 answered (50%); all 2 answered. Below the pass\n"
            "mark: 2 right of 2 needed (pass mark 70%)")
        assert view.span("verdict") is None  # no "Pass" for the retry alone
        label, *rest = [seg for seg in view.strips_of("first-attempt")[0] if seg.text.strip()]
        assert label.text == "First attempt " and label.style and label.style.bold
        assert rest and not any(seg.style and seg.style.bold for seg in rest)
        await pilot.resize_terminal(140, 24)  # one line: drawn without Rich, the same look
        await pilot.pause()
        label, *rest = [seg for seg in view.strips_of("first-attempt")[0] if seg.text.strip()]
        assert len(view.strips_of("first-attempt")) == 1
        assert label.text == "First attempt " and label.style and label.style.bold
        assert rest and not any(seg.style and seg.style.bold for seg in rest)


async def test_a_long_review_list_is_capped_and_each_entry_opens_its_question() -> None:
    n = 1_000
    lib = make_library(*(question_data(f"q{i}") for i in range(n)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "a")  # one wrong answer, the rest not answered
        assert view.entry_count == REVIEW_LIST_LIMIT
        assert view.text_of("review-title") == f"To review ({n:,}): Enter opens a question"
        assert view.text_of("closing") == (
            f"… and {n - REVIEW_LIST_LIMIT:,} more questions. r retries all these; Ctrl+N "
            "starts a new session.")
        listed = entries(view)
        assert listed[:2] == ["  1. (wrong) Stem of q0?", "  2. (not answered) Stem of q1?"]
        assert listed[-1] == "100. (not answered) Stem of q99?"
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


async def test_the_highlight_moves_with_the_keys_and_stays_in_view() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(150)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "a")
        height = view.scrollable_content_region.height
        assert height == 22  # the terminal less the title and key bars

        def in_view(index: int) -> bool:
            span = view.span(view.entry_key(index))
            assert span is not None
            return view.scroll_y <= span[0] and span[1] <= view.scroll_y + height

        # On open: the first entry highlighted, the score in view at the top.
        assert view.has_focus and view.highlighted == 0 and view.scroll_y == 0
        assert highlighted_key(view) == "missed-0"
        await pilot.press("up")  # already the first: stays
        assert view.highlighted == 0 and view.scroll_y == 0
        for _ in range(20):
            await pilot.press("down")
        await pilot.pause()
        assert view.highlighted == 20 and in_view(20)
        assert highlighted_key(view) == "missed-20"
        assert view.span("score") is not None and view.scroll_y > 0  # scrolled just enough
        before = view.scroll_y
        await pilot.press("pagedown")
        await pilot.pause()
        # A screenful further: the entry drawn `height` lines below (one line per entry).
        assert view.highlighted == 20 + height and in_view(view.highlighted)
        assert view.scroll_y == before + height
        await pilot.press("pageup")
        await pilot.pause()
        assert view.highlighted == 20 and in_view(20)
        await pilot.press("end")
        await pilot.pause()
        assert view.highlighted == REVIEW_LIST_LIMIT - 1
        assert highlighted_key(view) == f"missed-{REVIEW_LIST_LIMIT - 1}"
        closing = view.span("closing")
        assert closing is not None and closing[1] == view.scroll_y + height  # the hint too
        await pilot.press("pagedown", "down")  # at the last entry: stays
        assert view.highlighted == REVIEW_LIST_LIMIT - 1
        await pilot.press("home")
        await pilot.pause()
        assert view.highlighted == 0 and view.scroll_y == 0  # back to the score
        assert highlighted_key(view) == "missed-0"
        # The screen's keys still reach it: Esc back to the questions.
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)


async def test_after_a_resize_the_highlighted_entry_is_in_view_and_enter_opens_it() -> None:
    # Stems that wrap differently at each width, so a resize moves every entry.
    lib = make_library(*(question_data(f"q{i}", question=f"Stem of q{i}: " + "the KV cache "
                                       * (2 + i % 5)) for i in range(30)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "a")

        def in_view(index: int) -> bool:
            span = view.span(view.entry_key(index))
            assert span is not None
            height = view.scrollable_content_region.height
            return view.scroll_y <= span[0] and span[1] <= view.scroll_y + height

        await pilot.press("end")
        await pilot.pause()
        last = view.entry_count - 1
        assert view.highlighted == last and in_view(last) and view.scroll_y > 0
        # Wider and taller: fewer lines, the scroll is cut back to the new end; back at 80x24
        # the last entry was below the screen.
        for size in [(100, 30), (80, 24), (60, 20), (80, 24), (80, 40), (80, 24), (120, 20)]:
            await pilot.resize_terminal(*size)
            await pilot.pause()
            assert view.strips_of(view.entry_key(last))[0].cell_length == (
                view.scrollable_content_region.width)  # wrapped again at the new width
            assert view.highlighted == last and in_view(last), size
        # An entry in the middle of the screen keeps the scroll: nothing jumps.
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.press("home", *["down"] * 12)
        await pilot.pause()
        before = view.scroll_y
        assert view.highlighted == 12 and in_view(12) and before > 0
        await pilot.resize_terminal(80, 26)
        await pilot.pause()
        assert view.scroll_y == before and in_view(12)
        # Narrower: the entries above grow, the highlighted one moves below the old screen.
        await pilot.resize_terminal(40, 15)
        await pilot.pause()
        assert in_view(12)
        await pilot.resize_terminal(120, 15)  # wider: it moves up, above the old scroll
        await pilot.pause()
        assert in_view(12)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.session.position == view.positions[12] == 12


async def test_a_click_on_an_entry_opens_its_question_and_the_wheel_scrolls() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(40)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "a")
        # The mouse wheel scrolls the summary (Textual's scrolling: two lines a notch).
        assert app.scroll_sensitivity_y == 2
        await pilot._post_mouse_events([events.MouseScrollDown], view, offset=(10, 5))
        assert view.scroll_y == 2
        await pilot._post_mouse_events([events.MouseScrollUp], view, offset=(10, 5))
        assert view.scroll_y == 0
        span = view.span("missed-4")  # question 5
        assert span is not None and span[0] < view.scrollable_content_region.height
        # Clicking the blank line above the list opens nothing.
        title = view.span("review-title")
        assert title is not None and view.block_at(title[0] - 1) is None
        await pilot.click(view, offset=(10, title[0] - 1))
        await pilot.pause()
        assert app.screen.view is view  # type: ignore[attr-defined]
        await pilot.click(view, offset=(10, span[0]))
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen)
        assert app.session.position == 4
        assert shown(app.screen, "stem") == "Stem of q4?"


async def test_without_entries_the_keys_scroll_the_summary() -> None:
    topics = {f"t{i}": f"Topic {i}" for i in range(12)}
    lib = make_library(*(question_data(f"q{i}", topic=f"t{i}") for i in range(12)),
                       topics=topics)
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 20)) as pilot:
        await start(app, pilot)
        for _ in range(12):
            await pilot.press("b", "n")
        await pilot.pause()
        view = body(app)
        assert view.entry_count == 0 and view.highlighted is None
        height = view.scrollable_content_region.height
        bottom = len(view.plain.split("\n")) - height
        assert bottom > 3  # twelve topic rows do not fit in 18 lines
        await pilot.press("down", "down")
        assert view.scroll_y == 2
        await pilot.press("end")
        assert view.scroll_y == bottom
        await pilot.press("home")
        assert view.scroll_y == 0
        await pilot.press("pagedown")
        assert view.scroll_y == min(height, bottom)
        await pilot.press("enter")  # nothing to open
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)


def test_review_entries_wrap_as_the_two_column_grid_did() -> None:
    """The review list's entries were two-column Rich grids (a label, then the stem wrapping
    under itself); entry_lines lays them out without a table and must look the same."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console(width=100, color_system=None, legacy_windows=False)
    cases = [("  3. (wrong)", "A team serves Llama-2-7B in BF16 to one user at a time, with up "
                              "to 2,048 tokens of context, on an NVIDIA L4 (24 GB). How much…"),
             (" 61. (not answered)", "Short stem?"),
             ("100. (wrong)", "Averyveryverylongwordwithoutanyspacethatmustbefoldedsomewhere "
                              "then — unicode: 显存 and emoji ✓ fits"),
             ("  7. (wrong)", "显存显存显存显存显存显存显存显存显存显存 KV cache 显存"),
             ("  1. (wrong)", "")]
    for label, text in cases:
        for width in (24, 33, 40, 53, 61, 73, 78, 113):  # the list at 31 to 120 columns
            grid = Table.grid(padding=(0, 1))
            grid.add_column(no_wrap=True)
            grid.add_column(ratio=1)
            grid.add_row(Text(label), Text(text))
            lines = console.render_lines(grid, console.options.update_width(width), pad=False)
            expected = ["".join(s.text for s in line).rstrip() for line in lines]
            assert entry_lines(label, text, width) == expected, (label, text, width)


def test_the_topic_table_is_drawn_as_rich_draws_it() -> None:
    """topic_table_lines draws the per-topic table without Rich where it fits: the same text,
    the headings bold and nothing else; where it does not fit it leaves the table to Rich."""
    from rich.console import Console

    console = Console(width=200, color_system="truecolor", force_terminal=True,
                      legacy_windows=False)
    cases = [[("Memory footprint", "1", "1", "1"), ("Precision", "0", "1", "2")],
             [("M", "123456", "1234567", "12345678901")],  # figures wider than headings
             [("显存 and KV cache 🚀", "3", "10", "65"), ("[bold]x[/bold] \\ y", "0", "0", "1")],
             [(f"Topic {i}", str(i), str(i * 7), str(i * 70)) for i in range(30)]]
    for rows in cases:
        top = console.render_lines(topic_table(rows), console.options.update_width(200))[0]
        natural = len("".join(s.text for s in top).rstrip())  # the top border: 1 cell a char
        for width in (20, 38, 50, 51, 52, 60, 80, 120, natural - 1, natural):
            lines = topic_table_lines(rows, width)
            assert (lines is None) == (width < natural), (rows, width)
            if lines is None:
                continue
            rich = console.render_lines(topic_table(rows), console.options.update_width(width),
                                        pad=False)
            expected = ["".join(s.text for s in line).rstrip() for line in rich]
            assert ["".join(t for t, _ in line).rstrip() for line in lines] == expected, (
                rows, width)
            # Bold exactly where Rich makes it bold (the headings and their padding).
            for mine, theirs in zip(lines, rich, strict=True):
                assert [c for t, b in mine for c in t if b] == [
                    c for seg in theirs if seg.style and seg.style.bold for c in seg.text]
    assert topic_table_lines([("Memory", "1", "1", "1")], 30) is None  # 35 cells wide
    assert topic_table_lines([], 80) is None


async def test_stems_are_shown_literally_and_wide_characters_fit_their_cells() -> None:
    stem = "[bold]Wie viel[/bold] \\n VRAM 显存 braucht 🚀 Llama-2-7B in BF16 bei 2.048 Tokens " \
           "Kontext, und wie viel davon ist KV cache?"
    lib = make_library(question_data("q1", question=stem), question_data("q2"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(40, 24)) as pilot:
        view = await open_summary(app, pilot, "a")
        first = view.text_of("missed-0")
        width = view.scrollable_content_region.width
        preview = stem[: STEM_PREVIEW - 1].rstrip() + "…"
        assert first.startswith("  1. (wrong) [bold]Wie viel[/bold] \\n")
        rows = first.split("\n")
        assert len(rows) > 2 and all(cell_width(row) <= width for row in rows)
        assert all(row.startswith(" " * 13) for row in rows[1:])  # under the stem, not the label
        assert " ".join(row.strip() for row in rows).removeprefix("1. (wrong) ") == preview
        assert "🚀" in first and "显存" in first


async def test_a_stem_written_over_several_lines_is_previewed_on_one_line() -> None:
    # `question: |` block scalars, as the bank format recommends: line breaks in the stem.
    short = "Which one\nof these   needs\n\tthe most VRAM?\n"
    long = ("A team serves Llama-2-7B in BF16\nto one user at a time, with up to 2,048 tokens\n"
            "of context, on an NVIDIA L4 (24 GB).\n\nHow much of its memory is left for the "
            "KV cache?\n")
    lib = make_library(question_data("q1", question=short), question_data("q2", question=long))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(120, 24)) as pilot:
        view = await open_summary(app, pilot, "a")
        flat = ("A team serves Llama-2-7B in BF16 to one user at a time, with up to 2,048 tokens "
                "of context, on an NVIDIA L4 (24 GB). How much of its memory is left for the "
                "KV cache?")
        assert len(flat) > STEM_PREVIEW
        assert entries(view) == [
            "  1. (wrong) Which one of these needs the most VRAM?",
            "  2. (not answered) " + flat[: STEM_PREVIEW - 1].rstrip() + "…"]


async def test_at_40_columns_the_review_title_wraps_instead_of_being_cut() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(12)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(40, 15)) as pilot:
        view = await open_summary(app, pilot, "a")
        assert view.scrollable_content_region.width == 37
        # 38 cells: it was cut to "... opens a questio".
        assert view.text_of("review-title") == "To review (12): Enter opens a\nquestion"
        for strip, words in zip(view.strips_of("review-title"),
                                ("To review (12): Enter opens a", "question"), strict=True):
            assert strip.cell_length == 37
            underlined = "".join(seg.text for seg in strip if seg.style and seg.style.underline)
            assert underlined == words  # the words underlined, not the rest of the line
        # The entries follow the title's two lines; the first is highlighted and opens q0.
        title, first = view.span("review-title"), view.span("missed-0")
        assert title is not None and first is not None and first[0] == title[1]
        assert view.entry_at(title[1] - 1) is None
        await pilot.resize_terminal(80, 15)  # wide enough again: one line
        await pilot.pause()
        assert view.text_of("review-title") == "To review (12): Enter opens a question"


async def test_topic_table_and_review_entries_are_drawn_once_and_reused() -> None:
    lib = make_library(question_data("m1", topic="memory"), question_data("p1", topic="precision"),
                       question_data("p2", topic="precision"),
                       topics={"memory": "Memory footprint", "precision": "Precision"})
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "b", "n", "a")  # m1 right, p1 wrong, p2 not answered
        table = view.text_of("topics").split("\n")
        rows = [" ".join(line.replace("┃", " ").replace("│", " ").split()) for line in table]
        assert "Topic Right Answered Questions" in rows
        assert "Memory footprint 1 1 1" in rows and "Precision 0 1 2" in rows
        assert entries(view) == ["  2. (wrong) Stem of p1?", "  3. (not answered) Stem of p2?"]
        drawn = {b.key: b for b in view.blocks}
        lines = {key: view.strips_of(key) for key in drawn}
        await pilot.press("escape", "s")
        await pilot.pause()
        # Nothing answered since: the same blocks with the lines they drew.
        again = {b.key: b for b in view.blocks}
        assert list(again) == list(drawn)
        assert all(again[k] is drawn[k] for k in drawn)
        assert all(a is b for k in drawn
                   for a, b in zip(view.strips_of(k), lines[k], strict=True))
        await pilot.press("escape", "n", "n", "b", "s")  # p2 answered right now
        await pilot.pause()
        again = {b.key: b for b in view.blocks}
        assert "missed-2" not in again and again["missed-1"] is drawn["missed-1"]
        assert again["topics"] is not drawn["topics"]
        assert "Precision 1 2 2" in [" ".join(line.replace("│", " ").split())
                                     for line in view.text_of("topics").split("\n")]


async def test_a_new_theme_redraws_every_part_of_the_summary_even_when_opened_again() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(6)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        # q0 wrong, q1 right, the rest not answered
        view = await open_summary(app, pilot, "a", "n", "b")

        def look() -> dict[str, object]:
            """What the parts are drawn in, and what their component classes say now."""
            return {
                "title": (first_style(view, "review-title").color,
                          view.get_component_rich_style("summary-view--title").color),
                "highlight": (first_style(view, view.entry_key(view.highlighted or 0)).bgcolor,
                              view.get_component_rich_style(
                                  "summary-view--entry", "summary-view--entry-highlighted"
                              ).bgcolor),
                "entry": (first_style(view, view.entry_key(
                              0 if view.highlighted else 1)).bgcolor,  # one not highlighted
                          view.get_component_rich_style("summary-view--entry").bgcolor),
                "hint": (first_style(view, "closing").color,
                         view.get_component_rich_style("summary-view--hint").color),
            }

        def drawn_as_styled() -> None:
            for part, (drawn, wanted) in look().items():
                assert drawn == wanted, (app.theme, part)

        drawn_as_styled()
        dark = look()
        app.theme = "catppuccin-latte"
        await pilot.pause()
        assert all(look()[part][1] != dark[part][1] for part in ("title", "highlight"))
        drawn_as_styled()
        for key in ("down", "down", "up", "up", "end", "home"):  # entries drawn before and new
            await pilot.press(key)
            await pilot.pause()
            drawn_as_styled()
        await pilot.press("escape", "s")  # opened again: its blocks are reused
        await pilot.pause()
        assert app.screen.view is view  # type: ignore[attr-defined]
        drawn_as_styled()
        # A theme chosen while the summary is closed (on the question screen).
        await pilot.press("escape")
        await pilot.pause()
        app.theme = "textual-dark"
        await pilot.pause()
        await pilot.press("s")
        await pilot.pause()
        assert look() == dark
        await pilot.press("down", "up")
        await pilot.pause()
        assert look() == dark


async def test_the_summary_screen_is_made_while_the_start_screen_waits_and_filled_anew() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in (1, 2, 3)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        ready = app.ahead.summary
        assert ready is not None and ready.is_mounted and ready not in app.screen_stack
        await pilot.press("a", "s")  # q1 wrong
        await pilot.pause()
        assert app.screen is ready
        view = ready.view
        assert view.text_of("score") == "Score 0 right of 1 answered (0%); 2 of 3 not answered yet"
        assert view.entry_count == 3 and view.has_focus and view.highlighted == 0
        await pilot.press("down", "escape", "n", "b", "n", "b", "s")  # q2, q3 right: all answered
        await pilot.pause()
        assert app.screen is ready
        assert view.text_of("score") == "Score 2 right of 3 answered (67%); all 3 answered"
        assert view.positions == [0] and view.highlighted == 0  # the highlight starts anew
        assert highlighted_key(view) == "missed-0"
        assert view.text_of("closing") == "r retries these; Ctrl+N starts a new session."
        await pilot.press("r")  # retry q1, then answer it right: nothing missed
        await pilot.pause()
        await pilot.press("b", "s")
        await pilot.pause()
        assert app.screen is ready and view.entry_count == 0
        assert view.span("review-title") is None
        assert view.text_of("closing") == "Nothing missed. Ctrl+N starts a new session."
        assert view.span("first-attempt") is not None
        assert view.text_of("score").startswith("This retry 1 right")


async def test_the_scrollbar_follows_the_summary_and_is_not_repainted_for_nothing() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(40)))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        view = await open_summary(app, pilot, "a")  # 40 to review
        bar = view.vertical_scrollbar
        lines = len(view.plain.split("\n"))
        assert bar.window_virtual_size == lines and bar.window_size == 22
        repaints: list[int] = []
        real = bar.refresh

        def counting(*args: object, **kwargs: object) -> object:
            repaints.append(1)
            return real(*args, **kwargs)  # type: ignore[arg-type]

        bar.refresh = counting  # type: ignore[method-assign]
        await pilot.press("escape", "s")  # the same summary: the same scrollbar
        await pilot.pause()
        assert app.screen.view is view and repaints == []  # type: ignore[attr-defined]
        await pilot.press("escape", "n", "b", "s")  # q2 right: one entry less
        await pilot.pause()
        assert view.entry_count == 39 and repaints
        assert bar.window_virtual_size == lines - 1 == len(view.plain.split("\n"))
