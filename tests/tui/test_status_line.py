"""The status line: one widget of fixed size, its left part cut with an ellipsis, its right part
whole, text shown literally, and a new text is a repaint of this line only (no layout)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.geometry import Region

from quiz.tui.content import literal
from quiz.tui.textual_internals import layout_pending, repaint_requested
from quiz.tui.widgets.status_line import StatusLine


class LineApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StatusLine(id="status")


def drawn(line: StatusLine) -> str:
    (strip,) = line.render_lines(Region(0, 0, line.size.width, 1))
    return "".join(segment.text for segment in strip)


async def test_the_right_part_stays_whole_and_the_left_is_cut() -> None:
    app = LineApp()
    async with app.run_test(size=(30, 5)) as pilot:
        line = app.query_one(StatusLine)
        line.show(literal("Question 12/40 · hard · [b]Memory[/b] \\ 🧠"), "Score 3/4")
        await pilot.pause()
        # 30 cells: a blank, 17 cells of the left part ending in "…", two blanks, the score,
        # a blank. The markup-like text is kept as written.
        assert drawn(line) == " Question 12/40 ·…  Score 3/4 "
        assert line.left == "Question 12/40 · hard · [b]Memory[/b] \\ 🧠"
        line.show(literal("Q [1]"), "Score 10/11")
        await pilot.pause()
        assert drawn(line) == " Q [1]" + " " * 12 + "Score 10/11 "


async def test_a_new_text_repaints_without_a_layout_and_alert_styles_the_right() -> None:
    app = LineApp()
    async with app.run_test(size=(40, 5)) as pilot:
        line = app.query_one(StatusLine)
        line.show(literal("Question 1/5"), "0/5 answered · ⏱ 1:00 left")
        await pilot.pause()
        line.show(literal("Question 1/5"), "0/5 answered · ⏱ 0:59 left", alert=True)
        # A wider text on the right asks for a repaint only, never a layout of the screen.
        assert repaint_requested(line)
        assert not layout_pending(line) and not layout_pending(app.screen)
        await pilot.pause()
        assert line.alert and line.right == "0/5 answered · ⏱ 0:59 left"
        (strip,) = line.render_lines(Region(0, 0, 40, 1))
        alert = line.get_component_rich_style("status-line--alert")
        right = [s for s in strip if "0:59" in s.text]
        assert right and right[0].style is not None and right[0].style.bold
        assert alert.color is not None and right[0].style.color == alert.color
        left = [s for s in strip if "Question" in s.text]
        assert left and not (left[0].style and left[0].style.bold)


async def test_the_question_number_stays_whole_the_right_part_narrows_first() -> None:
    from rich.cells import cell_len

    app = LineApp()
    left = literal("Question 1/150 · medium · Memory footprint")
    wide, narrow = "0/150 answered · ⏱ 2:59:55 left", "0/150 · ⏱ 2:59:55"
    async with app.run_test(size=(80, 5)) as pilot:
        line = app.query_one(StatusLine)
        line.show(left, wide, narrow=narrow)
        await pilot.pause()
        assert drawn(line).startswith(" Question 1/150 · medium · Memory footprint ")
        assert drawn(line).endswith(f"  {wide} ")
        # 40 columns is the app's narrowest (screens/too_small.py): the narrow form fits.
        forms = {}
        for width in range(40, 81, 4):
            await pilot.resize_terminal(width, 5)
            await pilot.pause()
            text = drawn(line)
            # The wide form while it leaves room for "Question 1/150…", else the narrow one.
            fits = width - 1 - 2 - cell_len(wide) - 1 >= cell_len("Question 1/150…")
            assert cell_len(text) == width
            assert text.startswith(" Question 1/150")
            assert text.endswith(f"  {wide if fits else narrow} ")
            forms[width] = "wide" if fits else "narrow"
        assert forms[40] == "narrow" and forms[80] == "wide"

        await pilot.resize_terminal(24, 5)  # narrower still: the right part is cut
        await pilot.pause()
        text = drawn(line)
        assert cell_len(text) == 24 and text.startswith(" Question 1/150…  ")
        assert text.rstrip().endswith("…") and "answered" not in text
        assert line.right == wide  # what it says, whatever the width shows
