"""A session prepares a question when it is read, not every question at the start, and draws its
option order then: a seed gives the same letters whichever questions are read."""

from __future__ import annotations

import json
import random

import pytest

from quiz.bank.library import Library
from quiz.study.session import SessionConfig, StudySession, plan_entries
from quiz.study.shown import PreparedQuestions
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


def test_a_seed_gives_the_same_letters_whichever_questions_are_read() -> None:
    lib = _library(25)
    first = StudySession.from_questions(lib.questions, SessionConfig(seed=11), lib.topics)
    again = StudySession.from_questions(lib.questions, SessionConfig(seed=11), lib.topics)
    other = StudySession.from_questions(lib.questions, SessionConfig(seed=12), lib.topics)
    forward = [first.shown[i].options for i in range(25)]
    backward = [again.shown[i].options for i in reversed(range(25))][::-1]
    assert forward == backward  # the order of reading is free
    assert [q.id for q in first.questions] == [q.id for q in again.questions]
    # Shuffled: some questions show their options out of bank order, under letters A, B, ...
    keys = ["".join(o.key for o in options) for options in forward]
    assert any(k != "".join(sorted(k)) for k in keys)
    assert all([o.letter for o in options] == list("ABCD"[: len(options)])
               for options in forward)
    # Another seed draws another session.
    assert ([q.id for q in other.questions] != [q.id for q in first.questions]
            or [other.shown[i].options for i in range(25)] != forward)
    assert (first.shown[3].number, first.shown[3].total) == (4, 25)
    assert first.shown[-1] is first.shown[24]
    assert [x.question.id for x in first.shown[2:5]] == [q.id for q in first.questions[2:5]]
    with pytest.raises(IndexError):
        first.shown[25]


def test_unshuffled_sessions_and_fixed_questions_keep_bank_order() -> None:
    lib = make_library(question_data("fixed", shuffle=False), question_data("free"))
    plain = StudySession.from_questions(lib.questions, SessionConfig(shuffle=False))
    assert ["".join(o.key for o in s.options) for s in plain.shown] == ["ABCD", "ABCD"]
    for seed in range(30):
        s = StudySession.from_questions(lib.questions, SessionConfig(seed=seed))
        fixed = next(x for x in s.shown if x.question.id == "fixed")
        assert "".join(o.key for o in fixed.options) == "ABCD"


def test_starting_a_session_over_many_questions_draws_no_option_order() -> None:
    lib = _library(200)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=4), lib.topics)
    plan = s.plan()
    shown = s.shown
    assert isinstance(shown, PreparedQuestions)
    assert shown._drawn == {} and _prepared(s) == []
    # One string of ids (the compact form), every order drawn when shown.
    assert plan["ids"] == "\n".join(q.id for q in shown.questions) and "questions" not in plan
    assert plan_entries(plan) == [(q.id, "") for q in shown.questions]
    assert plan["option_seed"].isdigit()


def test_plan_resume_and_score_by_topic_agree_with_the_prepared_questions() -> None:
    lib = _library(12)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=5), lib.topics)
    plan = json.loads(json.dumps(s.plan()))  # as the store keeps it
    assert [qid for qid, _ in plan_entries(plan)] == [x.question.id for x in s.shown]
    again = StudySession.from_plan(lib.questions, plan, lib.topics)
    assert [x.options for x in again.shown] == [x.options for x in s.shown]
    # Resumed without a question the bank lost, the others keep their letters.
    fewer = [q for q in lib.questions if q.id != s.shown[0].question.id]
    shorter = StudySession.from_plan(fewer, plan, lib.topics)
    assert [x.options for x in shorter.shown] == [x.options for x in s.shown][1:]
    # A plan that lists every order (as stored before orders were drawn lazily) still resumes.
    listed = {"questions": [[x.question.id, "".join(o.key for o in x.options)]
                            for x in s.shown]}
    assert [x.options for x in StudySession.from_plan(lib.questions, listed).shown] == [
        x.options for x in s.shown]
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


def test_missed_positions_are_every_position_but_the_right_answers() -> None:
    lib = _library(60)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=9), lib.topics)
    rng = random.Random(3)
    for position in rng.sample(range(60), 25):
        shown = s.go(position)
        right = [o.letter for o in shown.options if o.key in shown.question.answer_keys]
        wrong = [o.letter for o in shown.options if o.key not in shown.question.answer_keys]
        s.answer(right if rng.random() < 0.6 else wrong[: shown.choose])
        missed = [i for i, q in enumerate(s.questions)
                  if not (o := s.outcomes.get(q.id)) or not o.correct]
        positions = s.missed_positions()
        assert list(positions) == missed and len(positions) == len(missed)
        assert [positions[i] for i in range(len(missed))] == missed
        assert positions[-1] == missed[-1] and positions[2:7] == missed[2:7]
        assert [m.number - 1 for m in s.missed()[:5]] == missed[:5]
        by_topic = s.score_by_topic()
        for topic, score in by_topic.items():
            qs = [q for q in s.questions if q.topic == topic]
            outs = [s.outcomes[q.id] for q in qs if q.id in s.outcomes]
            assert (score.total, score.answered, score.correct) == (
                len(qs), len(outs), sum(o.correct for o in outs))
    s.undo()
    assert sum(t.answered for t in s.score_by_topic().values()) == 24
    with pytest.raises(IndexError):
        s.missed_positions()[60]


def test_a_compact_plan_is_stored_and_read_back(tmp_path) -> None:
    from quiz.study.store import Store

    lib = _library(30)
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=9), lib.topics)
    with Store.open(tmp_path / "p.db") as store:
        sid = store.start_session("practice", ("b",), 9, s.plan())
        stored = store.session(sid)
    assert stored.question_ids == tuple(x.question.id for x in s.shown)
    again = StudySession.from_plan(lib.questions, stored.plan, lib.topics)
    assert [x.options for x in again.shown] == [x.options for x in s.shown]
    assert plan_entries({"ids": ""}) == [] and plan_entries({"questions": []}) == []


def test_a_session_of_every_topic_reads_no_question_to_draw() -> None:
    """No filter: drawing copies and shuffles the list, never reads a question's fields."""

    class Untouchable:
        def __getattr__(self, name: str) -> object:
            raise AssertionError(f"read {name}")

    questions = [Untouchable() for _ in range(50)]
    s = StudySession.from_questions(questions, SessionConfig(seed=1))  # type: ignore[arg-type]
    assert s.total == 50 and sorted(map(id, s.questions)) == sorted(map(id, questions))
    with pytest.raises(AssertionError, match="read topic"):
        StudySession.from_questions(questions, SessionConfig(topics=frozenset({"memory"})))  # type: ignore[arg-type]
