"""What the app's modules import at their top (``IMPORT_QUIZ`` in benchmarks/run.py, the
first lines of the program whose modules at its first paint the benchmark's "imports before
first paint" row imports, issue 26): beyond what Textual's app and the start screen's widgets
import (the floor), ``quiz.cli``, ``quiz.cli.study`` and ``quiz.tui.app`` import quiz's own
modules of the start screen and nothing else. What the app uses later, or reads once it runs
(the banks' modules, the progress store, argparse's parser, json and hashlib for its caches),
is imported where it is used; the row counts it too when that runs before the first paint."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

ALLOWED_BEYOND_FLOOR = {"gc", "textual.widgets.selection_list", "_blake2"}
"""Modules other than quiz's that the app's imports add to the floor's: a builtin, the
selection list's public module (its class is in the floor already), and CPython's BLAKE2
(:mod:`quiz.digest`: the caches' key lines and checks, read at every start, without hashlib's
OpenSSL)."""

NOT_BEFORE_PAINT = ("quiz.bank.library", "quiz.bank.load", "quiz.bank.model", "quiz.paths",
                    "quiz.study.launch", "quiz.study.mode", "quiz.study.store", "quiz.footprint",
                    "quiz.tui.screens.question", "pydantic", "yaml")
"""Modules of quiz (and its dependencies) that importing the app must not import."""


def _benchmark_imports() -> dict[str, str]:
    """The benchmark's own import lines (``IMPORT_FLOOR``, ``IMPORT_QUIZ`` in
    benchmarks/run.py), read from its source so that this test measures what it measures."""
    tree = ast.parse((ROOT / "benchmarks" / "run.py").read_text(encoding="utf-8"))
    return {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
            if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in ("IMPORT_FLOOR", "IMPORT_QUIZ")}


def _modules_after(code: str) -> set[str]:
    """Every module in ``sys.modules`` of a fresh interpreter after running ``code``."""
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint(*sys.modules)"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return set(out.stdout.split())


def _beyond_floor(extra: str = "") -> tuple[set[str], set[str]]:
    """The modules the app's imports (and ``extra``) add to the floor's: (quiz's, others)."""
    lines = _benchmark_imports()
    floor = _modules_after(lines["IMPORT_FLOOR"])
    added = _modules_after(lines["IMPORT_QUIZ"] + extra) - floor
    return ({m for m in added if m == "quiz" or m.startswith("quiz.")},
            {m for m in added if m != "quiz" and not m.startswith("quiz.")})


def test_the_app_imports_only_its_start_screen_before_the_first_paint() -> None:
    ours, others = _beyond_floor()
    assert others <= ALLOWED_BEYOND_FLOOR, sorted(others - ALLOWED_BEYOND_FLOOR)
    assert "quiz.tui.screens.start" in ours
    imported = sorted(m for m in ours | others
                      if any(m == n or m.startswith(n + ".") for n in NOT_BEFORE_PAINT))
    assert imported == []


def test_the_check_sees_a_module_imported_at_the_top() -> None:
    """The test above can fail: a module imported with the app is found."""
    ours, others = _beyond_floor("\nimport json\nimport quiz.study.launch")
    assert "json" in others and "quiz.study.launch" in ours


def test_the_progress_bar_is_imported_only_for_a_load() -> None:
    """A start the validated-bank cache serves shows no progress: Textual's progress bar (in
    the floor, 1.7 ms) is imported by the start screen only when it shows a load; nor is the
    checkbox (0.3 ms) imported, which the start screen does not show."""
    app = _modules_after(_benchmark_imports()["IMPORT_QUIZ"])
    assert "textual.widgets._progress_bar" not in app
    assert "textual.widgets._checkbox" not in app
    assert "textual.widgets._progress_bar" in _modules_after(
        _benchmark_imports()["IMPORT_QUIZ"] + "\nfrom textual.widgets import ProgressBar")


def test_the_app_parts_are_plain_mixins() -> None:
    """QuizApp's parts (quiz.tui.app_state) are plain mixins at run time, so that Textual does
    not make a class of each before the first paint: none may hold what Textual reads from the
    classes derived from App (it would be ignored on a mixin)."""
    from textual.app import App
    from textual.reactive import Reactive

    from quiz.tui.app import QuizApp
    from quiz.tui.commands import AppCommands
    from quiz.tui.loading import LoadsBanks

    assert QuizApp.__mro__[1:4] == (LoadsBanks, AppCommands, App)
    for part in (LoadsBanks, AppCommands):
        assert not issubclass(part, App)
        held = [name for name, value in vars(part).items()
                if name in ("BINDINGS", "CSS", "CSS_PATH", "DEFAULT_CSS", "COMPONENT_CLASSES",
                            "_decorated_handlers") or isinstance(value, Reactive)]
        assert held == [], f"{part.__name__} holds {held}: move them to QuizApp"


PUT_OFF_UNTIL_AFTER_PAINT = ("quiz.bank.load", "quiz.bank.load_progress", "quiz.bank.model",
                             "quiz.study.store_records", "quiz.study.launch", "quiz.study.mode",
                             "quiz.study.lifecycle", "quiz.tui.screens.too_small",
                             "concurrent.futures.thread", "secrets", "pydantic", "yaml")
"""What a start served by the cache does not import before its first paint, though it runs
(the full loader, the store's records, the default launch, the decoding worker's thread, the
"make the window larger" screen): the benchmark's row counts every module at the paint."""


def test_a_cached_start_puts_off_what_its_first_frame_does_not_need(tmp_path: Path) -> None:
    """The modules a start of the bundled bank served by its prebuilt entries has imported by
    its first frame (recorded in a pseudo-terminal at ``QuizApp._drawn_first``, as the
    benchmark does): the store (the start form's remembered settings) and the cache's index
    reader are there, none of :data:`PUT_OFF_UNTIL_AFTER_PAINT`."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import run as bench
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    prebuilt = tmp_path / "prebuilt"
    env = {**os.environ, "TERM": "xterm-256color", "QUIZ_PREBUILT_DIR": str(prebuilt),
           "QUIZ_CACHE_DIR": str(tmp_path / "cache"), "QUIZ_DATA_DIR": str(tmp_path / "data"),
           "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-m", "quiz.bank.prebuild", "--out", str(prebuilt)],
                   check=True, stdout=subprocess.DEVNULL, env=env, cwd=ROOT)
    modules = set(bench.modules_at_paint(bench.QUIZ_AT_PAINT, [str(ROOT / "question_bank")],
                                         env, tmp_path))
    assert {"quiz.bank.cached_start", "quiz.study.store", "quiz.study.start_settings",
            "quiz.tui.screens.start"} <= modules
    imported = sorted(m for m in modules
                      if any(m == n or m.startswith(n + ".") for n in PUT_OFF_UNTIL_AFTER_PAINT))
    assert imported == []
