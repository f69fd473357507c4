"""The command line: --version, --help, validate exit codes, a broken bank never starts the TUI."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from quiz import __version__
from quiz.cli import main


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "quiz", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=60)


def test_version_and_help() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"quiz {__version__}"
    out = run("--help")
    assert out.returncode == 0
    assert "quiz validate PATH" in out.stdout and "quiz footprint" in out.stdout


def test_validate_bundled_bank_is_clean() -> None:
    root = Path(__file__).resolve().parent.parent
    out = run("validate", str(root / "question_bank"))
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


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert main(["validate"]) == 2
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
    assert "ai-infra-training-vs-inference.yaml" in banks
