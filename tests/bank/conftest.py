"""Fixtures for the bank loader tests: each loader test runs with libyaml and the pure parser."""

from __future__ import annotations

import pytest


@pytest.fixture(params=[False, True], ids=["libyaml", "pure"])
def pure(request: pytest.FixtureRequest) -> bool:
    """``pure_python`` for the loader: False uses libyaml (when PyYAML has it), True the pure
    Python parser."""
    return bool(request.param)
