"""Command-line edges (issue 19 §4): a seed too large for the store, empty paths, file names
with a newline, ``quiz help help``, ``--yes`` without ``--reset``."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.bank.library import Diagnostic, quoted_path
from quiz.cli import main


def test_a_29_digit_seed_is_a_usage_error_naming_the_range(
        capsys: pytest.CaptureFixture[str]) -> None:
    # It used to pass argparse and crash with OverflowError when SQLite stored it.
    assert main(["exam", "--seed", "1" * 29]) == 2
    err = capsys.readouterr().err
    assert "argument --seed: must be from 0 to 9,223,372,036,854,775,807" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("seed", ["-1", "9223372036854775808", "1.5"])
def test_seeds_outside_the_store_range_are_refused(
        seed: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--seed", seed]) == 2
    assert "argument --seed" in capsys.readouterr().err


def test_the_largest_seed_is_accepted() -> None:
    from quiz.cli.study import MAX_SEED, seed_value

    assert seed_value(str(MAX_SEED)) == MAX_SEED == 2**63 - 1


def test_validate_with_an_empty_path_is_an_error_not_the_current_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["validate", ""]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("'': error: an empty path names no bank file or folder (for "
                                   "the current folder, write .)")


@pytest.mark.parametrize("command", [["stats"], ["exam"], ["review"], []])
def test_an_empty_data_dir_is_a_usage_error(command: list[str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--data-dir", ""]) == 2
    assert "argument --data-dir: an empty path names no folder" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # no progress file made in the current folder


def test_a_file_name_with_a_newline_stays_on_one_diagnostic_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "a\nb"
    folder.mkdir()
    bad = folder / 'x"y\t.yaml'
    bad.write_text("bank: {id: x\n", encoding="utf-8")
    assert main(["validate", str(bad)]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    quoted = '"' + str(tmp_path).replace("\\", "\\\\") + '/a\\nb/x\\"y\\t.yaml"'
    assert first.startswith(f"{quoted}:2:1: error: ")


def test_quoted_path_leaves_ordinary_names_alone_and_escapes_the_rest() -> None:
    assert quoted_path("banks/mémoire ü.yaml") == "banks/mémoire ü.yaml"
    assert quoted_path("a\u2028b\x1b[31m\udcff") == '"a\\u2028b\\x1b[31m\\xff"'
    assert str(Diagnostic("a\rb", 0, 0, "m")) == '"a\\rb": error: m'


def test_quiz_help_help_explains_help(capsys: pytest.CaptureFixture[str]) -> None:
    # It said "'help' is neither a command ...; did you mean 'help'?" and exited 2.
    assert main(["help", "help"]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("usage: quiz help [COMMAND]\n") and out.err == ""


def test_stats_yes_without_reset_is_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--yes", "--data-dir", str(tmp_path)]) == 2
    assert "--yes only answers --reset's question" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing opened
