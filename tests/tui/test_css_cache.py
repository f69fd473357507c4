"""Textual's parsed CSS kept between runs (quiz/tui/css_cache.py): a start parses none of the
sources the last one kept; a file made for other variables, damaged, or unauthenticated is
never used (the CSS is parsed as usual)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from textual.css.stylesheet import Stylesheet

from quiz.tui import css_cache
from quiz.tui.app import make_app
from tests.conftest import make_library, question_data


def _misses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The CSS sources parsed afresh (not found in the stylesheet's parse cache)."""
    parsed: list[str] = []
    real = Stylesheet._parse_rules

    def counting(self: Stylesheet, css: str, read_from: Any, *args: Any, **kwargs: Any) -> Any:
        if not any(key[0] == css and key[1] == read_from for key in self._parse_cache.keys()):
            parsed.append(str(read_from))
        return real(self, css, read_from, *args, **kwargs)

    monkeypatch.setattr(Stylesheet, "_parse_rules", counting)
    return parsed


def _cache_file() -> Path:
    return Path(os.environ["QUIZ_CACHE_DIR"]) / css_cache.FILE


async def _run(keep_css: bool = True) -> Any:
    app = make_app(make_library(question_data("q1")), shuffle=False, keep_css=keep_css)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        key_line, parsed = css_cache.parsed_now(app.stylesheet)
    return app, key_line, parsed


async def test_a_start_reuses_what_the_last_one_parsed(monkeypatch: pytest.MonkeyPatch) -> None:
    misses = _misses(monkeypatch)
    _, key_line, parsed = await _run(keep_css=False)
    assert any("app.tcss" in m for m in misses) and not _cache_file().exists()
    css_cache.keep_parsed(key_line, parsed)
    assert _cache_file().exists() and (_cache_file().stat().st_mode & 0o077) == 0
    misses.clear()
    app, _, again = await _run()
    # None of the sources kept is parsed again (screens made ahead later may add others).
    kept = {str(key[1]) for key, _ in parsed}
    assert not kept & set(misses) and app._css_reused == len(parsed)
    assert kept <= {str(key[1]) for key, _ in again}


async def test_the_app_keeps_what_it_parsed_after_its_first_frame() -> None:
    app = make_app(make_library(question_data("q1")), shuffle=False, keep_css=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        for _ in range(100):  # written by a thread once the first frame is drawn
            if _cache_file().exists():
                break
            await pilot.pause(0.05)
    assert _cache_file().exists()
    assert css_cache.reuse_parsed(Stylesheet(variables=app.get_css_variables())) > 10


async def test_a_damaged_or_foreign_file_is_never_used(monkeypatch: pytest.MonkeyPatch) -> None:
    _, key_line, parsed = await _run(keep_css=False)
    css_cache.keep_parsed(key_line, parsed)
    data = _cache_file().read_bytes()
    variables = make_app(make_library(question_data("q1"))).get_css_variables()
    assert css_cache.reuse_parsed(Stylesheet(variables=variables)) == len(parsed)
    # Made for other variables (another theme): not used.
    other = dict(variables, primary="#123456")
    assert css_cache.reuse_parsed(Stylesheet(variables=other)) == 0
    # A byte of its pickle changed: fails its check, never unpickled.
    middle = len(data) // 2
    _cache_file().write_bytes(data[:middle] + bytes([data[middle] ^ 1]) + data[middle + 1:])
    assert css_cache.reuse_parsed(Stylesheet(variables=variables)) == 0
    # Others can write it: not read.
    _cache_file().write_bytes(data)
    os.chmod(_cache_file(), 0o666)
    assert css_cache.reuse_parsed(Stylesheet(variables=variables)) == 0
    os.chmod(_cache_file(), 0o600)
    # Without the user's key (made by another user's quiz, or the key was removed).
    key = Path(os.environ["QUIZ_DATA_DIR"]) / "cache.key"
    key.unlink()
    assert css_cache.reuse_parsed(Stylesheet(variables=variables)) == 0
