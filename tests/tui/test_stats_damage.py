"""The statistics dashboard says when damaged rows of the progress file were left out of it
(``quiz stats`` says so; the dashboard showed fewer answers without a word)."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from textual.widgets import Static

from quiz.study.store import Store
from quiz.tui.app import make_app
from quiz.tui.screens.stats import StatsScreen
from tests.conftest import make_library, question_data
from tests.tui.test_question_screen import start


def now() -> datetime:
    return datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


async def test_the_dashboard_names_the_damaged_rows_it_skipped(tmp_path: Path) -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(3)))
    db = tmp_path / "p.db"
    with Store.open(db) as store:
        app = make_app(lib, shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await start(app, pilot)
            await pilot.press("b", "n")
            await pilot.pause()
            await pilot.press("a")
            await pilot.pause()
    with sqlite3.connect(db) as raw:
        raw.execute("UPDATE answers SET chosen = '[[[' WHERE question_id = 'q1'")
    with Store.open(db) as store:
        app = make_app(lib, shuffle=False, store=store, now=now)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            app.action_stats()
            await pilot.pause()
            dash = app.screen
            assert isinstance(dash, StatsScreen)
            overview = dash.query_one("#stats-overview", Static).visual.plain  # type: ignore
            assert overview.startswith("Questions 1 of 3 seen · ")
            damage = dash.query_one("#stats-damage", Static).visual.plain  # type: ignore
            assert damage.startswith(f"1 damaged row of the progress file {db} was skipped "
                                     "(an answer to 'q1': an answer's choice is not JSON")
