"""Benchmark: how long one footprint estimate takes, as a ratio to a baseline of the same run.

The TUI calculator recomputes on every keystroke, so one estimate must take well under a
millisecond (issue 3). Absolute times depend on the machine; the ratio to a baseline measured in
the same process, seconds apart, is what to compare between runs and machines.

Baseline: ``model_validate`` of a trivial pydantic model (three ``int`` fields) — the smallest
unit of work the calculator's own input path does, from the same library, so the ratio reads as
"one estimate costs N trivial validations".

Cases (all after a warm-up, so the presets are read and the model resolution is cached, as in
the TUI after the first keystroke):

* ``estimate``: Llama-2-7B, both phases and storage (the default ``quiz footprint`` case);
* ``estimate + fit``: Llama-2-70B with ZeRO-3 on H100 (searches the fewest GPUs);
* ``estimate, every option on``: ``benchmarks/run.py``'s ``EVERY_OPTION`` (Llama-2-70B, a GPU
  fit with a framework overhead, tensor + sequence + ZeRO-3 parallelism, selective
  recomputation, FP8 training with optimizer and parameter offload, INT4 weights with an FP8 KV
  cache and chunked prefill, storage, and the compute figures) — the issue 12 target is 100 µs;
* ``estimate, every option on, QLoRA + GPTQ``: ``EVERY_OPTION_ADAPTERS``, the same with QLoRA
  r 16 on every linear layer and GPTQ INT4 weights — the same 100 µs target;
* ``validate + estimate``: the keystroke path — build the spec from a bank-style mapping of text
  values, then estimate;
* ``render_bars``: the infographic drawn after an answer.

Run: ``python benchmarks/bench_footprint.py`` (``--check`` exits 1 when an estimate takes 1 ms
or more).
"""

from __future__ import annotations

import argparse
import sys
import timeit
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel  # noqa: E402

from quiz.footprint import FootprintSpec, estimate, render_bars  # noqa: E402

BUDGET_S = 1e-3
"""One estimate must take well under this (seconds)."""


class _Trivial(BaseModel):
    a: int
    b: int
    c: int


def per_call(fn: Callable[[], Any], *, repeat: int = 7, min_time: float = 0.2) -> float:
    """Best-of-``repeat`` seconds per call, each repeat running for about ``min_time``."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, int(number * min_time / 0.2))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if over the 1 ms budget")
    args = parser.parse_args(argv)

    default = FootprintSpec.from_mapping({"model": "llama-2-7b"})
    fit = FootprintSpec.from_mapping(
        {"model": "llama-2-70b", "gpu": "h100-80gb", "training": {"zero": 3, "dp": 64}}
    )
    typed = {
        "model": "llama-2-7b",
        "training": {"zero": "3", "dp": "64", "seq_len": "4096", "recompute": "selective"},
        "inference": {"weights": "int4", "context": "4096", "batch": "8"},
        "storage": {"dataset_tokens": "2T"},
    }
    from run import EVERY_OPTION, EVERY_OPTION_ADAPTERS  # the scenarios of benchmarks/run.py

    every = FootprintSpec.from_mapping(EVERY_OPTION)
    adapters = FootprintSpec.from_mapping(EVERY_OPTION_ADAPTERS)
    report = estimate(default)
    for spec in (default, fit, every, adapters, FootprintSpec.from_mapping(typed)):  # warm-up
        estimate(spec)

    baseline = per_call(lambda: _Trivial.model_validate({"a": 1, "b": 2, "c": 3}))
    cases = {
        "estimate (llama-2-7b, both phases)": per_call(lambda: estimate(default)),
        "estimate + fit (llama-2-70b, ZeRO-3, H100)": per_call(lambda: estimate(fit)),
        "estimate, every option on (run.py's)": per_call(lambda: estimate(every)),
        "estimate, every option on, QLoRA + GPTQ": per_call(lambda: estimate(adapters)),
        "validate + estimate (bank text values)": per_call(
            lambda: estimate(FootprintSpec.from_mapping(typed))
        ),
        "render_bars (width 80)": per_call(lambda: render_bars(report, width=80)),
    }
    print(f"baseline: trivial pydantic model_validate = {baseline * 1e6:.2f} µs per call")
    print(f"{'case':<44} {'µs/call':>9} {'× baseline':>11} {'of 1 ms':>8}")
    for name, seconds in cases.items():
        print(
            f"{name:<44} {seconds * 1e6:>9.1f} {seconds / baseline:>10.0f}× "
            f"{seconds / BUDGET_S:>7.1%}"
        )
    worst = max(v for k, v in cases.items() if k.startswith(("estimate", "validate")))
    if args.check and worst >= BUDGET_S:
        print(f"over budget: {worst * 1e3:.3f} ms >= 1 ms", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
