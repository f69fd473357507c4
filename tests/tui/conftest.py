"""Fixtures of the pilot tests (tests/tui, marked ``tui``): the only tests that import Textual,
so that the core layer (``pytest -m "not tui"``) runs without it."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_cursor_blink(monkeypatch: pytest.MonkeyPatch) -> None:
    """Blinking cursors make screenshots differ from run to run."""
    from textual.widgets import Input

    monkeypatch.setattr(Input, "cursor_blink", False, raising=False)
