"""Shared fixtures: every test runs with its own data folder, a fixed seed and no cursor blink."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from quiz.bank.library import Library, LoadedBank
from quiz.bank.model import BankFile

TUI_TESTS = Path(__file__).resolve().parent / "tui"


LONG_POLES = ("tests/test_types.py::", "tests/test_benchmarks.py::",
              "tests/tui/test_bundled_bank_run.py::", "tests/tui/test_serve.py::")
"""The tests that take longest by far (mypy from a cold cache, the benchmark's fresh processes,
every bundled question in the app, a browser): run first, so that under ``-n auto`` each
overlaps the many short tests instead of starting last and keeping the run waiting for it."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test under tests/tui drives the Textual app: mark it ``tui``, so that
    ``pytest -m "not tui"`` runs the fast core layer alone. The :data:`LONG_POLES` go first
    (the same order in every xdist worker: it depends on the node ids alone)."""
    for item in items:
        if TUI_TESTS in item.path.parents:
            item.add_marker(pytest.mark.tui)
    items.sort(key=lambda item: not item.nodeid.startswith(LONG_POLES))


SEED_BANK = Path(__file__).resolve().parent / "fixtures" / "seed_bank"
"""A frozen copy of the two-question seed bank (a folder with one bank file). Tests that need a
real bank use it instead of the bundled ``question_bank/``, whose content changes."""


BUNDLED_BANK = Path(__file__).resolve().parent.parent / "question_bank"


@pytest.fixture(scope="session")
def bundled_library() -> Library:
    """The bundled bank (question_bank/), loaded once per test process and shared: tests read
    it, none may change it. It must load without a diagnostic."""
    from quiz.bank.load import load_library

    report = load_library([BUNDLED_BANK])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    assert report.diagnostics == [], [str(d) for d in report.diagnostics]
    return report.library


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point the user data and cache folders at temporary ones: tests never touch the real
    home; and use no prebuilt bank entries (tests/bank/test_shipped.py makes its own)."""
    data = tmp_path / "quiz-data"
    monkeypatch.setenv("QUIZ_DATA_DIR", str(data))
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(tmp_path / "quiz-cache"))
    # No prebuilt entries (quiz/bank/shipped.py): a checkout's build/bundled-cache, there once
    # `python -m quiz.bank.prebuild` ran, must not decide what a test loads.
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", "")
    return data


def question_data(qid: str = "q1", *, topic: str = "memory", answer: Any = "B",
                  options: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    """A valid question as plain data (what the YAML loader builds), with overrides."""
    opts = options or {"A": "Alpha", "B": "Bravo", "C": "Charlie", "D": "Delta"}
    right = {answer} if isinstance(answer, str) else set(answer)
    data: dict[str, Any] = {
        "id": qid,
        "topic": topic,
        "question": f"Stem of {qid}?",
        "options": opts,
        "answer": answer,
        "short_explanation": f"Short explanation of {qid}.",
        "full_explanation": f"Full explanation of {qid}.",
        "distractor_review": {k: f"{v} is wrong because reasons." for k, v in opts.items()
                              if k not in right},
    }
    data.update(extra)
    return data


def make_library(*questions: dict[str, Any], topics: dict[str, str] | None = None,
                 title: str = "Test bank") -> Library:
    """A one-bank library validated by the real model (no YAML involved)."""
    bank = BankFile.model_validate({
        "bank": {"id": "test-bank", "title": title,
                 "topics": topics or {"memory": "Memory footprint", "precision": "Precision"}},
        "questions": list(questions),
    })
    return Library(banks=(LoadedBank(Path("test.yaml"), bank.bank, tuple(bank.questions)),),
                   topics=dict(bank.bank.topics))


def seed_library() -> Library:
    """The frozen seed bank (:data:`SEED_BANK`) loaded by the real loader; it must load clean."""
    from quiz.bank.load import load_library

    report = load_library([SEED_BANK])
    assert report.library is not None and not report.diagnostics, [
        str(d) for d in report.diagnostics]
    return report.library
