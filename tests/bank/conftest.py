"""Fixtures for the bank loader tests: each loader test runs with libyaml and the pure parser."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from quiz.bank import load as load_module


@pytest.fixture(params=[False, True], ids=["libyaml", "pure"])
def pure(request: pytest.FixtureRequest) -> bool:
    """``pure_python`` for the loader: False uses libyaml (when PyYAML has it), True the pure
    Python parser."""
    return bool(request.param)


def _record_full_loads(monkeypatch: pytest.MonkeyPatch,
                       name: Callable[[str], str]) -> list[str]:
    """Patch the loader so that every file loaded in full (parsed and validated, not served by
    a cache) is appended, as ``name`` of its path, to the list returned."""
    loads: list[str] = []
    real = load_module._load_text

    def counting(text: str | bytes, path: str, pure_python: bool,
                 tracker: object = None) -> load_module._FileResult:
        loads.append(name(path))
        return real(text, path, pure_python)

    monkeypatch.setattr(load_module, "_load_text", counting)
    return loads


@pytest.fixture
def full_loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths loaded in full (parsed and validated), in order."""
    return _record_full_loads(monkeypatch, str)


@pytest.fixture
def full_load_names(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The file names (without their folders) loaded in full, in order."""
    return _record_full_loads(monkeypatch, lambda path: Path(path).name)
