"""The package type-checks under ``mypy --strict`` (settings in pyproject.toml), so a wrong type
fails CI the way a ruff finding does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_strict_is_clean(request: pytest.FixtureRequest) -> None:
    pytest.importorskip("mypy")
    # mypy's incremental cache: pytest's own cache folder between local runs; under
    # ``-p no:cacheprovider`` (the landing command) mypy's own default folder, .mypy_cache
    # (git-ignored), so that landings are checked incrementally too (cold: about 15 s of CPU;
    # warm: under 1 s). A clean clone, as in CI, checks from scratch. Never written inside the
    # package.
    pytest_cache = getattr(request.config, "cache", None)
    cache = pytest_cache.mkdir("mypy") if pytest_cache is not None else ROOT / ".mypy_cache"
    # The package, and a stated subset of the tests: the top-level test modules, the shared
    # fixtures and tests/results (the older folders, bank, footprint, study and tui, predate
    # it). One run for both: the tests import the package, so a second run would load and
    # check its cache again.
    tests = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests").glob("*.py"))]
    out = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-error-summary",
                          "--cache-dir", str(cache), "quiz", *tests, "tests/results"],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
