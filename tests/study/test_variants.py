"""Computed questions with vary: in a session (issue 20 §3): one variant drawn per question,
reproduced by the seed, kept by the plan, recorded with each answer."""

from __future__ import annotations

import json
from pathlib import Path

from quiz.bank.library import Library
from quiz.bank.load import load_library
from quiz.study.recorder import QuestionIndex, Recorder
from quiz.study.session import SessionConfig, StudySession
from quiz.study.store import Store

FIXTURE = Path(__file__).parents[1] / "fixtures" / "computed" / "computed.yaml"


def library() -> Library:
    report = load_library([FIXTURE])
    assert report.library is not None
    return report.library


def drawn(seed: int) -> list[tuple[str, str, tuple[str, ...]]]:
    session = StudySession.from_questions(library().questions, SessionConfig(seed=seed))
    return [(s.question.id, s.question.stem, tuple(o.text for o in s.options))
            for s in session.shown]


def test_the_seed_reproduces_the_variants_and_seeds_differ() -> None:
    assert drawn(3) == drawn(3)
    stems = {stem for seed in range(12) for _, stem, _ in drawn(seed)}
    assert len(stems) > 2  # 6 + 4 variants: twelve seeds draw more than one of them


def test_the_shown_question_is_its_variant_and_the_plan_keeps_it() -> None:
    lib = library()
    session = StudySession.from_questions(lib.questions, SessionConfig(seed=5))
    shown = {s.question.id: s.question for s in session.shown}
    plan = json.loads(json.dumps(session.plan()))
    assert plan["variants"] == {qid: q.variant for qid, q in shown.items()}
    for qid, question in shown.items():
        assert question.variant in question.variants()
        variant = question.variant
        assert question.worked_example is not None
        assert question.worked_example.footprint.model == variant["model"]
        assert question.stem == next(q for q in lib.questions if q.id == qid) \
            .with_variant(variant).stem
    resumed = StudySession.from_plan(lib.questions, plan)
    assert [(s.question.stem, s.options) for s in resumed.shown] == \
        [(s.question.stem, s.options) for s in session.shown]
    # the plan's variants win over the seed (a plan written before the bank's seed changed)
    first = next(iter(shown.values()))
    other = next(v for v in first.variants() if v != first.variant)
    plan["variants"][first.id] = other
    again = StudySession.from_plan(lib.questions, plan)
    assert {s.question.id: s.question.variant for s in again.shown}[first.id] == other


def test_every_answer_records_its_variant(tmp_path: Path) -> None:
    lib = library()
    with Store.open(tmp_path / "p.db") as store:
        session = StudySession.from_questions(lib.questions, SessionConfig(seed=1))
        sid = store.start_session("practice", ("computed-fixture",), 1, session.plan())
        session.sink = Recorder(store, sid, "practice", QuestionIndex.of(lib))
        variant = session.current.question.variant
        session.answer(session.current.letter_of(next(iter(session.current.question.answer_keys))))
        (answer,) = store.answers()
        assert answer.variant == variant and answer.correct
        assert answer.question_id == session.current.question.id
