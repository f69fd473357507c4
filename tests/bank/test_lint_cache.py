"""The lint cache (quiz.bank.lint_cache): ``quiz validate`` of an unchanged library reports the
same output, byte for byte, without parsing or linting its files again; an entry that fails its
check, or was made by another linter or calculator, is ignored and made again."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from quiz.bank import lint, lint_cache, load
from quiz.cli import main
from tests.bank.computed.test_handtyped import BANK as COMPUTED
from tests.bank.test_lint import GOOD, HEAD, question


def _library(folder: Path) -> Path:
    """Three bank files with findings of many rules: placeholders, short texts, no reference,
    a near-duplicate stem across files, hand-typed figures, and a loader warning (one topic
    named two ways)."""
    folder.mkdir()
    (folder / "a.yaml").write_text(HEAD + question() + question(
        id="q3", question="TODO: which part of training memory grows with the batch?",
        short="Too short.", refs="") + question(id="q4", question="Which is not kept?",
                                                D="Sixteen bytes " * 6), encoding="utf-8")
    other = HEAD.replace("id: demo", "id: other").replace("Memory footprint", "Memory")
    stem = GOOD["question"].upper().replace("?", " ?!")
    (folder / "b.yaml").write_text(other + question(id="q2", question=stem), encoding="utf-8")
    (folder / "c.yaml").write_text(COMPUTED.replace("id: demo", "id: computed").replace(
        "- id: q1", "- id: c1"),
                                   encoding="utf-8")
    return folder


def _validate(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status = main(["validate", *args])
    return status, capsys.readouterr().out


def _entries() -> list[Path]:
    return sorted((Path(os.environ["QUIZ_CACHE_DIR"]) / "lint").glob("*.bank"))


def _refuse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make parsing or linting a file fail the test: a cached run does neither."""
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a file was parsed or linted again")

    monkeypatch.setattr(lint, "lint_bank", boom)
    monkeypatch.setattr(load, "_load_into", boom)


def test_a_cached_run_prints_what_a_first_run_prints(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    library = _library(tmp_path / "library")
    first = _validate(capsys, str(library))
    assert first[0] == 1  # Q102 is an error
    for rule in ("Q101", "Q102", "Q104", "Q107", "Q108", "Q111", "Q114"):
        assert f": {rule} " in first[1], rule
    assert "topic 'memory' is already named 'Memory footprint'" in first[1]
    assert len(_entries()) == 3
    json_first = _validate(capsys, "--format", "json", "--select", "Q101,Q114", str(library))
    strict_first = _validate(capsys, "--strict", "--ignore", "Q102", str(library))
    _refuse(monkeypatch)
    assert _validate(capsys, str(library)) == first
    assert _validate(capsys, "--format", "json", "--select", "Q101,Q114",
                     str(library)) == json_first
    assert _validate(capsys, "--strict", "--ignore", "Q102", str(library)) == strict_first


def test_a_changed_file_is_checked_again(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         ) -> None:
    library = _library(tmp_path / "library")
    assert "100% alike" in _validate(capsys, str(library))[1]
    path = library / "b.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(" ?!", " now?"), encoding="utf-8")
    again = _validate(capsys, str(library))
    assert again == _validate(capsys, "--no-cache", str(library))
    assert "90% alike" in again[1]
    assert "100% alike" not in again[1]


def test_a_tampered_entry_is_ignored_not_trusted(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    library = _library(tmp_path / "library")
    first = _validate(capsys, str(library))
    for entry in _entries():
        data = entry.read_bytes()
        if b"hand-typed figure" in data:  # the computed bank's entry: rewrite a finding
            entry.write_bytes(data.replace(b"hand-typed figure", b"HAND-TYPED FIGURE"))
            break
    else:
        raise AssertionError("no entry holds the Q114 findings")
    linted: list[str] = []
    real = lint.lint_bank

    def counting(bank: Any, *args: Any) -> Any:
        linted.append(bank.path.name)
        return real(bank, *args)

    monkeypatch.setattr(lint, "lint_bank", counting)
    assert _validate(capsys, str(library)) == first
    assert linted == ["c.yaml"]  # only the tampered one was checked again
    _refuse(monkeypatch)
    assert _validate(capsys, str(library)) == first  # and stored again, intact


def test_another_linter_or_calculator_makes_every_entry_a_miss(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    library = _library(tmp_path / "library")
    first = _validate(capsys, str(library))
    monkeypatch.setattr(lint_cache, "lint_fingerprint", lambda: "another linter")
    linted: list[str] = []
    real = lint.lint_bank
    monkeypatch.setattr(lint, "lint_bank",
                        lambda bank, *args: linted.append(bank.path.name) or real(bank, *args))
    assert _validate(capsys, str(library)) == first
    assert linted == ["a.yaml", "b.yaml", "c.yaml"]


def test_the_fingerprint_covers_the_calculator_and_the_rules() -> None:
    lint_cache.lint_fingerprint.cache_clear()
    before = lint_cache.lint_fingerprint()
    assert before == lint_cache.lint_fingerprint()
    original = lint.DUPLICATE_SIMILARITY
    try:
        lint.DUPLICATE_SIMILARITY = 0.9  # type: ignore[misc]
        lint_cache.lint_fingerprint.cache_clear()
        assert lint_cache.lint_fingerprint() != before
    finally:
        lint.DUPLICATE_SIMILARITY = original  # type: ignore[misc]
        lint_cache.lint_fingerprint.cache_clear()


def test_a_run_of_some_rules_stores_nothing(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    library = _library(tmp_path / "library")
    selected = _validate(capsys, "--select", "Q104", str(library))
    assert _entries() == []
    _validate(capsys, str(library))
    assert len(_entries()) == 3
    assert _validate(capsys, "--select", "Q104", str(library)) == selected


def test_files_are_let_go_once_linted(tmp_path: Path) -> None:
    library = _library(tmp_path / "library")
    checked = lint_cache.check_library([library], None, None)
    assert checked.report.library is not None
    assert [bank.decoded for bank in checked.report.library.banks] == [False] * 3
    assert checked.report.library.question_count == 5
    assert [q.id for q in checked.report.library.banks[1].questions] == ["q2"]  # read again
