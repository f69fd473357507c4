"""The package type-checks under ``mypy --strict`` (settings in pyproject.toml), so a wrong type
fails CI the way a ruff finding does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_is_clean(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    # pytest's own cache folder keeps mypy's cache between local runs (a clean clone, as in CI,
    # checks from scratch: a few seconds); it is never written inside the package. Under
    # ``-p no:cacheprovider`` (the landing command) there is no ``config.cache``: mypy then
    # caches in the test's temporary folder.
    pytest_cache = getattr(request.config, "cache", None)
    cache = pytest_cache.mkdir("mypy") if pytest_cache is not None else tmp_path / "mypy"
    command = [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", "--cache-dir",
               str(cache)]
    out = subprocess.run([*command, "quiz"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    # The tests are type-checked too, a stated subset: the top-level test modules, the shared
    # fixtures and tests/results. The older folders (bank, footprint, study, tui) predate it.
    tests = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests").glob("*.py"))]
    out = subprocess.run([*command, *tests, "tests/results"], cwd=ROOT, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
