"""The calculator core never imports Textual or rich (harlequin's import-hygiene test)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import sys
import quiz.footprint
assert 'quiz.footprint.inputs.spec' not in sys.modules, 'quiz.footprint must import lazily'
from quiz.footprint import FootprintSpec, estimate, render_report, derivation_steps
report = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b", "gpu": "h100-80gb"}))
render_report(report, explain=True)
derivation_steps(report)
import quiz.cli.footprint
bad = sorted(m for m in sys.modules if m.split('.')[0] in ('textual', 'rich'))
assert not bad, bad
print('ok')
"""

CLASH = """
import quiz.footprint.engine.estimate, quiz.cli.footprint  # submodules first, then the re-export
from quiz.footprint import estimate
assert callable(estimate) and estimate.__module__ == 'quiz.footprint.engine.estimate', estimate
print('ok')
"""


def test_footprint_never_imports_textual_or_rich() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CODE], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_estimate_is_always_the_function() -> None:
    """No submodule is called ``estimate``: importing submodules first cannot shadow the
    re-exported function with a module."""
    done = subprocess.run(
        [sys.executable, "-c", CLASH], capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert done.returncode == 0, done.stderr
