"""Spaced review: ratings, fsrs cards through the store, due order, undo and re-rating,
filters, and the multiple-response verdict."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fsrs import Card, Rating, Scheduler, State

from quiz.study.recorder import QuestionIndex, Recorder
from quiz.study.scheduling import (
    fast_seconds,
    rating_for,
    review,
    review_queue,
)
from quiz.study.session import SessionConfig, StudySession
from quiz.study.shown import SessionError
from quiz.study.store import Store
from tests.conftest import make_library, question_data

T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


class Clock:
    """A monotonic clock and a UTC wall clock that only move when told to."""

    def __init__(self) -> None:
        self.t = 100.0
        self.wall = T0

    def mono(self) -> float:
        return self.t

    def now(self) -> datetime:
        return self.wall

    def advance(self, seconds: float) -> None:
        self.t += seconds
        self.wall += timedelta(seconds=seconds)


def _setup(tmp_path: Path, mode: str = "practice", n: int = 3):
    lib = make_library(*(question_data(f"q{i}") for i in range(n)))
    store = Store.open(tmp_path / "p.db")
    clock = Clock()
    session = StudySession.from_questions(lib.questions, SessionConfig(shuffle=False),
                                          lib.topics)
    session.clock = clock.mono
    session.mode = mode
    sid = store.start_session(mode, ("test-bank",), None, session.plan(), now=clock.now())
    session.sink = Recorder(store, sid, mode, QuestionIndex.of(lib), now=clock.now,
                            scheduler=Scheduler(enable_fuzzing=False))
    session.go(0)
    return lib, store, clock, session, sid


def test_ratings_follow_the_issue() -> None:
    q = make_library(question_data("q1")).questions[0]
    limit = fast_seconds(q)
    assert 5.0 < limit < 15.0
    assert rating_for(q, False, 1.0) == Rating.Again
    assert rating_for(q, False, 500.0) == Rating.Again  # a miss is never Hard
    assert rating_for(q, True, limit - 0.1) == Rating.Easy
    assert rating_for(q, True, limit + 0.1) == Rating.Good


def test_practice_answers_are_committed_with_their_card(tmp_path: Path) -> None:
    lib, store, clock, s, sid = _setup(tmp_path)
    clock.advance(30.0)
    s.answer("A")  # wrong
    s.next()
    clock.advance(2.0)
    s.answer("B")  # right and fast
    answers = store.answers(sid)
    assert [(a.question_id, a.chosen, a.correct, a.seconds, a.rating) for a in answers] == [
        ("q0", ("A",), False, 30.0, 1), ("q1", ("B",), True, 2.0, 4)]
    assert s.ratings == {"q0": 1, "q1": 4}
    card = Card.from_dict(store.card("q0").card)  # type: ignore[union-attr, arg-type]
    assert card.state == State.Learning and card.last_review == T0 + timedelta(seconds=30)
    assert store.card("q1").due > store.card("q0").due  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["exam", "cram"])
def test_exam_and_cram_answers_do_not_move_the_schedule(tmp_path: Path, mode: str) -> None:
    _lib, store, _clock, s, sid = _setup(tmp_path, mode)
    s.answer("A")
    (a,) = store.answers(sid)
    assert (a.correct, a.rating, a.scheduled) == (False, None, False)
    assert store.cards() == {}
    assert s.ratings == {}
    with pytest.raises(SessionError, match="only practice and review"):
        s.rate(3)


def test_undo_rolls_back_the_answer_and_the_card_together(tmp_path: Path) -> None:
    _lib, store, clock, s, sid = _setup(tmp_path)
    s.answer("B")
    s.next()
    s.answer("A")
    assert s.position == 1
    back = s.undo()
    assert back.question.id == "q1" and s.position == 1
    assert [a.question_id for a in store.answers(sid)] == ["q0"]
    assert store.card("q1") is None and store.card("q0") is not None
    s.undo()
    assert store.answers(sid) == [] and store.cards() == {} and s.outcomes == {}
    with pytest.raises(SessionError, match="nothing to undo"):
        s.undo()


def test_keys_override_the_rating_from_the_card_before(tmp_path: Path) -> None:
    _lib, store, clock, s, sid = _setup(tmp_path)
    clock.advance(60.0)
    s.answer("B")  # right, slow: Good
    good_due = store.card("q0").due  # type: ignore[union-attr]
    s.rate(1)
    assert s.ratings["q0"] == 1
    assert store.answers(sid)[0].rating == 1
    again_due = store.card("q0").due  # type: ignore[union-attr]
    assert again_due < good_due
    s.rate(4)
    assert store.card("q0").due > good_due  # type: ignore[union-attr]
    s.undo()
    assert store.card("q0") is None


def test_fsrs_state_round_trips_through_the_database(tmp_path: Path) -> None:
    _lib, store, clock, s, _sid = _setup(tmp_path)
    clock.advance(60.0)
    s.answer("B")
    stored = store.card("q0")
    assert stored is not None
    store.close()
    with Store.open(tmp_path / "p.db") as again:
        reread = again.card("q0")
    assert reread == stored
    card = Card.from_dict(reread.card)  # type: ignore[union-attr, arg-type]
    assert card.to_dict() == stored.card and card.due == stored.due


def test_review_queue_due_first_in_due_order_then_most_missed(tmp_path: Path) -> None:
    lib, store, clock, s, sid = _setup(tmp_path, n=5)
    # q0 wrong twice (two sessions), q1 right, q2 wrong once, q3 right, q4 unseen
    for answer in ("A", "B", "A", "B"):
        clock.advance(60.0)
        s.answer(answer)
        s.next()
    s2 = StudySession.from_questions(lib.questions,
                                     SessionConfig(question_ids=("q0",), shuffle=False))
    s2.sink = Recorder(store, store.start_session("practice", (), None, s2.plan()), "practice",
                       QuestionIndex.of(lib), now=clock.now,
                       scheduler=Scheduler(enable_fuzzing=False))
    clock.advance(60.0)
    s2.answer("C")
    index = QuestionIndex.of(lib)
    cards, tallies = store.cards(), store.tallies()
    # Now: q2 (missed 2 minutes ago, 1-minute learning step) is due; q0 (missed just now)
    # is not due yet but is the most missed.
    assert review_queue(cards, tallies, index.hash_of, clock.now()) == ["q2", "q0"]
    # An hour later every learning card is due (steps of 1 and 10 minutes), by due time.
    later = clock.now() + timedelta(hours=1)
    assert review_queue(cards, tallies, index.hash_of, later) == ["q2", "q0", "q1", "q3"]
    assert review_queue(cards, tallies, index.hash_of, later, count=1) == ["q2"]
    # In a month everything seen is due; the queue is ordered by due time.
    month = clock.now() + timedelta(days=60)
    by_due = sorted(cards.values(), key=lambda c: c.due)
    assert review_queue(cards, tallies, index.hash_of, month) == [c.question_id for c in by_due]


def test_a_changed_question_starts_a_new_card(tmp_path: Path) -> None:
    lib, store, clock, s, _sid = _setup(tmp_path)
    clock.advance(60.0)
    s.answer("B")
    reworded = make_library(question_data("q0", question="A different stem?"))
    index = QuestionIndex.of(reworded)
    assert store.reset_changed_cards(index.hash_of) == ["q0"]
    assert store.card("q0") is None
    assert store.tallies()["q0"].right == 1  # the history stays


def test_filters_by_tag_difficulty_and_count() -> None:
    lib = make_library(
        question_data("q1", tags=["vram"], difficulty="easy"),
        question_data("q2", tags=["fp8"], difficulty="hard"),
        question_data("q3", tags=["vram", "fp8"], difficulty="hard", topic="precision"),
    )

    def ids(**config: object) -> list[str]:
        s = StudySession.from_questions(lib.questions, SessionConfig(shuffle=False, **config))
        return [x.question.id for x in s.shown]

    assert ids(tags=frozenset({"vram"})) == ["q1", "q3"]
    assert ids(difficulties=frozenset({"hard"})) == ["q2", "q3"]
    assert ids(tags=frozenset({"fp8"}), topics=frozenset({"memory"})) == ["q2"]
    assert ids(difficulties=frozenset({"hard"}), count=1) == ["q2"]
    with pytest.raises(SessionError, match="tag and difficulty"):
        ids(tags=frozenset({"nope"}))


def test_ordered_queue_keeps_its_order_while_shuffling_options() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(6)))
    s = StudySession.from_questions(lib.questions, SessionConfig(
        question_ids=("q5", "q1", "q3"), ordered=True, seed=3))
    assert [x.question.id for x in s.shown] == ["q5", "q1", "q3"]
    assert any([o.key for o in x.options] != ["A", "B", "C", "D"] for x in s.shown)


def test_plan_round_trip_keeps_order_and_letters() -> None:
    lib = make_library(*(question_data(f"q{i}") for i in range(5)))
    s = StudySession.from_questions(lib.questions, SessionConfig(seed=11))
    again = StudySession.from_plan(lib.questions, s.plan())
    assert [(x.question.id, x.letters, [o.key for o in x.options]) for x in again.shown] == [
        (x.question.id, x.letters, [o.key for o in x.options]) for x in s.shown]
    fewer = make_library(question_data("q1"), question_data("q3"))
    assert [x.question.id for x in StudySession.from_plan(fewer.questions, s.plan()).shown] \
        == [i for i in (x.question.id for x in s.shown) if i in ("q1", "q3")]


def test_multiple_response_verdict_names_right_wrong_and_missed_ticks() -> None:
    lib = make_library(question_data("m1", answer=["A", "B", "C"],
                                     options={"A": "a", "B": "b", "C": "c", "D": "d",
                                              "E": "e"}))
    s = StudySession.from_questions(lib.questions, SessionConfig(shuffle=False))
    out = s.answer(["A", "B", "D"])
    assert not out.correct
    assert out.verdict == ("Not quite: the right answers were A, B, C. Your ticks: right A, B; "
                           "wrong D; missed C.")
    s2 = StudySession.from_questions(lib.questions, SessionConfig(shuffle=False))
    assert s2.answer(["C", "B", "A"]).verdict == "Correct: A, B, C."


def test_a_new_card_is_numbered_by_the_answer_time_without_fsrs_waiting() -> None:
    """fsrs, left to number a new card, reads the clock and sleeps 1 ms (longer than the
    1 ms an answer may take to commit); the card takes the answer's time instead."""
    when = datetime(2026, 3, 1, 9, 30, 15, 250_000, tzinfo=UTC)
    card = review(Scheduler(), None, "q1", "hash", Rating.Good, when, 12.0)
    assert card.card["card_id"] == int(when.timestamp() * 1000) == 1772357415250
    assert card.card["last_review"] == when.isoformat()
    again = review(Scheduler(), card, "q1", "hash", Rating.Good, when + timedelta(days=3), 9.0)
    assert again.card["card_id"] == card.card["card_id"]  # a review keeps the card's number
