"""Every recorded answer of one student, as a portable record: JSON, CSV or xAPI statements.

The JSON document (``format: quiz-results``, ``version: 1``) is what ``quiz analyze`` reads::

    {"format": "quiz-results", "version": 1, "learner": "learner-3f9a0c2b71d4",
     "exported_at": "2026-12-01T21:30:00Z", "quiz_version": "0.1.0",
     "answers": [{"learner": ..., "session_id": 3, "mode": "exam", "bank_id": "ai-infra-memory",
                  "question_id": "memory-kv-cache-gqa-003", "topic": "memory", "variant": null,
                  "options_shown": ["C", "A", "D", "B"], "chosen": ["A"], "key": ["A"],
                  "correct": true, "seconds": 41.2, "answered_at": "2026-12-01T21:02:11Z"}]}

Option keys are the bank's keys (``A`` is the bank's option A wherever it was shown), never the
shuffled letters. ``options_shown`` is ``null`` when the session kept only the seed its order
was drawn from; ``topic`` and ``key`` are ``null`` for a question that none of the banks given
has any more. Times are UTC, ISO 8601.

The learner id is pseudonymous: a random id made once and kept in the data folder
(:func:`learner_id`), or a name the student chooses (``--learner``).
"""

from __future__ import annotations

import csv
import io
import json
import os
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz import __version__

if TYPE_CHECKING:
    from quiz.bank.library import Library
    from quiz.study.store import Store

RESULTS_FORMAT = "quiz-results"
"""The ``format`` field of a results document."""
RESULTS_VERSION = 1
"""The ``version`` field this quiz writes and reads."""
LEARNER_FILE = "learner-id"
"""The file in the data folder that keeps the student's random learner id."""
MAX_LEARNER = 64
"""The longest learner name accepted (characters)."""

CSV_COLUMNS = ("learner", "session_id", "mode", "bank_id", "question_id", "topic", "variant",
               "options_shown", "chosen", "key", "correct", "seconds", "answered_at")
"""The CSV export's header, in order: one row per answer."""


class LearnerError(ValueError):
    """A learner name that cannot be used (empty, too long, or with control characters)."""


@dataclass(frozen=True)
class ExportedAnswer:
    """One recorded answer, as exported.

    Attributes:
        learner: the pseudonymous learner id.
        session_id: the session's number in this student's progress file.
        mode: ``practice``, ``exam``, ``review`` or ``cram``.
        bank_id, question_id: which question (progress is kept per question id).
        topic: the question's topic key, or ``None`` when no bank given has the question.
        variant: the drawn values of a computed question's ``vary`` keys, or ``None``.
        options_shown: the bank's option keys in the order shown, or ``None`` when unknown.
        chosen: the bank's option keys chosen, sorted.
        key: the answer key (option keys, sorted), or ``None`` when no bank given has it.
        correct: whether the answer was right (all-or-nothing for multiple response).
        seconds: time from showing the question to answering it.
        answered_at: UTC time, ISO 8601 with ``Z``.
    """

    learner: str
    session_id: int
    mode: str
    bank_id: str
    question_id: str
    topic: str | None
    variant: dict[str, Any] | None
    options_shown: list[str] | None
    chosen: list[str]
    key: list[str] | None
    correct: bool
    seconds: float
    answered_at: str


def iso_utc(moment: datetime) -> str:
    """``moment`` as ISO 8601 in UTC with a ``Z`` and millisecond precision at most
    (``2026-12-01T21:02:11.250Z``); a naive time is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    text = moment.astimezone(UTC).isoformat(timespec="milliseconds")
    text = text.replace("+00:00", "Z")
    return text.replace(".000Z", "Z")


def check_learner(name: str) -> str:
    """``name`` stripped, as a learner id. Raises :class:`LearnerError` when it is empty, longer
    than :data:`MAX_LEARNER` characters, or holds a control character."""
    text = name.strip()
    if not text:
        raise LearnerError("--learner needs a name (or leave it out for your random id)")
    if len(text) > MAX_LEARNER:
        raise LearnerError(f"--learner takes at most {MAX_LEARNER} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise LearnerError("--learner cannot hold control characters (tabs, newlines)")
    return text


def learner_id(folder: Path) -> str:
    """The student's pseudonymous id: read from :data:`LEARNER_FILE` in ``folder`` (the data
    folder), or made once (``learner-`` and 12 random hex digits) and kept there with mode
    0600. A damaged file (empty or unusable) is replaced by a new id. Raises ``OSError`` when
    the folder cannot be written."""
    path = folder / LEARNER_FILE
    try:
        return check_learner(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, LearnerError):
        pass
    made = f"learner-{secrets.token_hex(6)}"
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{LEARNER_FILE}.{os.getpid()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(made + "\n")
    os.replace(tmp, path)
    return made


def _key(library: Library | None, question_id: str) -> tuple[str | None, list[str] | None]:
    if library is None:
        return None, None
    try:
        question = library.question(question_id)
    except KeyError:
        return None, None
    answer = question.answer
    return question.topic, sorted([answer] if isinstance(answer, str) else answer)


def _drawn_order(library: Library, question_id: str,
                 plan: dict[str, Any]) -> tuple[str, ...] | None:
    """The option keys of ``question_id`` in the order a session with this stored ``plan``
    showed them, drawn again as :meth:`quiz.study.shown.PreparedQuestions.keys_shown` drew
    them (from the plan's ``option_seed`` and the question id, or bank order without one)."""
    import random

    from quiz.study.shown import option_order

    try:
        question = library.question(question_id)
    except KeyError:
        return None
    seed = plan.get("option_seed")
    option_seed = int(seed) if isinstance(seed, int | str) and str(seed).isdigit() else None
    rng = random.Random(f"{option_seed}:{question_id}") if option_seed is not None else None
    return option_order(question, rng)


def collect(store: Store, library: Library | None, learner: str) -> list[ExportedAnswer]:
    """Every answer in ``store``, oldest first, as :class:`ExportedAnswer` records of
    ``learner``; ``library`` (the banks studied) supplies each question's topic and key."""
    from quiz.study.session import plan_entries

    sessions = {s.id: s for s in store.sessions()}
    shown: dict[int, dict[str, str]] = {}
    hash_of: dict[str, str] | None = None
    out: list[ExportedAnswer] = []
    for answer in store.answers():
        session = sessions.get(answer.session_id)
        if session is not None and answer.session_id not in shown:
            shown[answer.session_id] = dict(plan_entries(session.plan))
        order: str | tuple[str, ...] | None = shown.get(answer.session_id, {}).get(
            answer.question_id)
        if order == "" and session is not None and library is not None:
            # Drawn as the question was shown (practice, review, cram): draw it again, when
            # the question is still the one answered (same content hash).
            if hash_of is None:
                from quiz.study.recorder import QuestionIndex

                hash_of = QuestionIndex.of(library).hash_of
            if hash_of.get(answer.question_id) == answer.content_hash:
                order = _drawn_order(library, answer.question_id, session.plan)
        topic, key = _key(library, answer.question_id)
        variant = answer.variant
        out.append(ExportedAnswer(
            learner=learner, session_id=answer.session_id,
            mode=session.mode if session is not None else "practice",
            bank_id=answer.bank_id, question_id=answer.question_id, topic=topic,
            variant=dict(variant) if isinstance(variant, dict) else None,
            options_shown=list(order) if order else None, chosen=sorted(answer.chosen),
            key=key, correct=answer.correct, seconds=round(float(answer.seconds), 3),
            answered_at=iso_utc(answer.answered_at)))
    return out


def to_json(answers: Sequence[ExportedAnswer], learner: str, *,
            now: datetime | None = None) -> str:
    """The results document (see the module docstring) as indented JSON text."""
    document = {
        "format": RESULTS_FORMAT,
        "version": RESULTS_VERSION,
        "learner": learner,
        "exported_at": iso_utc(now or datetime.now(UTC)),
        "quiz_version": __version__,
        "answers": [asdict(a) for a in answers],
    }
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"


def spreadsheet_safe(value: str) -> str:
    """A text cell a spreadsheet will not run: one that begins with ``=``, ``+``, ``-`` or
    ``@`` gets a leading apostrophe (OWASP's advice on CSV injection)."""
    return "'" + value if value[:1] in ("=", "+", "-", "@") else value


def to_csv(answers: Iterable[ExportedAnswer]) -> str:
    """One row per answer under :data:`CSV_COLUMNS`; option lists are written as keys joined
    by spaces (``A C``), ``correct`` as 1 or 0, ``variant`` as JSON."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for a in answers:
        writer.writerow([
            spreadsheet_safe(a.learner), a.session_id, a.mode, spreadsheet_safe(a.bank_id),
            spreadsheet_safe(a.question_id),
            a.topic or "", json.dumps(a.variant, ensure_ascii=False) if a.variant else "",
            " ".join(a.options_shown or ()), " ".join(a.chosen), " ".join(a.key or ()),
            int(a.correct), a.seconds, a.answered_at])
    return buffer.getvalue()
