"""``quiz footprint`` on the command line: output, exit codes, error messages, no tracebacks."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from quiz.cli.footprint import join_negative_values, main, register, run

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
        [sys.executable, "-m", "quiz.cli.footprint", "--model", "llama-2-7b"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "Training —" in done.stdout and "Inference —" in done.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "quiz.cli.footprint", "--zero", "4", "--model", "llama-2-7b"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert "ZeRO stage must be 0, 1, 2 or 3" in bad.stderr


def test_huge_values_are_rejected_not_printed_through_a_float(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = cli(
        capsys,
        *"--model llama-2-7b --seq-len 1e24 --micro-batch 1e24 --phase training".split(),
    )
    assert code == 2 and out == ""
    assert "--seq-len: must be at most 1,000,000,000 (10^9) tokens" in err
    assert "--micro-batch: must be at most 10,000,000 (10^7) sequences" in err


def test_largest_values_print_exact_grouped_sizes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys,
        *("--model llama-2-7b --seq-len 1e9 --micro-batch 1e7 --phase training --width 120 "
          "--convention paper").split(),
    )
    assert code == 0
    # 32 × sbh × (34 + 5as/h), s = 10^9, b = 10^7, h = 4,096, a = 32 — exact, in YB
    act = 32 * 10**9 * 10**7 * 4096 * 34 + 32 * 5 * 32 * 10**18 * 10**7
    hundredths = (act * 100 + 10**24 // 2) // 10**24
    assert f"{hundredths // 100:,}.{hundredths % 100:02d} YB" in out
    assert "51,200.05 YB" in out
    assert not re.search(r"(?<![\d,.])\d{4,}\.\d\d [kMGTPEZY]?i?B", out)  # no ungrouped sizes


_UNGROUPED = re.compile(r"(?<![\d,.^])\d{5,}")
"""A run of five or more digits without thousands separators (not after "10^")."""


def test_every_count_has_thousands_separators(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys,
        *(
            "--model llama-2-7b --gpu h100-80gb --zero 3 --dp 123456 --tp 4 --micro-batch "
            "9999999 --seq-len 123456 --batch 9999999 --context 123456 --weights int4 "
            "--group-size 12345 --dataset-tokens 1e15 --checkpoints 12345 --explain --width 150"
        ).split(),
    )
    assert code == 0
    assert not _UNGROUPED.findall(out), _UNGROUPED.findall(out)
    assert "micro-batch 9,999,999 × 123,456 tokens" in out
    assert "batch 9,999,999 × 123,456 tokens" in out
    assert "dp 123,456" in out and "groups of 12,345" in out
    assert re.search(r"Fit: needs \d{1,3}(,\d{3})+ × NVIDIA H100", out)
    code, out, _ = cli(
        capsys, *"--params 1e15 --layers 2 --hidden 12345 --heads 5 --gpu l4 --width 150".split()
    )
    assert code == 0
    assert not _UNGROUPED.findall(out), _UNGROUPED.findall(out)


def test_one_is_singular(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys,
        *(
            "--layers 1 --hidden 1 --heads 1 --ffn 1 --vocab 1 --micro-batch 1 --seq-len 1 "
            "--batch 1 --context 1 --bytes-per-token 1 --dataset-tokens 1 --width 200"
        ).split(),
    )
    assert code == 0
    assert "— 1 parameter" not in out  # the architecture gives more than one
    for wrong in ("1 params", "1 tokens", "1 layers", "1 sequences", "1 bytes", "1 KV heads",
                  "1 devices", "1 checkpoints"):
        assert not re.search(rf"(?<![\d,.]){wrong}\b", out), wrong
    assert "1 layer × 2 (K and V)" not in out
    assert "1 device in this layout" in out and "the 1 token of batch × context" in out
    assert "1 sequence sampling × 1 vocabulary entry ×" in out
    assert "1 byte per token" in out and "1 checkpoint ×" in out
    code, out, _ = cli(capsys, "--params", "1", "--width", "100")
    assert code == 0
    assert "— 1 parameter (1)" in out and "1 param × 2 bytes" in out
    assert "1 params" not in out and "1 parameters" not in out


def test_units_note_names_the_units_printed(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = cli(capsys, "--model", "llama-2-7b", "--width", "100")
    assert "printed in GB" not in out
    assert "decimal units (kB, MB, GB, TB" in out and "powers of 1000" in out
    _, out, _ = cli(capsys, "--model", "llama-2-7b", "--units", "GiB", "--width", "100")
    assert "binary units (KiB, MiB, GiB, TiB" in out and "powers of 1024" in out


@pytest.mark.parametrize("width", ["5", "-1", "39", "401", "abc", "80.5"])
def test_width_out_of_range_exits_2(capsys: pytest.CaptureFixture[str], width: str) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--model", "llama-2-7b", "--width", width])
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and "quiz footprint: error: --width: " in err
    assert "usage:" not in err


def test_width_in_range_is_honoured(capsys: pytest.CaptureFixture[str]) -> None:
    for width in (40, 200, 400):
        code, out, _ = cli(capsys, "--model", "llama-2-7b", "--width", str(width))
        assert code == 0
        assert max(len(line) for line in out.splitlines()) == width
    ns = argparse.Namespace(model="llama-2-7b", width=5)
    assert run(ns) == 2
    assert "--width: must be from 40 to 400" in capsys.readouterr().err


def test_list_presets_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--list-presets", "--json")
    assert code == 0
    data = json.loads(out)
    assert set(data) == {"models", "gpus"}
    llama = next(m for m in data["models"] if m["id"] == "llama-2-7b")
    assert llama["name"] == "Llama-2-7B" and llama["params"] == 6_738_415_616
    assert llama["source"] and isinstance(llama["sources"], dict)
    h100 = next(g for g in data["gpus"] if g["id"] == "h100-80gb")
    assert h100["memory_bytes"] == 81559 * 2**20 and h100["source"] and h100["datasheet"]
    assert all(type(m["params"]) is int for m in data["models"])


def test_json_explain_adds_the_notes(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(capsys, "--model", "llama-2-70b", "--json", "--explain")
    assert code == 0
    data = json.loads(out)
    assert isinstance(data["explain"], list) and all(isinstance(n, str) for n in data["explain"])
    assert any("2,621,440 bytes per token" in n for n in data["explain"])
    _, out, _ = cli(capsys, "--model", "llama-2-70b", "--json")
    assert "explain" not in json.loads(out)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--dataset-size", "-5GB"], "--dataset-size: must be positive (got -5,000,000,000)"),
        (["--dataset-size=-5GB"], "--dataset-size: must be positive (got -5,000,000,000)"),
        (["--seq-len", "-1e3"], "--seq-len: must be positive (got -1,000)"),
        (["--checkpoints", "-0.5K"], "--checkpoints: must be zero or more (got -500)"),
        (["--dataset-tokens", "-2T"], "--dataset-tokens: must be zero or more"),
    ],
)
def test_negative_looking_values_get_the_normal_message(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, out, err = cli(capsys, "--model", "llama-2-7b", *args)
    assert code == 2 and out == ""
    assert f"quiz footprint: error: {message}" in err
    assert "expected one argument" not in err and "usage:" not in err


def test_negative_values_through_the_quiz_command(capsys: pytest.CaptureFixture[str]) -> None:
    from quiz.cli import main as quiz_main

    assert quiz_main(["footprint", "--model", "llama-2-7b", "--dataset-size", "-5GB"]) == 2
    err = capsys.readouterr().err
    assert "--dataset-size: must be positive" in err and "usage:" not in err


def test_join_negative_values() -> None:
    assert join_negative_values(["--params", "-7B", "--dp", "8"]) == ["--params=-7B", "--dp", "8"]
    assert join_negative_values(["--width", "-1"]) == ["--width=-1"]
    assert join_negative_values(["--json", "-5"]) == ["--json", "-5"]  # not a value flag
    assert join_negative_values(["--params", "--dp"]) == ["--params", "--dp"]
    assert join_negative_values(["--", "--params", "-7"]) == ["--", "--params", "-7"]


def test_ambiguous_size_unit_is_refused_and_help_says_why(capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    code, out, err = cli(capsys, "--model", "llama-2-7b", "--dataset-size", "1Gb")
    assert code == 2 and out == ""
    assert ("quiz footprint: error: --dataset-size: '1Gb' is ambiguous: write 1GB (bytes) or "
            "1Gbit (a lower-case b means bits)") in err
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "lower-case b means bits, so 1Gb and 1Gib are refused as ambiguous" in " ".join(
        out.split())


def test_internal_error_is_one_line_and_quiz_debug_adds_the_traceback(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import quiz.footprint.engine.estimate as engine

    def boom(spec: object) -> object:
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(engine, "estimate", boom)
    monkeypatch.delenv("QUIZ_DEBUG", raising=False)
    code, out, err = cli(capsys, "--model", "llama-2-7b")
    assert code == 1 and out == ""
    assert err == ("quiz footprint: internal error: ZeroDivisionError: division by zero "
                   "(set QUIZ_DEBUG=1 to see the traceback)\n")
    monkeypatch.setenv("QUIZ_DEBUG", "1")
    code, out, err = cli(capsys, "--model", "llama-2-7b")
    assert code == 1
    assert "Traceback (most recent call last)" in err and "in boom" in err


def test_unknown_flag_is_reported_by_the_footprint_parser(
        capsys: pytest.CaptureFixture[str]) -> None:
    # issue 7 item 21: it printed the outer parser's "usage: quiz [-h] {footprint}"
    from quiz.cli import main as quiz_main

    assert quiz_main(["footprint", "--modle", "llama-2-7b"]) == 2
    err = capsys.readouterr().err
    assert err == ("quiz footprint: error: unrecognized arguments: --modle llama-2-7b; did you "
                   "mean --model?\n(see quiz footprint --help)\n")
    assert "{footprint}" not in err


def test_yes_no_flags_take_a_word_and_reject_others(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "--model", "llama-2-7b", "--tied-embeddings=maybe")
    assert code == 2
    assert err == ("quiz footprint: error: --tied-embeddings: 'maybe' is not a yes/no value "
                   "(use true/false or yes/no)\n")
    on = cli(capsys, "--model", "llama-2-7b", "--tied-embeddings", "--json")
    word = cli(capsys, "--model", "llama-2-7b", "--tied-embeddings=yes", "--json")
    off = cli(capsys, "--model", "llama-2-7b", "--no-tied-embeddings", "--json")
    assert on[0] == word[0] == off[0] == 0
    assert json.loads(on[1]) == json.loads(word[1]) != json.loads(off[1])
    assert json.loads(on[1])["model"]["params"] == 6_738_415_616 - 32_000 * 4096


def test_huge_exponents_are_too_large_not_not_a_number(capsys: pytest.CaptureFixture[str]) -> None:
    for text in ("1e999", "1e999999"):
        code, _, err = cli(capsys, "--params", text)
        assert code == 2
        assert err == ("quiz footprint: error: --params: must be at most 1,000,000,000,000,000 "
                       f"(10^15) parameters (got '{text}')\n")
    code, _, err = cli(capsys, "--params", "1e-999999")
    assert code == 2 and "is not a whole number" in err


def test_settings_that_do_nothing_are_noted(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--model", "llama-2-7b", "--phase", "training", "--kv-dtype",
                         "fp8", "--sequence-parallel", "--width", "200")
    assert code == 0 and err == ""
    assert "Given but not used in this case:" in out
    assert ("- --sequence-parallel: sequence parallelism splits activations over the "
            "tensor-parallel group, and tensor parallelism is 1") in out
    assert ("- --kv-dtype: the inference settings do nothing when only training is "
            "estimated") in out
    code, out, err = cli(capsys, "--model", "llama-2-7b", "--phase", "inference", "--zero", "3",
                         "--group-size", "64", "--json")
    assert code == 0 and json.loads(out)["training"] is None
    assert err.splitlines() == [
        "quiz footprint: note: --zero: the training settings do nothing when only inference is "
        "estimated",
        "quiz footprint: note: --group-size: the group size applies to INT8/INT4, GPTQ and AWQ "
        "weights; BF16 weights are not quantized",
    ]
    code, out, err = cli(capsys, "--model", "llama-2-7b", "--weights", "int4", "--group-size",
                         "64", "--dp", "8", "--zero", "3")
    assert code == 0 and "Given but not used" not in out  # each of these does something


def test_physically_absurd_figures_are_warned(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = cli(capsys, "--model", "llama-2-7b", "--seq-len", "1e9", "--micro-batch",
                         "1e7", "--width", "200", "--convention", "paper")
    assert code == 0
    assert "51,200.05 YB" in out
    assert "Warning: training needs 51,200.05 YB per device (mostly activations): more than " \
        "1 PB" in out
    assert "quiz footprint: warning: training needs 51,200.05 YB per device" in err
    code, out, err = cli(capsys, "--model", "llama-2-7b")
    assert "Warning" not in out and err == ""
