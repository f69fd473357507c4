"""The calculator screen opened as a student opens it: ``m`` from a one-question bank."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.pilot import Pilot

from quiz.tui.app import QuizApp, make_app
from quiz.tui.screens.footprint import FootprintScreen
from tests.conftest import make_library, question_data

Opened = tuple[QuizApp, Pilot[None], FootprintScreen]
"""What :func:`open_calculator` yields: the app, its pilot and the calculator screen."""


@asynccontextmanager
async def open_calculator(size: tuple[int, int] = (120, 40)) -> AsyncIterator[Opened]:
    """Run the app on a one-question bank at ``size`` (columns, rows), press ``m`` and yield
    ``(app, pilot, screen)`` with the calculator on top (asserted)."""
    app = make_app(make_library(question_data("q1")), shuffle=False)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await pilot.press("m")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FootprintScreen)
        yield app, pilot, screen
