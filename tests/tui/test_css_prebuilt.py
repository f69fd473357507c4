"""Textual's parsed CSS made when quiz is built (quiz/tui/css_prebuild.py, read by
css_prebuilt.py): a first start (no CSS kept by a last run) parses none of the sources it
holds; a file for other variables, another Textual, damaged, or writable by others is never
used (the CSS is parsed as usual)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual.css.stylesheet import Stylesheet

from quiz.paths import bundled_bank_dir
from quiz.tui import css_prebuilt
from quiz.tui.app import make_app
from quiz.tui.css_prebuild import prebuild
from quiz.tui.css_prebuilt import FILE, reuse_prebuilt
from quiz.tui.textual_internals import css_variables
from tests.conftest import make_library, question_data
from tests.tui.test_css_cache import _misses


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int]]:
    """The file as the wheel's build hook writes it (made once: it starts the app)."""
    home = tmp_path_factory.mktemp("home")
    out = tmp_path_factory.mktemp("prebuilt")
    with pytest.MonkeyPatch.context() as patch:  # never the real user folders
        patch.setenv("QUIZ_DATA_DIR", str(home / "data"))
        patch.setenv("QUIZ_CACHE_DIR", str(home / "cache"))
        patch.setenv("QUIZ_PREBUILT_DIR", "")
        count = prebuild(bundled_bank_dir(), out)
    yield out, count


def _library_app(keep_css: bool = True):  # type: ignore[no-untyped-def]
    return make_app(make_library(question_data("q1")), shuffle=False, keep_css=keep_css)


async def test_a_first_start_parses_none_of_the_sources_quiz_was_built_with(
        built: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, count = built
    assert (folder / FILE).stat().st_mode & 0o777 == 0o644 and count > 10
    misses = _misses(monkeypatch)
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", str(folder))
    app = _library_app()  # no CSS kept by a last run here: served by the built file
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
    assert not any("app.tcss" in m or "_button.py" in m for m in misses), misses
    misses.clear()
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", "")  # without it (nor what that start kept),
    app = _library_app(keep_css=False)  # the same start parses them
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
    assert any("app.tcss" in m for m in misses) and any("_button.py" in m for m in misses)


def test_it_serves_only_the_textual_python_and_theme_it_was_made_for(
        built: tuple[Path, int], monkeypatch: pytest.MonkeyPatch) -> None:
    folder, count = built
    stylesheet = _library_app(keep_css=False).stylesheet
    assert reuse_prebuilt(stylesheet, folder) == count
    other_theme = Stylesheet(variables={**css_variables(stylesheet), "primary": "#123456"})
    assert reuse_prebuilt(other_theme, folder) == 0
    monkeypatch.setattr(css_prebuilt, "textual_identity", lambda: "another-textual")
    assert reuse_prebuilt(_library_app(keep_css=False).stylesheet, folder) == 0
    monkeypatch.setattr(css_prebuilt, "textual_identity", lambda: None)
    assert reuse_prebuilt(_library_app(keep_css=False).stylesheet, folder) == 0


def test_a_damaged_file_or_one_others_can_write_is_not_used(
        built: tuple[Path, int], tmp_path: Path) -> None:
    folder, count = built
    data = (folder / FILE).read_bytes()
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / FILE).write_bytes(data)
    assert reuse_prebuilt(_library_app(keep_css=False).stylesheet, copy) == count
    os.chmod(copy / FILE, 0o666)
    assert reuse_prebuilt(_library_app(keep_css=False).stylesheet, copy) == 0
    os.chmod(copy / FILE, 0o644)
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0x01  # a byte of the pickled rule sets
    (copy / FILE).write_bytes(bytes(damaged))
    assert reuse_prebuilt(_library_app(keep_css=False).stylesheet, copy) == 0


async def test_each_source_is_named_relative_to_its_package() -> None:
    from quiz.tui.css_prebuilt import localized, portable
    from quiz.tui.textual_internals import parsed_css

    app = _library_app(keep_css=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
    parsed = parsed_css(app.stylesheet)
    moved = portable(parsed)
    assert len(moved) == len(parsed) > 0
    named = {where for (_, (where, _), *_), _ in moved}
    assert ("quiz", os.path.join("quiz", "tui", "app.tcss")) in named
    assert ("textual", os.path.join("textual", "app.py")) in named
    assert localized(moved) == parsed
