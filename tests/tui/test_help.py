"""The key help is wrapped for the screen it is shown on: descriptions under their column."""

from __future__ import annotations

from quiz.tui.app import make_app
from quiz.tui.screens.help import HELP_TEXT
from quiz.tui.widgets.help_text import KEY_COLUMN, HelpText, help_entries
from tests.conftest import make_library, question_data


def test_continuation_lines_are_joined_to_their_entry() -> None:
    entries = help_entries(HELP_TEXT)
    assert ("  Ctrl+S         start (or Enter on the Start button); choose the mode first: "
            "practice, exam, review or cram") in entries
    assert ("  The exam ends when you submit or the clock reaches 0:00. A warning comes at 10, "
            "5 and 1 minutes left.") in entries
    assert "  Letter keys work in either case (Caps Lock on or off)." in entries
    # nothing lost: the same words in the same order
    assert " ".join(entries).split() == HELP_TEXT.split()


async def test_at_40_columns_descriptions_wrap_under_their_column() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=(40, 12)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        await pilot.pause()
        text = app.screen.query_one("#help-text", HelpText)
        rows = text.visual.plain.split("\n")  # type: ignore[union-attr]
    start = rows.index("  Ctrl+S         start (or Enter")
    assert rows[start + 1:start + 3] == [" " * KEY_COLUMN + "on the Start",
                                         " " * KEY_COLUMN + "button); choose"]
    titles = {line for line in HELP_TEXT.split("\n") if line and not line.startswith(" ")}
    assert all(row.startswith("  ") or row in titles or not row for row in rows)
    assert " ".join(rows).split() == HELP_TEXT.split()
