"""Screens and messages as a newcomer meets them (issue 7 items 14, 15, 17, 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Label, Static, Switch

from quiz.tui.app import make_app
from quiz.tui.screens.confirm import ConfirmScreen
from quiz.tui.screens.help import HELP_TITLE, HelpScreen
from quiz.tui.screens.start import StartScreen, TopicList
from quiz.tui.textual_internals import toggle_glyph
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import plain, start


def small_library():
    return make_library(question_data("m1"), question_data("m2"),
                        question_data("p1", topic="precision"))


async def test_a_count_above_what_matches_is_said_under_the_field_with_grammar() -> None:
    app = make_app(small_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#topics", TopicList).deselect("memory")
        screen.query_one("#count", Input).value = "5"
        await pilot.pause()
        assert plain(screen.query_one("#count-note", Static)) == (
            "Only 1 question matches the chosen topics: the session will have 1.")
        screen.query_one("#topics", TopicList).select("memory")
        await pilot.pause()
        assert plain(screen.query_one("#count-note", Static)) == (
            "Only 3 questions match the chosen topics: the session will have 3.")
        screen.action_start()
        await pilot.pause()
        await pilot.pause()
        assert app.session is not None and app.session.total == 3
        assert list(app._notifications) == []  # nothing left over the first question


async def test_the_first_tab_lands_on_a_visible_field() -> None:
    app = make_app(small_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("tab")
        await pilot.pause()
        focused = app.focused
        assert focused is not None and focused.id == "mode"  # the form's first field, not
        assert focused.region.height > 0  # the invisible scroll container around the form
        assert focused.region.height > 0 and focused.region.y < 24


async def test_ticks_and_the_shuffle_switch_read_without_colour() -> None:
    app = make_app(small_library(), shuffle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        topics = screen.query_one("#topics", TopicList)
        topics.deselect("precision")
        await pilot.pause()
        lines = [topics.render_line(y).text for y in range(topics.option_count)]
        assert lines[0].lstrip().startswith("▐✓▌") and "Memory" in lines[0]
        assert lines[1].lstrip().startswith("▐ ▌") and "Precision" in lines[1]
        assert plain(screen.query_one("#shuffle-state", Label)) == "on"
        screen.query_one("#shuffle", Switch).value = False
        await pilot.pause()
        assert plain(screen.query_one("#shuffle-state", Label)) == "off"


async def test_help_says_how_to_close_it_in_view_at_80x24() -> None:
    app = make_app(small_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        title = app.screen.query_one("#help-title", Static)
        assert plain(title) == HELP_TITLE and "Esc" in HELP_TITLE
        assert 0 <= title.region.y < 24 and title.region.height == 1
        scroll = app.screen.query_one("#help-scroll", VerticalScroll)
        assert scroll.max_scroll_y > 0 and app.focused is scroll
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)


async def test_screenshot_is_saved_in_a_folder_that_exists_and_says_where(
        _isolated_data_dir: Path) -> None:
    app = make_app(small_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_save_screenshot()
        await pilot.pause()
        saved = list((_isolated_data_dir / "screenshots").glob("*.svg"))
        assert len(saved) == 1
        assert [n.message for n in app._notifications] == [f"Screenshot saved to {saved[0]}"]


async def test_screenshot_failure_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import quiz.paths

    def unwritable() -> Path:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(quiz.paths, "screenshots_dir", unwritable)
    app = make_app(small_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        app.action_save_screenshot()
        await pilot.pause()
        assert [n.message for n in app._notifications] == [
            "Could not save the screenshot: Permission denied."]


async def test_quit_after_new_session_does_not_mention_the_left_session() -> None:
    app = make_app(small_library(), shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await start(app, pilot)
        await pilot.press("b", "q")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen)
        text = plain(dialog.query_one("#dialog-question", Static))
        assert "This session's 1 answer" in text
        assert text.endswith("y: Quit · n or Esc: Stay")
        await pilot.press("n")
        app.action_new_session()
        await pilot.pause()
        app.action_request_quit()
        await pilot.pause()
        text = plain(app.screen.query_one("#dialog-question", Static))
        assert text == "Quit quiz?\n\ny: Quit · n or Esc: Stay"


async def test_the_bundled_library_keeps_its_form_in_view_at_80x24() -> None:
    """The bundled banks, one series: a short title, the mode choice in view, descriptions
    below."""
    from quiz.bank.load import load_library
    from quiz.paths import bundled_bank_dir

    banks = len(list(bundled_bank_dir().glob("*.yaml")))
    assert banks >= 6
    library = load_library([bundled_bank_dir()]).library
    assert library.title == f"AI infrastructure ({banks} banks)"
    app = make_app(library, shuffle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        mode = screen.query_one("#mode")
        assert 0 < mode.region.y < 24  # the mode choice is on the first screen
        description = screen.query_one("#bank-description")
        assert description.region.y > screen.query_one("#topics").region.y


async def test_the_mode_choice_reads_without_colour() -> None:
    app = make_app(small_library(), shuffle=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        glyphs = [str(toggle_glyph(b)) for b in app.screen.query("#mode RadioButton")]
        assert glyphs == ["▐●▌", "▐ ▌", "▐ ▌", "▐ ▌"]
        await pilot.click("#mode-exam")
        await pilot.pause()
        glyphs = [str(toggle_glyph(b)) for b in app.screen.query("#mode RadioButton")]
        assert glyphs == ["▐ ▌", "▐●▌", "▐ ▌", "▐ ▌"]


async def test_the_start_screen_is_styled_once_when_first_shown(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.css.stylesheet import Stylesheet

    styled: list[int] = []
    restyled: set[int] = set()  # ids of the nodes styled again
    real = Stylesheet.update_nodes

    def counting(self: Stylesheet, nodes: object, animate: bool = False) -> None:
        listed = list(nodes)  # type: ignore[call-overload]
        styled.append(len(listed))
        restyled.update(id(node) for node in listed)
        real(self, listed, animate=animate)

    monkeypatch.setattr(Stylesheet, "update_nodes", counting)
    app = make_app(make_library(question_data("m1"), question_data("p1", topic="precision")),
                   shuffle=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        whole = len(list(screen.walk_children(with_self=True)))
        # Mounting styled every widget; its first showing did not style them all again
        # (Textual's ScreenResume would: StyledOnceWhenFirstShown).
        assert whole > 20 and whole not in styled
        assert screen.query_one("#start").has_focus  # its focus styles applied all the same
        # Nor was the screen under it (Textual's default screen: BaseScreen).
        base = app.screen_stack[0]
        assert type(base).__name__ == "BaseScreen" and id(base) not in restyled
