"""Q114 hand-typed-figure: a size typed by hand that the question's scenario computes."""

from __future__ import annotations

from pathlib import Path

import pytest

from quiz.bank.lint import lint_library
from quiz.bank.load import load_library

BANK = """\
bank:
  id: demo
  title: Demo
  topics: {serving: Serving}
questions:
  - id: q1
    topic: serving
    question: >-
      {{ model.name }} keeps 17.18 GB of KV cache, and {{ inference.kv_cache | GB:2 }} is fine;
      17.2 GB is too (one decimal), 18 GB is not a figure, and 2 bytes is a rule.
    options: {A: "16.00 GiB", B: "8.59 GB"}
    answer: A
    short_explanation: Keys and values of every token of every sequence in every layer here.
    full_explanation: >-
      Two tensors per layer, per KV head, per token: 2 x 32 x 32 x 128 x 2 bytes, times eight
      sequences of 4,096 tokens, make the cache; a literal {{{{ 17.18 GB }} is still typed by hand.
    distractor_review: {B: "This caches only one of K and V, half the cache size."}
    references: ["Pope et al. 2023, Efficiently Scaling Transformer Inference, sec. 2"]
    worked_example:
      footprint: {model: llama-2-7b, phase: inference, inference: {batch: 8, context: 4096}}
"""


def test_hand_typed_sizes_are_found_where_written(tmp_path: Path) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(BANK, encoding="utf-8")
    report = load_library([path])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    found = [(d.line, d.column, d.message) for d in lint_library(report.library)
             if d.rule == "Q114 hand-typed-figure"]
    assert found == [
        (9, 30, "hand-typed figure '17.18 GB': write {{ inference.kv_cache | GB:2 }}"),
        (10, 7, "hand-typed figure '17.2 GB': write {{ inference.kv_cache | GB:1 }}"),
        (11, 19, "hand-typed figure '16.00 GiB': write {{ inference.kv_cache | GiB:2 }}"),
        (16, 65, "hand-typed figure '17.18 GB': write {{ inference.kv_cache | GB:2 }}"),
    ]


def test_the_computed_fixture_has_no_hand_typed_figure() -> None:
    fixture = Path(__file__).parents[2] / "fixtures" / "computed" / "computed.yaml"
    report = load_library([fixture])
    assert report.library is not None
    assert [d for d in lint_library(report.library) if d.rule == "Q114 hand-typed-figure"] == []


def test_one_estimate_per_scenario_however_many_questions_share_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import quiz.footprint
    from quiz.bank.computed import figures

    monkeypatch.setattr(figures, "_SHARED", {})
    monkeypatch.setattr(figures, "_BY_ID", {})
    calls: list[object] = []
    real = quiz.footprint.estimate

    def counting(spec: object, *args: object, **kwargs: object) -> object:
        calls.append(spec)
        return real(spec, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(quiz.footprint, "estimate", counting)
    head, _, question = BANK.partition("  - id: q1\n")
    path = tmp_path / "bank.yaml"
    path.write_text(head + "".join(f"  - id: q{n}\n{question}" for n in range(5)),
                    encoding="utf-8")
    report = load_library([path])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    found = [d for d in lint_library(report.library) if d.rule == "Q114 hand-typed-figure"]
    assert len(found) == 5 * 4  # every question's four hand-typed figures
    assert len(calls) == 1  # the loader's estimate, shared by the linter's five questions
