"""Item analysis over many students' results exports, as Moodle's quiz statistics report does it.

Input: any number of results documents (:mod:`quiz.results.export`), read one file at a time.
Each student counts once per question, with their **first attempt** (the earliest answer):
later attempts come after the feedback and measure memory of it, not the item. A student who
exported twice (the same learner id in two files) is merged.

Per question:
- ``facility``: the share of first attempts that were right, 0–1 (Moodle's facility index).
- ``discrimination``: the point-biserial correlation between being right on this question (0/1)
  and the student's score on the *rest* of their answers (the share right over their other
  questions), over the students who answered it; ``None`` with fewer than 3 such students or
  when either side does not vary. Moodle calls the rest-score form its discrimination index
  (docs.moodle.org/en/Quiz_statistics_calculations, "Discrimination index").
- ``upper_lower``: Kelley's upper-lower index: the facility among the top 27% of students by
  score minus the facility among the bottom 27% (Kelley 1939, J. Educ. Psych. 30(1):17-24,
  doi:10.1037/h0057123), each group at least one student; ``None`` when a group has no answer
  to the question.
- ``options``: the share of first attempts that chose each option (multiple response: ticked).
- ``flags``: a distractor chosen by under 5% (not working), a negative discrimination (check the
  key), a facility above 95% or below 20%.

Per topic: facility over its questions' first attempts. Per student: answered, right, score.

Bad input never stops the analysis: a file that is not JSON, is truncated, is of another format
or a newer version, or holds malformed answers gets one message naming the file, and the rest is
analysed; answers for questions the given banks do not have are left out with a message.
"""

from __future__ import annotations

import json
import math
import os
import stat
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz.results.export import RESULTS_FORMAT, RESULTS_VERSION

if TYPE_CHECKING:
    from quiz.bank.library import Library

DISTRACTOR_FLOOR = 0.05
"""A distractor chosen by fewer than this share of answers is flagged as not working."""
EASY, HARD = 0.95, 0.20
"""Facility above :data:`EASY` or below :data:`HARD` is flagged."""
GROUP_SHARE = 0.27
"""Kelley's upper and lower groups: 27% of the students each."""


@dataclass(frozen=True)
class ItemStats:
    """One question's statistics (see the module docstring); shares are fractions 0–1."""

    question_id: str
    topic: str | None
    answers: int
    right: int
    facility: float
    discrimination: float | None
    upper_lower: float | None
    key: tuple[str, ...]
    options: dict[str, float]
    flags: tuple[str, ...]
    stem: str | None = None


@dataclass(frozen=True)
class TopicStats:
    """A topic's first attempts: ``right`` of ``answers`` over ``questions`` questions."""

    topic: str
    questions: int
    answers: int
    right: int

    @property
    def facility(self) -> float:
        """Share right, 0–1 (0 with no answer)."""
        return self.right / self.answers if self.answers else 0.0


@dataclass(frozen=True)
class LearnerStats:
    """One (pseudonymous) student: ``right`` of ``answered`` questions, first attempts."""

    learner: str
    answered: int
    right: int

    @property
    def score(self) -> float:
        """Share right, 0–1."""
        return self.right / self.answered if self.answered else 0.0


@dataclass
class Analysis:
    """The whole analysis: per question, topic and student, the files read and every message
    about a file that could not be read whole."""

    items: list[ItemStats]
    topics: list[TopicStats]
    learners: list[LearnerStats]
    files_read: int
    messages: list[str] = field(default_factory=list)
    never_answered: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain data for ``--json`` (shares as fractions rounded to 4 decimals)."""
        def r(value: float | None) -> float | None:
            return None if value is None else round(value, 4)

        return {
            "files_read": self.files_read,
            "students": len(self.learners),
            "questions": [{
                "question_id": i.question_id, "topic": i.topic, "answers": i.answers,
                "right": i.right, "facility": r(i.facility), "discrimination": r(i.discrimination),
                "upper_lower": r(i.upper_lower), "key": list(i.key),
                "options": {k: r(v) for k, v in i.options.items()}, "flags": list(i.flags),
                **({"stem": i.stem} if i.stem is not None else {}),
            } for i in self.items],
            "topics": [{"topic": t.topic, "questions": t.questions, "answers": t.answers,
                        "right": t.right, "facility": r(t.facility)} for t in self.topics],
            "learners": [{"learner": s.learner, "answered": s.answered, "right": s.right,
                          "score": r(s.score)} for s in self.learners],
            "never_answered": self.never_answered,
            "messages": self.messages,
        }


class _Attempt:
    """A student's first attempt at a question (the earliest answer read so far)."""

    __slots__ = ("at", "chosen", "correct", "key", "topic")

    def __init__(self, at: str, correct: bool, chosen: tuple[str, ...],
                 key: tuple[str, ...] | None, topic: str | None) -> None:
        self.at = at
        self.correct = correct
        self.chosen = chosen
        self.key = key
        self.topic = topic


def result_files(paths: Iterable[Path]) -> Iterator[Path]:
    """The files named, and every ``*.json`` file under the folders named (sorted)."""
    for path in paths:
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*.json") if p.is_file())
        else:
            yield path


def _text_list(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _answer(raw: Any) -> tuple[str, _Attempt] | None:
    """``(question id, attempt)`` from one exported answer, or ``None`` when malformed."""
    if not isinstance(raw, dict):
        return None
    qid, at, correct = raw.get("question_id"), raw.get("answered_at"), raw.get("correct")
    chosen = _text_list(raw.get("chosen"))
    if not (isinstance(qid, str) and qid and isinstance(at, str) and isinstance(correct, bool)
            and chosen is not None):
        return None
    key = _text_list(raw.get("key")) if raw.get("key") is not None else None
    topic = raw.get("topic") if isinstance(raw.get("topic"), str) else None
    return qid, _Attempt(at, correct, chosen, key, topic)


def read_file(path: Path) -> tuple[str | None, list[tuple[str, _Attempt]], list[str]]:
    """One results file: its learner id (``None`` when the file cannot be used), its answers
    and the messages about it (each begins with the file's path)."""
    try:
        # O_NONBLOCK: a named pipe opens at once (and is refused below) instead of waiting for
        # a writer; a device such as /dev/zero is refused before it is read without end.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return None, [], [f"{path}: not a regular file: not a quiz results export"]
            document = json.load(handle)
    except OSError as exc:
        return None, [], [f"{path}: cannot be read ({exc.strerror or exc})"]
    except RecursionError:
        return None, [], [f"{path}: nested too deeply to be a quiz results export"]
    except UnicodeDecodeError:
        return None, [], [f"{path}: not UTF-8 text: not a quiz results export"]
    except json.JSONDecodeError as exc:
        return None, [], [f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}): the "
                          "file is truncated or damaged; export it again with "
                          "'quiz results export --out FILE'"]
    if not isinstance(document, dict) or document.get("format") != RESULTS_FORMAT:
        found = document.get("format") if isinstance(document, dict) else None
        what = f"its format is {found!r}" if isinstance(found, str) else "it has no format field"
        return None, [], [f"{path}: not a quiz results export ({what}; expected "
                          f"'{RESULTS_FORMAT}' from 'quiz results export')"]
    version = document.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        return None, [], [f"{path}: the version field must be a whole number from 1"]
    if version > RESULTS_VERSION:
        return None, [], [f"{path}: written by a newer quiz (results version {version}; this "
                          f"quiz reads version {RESULTS_VERSION}): upgrade quiz to read it"]
    learner, answers = document.get("learner"), document.get("answers")
    if not isinstance(learner, str) or not learner.strip() or not isinstance(answers, list):
        return None, [], [f"{path}: a results export needs a learner and a list of answers"]
    kept: list[tuple[str, _Attempt]] = []
    bad = 0
    for raw in answers:
        parsed = _answer(raw)
        if parsed is None:
            bad += 1
        else:
            kept.append(parsed)
    messages = []
    if bad:
        messages.append(f"{path}: {bad} malformed answer{'s' if bad != 1 else ''} left out "
                        "(each needs question_id, answered_at, correct and chosen)")
    return learner.strip(), kept, messages


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 1e-12 or syy <= 1e-12:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / math.sqrt(sxx * syy)


def analyze(paths: Iterable[Path], library: Library | None = None) -> Analysis:
    """Read every results file under ``paths`` and compute the statistics (module docstring).

    ``library`` (the banks, optional) gives each question's key, options, topic and stem, lists
    the questions nobody answered, and makes answers to questions it lacks be left out.
    """
    students: dict[str, dict[str, _Attempt]] = {}
    messages: list[str] = []
    files = 0
    known = {q.id for q in library.questions} if library is not None else None
    for path in result_files(paths):
        learner, answers, notes = read_file(path)
        messages.extend(notes)
        if learner is None:
            continue
        files += 1
        missing: Counter[str] = Counter()
        mine = students.setdefault(learner, {})
        for qid, attempt in answers:
            if known is not None and qid not in known:
                missing[qid] += 1
                continue
            seen = mine.get(qid)
            if seen is None or attempt.at < seen.at:
                mine[qid] = attempt
        if missing:
            shown = ", ".join(sorted(missing)[:5]) + (" …" if len(missing) > 5 else "")
            messages.append(f"{path}: {sum(missing.values())} answers to questions the banks do "
                            f"not have were left out: {shown}")
    return _statistics(students, library, files, messages)


def _statistics(students: dict[str, dict[str, _Attempt]], library: Library | None,
                files: int, messages: list[str]) -> Analysis:
    learners = sorted(
        (LearnerStats(name, len(att), sum(a.correct for a in att.values()))
         for name, att in students.items() if att),
        key=lambda s: s.learner)
    by_learner = {s.learner: s for s in learners}
    ranked = sorted(learners, key=lambda s: (-s.score, s.learner))
    group = max(1, round(GROUP_SHARE * len(ranked))) if len(ranked) >= 2 else 0
    upper = {s.learner for s in ranked[:group]}
    lower = {s.learner for s in ranked[len(ranked) - group:]} if group else set()

    per_question: dict[str, list[tuple[str, _Attempt]]] = {}
    for name, attempts in students.items():
        for qid, attempt in attempts.items():
            per_question.setdefault(qid, []).append((name, attempt))

    items = [_item(qid, rows, by_learner, upper, lower, library)
             for qid, rows in per_question.items()]
    if library is not None:
        order = {q.id: i for i, q in enumerate(library.questions)}
        items.sort(key=lambda i: (order.get(i.question_id, len(order)), i.question_id))
        never = [q.id for q in library.questions if q.id not in per_question]
    else:
        items.sort(key=lambda i: (i.topic or "", i.question_id))
        never = []
    topics: dict[str, list[ItemStats]] = {}
    for item in items:
        topics.setdefault(item.topic or "(no topic)", []).append(item)
    topic_rows = [TopicStats(t, len(rows), sum(i.answers for i in rows),
                             sum(i.right for i in rows)) for t, rows in topics.items()]
    return Analysis(items, topic_rows, learners, files, messages, never)


def _item(qid: str, rows: list[tuple[str, _Attempt]], by_learner: dict[str, LearnerStats],
          upper: set[str], lower: set[str], library: Library | None) -> ItemStats:
    question = library.question(qid) if library is not None else None
    if question is not None:
        answer = question.answer
        key = tuple(sorted([answer] if isinstance(answer, str) else answer))
        options: list[str] = list(question.options)
        topic: str | None = question.topic
        stem: str | None = " ".join(question.stem.split())
    else:
        keys = Counter(a.key for _, a in rows if a.key)
        key = keys.most_common(1)[0][0] if keys else ()
        options = sorted({k for _, a in rows for k in a.chosen} | set(key))
        topics = Counter(a.topic for _, a in rows if a.topic)
        topic = topics.most_common(1)[0][0] if topics else None
        stem = None
    n = len(rows)
    right = sum(a.correct for _, a in rows)
    xs: list[float] = []
    ys: list[float] = []
    for name, attempt in rows:
        student = by_learner[name]
        if student.answered > 1:
            xs.append(float(attempt.correct))
            ys.append((student.right - attempt.correct) / (student.answered - 1))
    discrimination = _pearson(xs, ys)
    up = [a.correct for name, a in rows if name in upper]
    low = [a.correct for name, a in rows if name in lower]
    upper_lower = (sum(up) / len(up) - sum(low) / len(low)) if up and low else None
    chosen = Counter(k for _, a in rows for k in a.chosen)
    shares = {k: chosen[k] / n for k in options}
    for extra in sorted(set(chosen) - set(shares)):
        shares[extra] = chosen[extra] / n
    facility = right / n
    flags: list[str] = []
    for option, share in shares.items():
        if option not in key and share < DISTRACTOR_FLOOR:
            flags.append(f"distractor {option} chosen by {share:.0%}: not working")
    if discrimination is not None and discrimination < 0:
        flags.append("negative discrimination: check the key")
    if facility > EASY:
        flags.append("facility above 95%: very easy")
    elif facility < HARD:
        flags.append("facility below 20%: very hard")
    return ItemStats(qid, topic, n, right, facility, discrimination, upper_lower, key, shares,
                     tuple(flags), stem)
