"""The core never imports Textual or Rich: it stays testable and fast to import without a
terminal (harlequin's tests/unit_tests/test_import_hygiene.py does the same)."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.parametrize("module", ["quiz", "quiz.cli", "quiz.bank.load", "quiz.bank.library",
                                    "quiz.study.session", "quiz.footprint", "quiz.cli.footprint"])
def test_core_does_not_import_textual(module: str) -> None:
    code = (f"import sys, {module}; "
            "leaks = sorted(m for m in ('textual', 'rich') if m in sys.modules); "
            "print(','.join(leaks))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} imports {out.stdout.strip()}"
