"""A start served by the validated-bank cache: the start screen shows the library in its first
frame, before any question is decoded; the questions are decoded behind it; and an entry whose
questions cannot be read back by then costs a full load of the file, never a crash or an
answer."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from quiz.bank import cache as cache_module
from quiz.bank import load as load_module
from quiz.tui import loading as loading_module
from quiz.tui.app import make_app
from tests.tui.test_startup_load import bank_text, settled, text_of


@pytest.fixture
def banks(tmp_path: Path) -> Path:
    folder = tmp_path / "banks"
    folder.mkdir()
    (folder / "a.yaml").write_text(bank_text("a", "q1", "q2", "q3"), encoding="utf-8")
    return folder


@pytest.fixture
def full_loads(banks: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    loads: list[str] = []
    real = load_module._load_text

    def counting(text: Any, path: str, pure_python: bool, tracker: Any = None) -> Any:
        # Only this test's files: a loading thread an earlier test's app left running may
        # still load its own a.yaml through this patched function.
        if Path(path).resolve().parent == banks.resolve():
            loads.append(Path(path).name)
        return real(text, path, pure_python, tracker)

    monkeypatch.setattr(load_module, "_load_text", counting)
    return loads


async def test_the_questions_are_decoded_after_the_start_screen_is_ready(
        banks: Path, full_loads: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from quiz.tui.screens.start import StartScreen

    events: list[str] = []
    real_show = StartScreen.show_library
    real_put = cache_module.BankCache.put

    shown = asyncio.Event()

    async def noting(screen: Any, library: Any, *args: Any) -> None:
        events.append("decoded" if all(b.decoded for b in library.banks) else "encoded")
        await real_show(screen, library, *args)
        events.append("shown")
        shown.set()

    def put(cache: Any, *args: Any, **kwargs: Any) -> None:
        events.append("written")
        real_put(cache, *args, **kwargs)

    monkeypatch.setattr(StartScreen, "show_library", noting)
    monkeypatch.setattr(cache_module.BankCache, "put", put)
    # The worker waits for the frame at most SHOWN_WAIT_S (2 s), a bound a busy machine's
    # first frame can pass (then 'written' came before 'shown'): here it waits for the frame.
    monkeypatch.setattr(loading_module, "SHOWN_WAIT_S", 60.0)
    app = make_app(None, shuffle=False, paths=[str(banks)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await app.workers.wait_for_complete()
    # Loaded in full, shown, and only then stored (the worker waits for the frame).
    assert events == ["decoded", "shown", "written"] and full_loads == ["a.yaml"]
    events.clear()
    # A later start: every bank is served by the cache, so the start screen shows the library
    # in its first frame (its form composed once, the questions still encoded; no loading
    # screen, no show_library), and the questions are decoded behind it once it is drawn.
    composed: list[str] = []
    real_compose = StartScreen.compose

    def compose(screen: Any) -> Any:
        banks_shown = screen.library.banks
        composed.append("loading" if screen.loading_banks else
                        "decoded" if all(b.decoded for b in banks_shown) else "encoded")
        return real_compose(screen)

    app = make_app(None, shuffle=False, paths=[str(banks)])
    real_decode = load_module._decode_and_freeze

    def decode(library: Any) -> None:
        events.append("decoded after the first frame" if app._first_frame.is_set()
                      else "decoded before the first frame")
        real_decode(library)

    monkeypatch.setattr(StartScreen, "compose", compose)
    monkeypatch.setattr(load_module, "_decode_and_freeze", decode)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.loaded and isinstance(app.screen, StartScreen)  # at mount: no load ran
        await settled(app, pilot)
        assert text_of(app.screen, "#bank-count") == "3 questions in 1 topic"
        assert composed == ["encoded"] and full_loads == ["a.yaml"]
        assert events == ["decoded after the first frame"]
        assert all(b.decoded for b in app.library.banks)  # decoded behind the ready screen


async def test_questions_that_cannot_be_read_back_after_ready_cost_a_full_load_not_a_crash(
        banks: Path, tmp_path: Path, full_loads: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    from quiz.study.store import Store
    from quiz.tui.screens.question import QuestionScreen

    app = make_app(None, shuffle=False, paths=[str(banks)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await app.workers.wait_for_complete()
    (entry,) = (tmp_path / "quiz-cache").glob("*.bank")
    real = cache_module.Stored.decode
    data = entry.read_bytes()

    def damaged(self: cache_module.Stored) -> Any:
        # The entry is damaged after the start screen was shown from its (intact) index.
        entry.write_bytes(data[:-40] + bytes([data[-40] ^ 0x01]) + data[-39:])
        return real(self)

    monkeypatch.setattr(cache_module.Stored, "decode", damaged)
    store = Store.open(tmp_path / "p.db")
    app = make_app(None, shuffle=False, store=store, paths=[str(banks)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await app.workers.wait_for_complete()
        assert full_loads == ["a.yaml", "a.yaml"]  # the file again, in full, behind the screen
        await pilot.press("enter", "a")
        await pilot.pause()
        assert isinstance(app.screen, QuestionScreen) and app.session is not None
        assert app.session.current.question.id == "q1"
        assert app.session.outcome() is not None
    assert [a.question_id for a in store.answers()] == ["q1"]
    store.close()


async def test_questions_that_cannot_be_read_back_from_a_changed_file_are_said_not_a_crash(
        banks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from quiz.tui.screens.start import StartScreen
    from tests.tui.test_startup_load import bank_text

    app = make_app(None, shuffle=False, paths=[str(banks)])
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await app.workers.wait_for_complete()
    (entry,) = (tmp_path / "quiz-cache").glob("*.bank")
    data = entry.read_bytes()
    real = cache_module.Stored.decode

    def damaged_and_changed(self: cache_module.Stored) -> Any:
        # After the start screen was shown from the intact index: the entry is damaged and the
        # file no longer has the questions the screen counted.
        entry.write_bytes(data[:-40] + bytes([data[-40] ^ 0x01]) + data[-39:])
        (banks / "a.yaml").write_text(bank_text("a", "x1", "x2"), encoding="utf-8")
        return real(self)

    monkeypatch.setattr(cache_module.Stored, "decode", damaged_and_changed)
    app = make_app(None, shuffle=False, paths=[str(banks)])
    said: list[str] = []
    async with app.run_test(size=(80, 24)) as pilot:
        await settled(app, pilot)
        await app.workers.wait_for_complete()  # the early decode fails: logged, not raised
        monkeypatch.setattr(app, "notify", lambda text, **kw: said.append(text))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen) and app.session is None
        assert len(said) == 1 and said[0].endswith(
            "start quiz again to load it as it is now")
