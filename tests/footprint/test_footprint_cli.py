"""``quiz footprint`` on the command line: output, exit codes, error messages, no tracebacks."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from quiz.footprint.cli import main, register, run

ROOT = Path(__file__).resolve().parents[2]


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_llama_2_7b_prints_both_phases_with_bars(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--model", "llama-2-7b", "--width", "100")
    assert code == 0 and err == ""
    assert "Llama-2-7B — 6,738,415,616 parameters" in out
    assert "Training —" in out and "Inference —" in out and "Storage —" in out
    assert "13.48 GB" in out and "6,738,415,616 params × 2 bytes (BF16)" in out
    bars = [line for line in out.splitlines() if line.startswith(("training ", "inference "))]
    assert len(bars) == 2 and all("█" in line for line in bars)
    assert "Conventions:" in out
    assert max(len(line) for line in out.splitlines()) <= 100


def test_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--model", "llama-2-7b", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["model"]["params"] == 6_738_415_616
    assert data["training"]["per_device"]["items"][0]["name"] == "weights"


def test_zero_paper_from_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys,
        "--params",
        "7.5B",
        "--phase",
        "training",
        "--precision",
        "mixed-fp16",
        "--optimizer",
        "adam",
        "--zero",
        "3",
        "--dp",
        "64",
        "--json",
    )
    assert code == 0
    assert json.loads(out)["training"]["per_device"]["total_bytes"] == 1_875_000_000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--model", "llama-2-7b", "--zero", "4"], "--zero: ZeRO stage must be 0, 1, 2 or 3"),
        (
            ["--model", "llama-2-7b", "--tp", "3"],
            "--tp: tensor parallel size 3 does not divide 32 attention heads",
        ),
        (
            ["--model", "llama-7b"],
            "--model: unknown model preset 'llama-7b'; did you mean 'llama-2-7b'?",
        ),
        (["--model", "llama-2-7b", "--micro-batch", "-1"], "--micro-batch: must be positive"),
        (["--params", "-7"], "--params: must be positive"),
        (["--model", "llama-2-7b", "--context", "0"], "--context: must be positive"),
        (["--model", "llama-2-7b", "--weights", "int3"], "--weights: unknown weights 'int3'"),
        ([], "--model: give a model preset"),
    ],
)
def test_bad_flags_exit_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = cli(capsys, *args)
    assert code == 2 and out == ""
    assert f"quiz footprint: error: {message}" in err
    assert "Traceback" not in err


def test_argparse_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--model"])
    assert info.value.code == 2
    with pytest.raises(SystemExit) as info:
        main(["--no-such-flag"])
    assert info.value.code == 2


def test_explain_units_and_presets(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "--model", "llama-2-70b", "--explain", "--units", "GiB", "--phase", "inference"
    )
    assert code == 0
    assert "How other tools count this case" in out
    assert "2,621,440 bytes per token, 8× too much" in out
    assert "GiB" in out and " GB " not in out.split("Conventions:")[0]
    code, out, _ = cli(capsys, "--list-presets")
    assert code == 0 and "llama-2-7b" in out and "h100-80gb" in out


def test_register_on_a_parent_parser(capsys: pytest.CaptureFixture[str]) -> None:
    parser = argparse.ArgumentParser(prog="quiz")
    register(parser.add_subparsers(dest="command"))
    ns = parser.parse_args(
        [
            "footprint",
            "--model",
            "mistral-7b",
            "--phase",
            "inference",
            "--context",
            "32Ki",
            "--json",
        ]
    )
    assert ns.func is run
    assert run(ns) == 0
    data = json.loads(capsys.readouterr().out)
    kv = next(i for i in data["inference"]["per_device"]["items"] if i["name"] == "kv_cache")
    assert kv["bytes"] == 2 * 32 * 8 * 128 * 2 * 4096  # capped at the 4,096-token window


def test_module_runs_as_a_script() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "80"}
    done = subprocess.run(
        [sys.executable, "-m", "quiz.footprint.cli", "--model", "llama-2-7b"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Training —" in done.stdout and "Inference —" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "quiz.footprint.cli", "--zero", "4", "--model", "llama-2-7b"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "ZeRO stage must be 0, 1, 2 or 3" in bad.stderr
