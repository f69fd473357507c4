"""The lint rules (quiz.bank.lint): each fires on a minimal bad bank, at its place, and stays quiet
on a good question, on the FORMAT.md example and on every bundled bank."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from quiz.bank import lint
from quiz.bank.library import Diagnostic
from quiz.bank.load import load_library
from quiz.cli import main

ROOT = Path(__file__).resolve().parents[2]

GOOD = {
    "id": "q1",
    "topic": "memory",
    "question": "How many bytes per parameter does mixed-precision Adam training keep?",
    "A": "Two bytes, for the 16-bit weights alone",
    "B": "Four bytes, for the weights and the gradients",
    "C": "Eight bytes, for weights, gradients and one moment",
    "D": "Sixteen bytes, counting master weights and moments",
    "answer": "D",
    "short": "Training keeps far more than the weights: like a student's desk covered in notes "
             "beside the one book.",
    "full": "Rajbhandari et al. count 2 bytes of 16-bit weights, 2 of 16-bit gradients and 12 "
            "for the optimizer: an FP32 master copy and two Adam moments of 4 bytes each, "
            "which makes 16 bytes per parameter.",
    "rA": "Two bytes is what BF16 inference keeps, not what training keeps.",
    "rB": "This counts the gradients but forgets the optimizer states entirely.",
    "rC": "Adam keeps two moments and an FP32 master copy, which is twelve bytes, not four.",
    "rD": "Sixteen bytes is the full training count; inference keeps only two of them.",
    "refs": '["Rajbhandari et al. 2020, ZeRO, sec. 3.1"]',
    "extra": "",
}


def question(**changes: str) -> str:
    """A question that every rule accepts, with ``changes`` applied (keys of :data:`GOOD`)."""
    f = {**GOOD, **changes}
    review = "".join(f"      {k}: {json.dumps(f['r' + k])}\n" for k in "ABCD"
                     if f"r{k}" in f and f["r" + k] and k not in f["answer"])
    return (f"  - id: {f['id']}\n"
            f"    topic: {f['topic']}\n"
            f"    question: {json.dumps(f['question'])}\n"
            f"    options:\n"
            + "".join(f"      {k}: {json.dumps(f[k])}\n" for k in "ABCD")
            + f"    answer: {f['answer']}\n"
            f"    short_explanation: {json.dumps(f['short'])}\n"
            f"    full_explanation: {json.dumps(f['full'])}\n"
            f"    distractor_review:\n{review}"
            + (f"    references: {f['refs']}\n" if f["refs"] else "")
            + f["extra"])


HEAD = ("bank:\n  id: demo\n  title: Demo bank\n"
        "  topics: {memory: Memory footprint}\nquestions:\n")


def run_lint(tmp_path: Path, *questions: str, head: str = HEAD,
             rules: frozenset[str] | None = None) -> list[Diagnostic]:
    path = tmp_path / "bank.yaml"
    path.write_text(head + "".join(questions), encoding="utf-8")
    parses: dict[str, object] = {}
    report = load_library([path], parses=parses)
    assert report.library is not None, [str(d) for d in report.diagnostics]
    assert list(parses) == [str(path)]
    shared = lint.lint_library(report.library, rules, parses=parses)  # type: ignore[arg-type]
    # The loader's parse places every finding where reading the file again does.
    assert shared == lint.lint_library(report.library, rules)
    return shared


def codes(found: list[Diagnostic]) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, (d.rule or "").split()[0]) for d in found]


def test_good_question_is_quiet(tmp_path: Path) -> None:
    assert run_lint(tmp_path, question()) == []


def test_bundled_banks_and_format_example_are_quiet(tmp_path: Path) -> None:
    report = load_library([ROOT / "question_bank"])
    assert report.library is not None
    assert [str(d) for d in lint.lint_library(report.library)] == []
    text = (ROOT / "question_bank" / "FORMAT.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert example
    (tmp_path / "example.yaml").write_text(example.group(1), encoding="utf-8")
    report = load_library([tmp_path / "example.yaml"])
    assert report.library is not None
    assert [str(d) for d in lint.lint_library(report.library)] == []


def test_validate_reads_each_file_once(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(HEAD + question(question="TODO: write the stem"), encoding="utf-8")

    def no_second_read(cls: object, path: Path) -> None:
        raise AssertionError(f"{path} was parsed again to place the findings")

    monkeypatch.setattr(lint._Places, "read", classmethod(no_second_read))
    assert main(["validate", str(path)]) == 1
    assert f"{path}:8:15: error: Q102 placeholder-text" in capsys.readouterr().out


def test_near_duplicate_stem_across_files(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(HEAD + question(), encoding="utf-8")
    other = HEAD.replace("id: demo", "id: other")
    stem = GOOD["question"].upper().replace("?", " ?!")  # same words, other case and punctuation
    (tmp_path / "b.yaml").write_text(other + question(id="q2", question=stem), encoding="utf-8")
    report = load_library([tmp_path])
    assert report.library is not None
    found = lint.lint_library(report.library)
    assert codes(found) == [(8, 15, "Q101")]
    assert found[0].path == str(tmp_path / "b.yaml")
    assert f"question 'q1' ({tmp_path / 'a.yaml'}:8, 100% alike)" in found[0].message


def test_different_numbers_are_not_near_duplicates(tmp_path: Path) -> None:
    other = GOOD["question"].replace("mixed-precision Adam", "plain FP32 SGD")
    assert run_lint(tmp_path, question(), question(id="q2", question=other)) == []


@pytest.mark.parametrize(("field", "text", "line", "what"), [
    ("question", "TODO: write the stem", 8, "'TODO'"),
    ("B", "FIXME", 11, "'FIXME'"),
    ("rA", "Lorem ipsum dolor sit amet, consectetur.", 18, "'Lorem ipsum'"),
    ("full", "...", 16, "'...'"),
])
def test_placeholder_text(tmp_path: Path, field: str, text: str, line: int, what: str) -> None:
    found = run_lint(tmp_path, question(**{field: text}), rules=frozenset({"Q102"}))
    assert codes(found) == [(line, found[0].column, "Q102")]
    assert what in found[0].message and found[0].severity == "error"


def test_ellipsis_inside_a_sentence_is_no_placeholder(tmp_path: Path) -> None:
    full = GOOD["full"] + " Layers 1, 2, ..., n each keep activations; todo lists are words."
    assert run_lint(tmp_path, question(full=full)) == []


def test_key_letter_skew(tmp_path: Path) -> None:
    questions = [question(id=f"q{n}", question=f"Stem number {n} asks about memory?")
                 for n in range(8)]
    found = run_lint(tmp_path, *questions, rules=frozenset({"Q103"}))
    assert codes(found) == [(2, 7, "Q103")]
    assert "spread A 0, B 0, C 0, D 8" in found[0].message
    even = [question(id=f"q{n}", question=f"Stem number {n} asks about memory?",
                     answer="ABCD"[n % 4], **{f"r{'ABCD'[n % 4]}": ""}) for n in range(8)]
    assert run_lint(tmp_path, *even, rules=frozenset({"Q103"})) == []


def test_longest_option_is_key(tmp_path: Path) -> None:
    found = run_lint(tmp_path, question(D="Sixteen bytes: 2 for the 16-bit weights, 2 for the "
                                          "gradients and 12 for the FP32 master copy and moments"))
    assert codes(found) == [(13, 10, "Q104")]
    assert "the keyed option has 104 characters, the longest distractor 50" in found[0].message


def test_choose_count_missing_and_mismatch(tmp_path: Path) -> None:
    multi = {"answer": "[C, D]", "rC": ""}
    found = run_lint(tmp_path, question(question="Which are held only in training?", **multi),
                     question(id="q2", question="Which three are held only in training?",
                              **multi),
                     question(id="q3", question="Which are held only in training? Choose two.",
                              **multi),
                     question(id="q4", question="Choose two: which does training keep?"))
    assert [(c, d.hint) for (_, _, c), d in zip(codes(found), found, strict=True)] == [
        ("Q105", "end the stem with 'Choose two.'"),
        ("Q106", "make the stem ask for two, or change 'answer' to 3 keys"),
        ("Q106", "make the stem ask for one, or change 'answer' to 2 keys")]
    assert lint.choose_count("Select 2 of these.") == 2
    assert lint.choose_count("What is stored?") is None


def test_negative_stem(tmp_path: Path) -> None:
    found = run_lint(tmp_path, question(question="Which of these is not kept during training?"),
                     question(id="q2", question="Which of these is NOT kept in training memory?"),
                     question(id="q3", question="Which is kept in training but not inference?"))
    assert codes(found) == [(8, 15, "Q107")]
    assert "('not')" in found[0].message


def test_short_explanations_and_reviews(tmp_path: Path) -> None:
    found = run_lint(tmp_path, question(short="Training keeps more.", full="It keeps states.",
                                        rB="Optimizer states are missing here."))
    assert codes(found) == [(15, 24, "Q108"), (16, 23, "Q108"), (19, 10, "Q109")]
    assert found[0].message == "the short explanation has 3 words; write at least 12"


def test_review_repeats_option(tmp_path: Path) -> None:
    found = run_lint(tmp_path, question(rB="Four bytes for the weights and the gradients is "
                                           "wrong."))
    assert codes(found) == [(19, 10, "Q110")]


def test_no_reference(tmp_path: Path) -> None:
    assert codes(run_lint(tmp_path, question(refs=""))) == [(6, 9, "Q111")]


def test_undeclared_and_unused_topics(tmp_path: Path) -> None:
    head = "bank:\n  id: demo\n  title: Demo bank\nquestions:\n"
    assert codes(run_lint(tmp_path, question(), head=head)) == [(6, 12, "Q112")]
    head = ("bank:\n  id: demo\n  title: Demo bank\n"
            "  topics: {memory: Memory footprint, storage: Storage}\nquestions:\n")
    assert codes(run_lint(tmp_path, question(), head=head)) == [(4, 38, "Q113")]


def test_per_question_and_per_bank_ignore(tmp_path: Path) -> None:
    ignored = question(refs="", extra="    lint: {ignore: [no-reference, Q999]}\n")
    found = run_lint(tmp_path, ignored)
    assert codes(found) == [(21, 35, "Q100")]
    head = HEAD.replace("questions:", "  lint: {ignore: [Q111]}\nquestions:")
    assert run_lint(tmp_path, question(refs=""), head=head) == []


def test_resolve_rules() -> None:
    assert lint.resolve_rules(["Q104"]) == {"Q104"}
    assert lint.resolve_rules(["longest-option-is-key", "Q11"]) == {"Q104", "Q110", "Q111",
                                                                     "Q112", "Q113", "Q114"}
    assert "Q111" not in lint.resolve_rules([], ["no-reference"])
    with pytest.raises(lint.SelectionError, match="no lint rule is called 'Q9'"):
        lint.resolve_rules(["Q9"])


def test_validate_cli_strict_select_json(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         ) -> None:
    path = tmp_path / "bank.yaml"
    path.write_text(HEAD + question(refs=""), encoding="utf-8")
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}:6:9: warning: Q111 no-reference: this question has no reference" in out
    assert "    hint: add a source a student can check" in out
    assert out.strip().endswith("ok: 1 question in 1 bank, 1 warning")
    assert main(["validate", "--strict", str(path)]) == 1
    assert f"{path}:6:9: error: Q111 no-reference" in capsys.readouterr().out
    assert main(["validate", "--strict", "--ignore", "Q111", str(path)]) == 0
    assert main(["validate", "--strict", "--select", "Q104,Q105", str(path)]) == 0
    capsys.readouterr()
    assert main(["validate", "--format", "json", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == [{
        "path": str(path), "line": 6, "column": 9, "severity": "warning", "code": "Q111",
        "rule": "no-reference", "message": "this question has no reference a student can check",
        "hint": lint.NO_REFERENCE.hint}]
    assert main(["validate", "--select", "nonsense", str(path)]) == 2


def test_every_rule_is_documented_in_format_md() -> None:
    text = (ROOT / "question_bank" / "FORMAT.md").read_text(encoding="utf-8")
    for rule in lint.RULES:
        assert f"`{rule.code}` `{rule.name}`" in text, rule.label


@pytest.mark.parametrize("text", [
    "Which tool lists the `[TODO]` markers a codebase still has?",
    'A commit message reads "[TODO] remove". What does a reviewer ask for?',
    "In a log, lines tagged ‘FIXME’ and 'XXX' come from which linter?",
])
def test_a_placeholder_word_quoted_as_literal_text_is_no_placeholder(tmp_path: Path,
                                                                     text: str) -> None:
    # Issue 19 §4: the author quoted the word on purpose; only a placeholder left in fires.
    assert run_lint(tmp_path, question(question=text), rules=frozenset({"Q102"})) == []


def test_an_unquoted_bracketed_todo_is_still_a_placeholder(tmp_path: Path) -> None:
    found = run_lint(tmp_path, question(question="[TODO] write the stem; it's about 'memory'"),
                     rules=frozenset({"Q102"}))
    assert [(d.line, d.rule) for d in found] == [(8, "Q102 placeholder-text")]
    assert "'TODO'" in found[0].message


def _typed_copy(tmp_path: Path) -> Path:
    """The bundled capacity bank with one figure typed by hand instead of its placeholder."""
    text = (ROOT / "question_bank" / "capacity.yaml").read_text(encoding="utf-8")
    assert "{{ inference.usable | GB:2 }}" in text
    folder = tmp_path / "typed"
    folder.mkdir()
    (folder / "capacity.yaml").write_text(
        text.replace("{{ inference.usable | GB:2 }}", "76.97 GB", 1), encoding="utf-8")
    return folder


@pytest.mark.parametrize("name", ["question_bank", "computed", "typed"])
def test_the_loaders_parse_places_findings_as_reading_again(name: str, tmp_path: Path) -> None:
    """Every rule (Q114's places inside a value too) finds the same places from the loader's
    parse as from reading the files again, on the bundled banks, the computed fixture and a
    bundled bank with a figure typed by hand."""
    folder = {"question_bank": ROOT / "question_bank",
              "computed": ROOT / "tests" / "fixtures" / "computed"}.get(name) or _typed_copy(
                  tmp_path)
    parses: dict[str, object] = {}
    report = load_library([folder], parses=parses)
    assert report.library is not None
    assert len(parses) == len(report.library.banks)
    shared = lint.lint_library(report.library, parses=parses)  # type: ignore[arg-type]
    assert shared == lint.lint_library(report.library)
    typed = [d for d in shared if (d.rule or "").startswith("Q114")]
    assert [(d.line > 0, "76.97 GB" in d.message) for d in typed] == (
        [(True, True)] if name == "typed" else [])
