"""Exam mode: proportional draw, an injected clock, no reveal before submit, the report."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from quiz.bank.load import load_library
from quiz.study.exam import (
    ExamSession,
    draw_exam,
    proportional_counts,
    time_limit_seconds,
)
from quiz.study.recorder import QuestionIndex, Recorder
from quiz.study.session import SessionConfig
from quiz.study.shown import SessionError
from quiz.study.store import Store
from tests.conftest import make_library, question_data


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _library(memory: int = 6, precision: int = 3):
    qs = [question_data(f"m{i}", difficulty="easy" if i % 2 else "hard") for i in range(memory)]
    qs += [question_data(f"p{i}", topic="precision", difficulty="medium")
           for i in range(precision)]
    return make_library(*qs)


def test_largest_remainder_split() -> None:
    assert proportional_counts({"a": 6, "b": 3}, 3) == {"a": 2, "b": 1}
    assert proportional_counts({"a": 6, "b": 3}, 4) == {"a": 3, "b": 1}  # 2.67 / 1.33
    # quotas 2.27, 2.27, 0.45: the seat left goes to the largest remainder, c
    assert proportional_counts({"a": 5, "b": 5, "c": 1}, 5) == {"a": 2, "b": 2, "c": 1}
    assert proportional_counts({"a": 5, "b": 5, "c": 1}, 4) == {"a": 2, "b": 2, "c": 0}
    assert proportional_counts({"a": 1, "b": 1}, 2) == {"a": 1, "b": 1}
    with pytest.raises(ValueError):
        proportional_counts({"a": 2}, 3)


def test_draw_is_proportional_and_reproducible() -> None:
    lib = _library(memory=20, precision=10)
    shown = draw_exam(lib.questions, SessionConfig(count=9, seed=4))
    assert Counter(s.question.topic for s in shown) == {"memory": 6, "precision": 3}
    again = draw_exam(lib.questions, SessionConfig(count=9, seed=4))
    assert [(s.question.id, s.letters, [o.key for o in s.options]) for s in shown] == [
        (s.question.id, s.letters, [o.key for o in s.options]) for s in again]
    others = {tuple(s.question.id for s in draw_exam(lib.questions,
                                                     SessionConfig(count=9, seed=k)))
              for k in range(6)}
    assert len(others) > 1
    only = draw_exam(lib.questions, SessionConfig(count=4, topics=frozenset({"precision"})))
    assert {s.question.topic for s in only} == {"precision"} and len(only) == 4


def test_time_limit_sources() -> None:
    assert time_limit_seconds(10) == pytest.approx(720.0)  # 1.2 min per question
    assert time_limit_seconds(10, bank_minutes=30) == 1800.0
    assert time_limit_seconds(10, minutes=5, bank_minutes=30) == 300.0


def test_bank_time_limit_is_read_from_yaml(tmp_path: Path) -> None:
    bank = tmp_path / "b.yaml"
    bank.write_text(
        "bank:\n  id: b\n  title: B\n  time_limit: 45\n  topics: {memory: Memory}\n"
        "questions:\n  - id: q1\n    topic: memory\n    question: Stem?\n"
        "    options: {A: one, B: two}\n    answer: A\n    short_explanation: s\n"
        "    full_explanation: f\n    distractor_review: {B: no}\n", encoding="utf-8")
    report = load_library([str(bank)])
    assert report.library is not None, [str(d) for d in report.diagnostics]
    assert report.library.time_limit == 45.0


def test_clock_counts_down_and_time_out_ends_the_exam() -> None:
    clock = Clock()
    exam = ExamSession.draw(_library().questions, SessionConfig(count=3, shuffle=False),
                            minutes=2, clock=clock)
    assert exam.remaining == 120.0
    clock.t += 45.5
    assert exam.remaining == 74.5 and not exam.expired
    exam.choose("B")
    clock.t += 80
    assert exam.expired and exam.remaining == 0.0
    with pytest.raises(SessionError, match="time is up"):
        exam.choose("A")
    report = exam.submit()
    assert report.timed_out and report.time_used_s == 120.0
    assert report.score.correct == 1 and report.score.total == 3
    clock.t += 500
    assert exam.elapsed == 120.0  # frozen at submit


def test_no_verdict_before_submit_and_answers_can_change() -> None:
    exam = ExamSession.draw(_library().questions, SessionConfig(count=3, shuffle=False),
                            clock=Clock())
    ticks = exam.choose("A")
    assert ticks == frozenset({"A"})
    assert exam.report is None
    assert not hasattr(exam, "outcomes")  # nothing to reveal while running
    exam.choose("B")  # changed to the right answer
    assert exam.answers == {exam.current.question.id: frozenset({"B"})}
    assert exam.submit().score.correct == 1


def test_map_flags_and_jumps() -> None:
    exam = ExamSession.draw(_library().questions, SessionConfig(count=4, shuffle=False),
                            clock=Clock())
    exam.choose("B")
    exam.go(2)
    assert exam.toggle_flag() is True
    exam.choose("A")
    cells = exam.question_map()
    assert [(c.number, c.answered, c.flagged, c.current) for c in cells] == [
        (1, True, False, False), (2, False, False, False), (3, True, True, True),
        (4, False, False, False)]
    assert exam.unanswered() == [2, 4] and exam.flagged() == [3]
    assert exam.toggle_flag() is False and exam.flagged() == []


def test_multiple_response_counts_only_when_complete() -> None:
    lib = make_library(question_data("mr", answer=["A", "C"]))
    exam = ExamSession.draw(lib.questions, SessionConfig(shuffle=False), clock=Clock())
    exam.choose("A")
    assert exam.answers == {} and exam.unanswered() == [1]
    exam.choose("C")
    assert exam.answers == {"mr": frozenset({"A", "C"})}
    exam.choose("C")
    assert exam.answers == {}
    exam.choose("C")
    assert exam.submit().score.correct == 1


def test_score_report_for_a_known_answer_sheet() -> None:
    clock = Clock()
    exam = ExamSession.draw(_library(memory=6, precision=4).questions,
                            SessionConfig(shuffle=False), minutes=20, pass_mark=0.7,
                            clock=clock)
    # m0..m5 (hard, easy, hard, easy, hard, easy), p0..p3 (medium); right answer is B.
    sheet = ["B", "B", "A", "B", "B", None, "B", "B", "C", "B"]
    for i, letter in enumerate(sheet):
        exam.go(i)
        if letter:
            exam.choose(letter)
        if i in (1, 3):
            exam.toggle_flag()
    clock.t += 600
    report = exam.submit()
    assert (report.score.correct, report.score.answered, report.score.total) == (7, 9, 10)
    assert report.fraction == 0.7 and report.passed  # exactly at the mark passes
    assert report.time_used_s == 600 and not report.timed_out
    assert {t: (s.correct, s.total) for t, s in report.by_topic.items()} == {
        "memory": (4, 6), "precision": (3, 4)}
    assert {d: (s.correct, s.total) for d, s in report.by_difficulty.items()} == {
        "hard": (2, 3), "easy": (2, 3), "medium": (3, 4)}
    # flagged (2, 4) and wrong/unanswered (3, 6, 9) first, in exam order; then the rest
    assert [it.shown.number for it in report.items] == [2, 3, 4, 6, 9, 1, 5, 7, 8, 10]
    first = report.items[0]
    assert first.flagged and first.correct and first.outcome is not None
    assert first.outcome.full_explanation == "Full explanation of m1."
    assert report.items[3].outcome is None  # unanswered m5


def test_below_the_mark_fails() -> None:
    exam = ExamSession.draw(_library(memory=3, precision=0).questions,
                            SessionConfig(shuffle=False), pass_mark=0.7, clock=Clock())
    exam.choose("B")
    exam.go(1)
    exam.choose("B")
    report = exam.submit()
    assert report.fraction == pytest.approx(2 / 3) and not report.passed


def test_exam_is_recorded_and_resumes_with_its_time_left(tmp_path: Path) -> None:
    lib = _library()
    clock = Clock()
    store = Store.open(tmp_path / "p.db")
    exam = ExamSession.draw(lib.questions, SessionConfig(count=5, seed=2), minutes=10,
                            clock=clock)
    sid = store.start_session("exam", ("test-bank",), 2, exam.plan())
    exam.sink = Recorder(store, sid, "exam", QuestionIndex.of(lib))
    clock.t += 100
    exam.choose(exam.current.letter_of("B"))
    exam.go(3)
    exam.toggle_flag()
    clock.t += 50
    exam.choose(exam.current.letter_of("A"))
    store.close()  # the process dies here

    again = Store.open(tmp_path / "p.db")
    (rec,) = again.open_sessions()
    assert rec.mode == "exam"
    assert {k: rec.state[k] for k in ("elapsed_s", "position", "ticks")} == {
        "elapsed_s": 150.0, "position": 3, "ticks": {}}
    # Issue 23: the time spent on each question is kept with the clock.
    assert rec.state["time_on"] == {exam.shown[0].question.id: 100.0,
                                    exam.shown[3].question.id: 50.0}
    assert again.cards() == {}  # exams never move the schedule
    later = Clock()
    resumed = ExamSession.resume(
        lib.questions, rec.plan, rec.state,
        [(a.question_id, a.chosen) for a in again.answers(sid)], again.flags(sid),
        clock=later)
    assert resumed.remaining == 450.0 and resumed.position == 3
    assert [s.question.id for s in resumed.shown] == [s.question.id for s in exam.shown]
    assert resumed.answers == exam.answers and resumed.flags == exam.flags
    later.t += 30
    assert resumed.remaining == 420.0
    assert resumed.submit().score.correct == 1


def test_partial_ticks_survive_an_interruption(tmp_path: Path) -> None:
    lib = make_library(question_data("mr", answer=["A", "C"]), question_data("q2"))
    store = Store.open(tmp_path / "p.db")
    exam = ExamSession.draw(lib.questions, SessionConfig(shuffle=False), clock=Clock())
    sid = store.start_session("exam", ("test-bank",), None, exam.plan())
    exam.sink = Recorder(store, sid, "exam", QuestionIndex.of(lib))
    exam.choose("C")  # one tick of two: not an answer yet
    rec = store.session(sid)
    assert rec.state["ticks"] == {"mr": ["C"]} and store.answers(sid) == []
    resumed = ExamSession.resume(lib.questions, rec.plan, rec.state, [], [], clock=Clock())
    assert resumed.ticks == {"mr": frozenset({"C"})} and resumed.answers == {}
    resumed.choose("A")
    assert resumed.answers == {"mr": frozenset({"A", "C"})}
    store.close()


def test_incomplete_ticks_are_in_the_report_and_in_the_report_read_again(
        tmp_path: Path) -> None:
    lib = make_library(question_data("mr", answer=["A", "C"]), question_data("q2"))
    store = Store.open(tmp_path / "p.db")
    exam = ExamSession.draw(lib.questions, SessionConfig(shuffle=False), clock=Clock())
    sid = store.start_session("exam", ("test-bank",), None, exam.plan())
    exam.sink = Recorder(store, sid, "exam", QuestionIndex.of(lib))
    exam.choose("C")  # one tick of two, then submitted
    report = exam.submit()
    mr, q2 = report.sheet
    assert (mr.outcome, mr.ticked, mr.incomplete) == (None, frozenset({"C"}), True)
    assert (q2.outcome, q2.ticked, q2.incomplete) == (None, frozenset(), False)
    assert report.score.answered == 0 and report.score.correct == 0
    rec = store.session(sid)
    again = ExamSession.stored_report(lib.questions, rec.plan, rec.state, [], [])
    assert [(it.ticked, it.incomplete) for it in again.sheet] == [
        (frozenset({"C"}), True), (frozenset(), False)]
    store.close()
