"""Benchmark: loading a 10,000-question bank, as a ratio to a plain ``yaml.load`` of the same text.

Run ``python benchmarks/bench_load.py [--questions N] [--repeat R]``. The script writes a generated
bank to a temporary folder, then times, best of R runs each (alternating, in the same process):

- baseline: ``yaml.load(text, Loader=yaml.CSafeLoader)`` on the file's text (no validation);
- quiz: ``quiz.bank.load.load_library([folder])`` (read, decode, check, build, validate).

It prints both times and the ratio quiz / baseline (below 1.0 means the full loader is faster than
a plain load). Ratios, not seconds, are comparable between machines.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from quiz.bank.load import load_library  # noqa: E402


def make_bank(questions: int) -> str:
    """A bank of ``questions`` questions shaped like a real one (blocks, flow lists, quotes)."""
    out = [
        "bank:",
        "  id: bench-bank",
        '  title: "Benchmark bank"',
        "  version: 1",
        "  pass_mark: 0.7",
        "  topics: {memory: Memory footprint, precision: Precision and quantization}",
        "questions:",
    ]
    for i in range(questions):
        topic = "memory" if i % 2 else "precision"
        answer = "D" if i % 3 else "[A, D]"
        review = "" if i % 3 == 0 else "      A: Counts only the FP32 weights.\n"
        out.append(f"""  - id: q-{i:05d}
    topic: {topic}
    difficulty: medium
    tags: [vram, optimizer-states]
    question: |
      A model with 7 billion parameters is trained with Adam in mixed precision.
      How much memory do the weights, gradients and optimizer states need (case {i})?
    options:
      A: "28 GB"
      B: 56 GB
      C: "84 GB"
      D: 112 GB
    answer: {answer}
    short_explanation: |
      16 bytes per parameter: 2 for weights, 2 for gradients, 12 for FP32 master weights and
      the two Adam moments.
    full_explanation: >
      Mixed-precision training keeps FP16 weights and gradients plus an FP32 copy of the
      weights and two FP32 Adam moments per parameter, before any activations.
    distractor_review:
{review}      B: "Counts weights and gradients in FP32 but no optimizer states."
      C: Forgets the FP32 master copy of the weights.
    references: ["Rajbhandari et al. 2020, ZeRO, sec. 3"]""")
    return "\n".join(out) + "\n"


def best_of(repeat: int, func: Callable[[], object]) -> float:
    """The fastest of ``repeat`` timed calls, in seconds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    """Generate the bank, time both loads, print the ratio."""
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("--questions", type=int, default=10_000)
    args.add_argument("--repeat", type=int, default=3)
    opts = args.parse_args()
    if not hasattr(yaml, "CSafeLoader"):
        print("PyYAML has no libyaml here: the baseline needs yaml.CSafeLoader", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bank = folder / "bench.yaml"
        bank.write_text(make_bank(opts.questions), encoding="utf-8")
        text = bank.read_text(encoding="utf-8")

        report = load_library([folder])
        if report.library is None or len(report.library.questions) != opts.questions:
            for diagnostic in report.diagnostics[:10]:
                print(diagnostic, file=sys.stderr)
            print("the generated bank did not load", file=sys.stderr)
            return 1

        baseline = quiz = float("inf")
        for _ in range(opts.repeat):  # alternate, so both see the same machine conditions
            baseline = min(baseline, best_of(1, lambda: yaml.load(text, Loader=yaml.CSafeLoader)))
            quiz = min(quiz, best_of(1, lambda: load_library([folder])))
    size = len(text.encode("utf-8")) / 1e6
    print(f"bank: {opts.questions:,} questions, {size:.1f} MB")
    print(f"baseline yaml.load(CSafeLoader): {baseline:.3f} s")
    print(f"quiz load_library:               {quiz:.3f} s")
    print(f"ratio quiz / baseline:           {quiz / baseline:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
