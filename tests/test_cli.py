"""The command line: --version, --help, validate exit codes, a broken bank never starts the TUI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quiz import __version__
from quiz.cli import main
from tests.conftest import SEED_BANK


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quiz", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=60, stdin=subprocess.DEVNULL)


BANK_ROOT = Path(__file__).resolve().parent.parent / "question_bank"


def test_version_and_help() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"quiz {__version__}"
    out = run("--help")
    assert out.returncode == 0
    assert "quiz validate [PATH...]" in out.stdout and "quiz footprint" in out.stdout


def test_validate_bundled_bank_is_clean() -> None:
    # The bundled bank's size changes with its content: its counts are asserted by
    # tests/bank/test_bundled_bank.py; here only that it is clean, with no warnings (and so no
    # figure typed by hand: rule Q114, issue 20).
    out = run("validate", "--strict", str(BANK_ROOT))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "warning" not in out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1].startswith("ok: ")


def test_validate_frozen_seed_bank_counts_its_questions() -> None:
    out = run("validate", str(SEED_BANK))
    assert out.returncode == 0, out.stdout + out.stderr
    assert out.stdout.strip().splitlines()[-1].startswith("ok: 2 questions in 1 bank")


def test_validate_broken_bank_prints_located_errors_and_exits_1(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "bank: {id: b, title: T}\n"
        "questions:\n"
        "  - id: q1\n"
        "    topic: memory\n"
        "    question: Why?\n"
        "    options: {A: x, B: y}\n"
        "    anwser: A\n"
        "    short_explanation: s\n"
        "    full_explanation: f\n"
        "    distractor_review: {B: no}\n",
        encoding="utf-8",
    )
    out = run("validate", str(bad))
    assert out.returncode == 1
    assert f"{bad}:7:5: error: " in out.stdout
    assert "did you mean 'answer'" in out.stdout


def test_validate_without_a_path_checks_the_bundled_bank() -> None:
    # As ``quiz`` studies the bundled bank without a path, ``quiz validate`` checks it.
    bare, named = run("validate"), run("validate", str(BANK_ROOT))
    assert bare.returncode == 0, bare.stdout + bare.stderr
    assert bare.stdout == named.stdout and bare.stdout.startswith("ok: ")


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main(["validate", "--select", "Q999"]) == 2
    assert main(["--no-such-flag"]) == 2


def test_broken_bank_does_not_start_the_app(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("- just\n- a list\n", encoding="utf-8")
    out = run(str(bad))
    assert out.returncode == 1
    assert str(bad) in out.stderr and "fix the errors above" in out.stderr


def test_installed_package_finds_its_bundled_bank_from_any_directory(tmp_path: Path) -> None:
    """After a plain (non-editable) ``pip install .`` the bank ships inside the wheel."""
    code = ("import quiz, quiz.paths; print(quiz.__file__); "
            "print(sorted(p.name for p in quiz.paths.bundled_bank_dir().glob('*.yaml')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, timeout=60)
    if out.returncode != 0 and "No module named 'quiz'" in out.stderr:
        import pytest

        pytest.skip("quiz is not installed in this environment (run the README's command)")
    assert out.returncode == 0, out.stderr
    where, banks = out.stdout.strip().splitlines()
    shipped = sorted(p.name for p in BANK_ROOT.glob("*.yaml"))
    assert shipped and banks == str(shipped)


def _bank_with_a_warning_and_an_error(tmp_path: Path, *, error: bool) -> Path:
    """A bank whose question has a warning (a diagram wider than 76 columns), and, with
    ``error``, a second file with an unknown key."""
    good = tmp_path / "good.yaml"
    good.write_text(
        "bank: {id: b, title: T}\n"
        "questions:\n"
        "  - id: q1\n"
        "    topic: memory\n"
        "    question: Why?\n"
        "    options: {A: x, B: y}\n"
        "    answer: A\n"
        "    short_explanation: s\n"
        f"    infographic: {{text: '{'x' * 90}'}}\n"
        "    full_explanation: f\n"
        "    distractor_review: {B: no}\n",
        encoding="utf-8",
    )
    if error:
        (tmp_path / "bad.yaml").write_text(
            good.read_text(encoding="utf-8").replace("id: b,", "id: c,")
            .replace("id: q1", "id: q2").replace("answer:", "anwser:"), encoding="utf-8")
    return tmp_path


def test_mistyped_subcommand_says_did_you_mean_and_exits_2(tmp_path: Path) -> None:
    """Issue 7 item 19: a typo of a command is not taken for a bank path."""
    for typo, meant in (("valdate", "validate"), ("footprnt", "footprint"), ("hepl", "help")):
        out = run(typo, "x.yaml", cwd=tmp_path)
        assert out.returncode == 2, (typo, out.stdout, out.stderr)
        assert f"did you mean '{meant}'?" in out.stderr
        assert "no such file" not in out.stderr and out.stdout == ""


def test_an_existing_path_that_looks_like_a_command_is_still_a_bank(tmp_path: Path) -> None:
    """A folder named like a typo of a command is studied, not corrected."""
    (tmp_path / "valdate").mkdir()
    out = run("valdate", cwd=tmp_path)
    assert "did you mean" not in out.stderr
    assert "valdate" in out.stderr  # the loader's message about the (empty) folder


def test_quiz_help_prints_the_overview_and_each_command_help() -> None:
    out = run("help")
    assert out.returncode == 0
    assert "quiz validate [PATH...]" in out.stdout and "quiz footprint" in out.stdout
    assert "quiz help [COMMAND]" in out.stdout
    out = run("help", "validate")
    assert out.returncode == 0 and out.stdout.startswith("usage: quiz validate")
    out = run("help", "valdate")
    assert out.returncode == 2 and "did you mean 'validate'?" in out.stderr


def test_a_subcommand_is_one_entry_in_the_command_table(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Adding a command to COMMANDS is enough for dispatch, the overview and typo hints."""
    from quiz import cli

    seen: list[list[str]] = []

    def stats(argv: list[str]) -> int:
        seen.append(argv)
        return 0

    table = dict(cli.COMMANDS)
    table["stats"] = cli.Command("stats", "[--days N]", "progress per topic", stats)
    monkeypatch.setattr(cli, "COMMANDS", table)
    assert main(["stats", "--days", "7"]) == 0 and seen == [["--days", "7"]]
    assert main(["help"]) == 0
    assert "quiz stats [--days N]" in capsys.readouterr().out
    assert main(["stast"]) == 2
    assert "did you mean 'stats'?" in capsys.readouterr().err


def test_validate_prints_everything_to_stdout(tmp_path: Path) -> None:
    """Issue 7 item 20: one convention: diagnostics and the count on stdout, status in the
    exit code."""
    folder = _bank_with_a_warning_and_an_error(tmp_path, error=True)
    out = run("validate", str(folder))
    assert out.returncode == 1 and out.stderr == ""
    lines = out.stdout.strip().splitlines()
    assert any(": warning: " in line for line in lines)
    assert any(": error: " in line for line in lines)
    assert lines[-1] == "1 error, 1 warning"


def test_validate_quiet_prints_errors_only(tmp_path: Path) -> None:
    """``-q``: the errors, nothing else; a clean bank prints nothing at all."""
    folder = _bank_with_a_warning_and_an_error(tmp_path, error=False)
    out = run("validate", "-q", str(folder))
    assert out.returncode == 0 and out.stdout == "" and out.stderr == ""
    out = run("validate", "-q", str(SEED_BANK))
    assert out.returncode == 0 and out.stdout == ""
    folder = _bank_with_a_warning_and_an_error(tmp_path, error=True)
    out = run("validate", "-q", str(folder))
    lines = out.stdout.strip().splitlines()
    assert out.returncode == 1 and len(lines) == 1 and ": error: unknown key 'anwser'" in lines[0]


def test_study_without_a_terminal_exits_2_with_pointers() -> None:
    """Issue 7 item 4: ``quiz </dev/null >out`` neither starts the TUI nor hangs."""
    out = subprocess.run([sys.executable, "-m", "quiz"], capture_output=True, text=True,
                         timeout=30, stdin=subprocess.DEVNULL)
    assert out.returncode == 2
    assert out.stdout == ""
    assert "quiz: the study app needs a terminal" in out.stderr
    assert "quiz validate" in out.stderr and "quiz footprint" in out.stderr


def test_output_cut_short_by_its_reader_ends_quietly(tmp_path: Path) -> None:
    """``quiz validate BANK | head -1``: the reader closes the pipe after one line; the
    command stops without a traceback and with the shell's status for SIGPIPE."""
    bank = tmp_path / "many.yaml"
    questions = "".join(
        f"  - id: q{i}\n    topic: memory\n    question: Which?\n"
        f"    options: {{A: one, B: two}}\n    answer: C\n" for i in range(400))
    bank.write_text("bank:\n  id: many\n  title: Many\n  topics: {memory: Memory}\n"
                    "questions:\n" + questions, encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "quiz", "validate", str(bank)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as head does after its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141
    assert first.startswith(str(bank).encode()) and b"error" in first
    assert "Traceback" not in err and "BrokenPipeError" not in err


@pytest.mark.parametrize("mode", [None, "exam", "review"])
@pytest.mark.parametrize("argv", [[], ["bank.yaml"], ["a.yaml", "folder", "with space/b.yaml"],
                                  ["", "x-y.yaml"]])
def test_paths_only_gives_what_argparse_gives(mode: str | None, argv: list[str]) -> None:
    """The usual start skips argparse (:func:`quiz.cli.study.paths_only`): its options must be
    argparse's own for the same arguments, every default included (an option added to the
    parser and not here fails this)."""
    from quiz.cli.study import paths_only, study_parser

    fast = paths_only(argv, mode)
    assert fast is not None
    assert vars(fast) == vars(study_parser(mode).parse_args(argv))


@pytest.mark.parametrize("argv", [["--topic", "memory"], ["bank.yaml", "--seed", "3"], ["-"],
                                  ["--", "bank.yaml"], ["-h"]])
def test_arguments_with_options_go_to_argparse(argv: list[str]) -> None:
    from quiz.cli.study import paths_only

    assert paths_only(argv, None) is None
    assert paths_only(argv, "exam") is None

