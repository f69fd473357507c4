"""A session prepares a question when it is read, not every question at the start; the letters
a seed gives are the same as when every question was prepared up front."""

from __future__ import annotations

import random

import pytest

from quiz.bank.library import Library
from quiz.study.session import (
    PreparedQuestions,
    SessionConfig,
    StudySession,
    _shown_options,
)
from tests.conftest import make_library, question_data


def _library(n: int) -> Library:
    qs = [question_data(f"q{i:03d}", topic="memory" if i % 3 else "precision",
                        answer="B" if i % 2 else ["A", "C"]) for i in range(n)]
    return make_library(*qs)


def _prepared(session: StudySession) -> list[int]:
    shown = session.shown
    assert isinstance(shown, PreparedQuestions)
    return [i for i, s in enumerate(shown._prepared) if s is not None]


def test_starting_a_session_prepares_no_question_and_moving_prepares_one() -> None:
    lib = _library(40)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=3), lib.topics)
    assert _prepared(s) == []
    assert s.current.number == 1
    s.next()
    s.go(30)
    assert _prepared(s) == [0, 1, 30]
    s.answer(s.current.letters[: s.current.choose])
    s.plan()
    s.score_by_topic()
    s.undo()
    assert _prepared(s) == [0, 1, 30]


def test_lazy_letters_are_the_letters_of_an_eager_draw() -> None:
    lib = _library(25)
    config = SessionConfig(seed=11)
    s = StudySession.from_questions(lib.questions, config, lib.topics)
    # The eager draw as it was: shuffle the pool, then each question's options in turn.
    rng = random.Random(11)
    pool = list(lib.questions)
    rng.shuffle(pool)
    eager = [_shown_options(q, rng) for q in pool]
    for i in reversed(range(len(pool))):  # read back to front: the order of reading is free
        assert s.shown[i].options == eager[i]
        assert (s.shown[i].number, s.shown[i].total) == (i + 1, 25)
    assert s.shown[-1] is s.shown[24]
    assert [x.question.id for x in s.shown[2:5]] == [q.id for q in pool[2:5]]
    with pytest.raises(IndexError):
        s.shown[25]


def test_plan_resume_and_score_by_topic_agree_with_the_prepared_questions() -> None:
    lib = _library(12)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=5), lib.topics)
    plan = s.plan()
    assert plan["questions"] == [[x.question.id, "".join(o.key for o in x.options)]
                                 for x in s.shown]
    again = StudySession.from_plan(lib.questions, plan, lib.topics)
    assert [x.options for x in again.shown] == [x.options for x in s.shown]
    s.answer(s.current.letters[: s.current.choose])
    s.go(4)
    s.answer(["D"] if s.current.choose == 1 else ["A", "D"])
    by_topic = s.score_by_topic()
    assert list(by_topic) == list(dict.fromkeys(x.question.topic for x in s.shown))
    assert sum(t.total for t in by_topic.values()) == 12
    assert sum(t.answered for t in by_topic.values()) == 2
    assert sum(t.correct for t in by_topic.values()) == s.score.correct
    s.restore("q000", ["A"])  # restoring a question prepares only that one
    assert "q000" in s.outcomes


def test_missed_prepares_only_the_questions_read() -> None:
    lib = _library(300)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=2), lib.topics)
    first = s.current
    s.answer([o.letter for o in first.options if o.key in first.question.answer_keys])
    s.go(5)
    wrong = [o.letter for o in s.current.options if o.key not in s.current.question.answer_keys]
    s.answer(wrong[: s.current.choose])
    missed = s.missed()
    assert _prepared(s) == [0, 5]  # counting and listing what was missed prepares nothing
    assert len(missed) == 299
    assert missed[0].number == 2 and missed[3].number == 5 and missed[4].number == 6
    assert [m.number for m in missed[:3]] == [2, 3, 4]
    assert missed[-1].number == 300
    assert _prepared(s) == [0, 1, 2, 3, 4, 5, 299]
    assert s.missed_positions()[:5] == [1, 2, 3, 4, 5]
    assert s.missed_ids()[:2] == tuple(q.id for q in s.questions[1:3])
    assert len(s.missed_ids()) == 299
    assert _prepared(s) == [0, 1, 2, 3, 4, 5, 299]
