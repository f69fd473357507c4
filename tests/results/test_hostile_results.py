"""``quiz analyze`` on hostile results files: deep nesting, a named pipe, a device, and a run
where no file could be read (nothing on standard output then, only the reasons)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quiz.cli import main
from quiz.results.analysis import read_file


def test_deeply_nested_json_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"format": ' + "[" * 100_000 + "]" * 100_000 + "}", "utf-8")
    learner, answers, messages = read_file(path)
    assert learner is None and answers == []
    assert messages == [f"{path}: nested too deeply to be a quiz results export"]


def test_a_named_pipe_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    learner, _, messages = read_file(fifo)
    assert learner is None
    assert messages == [f"{fifo}: not a regular file: not a quiz results export"]


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_is_refused_before_reading_it(tmp_path: Path) -> None:
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    learner, _, messages = read_file(link)
    assert learner is None
    assert messages == [f"{link}: not a regular file: not a quiz results export"]


def test_nothing_read_prints_no_empty_table(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "x.json").write_text("not json", "utf-8")
    assert main(["analyze", str(tmp_path / "x.json")]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert f"{tmp_path / 'x.json'}:1:1: not valid JSON" in captured.err
    assert "no results file could be read" in captured.err


def test_export_from_a_damaged_progress_file_says_it_was_set_aside(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "progress.db").write_text("garbage, not SQLite", "utf-8")
    assert main(["results", "export", "--data-dir", str(data), "--learner", "s1",
                 "--out", str(tmp_path / "out.json")]) == 0
    err = capsys.readouterr().err
    aside = [p.name for p in data.iterdir() if p.name.startswith("progress.db.damaged-")]
    assert len(aside) == 1
    assert f"The progress file {data / 'progress.db'} could not be used" in err
    assert aside[0] in err


def test_a_shuffled_practice_session_exports_the_options_shown(tmp_path: Path) -> None:
    """A practice session stores only an option seed (the order is drawn as each question is
    shown): the export draws the same order again instead of leaving ``options_shown`` out."""
    from datetime import UTC, datetime

    from quiz.results.export import collect
    from quiz.study.recorder import QuestionIndex, Recorder
    from quiz.study.session import SessionConfig, StudySession
    from quiz.study.store import Store
    from tests.conftest import make_library, question_data

    t0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    lib = make_library(*(question_data(f"q{i}") for i in range(4)))
    seen: dict[str, list[str]] = {}
    with Store.open(tmp_path / "p.db") as store:
        s = StudySession.from_questions(lib.questions, SessionConfig(shuffle=True, seed=11))
        assert "ids" in s.plan() and "option_seed" in s.plan()
        sid = store.start_session("practice", ("test-bank",), 11, s.plan(), now=t0)
        s.sink = Recorder(store, sid, "practice", QuestionIndex.of(lib), now=lambda: t0)
        for _ in range(4):
            seen[s.current.question.id] = [o.key for o in s.current.options]
            s.answer("a")
            if not s.at_last:
                s.next()
        answers = collect(store, lib, "s1")
    assert {a.question_id: a.options_shown for a in answers} == seen
    assert any(order != sorted(order) for order in seen.values())  # shuffled indeed


@pytest.mark.parametrize("base", ["notaniri", "javascript:alert(1)", "https://x.org/a b",
                                  "https://", "ftp://x.org/", "https://x.org/\x1b[31m"])
def test_an_iri_base_that_would_make_invalid_activity_ids_is_refused(
        tmp_path: Path, base: str, capsys: pytest.CaptureFixture[str]) -> None:
    """xAPI activity ids must be absolute IRIs: a relative, scriptable, spaced or control-
    character base made statements an LRS rejects (and the export said nothing)."""
    assert main(["results", "export", "--format", "xapi", "--iri-base", base,
                 "--data-dir", str(tmp_path / "d"), "--learner", "s1"]) == 2
    err = capsys.readouterr().err
    assert "--iri-base: give an absolute http:// or https:// address with a host" in err


def test_an_ordinary_iri_base_is_kept(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["results", "export", "--format", "xapi", "--iri-base",
                 "https://lrs.example.edu/quiz", "--data-dir", str(tmp_path / "d"),
                 "--learner", "s1"]) == 0
    assert capsys.readouterr().out.strip() == "[]"


def test_table_without_csv_is_a_usage_error(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """--table picks the CSV table: without --csv it was silently ignored (the full report
    printed, not the learners table asked for)."""
    (tmp_path / "x.json").write_text("{}", "utf-8")
    assert main(["analyze", str(tmp_path / "x.json"), "--table", "learners"]) == 2
    assert "--table picks which table --csv prints: add --csv" in capsys.readouterr().err
