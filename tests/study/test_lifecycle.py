"""A session's life in the core, without a terminal (issue 18): start, resume, retry, finish,
abandon, the resume and quit wording, and the one pass-mark rule."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from quiz.bank.library import Library, LoadedBank
from quiz.bank.model import BankFile
from quiz.study.exam import ExamReport, ExamSession
from quiz.study.launch import Launch
from quiz.study.lifecycle import Lifecycle, StartRefused, settings_key
from quiz.study.mode import Mode
from quiz.study.recorder import Recorder
from quiz.study.score import Score, passes
from quiz.study.session import SessionConfig, StudySession
from quiz.study.store import Store
from tests.conftest import make_library, question_data

NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _library(n: int = 4) -> Library:
    return make_library(*(question_data(f"q{i}", topic="memory" if i % 2 else "precision")
                          for i in range(n)))


def _life(tmp_path: Path, library: Library | None = None, *,
          clock: Clock | None = None) -> tuple[Lifecycle, Store]:
    store = Store.open(tmp_path / "p.db")
    life = Lifecycle(library or _library(), store=store, clock=clock or Clock(),
                     now=lambda: NOW)
    return life, store


def test_a_practice_session_is_made_with_its_mode_clock_and_sink(tmp_path: Path) -> None:
    clock = Clock()
    life, store = _life(tmp_path, clock=clock)
    session = life.start(SessionConfig(shuffle=False), Mode.PRACTICE)
    assert isinstance(session, StudySession) and life.session is session and life.exam is None
    assert session.mode is Mode.PRACTICE and session.clock is clock
    assert isinstance(session.sink, Recorder) and session.sink is life.recorder
    (rec,) = store.open_sessions()
    # No process id in the plan (the session's lock tells which quiz studies it).
    assert rec.mode == "practice" and rec.plan == {}
    life.write_plan(session)  # once the first question is shown
    assert store.session(rec.id).plan["ids"] == "q0\nq1\nq2\nq3"
    clock.t += 7
    session.answer({session.current.letter_of("B")})
    (answer,) = store.answers(rec.id)
    assert answer.seconds == 7.0 and answer.correct


def test_an_exam_starts_recorded_with_its_plan_and_is_not_abandoned_by_a_new_session(
        tmp_path: Path) -> None:
    life, store = _life(tmp_path)
    exam = life.start(SessionConfig(seed=1), "exam", minutes=5)
    assert isinstance(exam, ExamSession) and life.exam is exam and life.session is None
    (rec,) = store.open_sessions()
    assert rec.mode == "exam" and rec.plan["time_limit_s"] == 300.0
    life.start(SessionConfig(seed=1), Mode.PRACTICE)
    assert store.session(rec.id).status == "open"  # an exam can still be resumed


def test_a_new_session_abandons_the_unfinished_one_and_finish_closes_it(
        tmp_path: Path) -> None:
    life, store = _life(tmp_path)
    first = life.start(SessionConfig(shuffle=False))
    assert life.recorder is not None
    first_id = life.recorder.session_id
    life.start(SessionConfig(shuffle=False))
    assert store.session(first_id).status == "abandoned"
    assert life.recorder is not None
    life.finish()
    assert store.session(life.recorder.session_id).status == "finished"
    assert first is not life.session


def test_review_and_cram_say_why_they_cannot_start(tmp_path: Path) -> None:
    life, _ = _life(tmp_path)
    with pytest.raises(StartRefused, match="Nothing to review"):
        life.start(SessionConfig(), Mode.REVIEW)
    with pytest.raises(StartRefused, match="Nothing to cram"):
        life.start(SessionConfig(), Mode.CRAM)
    without = Lifecycle(_library(), store=None)
    with pytest.raises(StartRefused, match="needs the progress store"):
        without.start(SessionConfig(), Mode.REVIEW)
    with pytest.raises(StartRefused, match="no question matches"):
        without.start(SessionConfig(topics=frozenset({"none"})))


def test_an_interrupted_session_is_offered_and_resumed_where_it_was_left(
        tmp_path: Path) -> None:
    life, store = _life(tmp_path)
    session = life.start(SessionConfig(shuffle=False))
    assert isinstance(session, StudySession)
    life.write_plan(session)
    session.answer({session.current.letter_of("B")})
    session.toggle_flag()
    again = Lifecycle(_library(), store=store, clock=Clock(), now=lambda: NOW)
    offer = again.resume_offer()
    assert offer is not None and offer.resume == "Resume" and offer.resume_is_default
    assert offer.text.startswith("An unfinished practice session")
    resumed = again.resume(offer.waiting)
    assert isinstance(resumed, StudySession) and resumed.position == 1
    assert set(resumed.outcomes) == {"q0"} and resumed.flags == {"q0"}
    assert resumed.mode is Mode.PRACTICE and isinstance(resumed.sink, Recorder)


def test_a_plan_written_with_a_process_id_is_still_resumed(tmp_path: Path) -> None:
    """Plans written before the session locks name a ``"pid"``: it is read and ignored."""
    life, store = _life(tmp_path)
    session = life.start(SessionConfig(shuffle=False))
    assert isinstance(session, StudySession)
    life.write_plan(session)
    session.answer({session.current.letter_of("B")})
    (rec,) = store.open_sessions()
    store.set_plan(rec.id, {**rec.plan, "pid": 2 ** 22 + 17})
    again = Lifecycle(_library(), store=store, clock=Clock(), now=lambda: NOW)
    offer = again.resume_offer()
    assert offer is not None
    resumed = again.resume(offer.waiting)
    assert isinstance(resumed, StudySession) and resumed.position == 1
    assert [s.question.id for s in resumed.shown] == [s.question.id for s in session.shown]
    store.close()


def test_the_resume_offer_speaks_of_the_mode_asked_for(tmp_path: Path) -> None:
    life, store = _life(tmp_path)
    session = life.start(SessionConfig(shuffle=False))
    assert isinstance(session, StudySession)
    life.write_plan(session)
    session.answer({session.current.letter_of("B")})
    again = Lifecycle(_library(), store=store, now=lambda: NOW)
    offer = again.resume_offer(Mode.EXAM)
    assert offer is not None
    assert offer.text.startswith("Before your exam: resume the unfinished practice session, "
                                 "or start the exam?")
    assert (offer.resume, offer.fresh, offer.resume_is_default) == (
        "Resume practice", "Start exam", False)
    again.abandon(offer.waiting)
    assert store.open_sessions() == []


def test_retry_starts_the_missed_ones_as_practice_after_an_exam(tmp_path: Path) -> None:
    life, _ = _life(tmp_path)
    exam = life.start(SessionConfig(shuffle=False), Mode.EXAM)
    assert isinstance(exam, ExamSession)
    exam.choose(exam.current.letter_of("A"))  # wrong
    report = exam.submit()
    missed = tuple(it.shown.question.id for it in report.items if not it.correct)
    retry = life.retry(missed)
    assert isinstance(retry, StudySession) and retry.mode is Mode.PRACTICE
    assert {q.id for q in retry.questions} == set(missed) and life.first_attempt == report.score
    as_exam = life.retry(missed[:2], as_mode=Mode.EXAM)
    assert isinstance(as_exam, ExamSession) and as_exam.total == 2


def test_the_quit_dialog_says_what_is_kept(tmp_path: Path) -> None:
    life, _ = _life(tmp_path)
    assert life.quit_text(under_way=False) == "Quit quiz?\n\nYour progress is saved."
    session = life.start(SessionConfig(shuffle=False))
    assert isinstance(session, StudySession)
    session.answer({session.current.letter_of("B")})
    assert "offered to resume at the next start" in life.quit_text(under_way=True)
    life.start(SessionConfig(), Mode.EXAM)
    assert "the clock stops" in life.quit_text(under_way=True)
    alone = Lifecycle(_library(), store=None)
    played = alone.start(SessionConfig(shuffle=False))
    assert isinstance(played, StudySession)
    played.answer({played.current.letter_of("B")})
    assert alone.quit_text(under_way=True).endswith("This session's 1 answer will not be kept.")


def test_settings_are_kept_per_set_of_banks(tmp_path: Path) -> None:
    small = make_library(question_data("a"), question_data("b"))
    life, store = _life(tmp_path, small)
    life.remember(SessionConfig(count=2, topics=frozenset({"memory"})))
    assert life.settings_for_form() == {"topics": ["memory"], "count": 2, "shuffle": True,
                                        "strict": False}
    bank = BankFile.model_validate({
        "bank": {"id": "other-bank", "title": "Other", "topics": {"memory": "Memory"}},
        "questions": [question_data(f"o{i}") for i in range(6)]})
    other = Library(banks=(LoadedBank(Path("o.yaml"), bank.bank, tuple(bank.questions)),),
                    topics=dict(bank.bank.topics))
    assert settings_key(other) != settings_key(small)
    assert Lifecycle(other, store=store).settings_for_form() == {}  # never seen: everything


def test_launch_names_its_mode() -> None:
    assert Launch(mode="exam").mode is Mode.EXAM  # type: ignore[arg-type]
    assert Mode.EXAM == "exam" and Mode.REVIEW.schedules and not Mode.CRAM.schedules


def test_the_one_pass_mark_rule_at_0_questions_says_fail() -> None:
    assert not passes(0, 0, 0.7) and not passes(0, 0, 0.0)
    assert not Score(0, 0, 0).passed(0.7) and not Score(0, 0, 0).passed(0.0)
    report = ExamReport(score=Score(0, 0, 0), pass_mark=0.0, time_used_s=0, time_limit_s=60,
                        timed_out=False, by_topic={}, by_difficulty={}, items=())
    assert report.passed is False
    assert passes(7, 10, 0.7) and not passes(2, 3, 0.67)


def test_an_interrupted_exam_resumes_with_its_time_left_without_a_terminal(
        tmp_path: Path) -> None:
    """The core half of tests/tui/test_exam_flow.py's resume test: the offer's words, the
    position, the flags and the time left."""
    clock = Clock()
    life, store = _life(tmp_path, _library(5), clock=clock)
    exam = life.start(SessionConfig(shuffle=False), Mode.EXAM, minutes=5)
    assert isinstance(exam, ExamSession)
    exam.choose(exam.current.letter_of("B"))
    exam.go(1)
    exam.toggle_flag()
    clock.t += 130
    exam.choose(exam.current.letter_of("C"))  # saves the clock with the answer
    again = Lifecycle(_library(5), store=store, clock=Clock(), now=lambda: NOW)
    offer = again.resume_offer()
    assert offer is not None
    assert "unfinished exam session" in offer.text
    assert "2 of 5 answered, 2:50 left" in offer.text
    resumed = again.resume(offer.waiting)
    assert isinstance(resumed, ExamSession) and again.exam is resumed
    assert resumed.position == 1 and resumed.flagged() == [2]
    assert resumed.remaining == 170.0 and len(resumed.answers) == 2


def test_quit_after_a_new_session_does_not_mention_the_left_session() -> None:
    """The core half of tests/tui/test_screens.py's quit test."""
    life = Lifecycle(_library(), store=None)
    session = life.start(SessionConfig(shuffle=False))
    assert isinstance(session, StudySession)
    session.answer({session.current.letter_of("B")})
    assert "This session's 1 answer" in life.quit_text(under_way=True)
    assert life.quit_text(under_way=False) == "Quit quiz?"
