"""``quiz show`` and ``quiz export --variants`` on the computed fixture bank (issue 20 §4, §6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quiz.bank.load import load_library
from quiz.bank.variants import bank_with_variants, rendered_variants
from quiz.cli import main
from quiz.footprint import FootprintSpec, estimate

FIXTURE = Path(__file__).parents[2] / "fixtures" / "computed" / "computed.yaml"


def show_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["show", str(FIXTURE), *args, "--json"]) == 0
    data: dict[str, object] = json.loads(capsys.readouterr().out)
    return data


@pytest.mark.parametrize("seed", [None, "0", "1", "2", "3", "7", "42"])
@pytest.mark.parametrize("qid", ["model-states-001", "kv-cache-001"])
def test_show_json_renders_the_drawn_variant(capsys: pytest.CaptureFixture[str], qid: str,
                                             seed: str | None) -> None:
    data = show_json(capsys, qid, *(["--seed", seed] if seed else []))
    assert "{{" not in json.dumps(data)
    variant = data["variant"]
    assert isinstance(variant, dict) and set(variant) >= {"model"}
    example = data["worked_example"]
    assert isinstance(example, dict)
    spec = FootprintSpec.from_mapping(example["footprint"])
    assert spec.model == variant["model"]
    report = estimate(spec)
    options = data["options"]
    reviews = data["distractor_review"]
    assert isinstance(options, dict) and isinstance(reviews, dict)
    key = options[str(data["answer"])]
    if qid == "model-states-001":
        exact = sum(report.training.item(i).bytes for i in          # type: ignore[union-attr]
                    ("weights", "gradients", "master_weights", "optimizer_states"))
        assert key == f"{exact / 1e9:.1f} GB"
    else:
        assert key == f"{report.figure('inference.kv_cache') / 1e9:.2f} GB"  # type: ignore[operator]
    assert len(set(options.values())) == len(options) == 4
    assert set(reviews) == set(options) - {data["answer"]}


def test_show_text_has_every_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(FIXTURE), "kv-cache-001", "--seed", "4"]) == 0
    out = capsys.readouterr().out
    for title in ("Answer: ", "Short explanation", "Infographic", "Full explanation",
                  "Distractor review", "Worked example", "References"):
        assert title in out
    assert "variant: model=" in out and "{{" not in out


def test_show_unknown_id(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", str(FIXTURE), "kv-cache-01"]) == 2
    assert "did you mean 'kv-cache-001'?" in capsys.readouterr().err


def test_variants_have_stable_ids() -> None:
    report = load_library([FIXTURE])
    assert report.library is not None
    bank = report.library.banks[0]
    first = bank.questions[0]
    ids = [q.id for q in rendered_variants(first, 3)]
    assert ids == ["model-states-001", "model-states-001.v2", "model-states-001.v3"]
    assert [q.variant for q in rendered_variants(first, 3)] == first.variants()[:3]
    assert len(bank_with_variants(bank, 100).questions) == 6 + 4
    assert len(bank_with_variants(bank, 1).questions) == 2


def test_export_variants_writes_plain_text(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    to = tmp_path / "out.gift"
    assert main(["export", str(FIXTURE), "--to", str(to), "--variants", "2"]) == 0
    assert "exported 4 questions" in capsys.readouterr().out
    text = to.read_text(encoding="utf-8")
    assert "::model-states-001.v2::" in text and "::kv-cache-001.v2::" in text
    assert "{{ " not in text
    assert "answer_figure" not in text and "misconceptions" not in text and "vary" not in text
    # The variants read back as plain questions.
    back = tmp_path / "back.yaml"
    assert main(["import", str(to), "--to", str(back)]) == 0
    report = load_library([back])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    assert [q.id for q in report.library.questions] == [
        "model-states-001", "model-states-001.v2", "kv-cache-001", "kv-cache-001.v2"]
    assert not any(q.computed for q in report.library.questions)


def test_a_computed_question_equals_the_plain_question_it_renders() -> None:
    report = load_library([FIXTURE])
    assert report.library is not None
    question = report.library.banks[0].questions[0]
    from quiz.bank.variants import plain

    flat = plain(question)
    assert not flat.computed and question.computed
    assert flat == question and hash(flat) == hash(question)
    assert question.with_variant(question.variants()[1]) != question
