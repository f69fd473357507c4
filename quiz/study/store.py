"""The progress store: one SQLite database of sessions, answers, review schedules, flags and
settings, kept in the user data folder (:func:`quiz.paths.progress_db`).

Built on the standard library's :mod:`sqlite3`, with these guarantees:

- **Durability.** Every write is its own short transaction, committed before the call returns,
  so a process killed with SIGKILL loses nothing already answered. The database runs in WAL mode
  with ``synchronous=NORMAL``: a committed transaction survives a crash of the process (only a
  power cut can lose the last ones; https://www.sqlite.org/pragma.html#pragma_synchronous).
- **Concurrency.** Two app instances on one data folder work side by side: writes take the lock
  up front (``BEGIN IMMEDIATE``) and wait up to :data:`BUSY_TIMEOUT_MS` for each other instead of
  failing with "database is locked".
- **Damage.** A file that is not a SQLite database, is corrupt, or belongs to another program is
  never replaced silently: :meth:`Store.open` renames it aside (``progress.db.damaged-<UTC time>``)
  and says so in :attr:`Store.notice`, then starts a new database.
- **Versions.** The schema version lives in the ``schema_version`` table; :data:`MIGRATIONS`
  bring an older file up to date in one transaction. A file written by a newer quiz is left
  untouched and reported (:class:`StoreError`).
- **Identity.** Progress is keyed on question ids, with each question's content hash
  (:func:`quiz.bank.identity.content_hash`) beside it, so a reworded question keeps its history
  and a changed one is noticed (:meth:`Store.reset_changed_cards`).

Times are stored as ISO 8601 text in UTC; day boundaries are the caller's business (local time).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from quiz.study import owners

APPLICATION_ID = 0x5155495A
"""``PRAGMA application_id`` of a quiz progress file ("QUIZ" in ASCII): tells ours from a
foreign SQLite file."""

SCHEMA_VERSION = 2
"""The schema version this code reads and writes."""

BUSY_TIMEOUT_MS = 10_000
"""How long a write waits for another process's transaction before giving up (milliseconds)."""

SQLITE_HEADER = b"SQLite format 3\x00"


class StoreError(RuntimeError):
    """The progress file cannot be used and must not be touched (e.g. written by a newer quiz).
    The message says what happened and what to do."""


def utc_now() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def to_text(moment: datetime) -> str:
    """A UTC-aware datetime as stored: ISO 8601 with milliseconds and ``+00:00``.

    Raises:
        ValueError: for a naive datetime (its time zone would be a guess).
    """
    if moment.tzinfo is None:
        raise ValueError("store times must be timezone-aware (UTC)")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def from_text(text: str) -> datetime:
    """Parse a stored time back into a UTC-aware datetime."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


# -- schema ---------------------------------------------------------------------------------
def _run(db: sqlite3.Connection, script: str) -> None:
    """Run ``;``-separated statements one by one (``executescript`` would commit the open
    migration transaction first)."""
    for statement in script.split(";"):
        if statement.strip():
            db.execute(statement)


def _migrate_to_1(db: sqlite3.Connection) -> None:
    """Version 1: sessions, answers, review cards, flags, settings."""
    _run(db, """
        CREATE TABLE sessions (
            id          INTEGER PRIMARY KEY,
            mode        TEXT NOT NULL,
            bank_ids    TEXT NOT NULL,
            seed        INTEGER,
            plan        TEXT NOT NULL,
            started_at  TEXT NOT NULL,
            ended_at    TEXT,
            status      TEXT NOT NULL DEFAULT 'open'
        );
        CREATE TABLE answers (
            id            INTEGER PRIMARY KEY,
            session_id    INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            question_id   TEXT NOT NULL,
            bank_id       TEXT NOT NULL,
            content_hash  TEXT NOT NULL,
            chosen        TEXT NOT NULL,
            correct       INTEGER NOT NULL,
            seconds       REAL NOT NULL,
            answered_at   TEXT NOT NULL,
            UNIQUE (session_id, question_id)
        );
        CREATE INDEX answers_by_question ON answers (question_id);
        CREATE TABLE cards (
            question_id   TEXT PRIMARY KEY,
            content_hash  TEXT NOT NULL,
            card          TEXT NOT NULL,
            due           TEXT NOT NULL,
            updated_at    TEXT NOT NULL
        );
        CREATE INDEX cards_by_due ON cards (due);
        CREATE TABLE flags (
            session_id    INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            question_id   TEXT NOT NULL,
            flagged_at    TEXT NOT NULL,
            PRIMARY KEY (session_id, question_id)
        );
        CREATE TABLE settings (
            key    TEXT PRIMARY KEY,
            value  TEXT NOT NULL
        );
    """)


def _migrate_to_2(db: sqlite3.Connection) -> None:
    """Version 2: what undo and resume need — the session's saved state (position, clock),
    each answer's rating and the review card it replaced."""
    _run(db, """
        ALTER TABLE sessions ADD COLUMN state TEXT NOT NULL DEFAULT '{}';
        ALTER TABLE answers ADD COLUMN rating INTEGER;
        ALTER TABLE answers ADD COLUMN scheduled INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE answers ADD COLUMN card_before TEXT;
    """)


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_to_1,
    2: _migrate_to_2,
}
"""Migration to version N, for N = 1 … :data:`SCHEMA_VERSION`; each runs inside the opening
transaction."""


# -- records --------------------------------------------------------------------------------
@dataclass(frozen=True)
class SessionRecord:
    """A stored session.

    Attributes:
        id: row id.
        mode: ``practice``, ``exam``, ``review`` or ``cram``.
        bank_ids: ids of the banks it drew from.
        seed: the random seed of the draw (``None``: unseeded).
        plan: what was drawn, as JSON data: ``questions`` (a list of ``[question id, option keys
            in the order shown]``) plus mode-specific settings (``time_limit_s``, ``pass_mark``).
        state: the resumable state (``position``; for an exam ``elapsed_s``).
        started_at, ended_at: UTC times; ``ended_at`` is ``None`` while the session is open.
        status: ``open``, ``finished`` or ``abandoned``.
    """

    id: int
    mode: str
    bank_ids: tuple[str, ...]
    seed: int | None
    plan: dict[str, Any]
    state: dict[str, Any]
    started_at: datetime
    ended_at: datetime | None
    status: str

    @property
    def question_ids(self) -> tuple[str, ...]:
        """The drawn question ids, in the order shown."""
        ids = self.plan.get("ids")  # StudySession.plan's compact form: ids one per line
        if isinstance(ids, str):
            return tuple(ids.split("\n")) if ids else ()
        return tuple(str(entry[0]) for entry in self.plan.get("questions", ()))


@dataclass(frozen=True)
class AnswerRecord:
    """One stored answer.

    ``chosen`` holds the bank's option keys (not the letters shown), sorted; ``seconds`` is the
    time from showing the question to answering it; ``rating`` is the fsrs rating (1–4) when the
    answer moved the review schedule (``scheduled``).
    """

    session_id: int
    question_id: str
    bank_id: str
    content_hash: str
    chosen: tuple[str, ...]
    correct: bool
    seconds: float
    answered_at: datetime
    rating: int | None = None
    scheduled: bool = False


@dataclass(frozen=True)
class StoredCard:
    """A question's review schedule: the fsrs card as its ``to_dict`` data, its due time and the
    content hash of the question it was scheduled for."""

    question_id: str
    content_hash: str
    card: dict[str, Any]
    due: datetime


@dataclass(frozen=True)
class QuestionTally:
    """All recorded answers to one question: ``right`` and ``wrong`` counts and the last time
    and verdict."""

    question_id: str
    right: int
    wrong: int
    last_correct: bool
    last_at: datetime


# -- the store ------------------------------------------------------------------------------
class Store:
    """An open progress database. Build it with :meth:`open`; close it with :meth:`close` (or
    use it as a context manager)."""

    def __init__(self, path: Path, connection: sqlite3.Connection, notice: str | None) -> None:
        self.path = path
        self._db = connection
        self.notice = notice
        """A message for the user when the previous file had to be set aside, else ``None``."""

    # -- opening ----------------------------------------------------------------------------
    @classmethod
    def open(cls, path: Path, *, now: datetime | None = None) -> Store:
        """Open (creating or migrating as needed) the progress database at ``path``.

        A damaged or foreign file is renamed aside and a new database started; the returned
        store's :attr:`notice` says where the old file went.

        Raises:
            StoreError: the file was written by a newer version of quiz (it is left untouched),
                or the folder cannot be written.
        """
        path.parent.mkdir(parents=True, exist_ok=True)
        notice = None
        try:
            return cls(path, _connect(path), None)
        except _Unusable as exc:
            aside = _set_aside(path, now or utc_now())
            notice = (f"The progress file {path} could not be used ({exc}). It was kept as "
                      f"{aside.name} in the same folder, and a new one was started.")
        try:
            return cls(path, _connect(path), notice)
        except _Unusable as exc:  # pragma: no cover - a fresh file is always usable
            raise StoreError(f"cannot create the progress file {path}: {exc}") from exc

    def close(self) -> None:
        """Close the connection (every write is already committed)."""
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One short write transaction, taking the write lock up front (no deadlocks between
        processes that read first and write later)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return _read_version(self._db)

    # -- sessions ---------------------------------------------------------------------------
    def start_session(self, mode: str, bank_ids: tuple[str, ...], seed: int | None,
                      plan: dict[str, Any], *, now: datetime | None = None) -> int:
        """Record a new open session and return its id."""
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO sessions (mode, bank_ids, seed, plan, started_at, state) "
                "VALUES (?, ?, ?, ?, ?, '{}')",
                (mode, json.dumps(list(bank_ids)), seed, json.dumps(plan),
                 to_text(now or utc_now())))
            session_id = int(cur.lastrowid or 0)
        owners.claim(self.path, session_id)  # this process studies it: see quiz.study.owners
        return session_id

    def set_plan(self, session_id: int, plan: dict[str, Any]) -> None:
        """Replace a session's plan (what was drawn: see :meth:`start_session`)."""
        with self._write() as db:
            db.execute("UPDATE sessions SET plan = ? WHERE id = ?",
                       (json.dumps(plan), session_id))

    def save_state(self, session_id: int, state: dict[str, Any]) -> None:
        """Replace a session's resumable state (position, exam clock)."""
        with self._write() as db:
            db.execute("UPDATE sessions SET state = ? WHERE id = ?",
                       (json.dumps(state), session_id))

    def end_session(self, session_id: int, status: str = "finished", *,
                    now: datetime | None = None) -> None:
        """Close a session as ``finished`` or ``abandoned`` (it is no longer offered for
        resumption), and let go of its lock (:mod:`quiz.study.owners`)."""
        with self._write() as db:
            db.execute("UPDATE sessions SET ended_at = ?, status = ? WHERE id = ?",
                       (to_text(now or utc_now()), status, session_id))
        owners.release(self.path, session_id)

    def session(self, session_id: int) -> SessionRecord:
        """The session with this id. Raises ``KeyError`` if there is none."""
        row = self._db.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?",
                               (session_id,)).fetchone()
        if row is None:
            raise KeyError(session_id)
        return _session(row)

    def sessions(self, *, limit: int | None = None) -> list[SessionRecord]:
        """Stored sessions, newest first (at most ``limit``)."""
        sql = f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY id DESC"
        rows = self._db.execute(sql + (" LIMIT ?" if limit else ""),
                                (limit,) if limit else ()).fetchall()
        return [_session(r) for r in rows]

    def open_sessions(self) -> list[SessionRecord]:
        """Sessions never finished nor abandoned (e.g. the process was killed), newest first."""
        rows = self._db.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE status = 'open' "
                                "ORDER BY id DESC").fetchall()
        return [_session(r) for r in rows]

    # -- answers and cards ------------------------------------------------------------------
    def record_answer(self, answer: AnswerRecord, card: StoredCard | None = None) -> None:
        """Commit one answer, and (when ``card`` is given) the question's new review card, in
        one transaction. Answering a question again in the same session (an exam's changed
        answer) replaces the earlier answer.

        The card it replaces is kept with the answer, so :meth:`undo_answer` can restore it.
        """
        with self._write() as db:
            before = None
            if card is not None:
                row = db.execute("SELECT content_hash, card, due FROM cards WHERE question_id = ?",
                                 (answer.question_id,)).fetchone()
                before = json.dumps(list(row)) if row else None
                _put_card(db, card, answer.answered_at)
            db.execute(
                "INSERT INTO answers (session_id, question_id, bank_id, content_hash, chosen, "
                "correct, seconds, answered_at, rating, scheduled, card_before) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (session_id, question_id) DO UPDATE SET "
                "chosen = excluded.chosen, correct = excluded.correct, "
                "seconds = excluded.seconds, answered_at = excluded.answered_at, "
                "content_hash = excluded.content_hash, rating = excluded.rating, "
                "scheduled = excluded.scheduled, card_before = excluded.card_before",
                (answer.session_id, answer.question_id, answer.bank_id, answer.content_hash,
                 json.dumps(sorted(answer.chosen)), int(answer.correct), answer.seconds,
                 to_text(answer.answered_at), answer.rating, int(card is not None), before))

    def rerate(self, session_id: int, question_id: str, rating: int, card: StoredCard) -> None:
        """Replace the rating of an answer and the card it produced (the student overrode the
        rating after the reveal); the card before the answer stays kept for undo."""
        with self._write() as db:
            db.execute("UPDATE answers SET rating = ? WHERE session_id = ? AND question_id = ?",
                       (rating, session_id, question_id))
            _put_card(db, card, utc_now())

    def undo_answer(self, session_id: int, question_id: str) -> bool:
        """Delete an answer and put back the review card it replaced, in one transaction.
        Returns False when there was no such answer."""
        with self._write() as db:
            row = db.execute("SELECT scheduled, card_before FROM answers "
                             "WHERE session_id = ? AND question_id = ?",
                             (session_id, question_id)).fetchone()
            if row is None:
                return False
            scheduled, before = row
            if scheduled:
                if before is None:
                    db.execute("DELETE FROM cards WHERE question_id = ?", (question_id,))
                else:
                    content_hash, card_json, due = json.loads(before)
                    db.execute(
                        "INSERT OR REPLACE INTO cards (question_id, content_hash, card, due, "
                        "updated_at) VALUES (?, ?, ?, ?, ?)",
                        (question_id, content_hash, card_json, due, to_text(utc_now())))
            db.execute("DELETE FROM answers WHERE session_id = ? AND question_id = ?",
                       (session_id, question_id))
            return True

    def card_before(self, session_id: int, question_id: str) -> StoredCard | None:
        """The review card a question had before this session's answer moved it (``None``
        when it had none)."""
        row = self._db.execute("SELECT card_before FROM answers WHERE session_id = ? AND "
                               "question_id = ?", (session_id, question_id)).fetchone()
        if row is None or row[0] is None:
            return None
        content_hash, card_json, due = json.loads(row[0])
        return _card((question_id, content_hash, card_json, due))

    def answers(self, session_id: int | None = None) -> list[AnswerRecord]:
        """Answers of one session (or all), oldest first."""
        sql = ("SELECT session_id, question_id, bank_id, content_hash, chosen, correct, seconds, "
               "answered_at, rating, scheduled FROM answers")
        args: tuple[Any, ...] = ()
        if session_id is not None:
            sql += " WHERE session_id = ?"
            args = (session_id,)
        rows = self._db.execute(sql + " ORDER BY id", args).fetchall()
        return [AnswerRecord(session_id=r[0], question_id=r[1], bank_id=r[2], content_hash=r[3],
                             chosen=tuple(json.loads(r[4])), correct=bool(r[5]), seconds=r[6],
                             answered_at=from_text(r[7]), rating=r[8], scheduled=bool(r[9]))
                for r in rows]

    def answer_count(self) -> int:
        """How many answers are stored."""
        return int(self._db.execute("SELECT count(*) FROM answers").fetchone()[0])

    def tallies(self) -> dict[str, QuestionTally]:
        """Right and wrong counts per question id over every recorded answer."""
        rows = self._db.execute(
            "SELECT question_id, sum(correct), sum(1 - correct), max(id) FROM answers "
            "GROUP BY question_id").fetchall()
        last = {r[0]: (bool(r[1]), r[2]) for r in self._db.execute(
            "SELECT id, correct, answered_at FROM answers WHERE id IN "
            "(SELECT max(id) FROM answers GROUP BY question_id)").fetchall()}
        result = {}
        for qid, right, wrong, last_id in rows:
            correct, at = last[last_id]
            result[qid] = QuestionTally(qid, int(right), int(wrong), correct, from_text(at))
        return result

    def card(self, question_id: str) -> StoredCard | None:
        """The review card of a question, or ``None`` if it was never scheduled."""
        row = self._db.execute("SELECT question_id, content_hash, card, due FROM cards "
                               "WHERE question_id = ?", (question_id,)).fetchone()
        return _card(row) if row else None

    def cards(self) -> dict[str, StoredCard]:
        """Every review card, by question id."""
        rows = self._db.execute("SELECT question_id, content_hash, card, due FROM cards")
        return {r[0]: _card(r) for r in rows}

    def reset_changed_cards(self, hashes: dict[str, str]) -> list[str]:
        """Forget the review schedule of every question whose content hash differs from the
        one it was scheduled with (``hashes``: question id → current hash; questions not in it
        are left alone). Returns the ids reset; their answers stay in the history."""
        stale = [qid for qid, h in self._db.execute(
            "SELECT question_id, content_hash FROM cards") if qid in hashes and hashes[qid] != h]
        if stale:
            with self._write() as db:
                db.executemany("DELETE FROM cards WHERE question_id = ?",
                               [(qid,) for qid in stale])
        return stale

    # -- flags ------------------------------------------------------------------------------
    def set_flag(self, session_id: int, question_id: str, flagged: bool, *,
                 now: datetime | None = None) -> None:
        """Flag (or unflag) a question for review within a session."""
        with self._write() as db:
            if flagged:
                db.execute("INSERT OR IGNORE INTO flags (session_id, question_id, flagged_at) "
                           "VALUES (?, ?, ?)", (session_id, question_id,
                                                to_text(now or utc_now())))
            else:
                db.execute("DELETE FROM flags WHERE session_id = ? AND question_id = ?",
                           (session_id, question_id))

    def flags(self, session_id: int | None = None) -> set[str]:
        """Question ids flagged in one session (or in any)."""
        if session_id is None:
            rows = self._db.execute("SELECT DISTINCT question_id FROM flags")
        else:
            rows = self._db.execute("SELECT question_id FROM flags WHERE session_id = ?",
                                    (session_id,))
        return {r[0] for r in rows}

    # -- settings ---------------------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        """A remembered setting (JSON data), or ``default``."""
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return json.loads(row[0]) if row else default

    def set_setting(self, key: str, value: Any) -> None:
        """Remember a setting (any JSON data)."""
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)",
                       (key, json.dumps(value)))

    # -- maintenance ------------------------------------------------------------------------
    def backup(self, target: Path) -> Path:
        """Copy the whole database, consistently, to ``target`` (SQLite's online backup).
        Returns ``target``."""
        target.parent.mkdir(parents=True, exist_ok=True)
        with sqlite3.connect(target) as dest:
            self._db.backup(dest)
        dest.close()
        return target

    def reset(self) -> None:
        """Delete every session, answer, card and flag (settings stay). Back up first."""
        with self._write() as db:
            for table in ("flags", "answers", "cards", "sessions"):
                db.execute(f"DELETE FROM {table}")


_SESSION_COLUMNS = "id, mode, bank_ids, seed, plan, state, started_at, ended_at, status"


def _session(row: tuple[Any, ...]) -> SessionRecord:
    return SessionRecord(id=row[0], mode=row[1], bank_ids=tuple(json.loads(row[2])), seed=row[3],
                         plan=json.loads(row[4]), state=json.loads(row[5]),
                         started_at=from_text(row[6]),
                         ended_at=from_text(row[7]) if row[7] else None, status=row[8])


def _card(row: tuple[Any, ...]) -> StoredCard:
    return StoredCard(question_id=row[0], content_hash=row[1], card=json.loads(row[2]),
                      due=from_text(row[3]))


def _put_card(db: sqlite3.Connection, card: StoredCard, now: datetime) -> None:
    db.execute("INSERT OR REPLACE INTO cards (question_id, content_hash, card, due, updated_at) "
               "VALUES (?, ?, ?, ?, ?)",
               (card.question_id, card.content_hash, json.dumps(card.card), to_text(card.due),
                to_text(now)))


# -- opening, checking, migrating -----------------------------------------------------------
class _Unusable(Exception):
    """The file is damaged or foreign: set it aside (the message says why)."""


def _read_version(db: sqlite3.Connection) -> int:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "schema_version" not in tables:
        return 0
    row = db.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def _connect(path: Path) -> sqlite3.Connection:
    """Open, check and migrate. Raises :class:`_Unusable` for a damaged or foreign file and
    :class:`StoreError` for one too new to read."""
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as fh:
            if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                raise _Unusable("it is not a SQLite database")
    try:
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                             check_same_thread=False)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open the progress file {path}: {exc}") from exc
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
            raise _Unusable("it belongs to another program")
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise _Unusable(f"it is damaged: {check}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        _migrate(db, path)
    except _Unusable:
        db.close()
        raise
    except sqlite3.DatabaseError as exc:
        db.close()
        raise _Unusable(f"it is damaged: {exc}") from exc
    except BaseException:
        db.close()
        raise
    return db


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the file to :data:`SCHEMA_VERSION` in one transaction (another process may be
    doing the same: the version is read again under the write lock)."""
    if _read_version(db) == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        version = _read_version(db)
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the progress file {path} was written by a newer version of quiz (schema "
                f"{version}; this one reads up to {SCHEMA_VERSION}). Upgrade quiz, or start "
                "with another folder: quiz --data-dir DIR")
        if version == 0:
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
            db.execute("INSERT INTO schema_version (version) VALUES (0)")
        for target in range(version + 1, SCHEMA_VERSION + 1):
            MIGRATIONS[target](db)
            db.execute("UPDATE schema_version SET version = ?", (target,))
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _set_aside(path: Path, now: datetime) -> Path:
    """Rename a damaged file (and its WAL companions) to ``<name>.damaged-<UTC time>``."""
    stamp = now.astimezone(UTC).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    n = 1
    while aside.exists():
        n += 1
        aside = path.with_name(f"{path.name}.damaged-{stamp}-{n}")
    shutil.move(path, aside)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists():
            shutil.move(companion, aside.with_name(aside.name + suffix))
    return aside
