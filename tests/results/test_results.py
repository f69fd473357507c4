"""Class results: a student's export (JSON, CSV, xAPI) and the item analysis over three students."""

from __future__ import annotations

import csv
import io
import json
import math
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from quiz.cli import main
from quiz.results.analysis import analyze
from quiz.results.export import collect, learner_id, to_json
from quiz.results.report import render
from quiz.results.xapi import duration, statement
from quiz.study.store import Store
from quiz.study.store_records import AnswerRecord

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
KEYS: dict[str, list[str]] = {f"q{i}": ["B"] for i in range(1, 6)} | {"q6": ["A", "C"]}
"""The six questions' answer keys: q1-q5 single answer B, q6 multiple response A and C."""

BANK = """\
bank:
  id: class-bank
  title: Class bank
  topics: {memory: Memory, precision: Precision}
questions:
"""
STUDENTS: dict[str, dict[str, list[str]]] = {
    # s1 gets all six right, s2 four, s3 one: q1 is right for 2 of 3.
    "s1": {"q1": ["B"], "q2": ["B"], "q3": ["B"], "q4": ["B"], "q5": ["B"], "q6": ["A", "C"]},
    "s2": {"q1": ["B"], "q2": ["B"], "q3": ["B"], "q4": ["A"], "q5": ["B"], "q6": ["A"]},
    "s3": {"q1": ["C"], "q2": ["B"], "q3": ["D"], "q4": ["D"], "q5": ["A"], "q6": ["B", "D"]},
}


def write_bank(folder: Path) -> Path:
    """A six-question bank file (q1-q5 keyed B, q6 keyed A and C) in ``folder``."""
    lines = [BANK]
    for qid, key in KEYS.items():
        topic = "memory" if qid in ("q1", "q2", "q3") else "precision"
        answer = key[0] if len(key) == 1 else "[" + ", ".join(key) + "]"
        stem = f"Stem of {qid}?" if len(key) == 1 else f"Stem of {qid}? Choose two."
        reviews = "".join(f"      {k}: This option is wrong for reasons.\n"
                          for k in "ABCD" if k not in key)
        lines.append(
            f"  - id: {qid}\n    topic: {topic}\n    question: \"{stem}\"\n"
            "    options: {A: Alpha, B: Bravo, C: Charlie, D: Delta}\n"
            f"    answer: {answer}\n    short_explanation: Short.\n"
            f"    full_explanation: Full.\n    distractor_review:\n{reviews}")
    path = folder / "class.yaml"
    path.write_text("".join(lines), encoding="utf-8")
    return path


def record(store: Store, answers: dict[str, list[str]], *, mode: str = "exam",
           start: datetime | None = None) -> int:
    """One session of ``answers`` (question id → chosen keys) in ``store``; returns its id."""
    start = start or datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    session = store.start_session(mode, ("class-bank",), 7,
                                  {"questions": [[q, "DCBA"] for q in answers]}, now=start)
    for i, (qid, chosen) in enumerate(answers.items()):
        store.record_answer(AnswerRecord(
            session_id=session, question_id=qid, bank_id="class-bank", content_hash="h",
            chosen=tuple(chosen), correct=sorted(chosen) == KEYS[qid], seconds=30.0 + i,
            answered_at=start + timedelta(minutes=i + 1)))
    store.end_session(session, now=start + timedelta(minutes=10))
    return session


@pytest.fixture
def class_exports(tmp_path: Path) -> tuple[Path, Path]:
    """Three students' JSON exports, made with ``quiz results export``, and the bank."""
    bank = write_bank(tmp_path)
    out = tmp_path / "exports"
    out.mkdir()
    for name, answers in STUDENTS.items():
        data = tmp_path / f"data-{name}"
        with Store.open(data / "progress.db") as store:
            record(store, answers)
        code = main(["results", "export", str(bank), "--data-dir", str(data), "--learner", name,
                     "--out", str(out / f"{name}.json")])
        assert code == 0
    return out, bank


def test_analyze_gives_each_question_its_facility_and_discrimination(
        class_exports: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    out, bank = class_exports
    capsys.readouterr()
    assert main(["analyze", str(out), "--bank", str(bank), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    items = {q["question_id"]: q for q in report["questions"]}
    assert report["students"] == 3 and report["files_read"] == 3
    assert items["q1"]["facility"] == 0.6667 and items["q1"]["right"] == 2
    assert items["q4"]["facility"] == 0.3333 and items["q2"]["facility"] == 1.0
    # q1: right (1, 1, 0) against rest scores (5/5, 3/5, 1/5): r = sqrt(3)/2.
    assert items["q1"]["discrimination"] == pytest.approx(math.sqrt(3) / 2, abs=1e-4)
    assert items["q1"]["upper_lower"] == 1.0  # top student right, bottom one wrong
    assert items["q2"]["discrimination"] is None  # everybody right: nothing to correlate
    assert "facility above 95%: very easy" in items["q2"]["flags"]
    assert items["q6"]["key"] == ["A", "C"]
    assert items["q6"]["options"] == {"A": 0.6667, "B": 0.3333, "C": 0.3333, "D": 0.3333}
    assert items["q1"]["options"] == {"A": 0.0, "B": 0.6667, "C": 0.3333, "D": 0.0}
    assert items["q1"]["flags"] == ["distractor A chosen by 0%: not working",
                                    "distractor D chosen by 0%: not working"]
    assert {t["topic"]: t["facility"] for t in report["topics"]} == {
        "memory": round(7 / 9, 4), "precision": round(4 / 9, 4)}
    assert [(s["learner"], s["right"]) for s in report["learners"]] == [
        ("s1", 6), ("s2", 4), ("s3", 1)]


def test_analyze_prints_a_table_with_bars_and_flags(class_exports: tuple[Path, Path],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    out, bank = class_exports
    capsys.readouterr()
    assert main(["analyze", str(out / "s1.json"), str(out / "s2.json"), str(out / "s3.json"),
                 "--bank", str(bank)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("Item analysis: 3 students in 3 files, 6 questions")
    q1 = next(line for line in text.splitlines() if line.startswith("q1 "))
    assert "0.67 ██████▋" in q1 and "+0.87" in q1 and "+1.00" in q1
    assert "   Stem of q1?" in text and "A 0% · B* 67% · C 33% · D 0%" in text
    assert "   ! distractor A chosen by 0%: not working" in text
    assert all(len(line) <= 80 for line in text.splitlines())


def test_analyze_csv_tables(class_exports: tuple[Path, Path],
                            capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = class_exports
    capsys.readouterr()
    assert main(["analyze", str(out), "--csv", "--table", "learners"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["learner"], r["score"]) for r in rows] == [
        ("s1", "1.0000"), ("s2", "0.6667"), ("s3", "0.1667")]


def test_bad_files_get_a_message_each_and_the_rest_is_analysed(
        class_exports: tuple[Path, Path], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out, bank = class_exports
    whole = (out / "s1.json").read_text("utf-8")
    (out / "truncated.json").write_text(whole[: len(whole) // 2], "utf-8")
    (out / "other.json").write_text('{"format": "moodle-log", "rows": []}', "utf-8")
    (out / "newer.json").write_text(whole.replace('"version": 1', '"version": 9'), "utf-8")
    gone = json.loads((out / "s2.json").read_text("utf-8"))
    gone["learner"] = "s4"
    gone["answers"][0]["question_id"] = "retired-question"
    gone["answers"][1]["correct"] = "yes"
    (out / "s4.json").write_text(json.dumps(gone), "utf-8")
    capsys.readouterr()
    assert main(["analyze", str(out), "--bank", str(bank), "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["students"] == 4 and report["files_read"] == 4
    messages = "\n".join(report["messages"])
    assert f"{out / 'truncated.json'}:" in messages and "truncated or damaged" in messages
    assert "its format is 'moodle-log'" in messages
    assert "written by a newer quiz (results version 9" in messages
    assert "1 malformed answer left out" in messages
    assert "answers to questions the banks do not have were left out: retired-question" \
        in messages
    assert report["messages"] == captured.err.strip().splitlines()


def test_no_readable_file_is_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.json").write_text("not json", "utf-8")
    assert main(["analyze", str(tmp_path / "x.json"), str(tmp_path / "missing.json")]) == 1
    err = capsys.readouterr().err
    assert "missing.json: no such file or folder" in err
    assert "no results file could be read" in err


def test_the_first_attempt_counts_and_a_student_in_two_files_is_one(tmp_path: Path) -> None:
    with Store.open(tmp_path / "d" / "progress.db") as store:
        record(store, {"q1": ["A"]}, start=datetime(2026, 12, 1, 9, tzinfo=UTC))
        record(store, {"q1": ["B"]}, start=datetime(2026, 12, 2, 9, tzinfo=UTC))
        answers = collect(store, None, "same")
    (tmp_path / "late.json").write_text(to_json(answers[1:], "same"), "utf-8")
    (tmp_path / "early.json").write_text(to_json(answers[:1], "same"), "utf-8")
    result = analyze([tmp_path / "late.json", tmp_path / "early.json"])
    assert len(result.learners) == 1 and result.items[0].facility == 0.0


def test_the_json_export_names_every_answer(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    bank = write_bank(tmp_path)
    with Store.open(tmp_path / "d" / "progress.db") as store:
        record(store, STUDENTS["s2"])
    assert main(["results", "export", str(bank), "--data-dir", str(tmp_path / "d")]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["format"] == "quiz-results" and document["version"] == 1
    learner = (tmp_path / "d" / "learner-id").read_text("utf-8").strip()
    assert document["learner"] == learner and learner.startswith("learner-")
    assert (tmp_path / "d" / "learner-id").stat().st_mode & 0o777 == 0o600
    first = document["answers"][0]
    assert first == {
        "learner": learner, "session_id": 1, "mode": "exam", "bank_id": "class-bank",
        "question_id": "q1", "topic": "memory", "variant": None,
        "options_shown": ["D", "C", "B", "A"], "chosen": ["B"], "key": ["B"], "correct": True,
        "seconds": 30.0, "answered_at": "2026-12-01T09:01:00Z"}
    assert [a["correct"] for a in document["answers"]] == [True, True, True, False, True, False]
    assert learner_id(tmp_path / "d") == learner  # kept, not made again


def test_a_computed_question_s_variant_is_exported(tmp_path: Path) -> None:
    with Store.open(tmp_path / "d" / "progress.db") as store:
        session = store.start_session("practice", ("class-bank",), 1, {"ids": "q1"})
        store.record_answer(AnswerRecord(
            session_id=session, question_id="q1", bank_id="class-bank", content_hash="h",
            chosen=("B",), correct=True, seconds=3.0,
            answered_at=datetime(2026, 12, 1, 9, tzinfo=UTC),
            variant={"model": "llama-3-8b", "inference.batch": 16}))
        answer = collect(store, None, "v")[0]
    assert answer.variant == {"model": "llama-3-8b", "inference.batch": 16}
    assert answer.options_shown is None  # the plan kept only the ids
    made: dict[str, Any] = statement(answer)
    assert made["context"]["extensions"]["https://quiz.invalid/extensions/variant"] == {
        "model": "llama-3-8b", "inference.batch": 16}


def test_the_csv_export_is_a_row_per_answer_safe_for_spreadsheets(
        tmp_path: Path) -> None:
    bank = write_bank(tmp_path)
    with Store.open(tmp_path / "d" / "progress.db") as store:
        record(store, STUDENTS["s3"])
    target = tmp_path / "answers.csv"
    assert main(["results", "export", str(bank), "--data-dir", str(tmp_path / "d"),
                 "--format", "csv", "--learner", "=HYPERLINK(1)", "--out", str(target)]) == 0
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # a BOM: a spreadsheet opens it as UTF-8
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"))))
    assert len(rows) == 6 and rows[5]["chosen"] == "B D" and rows[5]["key"] == "A C"
    assert rows[0]["learner"] == "'=HYPERLINK(1)" and rows[0]["correct"] == "0"
    assert main(["results", "export", str(bank), "--data-dir", str(tmp_path / "d"),
                 "--out", str(target)]) == 2  # exists: not replaced without --force
    assert target.read_bytes() == raw


def test_xapi_statements_validate_and_mark_misses(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((FIXTURES / "xapi-statement-1.0.3.schema.json").read_text("utf-8"))
    bank = write_bank(tmp_path)
    with Store.open(tmp_path / "d" / "progress.db") as store:
        record(store, STUDENTS["s2"])
    assert main(["results", "export", str(bank), "--data-dir", str(tmp_path / "d"),
                 "--format", "xapi", "--learner", "s2",
                 "--iri-base", "https://lms.example.edu/quiz"]) == 0
    statements = json.loads(capsys.readouterr().out)
    validator = jsonschema.Draft202012Validator(schema)
    for s in statements:
        validator.validate(s)
    assert [s["result"]["success"] for s in statements] == [True, True, True, False, True, False]
    q6 = statements[5]
    assert q6["object"]["id"] == "https://lms.example.edu/quiz/banks/class-bank/questions/q6"
    assert q6["object"]["definition"]["correctResponsesPattern"] == ["A[,]C"]
    assert q6["result"] == {"success": False, "response": "A", "duration": "PT35S"}
    assert q6["actor"]["account"] == {"homePage": "https://lms.example.edu/quiz/learners",
                                      "name": "s2"}
    assert q6["verb"]["id"] == "http://adlnet.gov/expapi/verbs/answered"
    assert len({s["id"] for s in statements}) == 6
    bad = dict(statements[0], result={"success": "no"})
    assert not validator.is_valid(bad)  # the schema can fail


@pytest.mark.parametrize(("seconds", "text"), [
    (0, "PT0S"), (41.2, "PT41.2S"), (65, "PT1M5S"), (7203.5, "PT2H0M3.5S"), (0.004, "PT0S")])
def test_xapi_durations(seconds: float, text: str) -> None:
    assert duration(seconds) == text


def test_a_statement_for_a_question_no_bank_has(tmp_path: Path) -> None:
    with Store.open(tmp_path / "d" / "progress.db") as store:
        record(store, {"q1": ["B"]})
        answer = collect(store, None, "x")[0]
    made: dict[str, Any] = statement(answer)
    assert answer.key is None and "correctResponsesPattern" not in made["object"]["definition"]
    assert made["object"]["id"] == "https://quiz.invalid/banks/class-bank/questions/q1"


def test_control_characters_from_a_results_file_are_shown_escaped(tmp_path: Path) -> None:
    with Store.open(tmp_path / "d" / "progress.db") as store:
        record(store, {"q1": ["B"]})
        answers = collect(store, None, "evil\x1b[31m")
    (tmp_path / "e.json").write_text(to_json(answers, "evil\x1b[31m"), "utf-8")
    text = render(analyze([tmp_path / "e.json"]))
    assert "\x1b" not in text and "evil\\x1b[31m" in text


def test_stats_json_no_longer_claims_to_export_everything(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stats", "--help"]) == 0
    text = capsys.readouterr().out
    assert "exports everything" not in text and "quiz results export" in text
