"""Write Textual's parsed CSS of the start screen for a first start
(:mod:`quiz.tui.css_prebuilt`, which reads it): ``python -m quiz.tui.css_prebuild`` writes it
into a source checkout's ``build/bundled-cache``; the wheel's build hook (``hatch_build.py``)
runs ``python -m quiz.tui.css_prebuild --out FOLDER`` and ships FOLDER as
``quiz/_bundled_cache``. Run it again after changing the CSS or upgrading Textual: a file made
for another Textual is ignored (the CSS is parsed), and a changed source is parsed afresh.
Exit status 0 when the file is written, 1 when it cannot be, 2 for a usage error.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from quiz.tui.css_prebuilt import FILE, MAGIC, key_line, portable

FILE_MODE = 0o644
"""Mode of the written file: readable by whoever can read the code beside it."""


async def _parsed_at_start(banks: Path) -> tuple[dict[str, str], list[tuple[Any, Any]]]:
    """Start the app headless (100×30) on the banks of ``banks``, without a progress store,
    until its start screen shows them; the CSS variables and the rule sets parsed by then.
    The question screen is not made ahead meanwhile: its CSS is parsed after the first frame,
    and what a start reuses is unpickled before it (a later start reuses what the first
    kept: the same sources)."""
    from quiz.bank.load import load_library
    from quiz.tui.app import make_app
    from quiz.tui.screens.start import StartScreen
    from quiz.tui.textual_internals import css_variables, parsed_css

    report = load_library([banks])
    if report.library is None:
        raise RuntimeError(f"{banks}: no library loaded")
    app = make_app(report.library)
    app.ahead.prepare_question_screen = lambda: None  # type: ignore[method-assign]
    # With the tooltip and the notifications, as a start has them (run_test leaves them out).
    async with app.run_test(size=(100, 30), tooltips=True, notifications=True) as pilot:
        for _ in range(200):
            if isinstance(app.screen, StartScreen) and app.screen.form_ready:
                break
            await pilot.pause()
        else:
            raise RuntimeError("the start screen was not shown")
        await pilot.pause()
        return css_variables(app.stylesheet), parsed_css(app.stylesheet)


def prebuild(banks: Path, out: Path) -> int:
    """Write :data:`FILE` into ``out`` (created): the rule sets Textual parsed to show the
    start screen on the banks of ``banks``. Returns how many CSS sources it holds.

    Raises:
        RuntimeError: the banks did not load, the start screen was not shown, or Textual's
            identity is unknown (:func:`textual_identity`).
        OSError: ``out`` cannot be made or written."""
    from quiz.bank.cache_entry import write_entry
    from quiz.bank.shipped import CHECK_KEY

    variables, parsed = asyncio.run(_parsed_at_start(banks))
    line = key_line(variables)
    if line is None:
        raise RuntimeError("the installed Textual's RECORD cannot be read")
    out.mkdir(parents=True, exist_ok=True)
    parsed = portable(parsed)
    write_entry(out / FILE, MAGIC, line, CHECK_KEY, parsed, None, FILE_MODE)
    return len(parsed)


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    from quiz.bank.prebuild import prebuild_arguments
    from quiz.paths import bundled_bank_dir

    _, out = prebuild_arguments(
        "python -m quiz.tui.css_prebuild",
        "Write Textual's parsed CSS of the start screen, for a first start.", argv)
    try:
        count = prebuild(bundled_bank_dir(), out)
    except (RuntimeError, OSError) as exc:
        print(f"quiz css prebuild: {exc}; nothing written", file=sys.stderr)
        return 1
    print(f"quiz css prebuild: {count} CSS sources parsed, in {out / FILE}")
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())
