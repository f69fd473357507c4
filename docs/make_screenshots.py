"""Regenerate the README's screenshots with the app itself (SVG, by Textual).

    .venv/bin/python docs/make_screenshots.py

Runs the app headless on the bundled bank with a fixed seed, answers the first question wrongly
and saves the reveal; then opens the footprint calculator and saves it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from quiz.bank.load import load_library
from quiz.paths import bundled_bank_dir
from quiz.tui.app import make_app

HERE = Path(__file__).resolve().parent


async def main() -> None:
    report = load_library([bundled_bank_dir()])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    app = make_app(report.library, shuffle=False)
    async with app.run_test(size=(100, 34)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause(0.3)
        app.save_screenshot(filename="screenshot.svg", path=str(HERE))
        await pilot.press("m")
        await pilot.pause(0.3)
        app.save_screenshot(filename="calculator.svg", path=str(HERE))


if __name__ == "__main__":
    asyncio.run(main())
