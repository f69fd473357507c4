"""The student is told when progress cannot be saved, and when it is saved again (issue 19
§2): a write lock held by another program past the busy timeout, at the start of a session;
the session goes on, nothing is lost."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from quiz.study import store_open, store_writer
from quiz.study.store import Store
from quiz.tui.app import make_app
from quiz.tui.screens.question import QuestionScreen
from tests.conftest import make_library, question_data
from tests.tui.waits import until


def _messages(app) -> list[str]:  # type: ignore[no-untyped-def]
    return [str(n.message) for n in app._notifications]


async def test_a_held_lock_is_said_and_the_session_goes_on_then_saved_is_said(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_open, "BUSY_TIMEOUT_MS", 200)  # not 10 s
    monkeypatch.setattr(store_writer, "WAIT_S", 0.05)
    path = tmp_path / "p.db"
    store = Store.open(path)
    library = make_library(question_data("m1"), question_data("m2"))
    app = make_app(library, shuffle=False, store=store)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
        await pilot.press("ctrl+s")  # start: the session cannot be written
        await until(pilot, lambda: isinstance(app.screen, QuestionScreen))
        await until(pilot, lambda: any("cannot be saved right now" in m
                                        for m in _messages(app)))
        said = next(m for m in _messages(app) if "cannot be saved right now" in m)
        assert said.startswith("Your answers cannot be saved right now: another program has "
                               f"held its write lock for over 10 seconds ({path}).")
        other.execute("ROLLBACK")
        other.close()
        store.retry_now()
        await until(pilot, lambda: any("saved again" in m for m in _messages(app)))
        assert store.unsaved == 0 and store.problem is None
        (record,) = store.open_sessions()
        assert record.id == 1
    store.close()
