"""Statistics: session scores, topic accuracy and trend, leeches; quiz stats and its exports."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quiz.cli import main
from quiz.study.exam import ExamSession
from quiz.study.recorder import QuestionIndex, Recorder
from quiz.study.session import SessionConfig, StudySession
from quiz.study.stats import compute
from quiz.study.store import Store
from tests.conftest import make_library, question_data

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _library():
    return make_library(*(question_data(f"m{i}") for i in range(4)),
                        *(question_data(f"p{i}", topic="precision") for i in range(2)))


def _practice(store: Store, lib, answers: list[str], ids: tuple[str, ...] | None = None) -> int:
    s = StudySession.from_questions(lib.questions, SessionConfig(shuffle=False,
                                                                 question_ids=ids))
    sid = store.start_session("practice", ("test-bank",), None, s.plan(), now=T0)
    s.sink = Recorder(store, sid, "practice", QuestionIndex.of(lib), now=lambda: T0)
    for letter in answers:
        s.answer(letter)
        if not s.at_last:
            s.next()
    if s.finished:
        store.end_session(sid, "finished", now=T0 + timedelta(minutes=3))
    return sid


def _exam(store: Store, lib, answers: list[str | None]) -> int:
    clock = [0.0]
    exam = ExamSession.draw(lib.questions, SessionConfig(shuffle=False), pass_mark=0.5,
                            clock=lambda: clock[0])
    sid = store.start_session("exam", ("test-bank",), None, exam.plan(), now=T0)
    exam.sink = Recorder(store, sid, "exam", QuestionIndex.of(lib), now=lambda: T0)
    for i, letter in enumerate(answers):
        exam.go(i)
        if letter:
            exam.choose(letter)
    clock[0] = 125.0
    exam.submit()
    store.end_session(sid, "finished")
    return sid


def test_sessions_topics_and_leeches(tmp_path: Path) -> None:
    lib = _library()
    with Store.open(tmp_path / "p.db") as store:
        _practice(store, lib, ["B", "A", "B", "B", "A", "B"])  # m1 and p0 wrong
        _exam(store, lib, ["B", "B", "B", None, "A", "A"])  # 3 of 6 right: exactly the mark
        for _ in range(3):
            _practice(store, lib, ["C"], ids=("m1",))
        stats = compute(store, lib, T0 + timedelta(minutes=10))
    practice, exam = stats.sessions[-1], stats.sessions[-2]
    assert (practice.mode, practice.correct, practice.answered, practice.total,
            practice.score, practice.passed, practice.seconds) == (
        "practice", 4, 6, 6, round(4 / 6, 4), None, 180.0)
    assert (exam.mode, exam.correct, exam.answered, exam.total, exam.score, exam.passed,
            exam.seconds) == ("exam", 3, 5, 6, 0.5, True, 125.0)
    memory, precision = stats.topics
    assert (memory.topic, memory.correct, memory.answered, memory.seen, memory.questions) == (
        "memory", 6, 10, 4, 4)
    assert memory.trend == [0.75, 1.0, 0.0, 0.0, 0.0]
    assert (precision.correct, precision.answered) == (1, 4)
    assert [(x.question_id, x.wrong, x.right) for x in stats.leeches] == [("m1", 4, 1)]
    assert stats.seen == 6 and stats.answers == 14
    # the misses (m1, p0: Again, a 1-minute step) are due today; the right answers came fast
    # (Easy) and wait days
    assert stats.due == 2 and stats.mastered == 0


@pytest.fixture
def bank_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "bank"
    folder.mkdir()
    (folder / "b.yaml").write_text(
        "bank:\n  id: test-bank\n  title: T\n  topics: {memory: Memory}\nquestions:\n"
        + "".join(f"  - id: m{i}\n    topic: memory\n    question: Stem {i}?\n"
                  "    options: {A: one, B: two}\n    answer: B\n    short_explanation: s\n"
                  "    full_explanation: f\n    distractor_review: {A: no}\n"
                  for i in range(4)), encoding="utf-8")
    return folder


def test_quiz_stats_table_json_csv_and_reset(tmp_path: Path, bank_dir: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    lib = _library()
    with Store.open(data / "progress.db") as store:
        _practice(store, lib, ["B", "A", "B", "B"], ids=("m0", "m1", "m2", "m3"))
        _exam(store, lib, ["B", "B", "B", "B", "A", "A"])
    assert main(["stats", str(bank_dir), "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    # The history is kept by question id; the schedules were made for other stems (the
    # library in the store differs from this bank's text), so none of them counts as due.
    # The header reads as the dashboard's: "4 of 4 seen", not "4 seen, ..., of 4".
    assert out.splitlines()[0] == (
        "Questions: 4 of 4 seen, 0 mastered, 0 due today; 10 answers given")
    rows = [line for line in out.splitlines() if line.strip().startswith(("1 ", "2 "))]
    assert "exam" in rows[0] and "4/6 67%" in rows[0] and "pass" in rows[0]
    assert "practice" in rows[1] and "3/4 75%" in rows[1] and "finished" in rows[1]

    assert main(["stats", str(bank_dir), "--data-dir", str(data), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["mode"] for s in doc["sessions"]] == ["exam", "practice"]
    assert doc["sessions"][0]["correct"] == 4 and doc["topics"][0]["answered"] == 8

    assert main(["stats", str(bank_dir), "--data-dir", str(data), "--csv"]) == 0
    table = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert [(r["mode"], r["correct"], r["total"]) for r in table] == [
        ("exam", "4", "6"), ("practice", "3", "4")]

    assert main(["stats", "--data-dir", str(data), "--reset"]) == 2  # no terminal, no --yes
    assert "--yes" in capsys.readouterr().err
    assert main(["stats", "--data-dir", str(data), "--reset", "--yes"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Deleted 2 sessions and 10 answers. Backup: ")
    (backup,) = (data / "backups").glob("progress-*.db")
    with Store.open(backup) as kept:
        assert kept.answer_count() == 10
    with Store.open(data / "progress.db") as store:
        assert store.answer_count() == 0 and store.sessions() == []


def test_quiz_stats_reset_asks_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    with Store.open(data / "progress.db") as store:
        _practice(store, _library(), ["B"])
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "no")
    assert main(["stats", "--data-dir", str(data), "--reset"]) == 0
    assert "Nothing deleted." in capsys.readouterr().out
    with Store.open(data / "progress.db") as store:
        assert store.answer_count() == 1


def test_quiz_stats_lines_fit_80_columns(tmp_path: Path) -> None:
    """Issue 23 §6: no line past 80 columns (a long topic name is cut with …, a long status
    goes on a line of its own), and a session continued as a retry says so."""
    from quiz.cli.study import format_stats

    lib = make_library(*(question_data(f"m{i}") for i in range(4)),
                       topics={"memory": "Memory footprint of training versus inference on "
                                         "large clusters of accelerators",
                               "precision": "Precision"})
    with Store.open(tmp_path / "p.db") as store:
        sid = _practice(store, lib, ["B", "A"])
        store.end_session(sid, "retried", now=T0 + timedelta(minutes=2))
        _practice(store, lib, ["B", "B", "B", "B"])
        _exam(store, lib, ["B", "A", None, "B"])
        stats = compute(store, lib, T0 + timedelta(days=1))
    text = format_stats(stats, 80)
    assert all(len(line) <= 80 for line in text.splitlines()), max(
        text.splitlines(), key=len)
    assert "continued as a retry" in text and "(abandoned)" not in text
    (memory,) = [line for line in text.splitlines() if line.startswith("Memory footprint")]
    assert memory.split("  ")[0] == "Memory footprint of training vers…"


@pytest.mark.parametrize("width", [40, 50, 64])
def test_quiz_stats_lines_fit_a_narrow_terminal(tmp_path: Path, width: int) -> None:
    """``quiz stats`` in a 40-64 column terminal: no line past its edge (the topic table and
    the session list were 52 and 69+ columns wide whatever the terminal), nothing lost."""
    from quiz.cli.study import format_stats

    lib = make_library(*(question_data(f"m{i}") for i in range(4)),
                       topics={"memory": "Memory footprint of training versus inference",
                               "precision": "Precision"})
    with Store.open(tmp_path / "p.db") as store:
        _practice(store, lib, ["B", "A"])
        _exam(store, lib, ["B", "A", None, "B"])
        stats = compute(store, lib, T0 + timedelta(days=1))
    text = format_stats(stats, width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    assert "Memory footprint" in text
    if width < 58:  # the topic table needs 46 columns and 12 for a name
        assert "accuracy 60% · 5 answers · 3/4 seen · 0 mastered · 1 due" in " ".join(
            line.strip() for line in lines)
    else:
        assert any(line.startswith("Memory footprint")
                   and line.endswith("60%        5        3/4         0     1") for line in lines)
    assert "score 2/4 50% · pass · time 2:05 · finished" in " ".join(
        line.strip() for line in lines)
    assert "score 1/2 50% · 2 of 4 done · time - · open" in " ".join(
        line.strip() for line in lines)


def test_stats_of_a_cached_library_decode_no_question_but_a_leech(
        tmp_path: Path, bank_dir: Path) -> None:
    """``quiz stats`` reads each question's id, topic and content hash from the validated-bank
    cache's index: a cached bank is not decoded (no models built) unless a leech's stem is
    shown, and the figures are those of the library loaded in full."""
    from quiz.bank.load import load_library

    full = load_library([bank_dir], cache_dir=tmp_path / "cache").library
    cached = load_library([bank_dir], cache_dir=tmp_path / "cache").library
    assert full is not None and cached is not None
    (bank,) = cached.banks
    assert not bank.decoded
    with Store.open(tmp_path / "p.db") as store:
        _practice(store, full, ["B", "A", "B", "B"], ids=("m0", "m1", "m2", "m3"))
        stats = compute(store, cached, T0 + timedelta(minutes=10))
        assert not bank.decoded
        assert (stats.questions, stats.seen, stats.due, stats.answers) == (4, 4, 1, 4)
        assert [(t.topic, t.questions, t.correct, t.answered) for t in stats.topics] == [
            ("memory", 4, 3, 4)]
        assert stats == compute(store, full, T0 + timedelta(minutes=10))
        for _ in range(3):
            _practice(store, full, ["A"], ids=("m1",))
        stats = compute(store, cached, T0 + timedelta(minutes=10))
    assert bank.decoded  # the leech's stem is shown
    assert [(x.question_id, x.wrong, x.stem) for x in stats.leeches] == [("m1", 4, "Stem 1?")]
