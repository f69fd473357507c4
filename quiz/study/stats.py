"""Statistics over the progress store: sessions with their scores, accuracy per topic with its
trend over sessions, questions seen, mastered and due, and leeches.

Used by the dashboard screen and by ``quiz stats`` (a table, ``--json`` or ``--csv``).
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from quiz.bank.library import Library
from quiz.study.scheduling import LEECH_MISSES, end_of_local_day, is_mastered
from quiz.study.score import passes
from quiz.study.store import Store

TREND_SESSIONS = 10
"""How many of a topic's most recent sessions its trend shows."""


@dataclass(frozen=True)
class SessionRow:
    """One session: ``correct`` of ``answered`` with ``total`` drawn; ``score`` is correct over
    total for an exam (unanswered count as wrong) and over answered otherwise; ``passed`` only
    for exams; ``seconds`` the time used (an exam's clock, else start to end)."""

    id: int
    mode: str
    started_at: str
    status: str
    correct: int
    answered: int
    total: int
    score: float
    passed: bool | None
    seconds: float | None


@dataclass(frozen=True)
class TopicRow:
    """A topic: answers ``correct`` of ``answered`` over all time, questions ``seen``,
    ``mastered`` and ``due`` today of ``questions`` in the library, and its accuracy per session
    (oldest first, at most :data:`TREND_SESSIONS`)."""

    topic: str
    name: str
    questions: int
    seen: int
    mastered: int
    due: int
    correct: int
    answered: int
    trend: list[float]

    @property
    def accuracy(self) -> float:
        """Right answers over answers (0.0 when none)."""
        return self.correct / self.answered if self.answered else 0.0


@dataclass(frozen=True)
class Leech:
    """A question missed :data:`~quiz.study.scheduling.LEECH_MISSES` times or more."""

    question_id: str
    topic: str
    wrong: int
    right: int
    stem: str


@dataclass(frozen=True)
class Stats:
    """Everything the dashboard and ``quiz stats`` show."""

    sessions: list[SessionRow]
    topics: list[TopicRow]
    leeches: list[Leech]
    questions: int
    seen: int
    mastered: int
    due: int
    answers: int

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (lists and dicts) of every figure."""
        return {
            "questions": self.questions, "seen": self.seen, "mastered": self.mastered,
            "due_today": self.due, "answers": self.answers,
            "topics": [dict(asdict(t), accuracy=round(t.accuracy, 4)) for t in self.topics],
            "leeches": [asdict(x) for x in self.leeches],
            "sessions": [asdict(s) for s in self.sessions],
        }

    def sessions_csv(self) -> str:
        """The sessions table as CSV (a header row, then one row per session, newest first)."""
        out = io.StringIO()
        fields = list(SessionRow.__dataclass_fields__)
        writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        for s in self.sessions:
            writer.writerow(asdict(s))
        return out.getvalue()


STATUS_WORDS = {"open": "open", "finished": "finished", "abandoned": "abandoned",
                "retried": "continued as a retry"}
"""How a session's stored status is said to the student."""


def status_words(status: str) -> str:
    """A session's status as the student reads it (``retried``: "continued as a retry")."""
    return STATUS_WORDS.get(status, status)


def clock_text(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``) for a duration, rounded up to the second like the exam's
    clock and report, so the table and the report agree."""
    total = int(-(-seconds // 1))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def compute(store: Store, library: Library, now: datetime) -> Stats:
    """Compute the statistics of ``store`` for the questions of ``library`` at ``now`` (UTC);
    "due" means due by the end of the user's local day.

    Read from the library's plain values (each question's id, topic and content hash), so a
    library served by the validated-bank cache is not decoded (no pydantic, no models: at
    10,000 questions that was most of ``quiz stats``); only a leech's stem is read from its
    question."""
    topic_of: dict[str, str] = {}
    hashes: dict[str, str] = {}
    for bank in library.banks:
        ids = bank.question_ids
        for qid, topic, digest in zip(ids, bank.question_topics, bank.question_hashes(),
                                      strict=True):
            if qid not in topic_of:  # ids are unique across a library; the first one counts
                topic_of[qid] = topic
                hashes[qid] = digest
    answers = store.answers()
    by_session: dict[int, list[Any]] = {}
    for a in answers:
        by_session.setdefault(a.session_id, []).append(a)

    rows = []
    for rec in store.sessions():
        given = by_session.get(rec.id, [])
        correct = sum(a.correct for a in given)
        total = len(rec.question_ids)
        passed = None
        if rec.mode == "exam":
            score = correct / total if total else 0.0
            mark = float(rec.plan.get("pass_mark", library.pass_mark))
            passed = passes(correct, total, mark)
            seconds: float | None = float(rec.state.get("elapsed_s", 0.0))
        else:
            score = correct / len(given) if given else 0.0
            seconds = ((rec.ended_at - rec.started_at).total_seconds()
                       if rec.ended_at is not None else None)
        rows.append(SessionRow(
            id=rec.id, mode=rec.mode,
            started_at=rec.started_at.astimezone().strftime("%Y-%m-%d %H:%M"),
            status=rec.status, correct=correct, answered=len(given), total=total,
            score=round(score, 4), passed=passed,
            seconds=round(seconds, 1) if seconds is not None else None))

    cards = {qid: c for qid, c in store.cards().items()
             if qid in hashes and hashes[qid] == c.content_hash}
    until = end_of_local_day(now)
    due_ids = {qid for qid, c in cards.items() if c.due <= until}
    mastered_ids = {qid for qid, c in cards.items() if is_mastered(c)}
    seen_ids = {a.question_id for a in answers if a.question_id in topic_of}

    topics: dict[str, dict[str, Any]] = {}
    for qid, topic in topic_of.items():
        t = topics.setdefault(topic, {"questions": 0, "seen": 0, "mastered": 0, "due": 0,
                                      "correct": 0, "answered": 0, "per_session": {}})
        t["questions"] += 1
        t["seen"] += qid in seen_ids
        t["mastered"] += qid in mastered_ids
        t["due"] += qid in due_ids
    for a in answers:
        asked = topic_of.get(a.question_id)
        if asked is None:
            continue
        t = topics[asked]
        t["correct"] += a.correct
        t["answered"] += 1
        right, seen = t["per_session"].get(a.session_id, (0, 0))
        t["per_session"][a.session_id] = (right + a.correct, seen + 1)
    topic_rows = []
    for key, t in topics.items():
        recent = sorted(t["per_session"].items())[-TREND_SESSIONS:]
        topic_rows.append(TopicRow(
            topic=key, name=library.topic_name(key), questions=t["questions"], seen=t["seen"],
            mastered=t["mastered"], due=t["due"], correct=t["correct"],
            answered=t["answered"], trend=[round(r / n, 4) for _sid, (r, n) in recent]))

    leeches = []
    for qid, tally in store.tallies().items():
        if tally.wrong >= LEECH_MISSES and qid in topic_of:
            q = library.question(qid)
            leeches.append(Leech(qid, q.topic, tally.wrong, tally.right,
                                 q.stem.strip().split("\n")[0][:100]))
    leeches.sort(key=lambda x: (-x.wrong, x.right, x.question_id))
    return Stats(sessions=rows, topics=topic_rows, leeches=leeches, questions=len(topic_of),
                 seen=len(seen_ids), mastered=len(mastered_ids), due=len(due_ids),
                 answers=len(answers))
