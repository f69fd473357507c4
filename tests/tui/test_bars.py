"""The title bar and the key bar (our one-widget stand-ins for Textual's Header and Footer,
issue 13): what they show, and that clicks on them act as the keys and the icon did."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.command import CommandPalette
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from quiz.tui.app import make_app
from quiz.tui.screens.summary import SummaryScreen
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.title_bar import TitleBar
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import start
from tests.tui.waits import until


def bar_text(bar: KeyBar | TitleBar) -> str:
    """The line a bar shows, as plain text."""
    rendered = bar.render()
    assert isinstance(rendered, Text | Content)
    return rendered.plain


class Keys(Screen[None]):
    """A screen with a key that waits (dimmed) and one hidden by check_action."""

    BINDINGS = [
        Binding("g", "go", "Go"),
        Binding("w", "wait", "Wait"),
        Binding("h", "hidden", "Hidden"),
        Binding("x", "go", "Go again"),  # the same action: shown once, by its first key
        Binding("z", "go", "Secret", show=False),
    ]

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("body")
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return {"wait": None, "hidden": False}.get(action, True)

    def action_go(self) -> None:
        self.app.went += 1  # type: ignore[attr-defined]


class KeysApp(App[None]):
    TITLE = "Bars"

    def __init__(self) -> None:
        super().__init__()
        self.went = 0
        self.bells = 0

    def on_mount(self) -> None:
        self.push_screen(Keys())

    def bell(self) -> None:
        self.bells += 1


async def test_key_bar_shows_each_action_once_and_the_palette_key_at_the_right() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        line = bar_text(bar)
        assert len(line) == 60
        assert line.rstrip() == " g Go  w Wait" + " " * 35 + "▏^p palette"
        cells = bar.cells
        assert [(c.key, c.start, c.end, c.enabled) for c in cells] == [
            ("g", 0, 6, True), ("w", 6, 14, False), ("ctrl+p", 48, 60, True)]


async def test_a_key_that_does_not_fit_is_left_out_whole() -> None:
    """At 24 columns " g Go " fits before the palette key and " w Wait " does not: it is left
    out, not cut to " w Wa" (at 60 columns both fit: the test above)."""
    app = KeysApp()
    async with app.run_test(size=(24, 10)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        line = bar_text(bar)
        assert line == " g Go " + " " * 6 + "▏^p palette ", repr(line)
        assert [(c.key, c.start, c.end) for c in bar.cells] == [("g", 0, 6), ("ctrl+p", 12, 24)]


async def test_the_key_bar_draws_a_line_once_per_keys_and_look_and_hovers_subtly() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        first = bar.render()
        assert bar.render() is first  # the same keys: the same line, not drawn again
        await pilot.hover(KeyBar, offset=(2, 0))
        await pilot.pause()
        hovered = bar.render()
        assert hovered is not first
        # The hover colour is a tint of the bar's own background ($block-hover-background is
        # translucent), never an opaque block of another colour.
        (strip,) = bar.render_lines(bar.size.region)
        go = next(seg for seg in strip if seg.text == " g ")
        rest = next(seg for seg in strip if seg.text == " w ")
        assert go.style is not None and rest.style is not None
        assert go.style.bgcolor is not None and rest.style.bgcolor is not None
        assert go.style.bgcolor != rest.style.bgcolor
        hover_rgb, bar_rgb = go.style.bgcolor.get_truecolor(), rest.style.bgcolor.get_truecolor()
        assert max(abs(a - b) for a, b in zip(hover_rgb, bar_rgb, strict=True)) <= 40
        app.theme = "textual-light"
        await pilot.pause()
        assert bar.render() is not hovered  # a new look: drawn again


async def test_clicking_a_key_presses_it_and_a_waiting_key_rings_the_bell() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(KeyBar)
        await pilot.click(KeyBar, offset=(2, 0))
        await pilot.pause()
        assert app.went == 1
        await pilot.click(KeyBar, offset=(8, 0))
        await pilot.pause()
        assert (app.went, app.bells) == (1, 1)
        await pilot.click(KeyBar, offset=(30, 0))  # between the keys: nothing
        await pilot.pause()
        assert (app.went, app.bells) == (1, 1)
        await pilot.click(KeyBar, offset=(52, 0))
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        assert bar.cells[0].key == "g"


async def test_title_bar_centres_the_title_and_its_icon_opens_the_palette() -> None:
    app = KeysApp()
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        bar = app.screen.query_one(TitleBar)
        # 8 cells of icon, the title centred in the 42 between, 10 blank at the right.
        assert bar_text(bar) == " ⭘      " + "Bars".center(42) + " " * 10
        app.screen.title = "Screen title"
        app.screen.sub_title = "sub"
        await pilot.pause()
        assert bar_text(bar).strip() == "⭘                  Screen title — sub"
        app.screen.title = "A title far too long to fit between the icon and the right"
        await pilot.pause()
        assert bar_text(bar)[8:50].endswith("…")
        await pilot.click(TitleBar, offset=(30, 0))  # the bar grows, then shrinks
        await pilot.pause()
        assert bar.has_class("-tall") and bar.size.height == 3
        await pilot.click(TitleBar, offset=(30, 0))
        await pilot.pause()
        assert bar.size.height == 1
        await pilot.click(TitleBar, offset=(2, 0))
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)


async def test_every_quiz_screen_has_the_bars_and_the_key_bar_follows_the_screen() -> None:
    app = make_app(make_library(question_data("q1"), question_data("q2")), shuffle=False)
    async with app.run_test(size=(100, 30)) as pilot:
        await start(app, pilot)
        line = bar_text(app.screen.query_one(KeyBar))
        # Issue 23: r flags in every mode; Undo and the calculator keep their keys, unshown.
        assert line.startswith(" n Next  p Previous  s Summary  r Flag  ? Help  q Quit  ")
        assert "AI" not in bar_text(app.screen.query_one(TitleBar))  # the library's title
        assert app.title in bar_text(app.screen.query_one(TitleBar))
        await pilot.click(KeyBar, offset=(21, 0))  # "s Summary"
        await pilot.pause()
        assert isinstance(app.screen, SummaryScreen)
        assert bar_text(app.screen.query_one(KeyBar)).startswith(
            " esc Back  r Retry missed  ^n New session  q Quit  m Calculator ")
        assert "Summary" in bar_text(app.screen.query_one(TitleBar))
        await pilot.press("m")  # the calculator hides its own key
        await pilot.pause()
        assert "Calculator" not in bar_text(app.screen.query_one(KeyBar))


def test_a_label_is_fitted_to_its_cells_with_an_ellipsis() -> None:
    from quiz.bank.terminal import cell_width
    from quiz.study.score import Score
    from quiz.tui.widgets.bars import fit_label, score_line

    long = "A rather long topic display name about distributed training memory"
    assert fit_label(long, 30) == "A rather long topic display n…"
    assert fit_label("short", 8) == "short   "
    assert fit_label("漢字テスト漢字", 9) == "漢字テス…"  # 8 cells + the ellipsis
    assert cell_width(fit_label("漢字テスト漢字", 10)) == 10  # 漢字テス + … + one space
    line = score_line(long, Score(correct=1, answered=2, total=4), 30)
    assert line.startswith("A rather long topic display n…  ") and line.endswith("1/4   25%")


async def test_the_key_bars_of_start_question_and_exam_fit_80_columns_whole() -> None:
    """No key is cut at 80 columns (a cut one read 'm Cal▏' on the exam screen); the exam's
    calculator key still works, though its bar does not show it."""
    from quiz.study.launch import Launch
    from quiz.tui.screens.exam import ExamScreen
    from quiz.tui.screens.footprint import FootprintScreen

    def fits(bar: KeyBar) -> bool:
        text = bar_text(bar)
        left = text.split("▏")[0].rstrip()
        # Every key and its description whole (the space after the last may be cut).
        return all(c.end - c.start >= len(f" {c.display} {c.description}")
                   for c in bar.cells[:-1]) and left.endswith(bar.cells[-2].description)

    lib = make_library(question_data("q1"), question_data("q2"))
    app = make_app(lib, shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert fits(app.screen.query_one(KeyBar))
        await start(app, pilot)
        assert fits(app.screen.query_one(KeyBar))
    app = make_app(lib, shuffle=False, launch=Launch(mode="exam"))
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(app.screen, ExamScreen), "the exam screen")
        assert isinstance(app.screen, ExamScreen)
        bar = app.screen.query_one(KeyBar)
        assert fits(bar) and "Calculator" not in bar_text(bar)
        # Every exam key, Pause too (it was left out at 80 columns), and Help and Quit.
        assert bar_text(bar) == (" n Next  p Prev  r Flag  l Map  s Submit…  t Pause  ? Help  "
                                 "q Quit  ▏^p palette ")
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, FootprintScreen)
