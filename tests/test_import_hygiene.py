"""The core never imports Textual or Rich: it stays testable and fast to import without a
terminal (harlequin's tests/unit_tests/test_import_hygiene.py does the same)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("module", ["quiz", "quiz.cli", "quiz.bank.load", "quiz.bank.library",
                                    "quiz.study.session", "quiz.footprint", "quiz.cli.footprint"])
def test_core_does_not_import_textual(module: str) -> None:
    code = (f"import sys, {module}; "
            "leaks = sorted(m for m in ('textual', 'rich') if m in sys.modules); "
            "print(','.join(leaks))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"


TESTS = Path(__file__).resolve().parent
UI_MODULES = ("textual", "quiz.tui", "tests.tui")
"""What the core tests never import (Rich, which Textual draws with, may serve as an oracle:
tests/bank/test_characters.py checks cell widths against it)."""


def _ui_imports(node: ast.AST) -> list[int]:
    """Lines under ``node`` that import Textual or the app (at any depth, skipping the tests
    marked ``tui``)."""
    lines = []
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
                ast.unparse(d).startswith("pytest.mark.tui") for d in child.decorator_list):
            continue
        names: list[str] = []
        if isinstance(child, ast.Import):
            names = [a.name for a in child.names]
        elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
            names = [child.module]
        if isinstance(child, (ast.Import, ast.ImportFrom)) and any(
                n == m or n.startswith(m + ".") for n in names for m in UI_MODULES):
            lines.append(child.lineno)
        lines += _ui_imports(child)
    return lines


def test_the_core_tests_do_not_import_textual() -> None:
    """``pytest -m "not tui"`` runs without Textual: no test outside tests/tui (nor a shared
    fixture) imports Textual or the app, unless it is marked ``tui``."""
    found = [f"{path.relative_to(TESTS.parent)}:{line}"
             for path in sorted(TESTS.rglob("*.py")) if TESTS / "tui" not in path.parents
             for line in _ui_imports(ast.parse(path.read_text(encoding="utf-8")))]
    assert found == [], ("these tests import Textual or the app: mark each @pytest.mark.tui (or "
                         "move it to tests/tui)")
