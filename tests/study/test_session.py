"""The study session: drawing, shuffling, answering, scoring — no terminal involved."""

from __future__ import annotations

import pytest

from quiz.study.session import SessionConfig, StudySession
from quiz.study.shown import SessionError
from tests.conftest import make_library, question_data


def _session(*qs, **config) -> StudySession:
    lib = make_library(*qs)
    return StudySession.from_questions(lib.questions, SessionConfig(**config), lib.topics)


def test_unshuffled_session_keeps_bank_order_and_letters() -> None:
    s = _session(question_data("q1"), question_data("q2"), shuffle=False)
    assert [x.question.id for x in s.shown] == ["q1", "q2"]
    assert [(o.letter, o.key) for o in s.current.options] == [
        ("A", "A"), ("B", "B"), ("C", "C"), ("D", "D")]
    assert (s.current.number, s.current.total) == (1, 2)


def test_same_seed_same_order_different_seed_differs() -> None:
    qs = [question_data(f"q{i}") for i in range(8)]
    a = _session(*qs, seed=7)
    b = _session(*qs, seed=7)
    assert [x.question.id for x in a.shown] == [x.question.id for x in b.shown]
    assert [[o.key for o in x.options] for x in a.shown] == [[o.key for o in x.options]
                                                             for x in b.shown]
    orders = {tuple(x.question.id for x in _session(*qs, seed=s).shown) for s in range(10)}
    assert len(orders) > 1


def test_question_with_shuffle_false_keeps_option_order() -> None:
    qs = [question_data(f"q{i}", shuffle="false") for i in range(6)]
    for seed in range(5):
        s = _session(*qs, seed=seed)
        for shown in s.shown:
            assert [o.key for o in shown.options] == ["A", "B", "C", "D"]


def test_shuffled_answer_is_scored_by_key_and_reported_by_shown_letter() -> None:
    s = _session(question_data("q1", answer="B"), seed=3)
    shown = s.current
    right_letter = shown.letter_of("B")
    wrong = next(o for o in shown.options if o.key != "B")
    out = s.answer([wrong.letter])
    assert not out.correct
    assert [o.letter for o in out.right] == [right_letter]
    assert [o.key for o in out.chosen] == [wrong.key]
    assert out.verdict == (f"Not quite: the right answer was {right_letter}; "
                           f"you chose {wrong.letter}.")
    # One review per wrong option, each under the letter the student saw, in shown order.
    assert [(n.option.letter, n.option.key) for n in out.distractor_review] == [
        (o.letter, o.key) for o in shown.options if o.key != "B"]
    assert [n.chosen for n in out.distractor_review].count(True) == 1
    assert all(n.review == f"{n.option.text} is wrong because reasons."
               for n in out.distractor_review)


def test_multiple_response_needs_exact_set() -> None:
    q = question_data("m1", answer=["A", "C"])
    s = _session(q, shuffle=False)
    assert s.current.choose == 2
    with pytest.raises(SessionError, match="choose 2 options"):
        s.answer(["A"])
    out = s.answer(["A", "B"])
    assert out.correct is False
    assert out.verdict == ("Not quite: the right answers were A, C. Your ticks: right A; "
                           "wrong B; missed C.")
    s2 = _session(q, shuffle=False)
    assert s2.answer(["c", "a"]).correct is True


def test_answering_twice_and_unknown_letter_are_errors() -> None:
    s = _session(question_data("q1"), shuffle=False)
    with pytest.raises(SessionError, match="there is no option E"):
        s.answer(["E"])
    s.answer(["B"])
    with pytest.raises(SessionError, match="already answered"):
        s.answer(["B"])


def test_topics_count_and_scores() -> None:
    qs = [question_data("m1"), question_data("m2"), question_data("p1", topic="precision")]
    s = _session(*qs, shuffle=False)
    s.answer(["B"])
    s.next()
    s.answer(["A"])
    assert s.score.correct == 1 and s.score.answered == 2 and s.score.total == 3
    by_topic = s.score_by_topic()
    assert (by_topic["memory"].correct, by_topic["memory"].answered,
            by_topic["memory"].total) == (1, 2, 2)
    assert (by_topic["precision"].answered, by_topic["precision"].total) == (0, 1)
    assert s.missed_ids() == ("m2", "p1")
    only_p = _session(*qs, topics=frozenset({"precision"}))
    assert [x.question.id for x in only_p.shown] == ["p1"]
    two = _session(*qs, count=2, seed=1)
    assert two.total == 2
    with pytest.raises(SessionError, match="no question matches"):
        _session(*qs, topics=frozenset({"storage"}))
    retry = _session(*qs, question_ids=("p1", "m2"), shuffle=False)
    assert [x.question.id for x in retry.shown] == ["p1", "m2"]


def test_navigation_is_clamped() -> None:
    s = _session(question_data("q1"), question_data("q2"), shuffle=False)
    assert s.previous().question.id == "q1"
    assert s.next().question.id == "q2" and s.at_last
    assert s.next().question.id == "q2"
