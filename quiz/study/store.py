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
  (:mod:`quiz.study.store_schema`)
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
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from quiz.study import owners
from quiz.study.store_rows import (
    DamagedRow,
    answer_fields,
    card_fields,
    json_value,
    session_fields,
    text_value,
    time_value,
)
from quiz.study.store_schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    Unusable,
    check_tables,
    migrate,
    read_version,
)

__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "AnswerRecord", "QuestionTally",
           "SessionRecord", "Store", "StoreError", "StoredCard", "damage_text", "from_text",
           "to_text", "utc_now"]

BUSY_TIMEOUT_MS = 10_000
"""How long a write waits for another process's transaction before giving up (milliseconds)."""

SQLITE_HEADER = b"SQLite format 3\x00"


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
        self.damage: list[str] = []
        """The damaged rows skipped so far (one line each: which row, which value), for the
        user; every value read is checked (:mod:`quiz.study.store_rows`)."""

    def _skip(self, exc: DamagedRow) -> None:
        """Note a damaged row that was skipped (once)."""
        text = str(exc)
        if text not in self.damage:
            self.damage.append(text)

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
        except Unusable as exc:
            aside = _set_aside(path, now or utc_now())
            notice = (f"The progress file {path} could not be used ({exc}). It was kept as "
                      f"{aside.name} in the same folder, and a new one was started.")
        try:
            return cls(path, _connect(path), notice)
        except Unusable as exc:  # pragma: no cover - a fresh file is always usable
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
        return read_version(self._db)

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
        try:
            return _session(row)
        except DamagedRow as exc:
            self._skip(exc)
            raise KeyError(session_id) from None

    def sessions(self, *, limit: int | None = None) -> list[SessionRecord]:
        """Stored sessions, newest first (at most ``limit``)."""
        sql = f"SELECT {_SESSION_COLUMNS} FROM sessions ORDER BY id DESC"
        rows = self._db.execute(sql + (" LIMIT ?" if limit else ""),
                                (limit,) if limit else ()).fetchall()
        return self._sessions(rows)

    def _sessions(self, rows: list[tuple[Any, ...]]) -> list[SessionRecord]:
        out = []
        for row in rows:
            try:
                out.append(_session(row))
            except DamagedRow as exc:
                self._skip(exc)
        return out

    def open_sessions(self) -> list[SessionRecord]:
        """Sessions never finished nor abandoned (e.g. the process was killed), newest first."""
        rows = self._db.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE status = 'open' "
                                "ORDER BY id DESC").fetchall()
        return self._sessions(rows)

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
                restored = None
                if before is not None:
                    try:  # checked: a damaged card is never put back
                        restored = _card((question_id, *_before(before)))
                    except DamagedRow as exc:
                        self._skip(exc)
                if restored is None:
                    db.execute("DELETE FROM cards WHERE question_id = ?", (question_id,))
                else:
                    content_hash, card_json, due = _before(before)
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
        try:
            return _card((question_id, *_before(row[0])))
        except DamagedRow as exc:
            self._skip(exc)
            return None

    def answers(self, session_id: int | None = None) -> list[AnswerRecord]:
        """Answers of one session (or all), oldest first."""
        sql = ("SELECT session_id, question_id, bank_id, content_hash, chosen, correct, seconds, "
               "answered_at, rating, scheduled FROM answers")
        args: tuple[Any, ...] = ()
        if session_id is not None:
            sql += " WHERE session_id = ?"
            args = (session_id,)
        out = []
        for row in self._db.execute(sql + " ORDER BY id", args):
            try:
                out.append(AnswerRecord(**answer_fields(row)))
            except DamagedRow as exc:
                self._skip(DamagedRow(f"an answer to {str(row[1])[:60]!r}: {exc}"))
        return out

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
            try:
                correct, at = last[last_id]
                if not isinstance(qid, str) or not all(
                        isinstance(n, int) and n >= 0 for n in (right, wrong)):
                    raise DamagedRow("a verdict is not 0 or 1")
                result[qid] = QuestionTally(qid, right, wrong, correct,
                                            time_value(at, "an answer's time"))
            except DamagedRow as exc:
                self._skip(DamagedRow(f"the answers to {str(qid)[:60]!r}: {exc}"))
        return result

    def card(self, question_id: str) -> StoredCard | None:
        """The review card of a question, or ``None`` if it was never scheduled."""
        row = self._db.execute("SELECT question_id, content_hash, card, due FROM cards "
                               "WHERE question_id = ?", (question_id,)).fetchone()
        if row is None:
            return None
        try:
            return _card(row)
        except DamagedRow as exc:
            self._skip(exc)
            return None

    def cards(self) -> dict[str, StoredCard]:
        """Every review card, by question id."""
        out = {}
        for row in self._db.execute("SELECT question_id, content_hash, card, due FROM cards"):
            try:
                out[row[0]] = _card(row)
            except DamagedRow as exc:
                self._skip(exc)
        return out

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
        return {r[0] for r in rows if isinstance(r[0], str)}

    # -- settings ---------------------------------------------------------------------------
    def setting(self, key: str, default: Any = None) -> Any:
        """A remembered setting (JSON data), or ``default``."""
        row = self._db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        if row is None:
            return default
        try:
            return json.loads(text_value(row[0], f"setting {key!r}"))
        except (DamagedRow, ValueError):
            self._skip(DamagedRow(f"setting {key!r} is not JSON"))
            return default

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


def damage_text(store: Store) -> str:
    """What :attr:`Store.damage` holds, said to the user in one paragraph."""
    rows = store.damage
    shown = "; ".join(rows[:3]) + ("; …" if len(rows) > 3 else "")
    return (f"{len(rows)} damaged row{'s' * (len(rows) != 1)} of the progress file "
            f"{store.path} {'were' if len(rows) != 1 else 'was'} skipped ({shown}). The rest "
            "of your progress is used; the file is left as it is.")


_SESSION_COLUMNS = "id, mode, bank_ids, seed, plan, state, started_at, ended_at, status"


def _session(row: tuple[Any, ...]) -> SessionRecord:
    """A checked ``sessions`` row. Raises DamagedRow."""
    return SessionRecord(**session_fields(row))


def _card(row: tuple[Any, ...]) -> StoredCard:
    """A checked ``cards`` row. Raises DamagedRow."""
    return StoredCard(**card_fields(row))


def _before(cell: Any) -> tuple[Any, Any, Any]:
    """An answer's ``card_before`` cell: the card row it replaced (content hash, card JSON,
    due). Raises DamagedRow."""
    before = json_value(cell, "the card an answer replaced", list)
    if len(before) != 3:
        raise DamagedRow("the card an answer replaced is not a card row")
    return before[0], before[1], before[2]


def _put_card(db: sqlite3.Connection, card: StoredCard, now: datetime) -> None:
    db.execute("INSERT OR REPLACE INTO cards (question_id, content_hash, card, due, updated_at) "
               "VALUES (?, ?, ?, ?, ?)",
               (card.question_id, card.content_hash, json.dumps(card.card), to_text(card.due),
                to_text(now)))


# -- opening, checking, migrating -----------------------------------------------------------
def _connect(path: Path) -> sqlite3.Connection:
    """Open, check and migrate. Raises :class:`Unusable` for a damaged or foreign file and
    :class:`StoreError` for one too new to read."""
    if path.exists() and path.stat().st_size > 0:
        with path.open("rb") as fh:
            if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                raise Unusable("it is not a SQLite database")
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
            raise Unusable("it belongs to another program")
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise Unusable(f"it is damaged: {check}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        migrate(db, path)
        check_tables(db)
    except Unusable:
        db.close()
        raise
    except sqlite3.DatabaseError as exc:
        db.close()
        raise Unusable(f"it is damaged: {exc}") from exc
    except BaseException:
        db.close()
        raise
    return db


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
