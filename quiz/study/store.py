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
  and says so in :attr:`Store.notice`, then starts a new database. Every value read is checked
  (:mod:`quiz.study.store_rows`): a damaged row is skipped and listed in :attr:`Store.damage`.
- **Faults are no damage.** A full disk, a read-only file or disk, a write lock held by another
  program: the file stays where it is, is read if it can be, and every write waits in memory,
  in order, and is retried off the caller's thread until it is saved
  (:mod:`quiz.study.store_writer`); :attr:`Store.problem` says why meanwhile.
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
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz.study import owners
from quiz.study.store_open import (
    BUSY_TIMEOUT_MS,
    Unavailable,
    connect,
    empty,
    reader,
    set_aside,
)
from quiz.study.store_rows import (
    DamagedRow,
    answer_fields,
    card_fields,
    from_text,
    json_value,
    session_fields,
    text_value,
    time_value,
    to_text,
    utc_now,
)
from quiz.study.store_schema import (
    APPLICATION_ID,
    MIGRATIONS,
    SCHEMA_VERSION,
    StoreError,
    Unusable,
    read_version,
)
from quiz.study.store_writer import PENDING, Writer, fault_of

if TYPE_CHECKING:
    from quiz.study.store_records import AnswerRecord, QuestionTally, SessionRecord, StoredCard

__all__ = ["APPLICATION_ID", "MIGRATIONS", "SCHEMA_VERSION", "Store", "StoreError", "damage_text",
           "from_text", "saving_text", "to_text", "utc_now"]



# -- the store ------------------------------------------------------------------------------
class Store:
    """An open progress database. Build it with :meth:`open`; close it with :meth:`close` (or
    use it as a context manager)."""

    def __init__(self, path: Path, connection: sqlite3.Connection, notice: str | None,
                 problem: str | None = None) -> None:
        self.path = path
        self._conn = connection
        """The connection the store reads with (writes go through :attr:`_writer`)."""
        self._reopen = problem is not None
        """Reading through a read-only (or in-memory) connection: once saving works, the
        file is read through a normal one again (see :attr:`_db`)."""
        self.notice = notice
        """A message for the user when the previous file had to be set aside, or cannot be
        written (see :attr:`problem`), else ``None``."""
        self.damage: list[str] = []
        """The damaged rows skipped so far (one line each: which row, which value), for the
        user; every value read is checked (:mod:`quiz.study.store_rows`)."""
        self._writer = Writer(lambda: connect(path, check=problem is not None), path, problem)
        self._ids: dict[int, int] = {}
        """Session ids handed out while their session was not saved yet (negative) → the id
        the file gave them once saved."""
        self._unsaved: dict[int, SessionRecord] = {}
        """Sessions started but not saved yet, by their provisional (negative) id."""
        self._overlay: dict[int, dict[str, Any]] = {}
        """Changes to saved sessions not written yet (status, state, plan), by session id:
        what the app reads meanwhile."""
        self.unsaved_at_close = 0
        """Answers that were still unsaved when the store was closed (lost: said to the user)."""

    @property
    def _db(self) -> sqlite3.Connection:
        """The reading connection; after a store opened without saving starts saving, a new
        normal one (a read-only or immutable one would not see what is written)."""
        if self._reopen and self._writer.problem is None and not self._writer.pending():
            try:
                fresh = connect(self.path, check=False)
            except (Unavailable, Unusable, StoreError):
                return self._conn
            self._conn.close()
            self._conn, self._reopen = fresh, False
        return self._conn

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
        store's :attr:`notice` says where the old file went. A file that cannot be written now
        (a full disk, a read-only file or folder, a lock held by another program) is no
        damage: it is left where it is, read when it can be read, and the store runs without
        saving (:attr:`problem` says why; writes wait in memory and are retried: see
        :mod:`quiz.study.store_writer`).

        Raises:
            StoreError: the file was written by a newer version of quiz (it is left untouched).
        """
        notice = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            return cls(path, connect(path), None)
        except OSError as exc:
            return cls._unsaved_store(path, fault_of(exc, path) or str(exc))
        except Unavailable as exc:
            return cls._unsaved_store(path, exc.reason)
        except Unusable as exc:
            aside = set_aside(path, now or utc_now())
            notice = (f"The progress file {path} could not be used ({exc}). It was kept as "
                      f"{aside.name} in the same folder, and a new one was started.")
        try:
            return cls(path, connect(path), notice)
        except Unavailable as exc:
            return cls._unsaved_store(path, exc.reason)
        except Unusable as exc:  # pragma: no cover - a fresh file is always usable
            raise StoreError(f"cannot create the progress file {path}: {exc}") from exc

    @classmethod
    def _unsaved_store(cls, path: Path, reason: str) -> Store:
        """A store on a file that cannot be written now: read as it is (or empty), writes
        queued. A file that reads as damage is still left alone (it may be the fault's
        doing): the store starts empty."""
        try:
            db, holds = reader(path)
        except Unusable:
            db, holds = empty(path), False
        seen = "your progress so far is shown, " if holds else ""
        notice = (f"Progress cannot be saved: the progress file {path} cannot be written "
                  f"({reason}). It is left as it is; {seen}your answers are kept in memory and "
                  "saved as soon as it can be written again.")
        return cls(path, db, notice, reason)

    @property
    def problem(self) -> str | None:
        """Why progress is not being saved now (the disk is full, …), ``None`` while it is."""
        return self._writer.problem

    @property
    def unsaved(self) -> int:
        """Answers kept in memory, not saved yet."""
        return self._writer.pending("answer")

    def listen(self, listener: Callable[[str | None], object]) -> None:
        """Call ``listener`` (in the writer thread) with :attr:`problem` each time saving
        fails or works again."""
        self._writer.listeners.append(listener)

    def retry_now(self) -> None:
        """Try the unsaved writes again now."""
        self._writer.retry_now()

    def flush(self, timeout: float = BUSY_TIMEOUT_MS / 1000 + 2) -> bool:
        """Wait (up to ``timeout`` s) until every write is saved; True when none is left."""
        return self._writer.flush(timeout)

    def close(self) -> None:
        """Save what is queued (waiting a little: longer while no fault is known), then close.
        Answers still unsaved are counted in :attr:`unsaved_at_close`."""
        timeout = 2.0 if self.problem else BUSY_TIMEOUT_MS / 1000 + 2
        self.unsaved_at_close = self._writer.close(timeout)
        self._conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _submit(self, run: Callable[[sqlite3.Connection], Any], kind: str = "change") -> Any:
        """Write: ``run`` in one transaction in the writer thread (see
        :meth:`~quiz.study.store_writer.Writer.submit`)."""
        return self._writer.submit(run, kind)

    def _real(self, session_id: int) -> int:
        """The id the file knows a session by (a provisional one mapped once saved)."""
        return self._ids.get(session_id, session_id)

    @property
    def schema_version(self) -> int:
        """The schema version of the open file."""
        return read_version(self._db)

    # -- sessions ---------------------------------------------------------------------------
    def start_session(self, mode: str, bank_ids: tuple[str, ...], seed: int | None,
                      plan: dict[str, Any], *, now: datetime | None = None) -> int:
        """Record a new open session and return its id (a provisional negative one while it
        cannot be saved: every method takes it, and it is mapped once saved)."""
        started = now or utc_now()
        provisional = -1 - len(self._ids) - len(self._unsaved)

        def run(db: sqlite3.Connection) -> int:
            cur = db.execute(
                "INSERT INTO sessions (mode, bank_ids, seed, plan, started_at, state) "
                "VALUES (?, ?, ?, ?, ?, '{}')",
                (mode, json.dumps(list(bank_ids)), seed, json.dumps(plan), to_text(started)))
            session_id = int(cur.lastrowid or 0)
            self._ids[provisional] = session_id
            self._unsaved.pop(provisional, None)
            owners.claim(self.path, session_id)  # this process studies it: quiz.study.owners
            return session_id

        from quiz.study.store_records import SessionRecord

        self._unsaved[provisional] = SessionRecord(provisional, mode, tuple(bank_ids), seed,
                                                   dict(plan), {}, started, None, "open")
        result = self._submit(run)
        return provisional if result is PENDING else int(result)

    def _update_session(self, session_id: int, column: str, value: Any, text: str) -> None:
        """Set one column of a session: seen at once by :meth:`session` and the lists (an
        overlay kept until written), written in the writer thread."""
        record = self._unsaved.get(session_id)
        if record is not None:
            self._unsaved[session_id] = replace(record, **{column: value})
        else:
            self._overlay.setdefault(session_id, {})[column] = value

        def run(db: sqlite3.Connection) -> None:
            db.execute(f"UPDATE sessions SET {column} = ? WHERE id = ?",
                       (text, self._real(session_id)))
            changes = self._overlay.get(session_id, {})
            if changes.get(column) is value:  # no later change waits behind this one
                del changes[column]
                if not changes:
                    self._overlay.pop(session_id, None)

        self._submit(run)

    def _overlaid(self, record: SessionRecord) -> SessionRecord:
        changes = dict(self._overlay.get(record.id) or {})  # a copy: the writer thread edits it
        return replace(record, **changes) if changes else record

    def set_plan(self, session_id: int, plan: dict[str, Any]) -> None:
        """Replace a session's plan (what was drawn: see :meth:`start_session`)."""
        self._update_session(session_id, "plan", dict(plan), json.dumps(plan))

    def save_state(self, session_id: int, state: dict[str, Any]) -> None:
        """Replace a session's resumable state (position, exam clock)."""
        self._update_session(session_id, "state", dict(state), json.dumps(state))

    def end_session(self, session_id: int, status: str = "finished", *,
                    now: datetime | None = None) -> None:
        """Close a session as ``finished`` or ``abandoned`` (it is no longer offered for
        resumption), and let go of its lock (:mod:`quiz.study.owners`)."""
        ended = now or utc_now()
        self._update_session(session_id, "ended_at", ended, to_text(ended))
        self._update_session(session_id, "status", status, status)
        self._submit(lambda db: owners.release(self.path, self._real(session_id)))

    def session(self, session_id: int) -> SessionRecord:
        """The session with this id (a session not saved yet too). Raises ``KeyError`` if
        there is none."""
        if session_id in self._unsaved:
            return self._unsaved[session_id]
        row = self._db.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE id = ?",
                               (self._real(session_id),)).fetchone()
        if row is None:
            raise KeyError(session_id)
        try:
            return self._overlaid(_session(row))
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
                out.append(self._overlaid(_session(row)))
            except DamagedRow as exc:
                self._skip(exc)
        return out

    def open_sessions(self) -> list[SessionRecord]:
        """Sessions never finished nor abandoned (e.g. the process was killed), newest first."""
        rows = self._db.execute(f"SELECT {_SESSION_COLUMNS} FROM sessions WHERE status = 'open' "
                                "ORDER BY id DESC").fetchall()
        return [r for r in self._sessions(rows) if r.status == "open"]

    # -- answers and cards ------------------------------------------------------------------
    def record_answer(self, answer: AnswerRecord, card: StoredCard | None = None) -> None:
        """Commit one answer, and (when ``card`` is given) the question's new review card, in
        one transaction. Answering a question again in the same session (an exam's changed
        answer) replaces the earlier answer.

        The card it replaces is kept with the answer, so :meth:`undo_answer` can restore it.
        When it cannot be saved now, it waits in memory (:attr:`unsaved`) and is retried.
        """
        def run(db: sqlite3.Connection) -> None:
            before = None
            if card is not None:
                row = db.execute("SELECT content_hash, card, due FROM cards WHERE question_id = ?",
                                 (answer.question_id,)).fetchone()
                before = json.dumps(list(row)) if row else None
                _put_card(db, card, answer.answered_at)
            db.execute(
                "INSERT INTO answers (session_id, question_id, bank_id, content_hash, chosen, "
                "correct, seconds, answered_at, rating, scheduled, card_before, variant) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (session_id, question_id) DO UPDATE SET "
                "chosen = excluded.chosen, correct = excluded.correct, "
                "seconds = excluded.seconds, answered_at = excluded.answered_at, "
                "content_hash = excluded.content_hash, rating = excluded.rating, "
                "scheduled = excluded.scheduled, card_before = excluded.card_before, "
                "variant = excluded.variant",
                (self._real(answer.session_id), answer.question_id, answer.bank_id,
                 answer.content_hash, json.dumps(sorted(answer.chosen)), int(answer.correct),
                 answer.seconds, to_text(answer.answered_at), answer.rating,
                 int(card is not None), before,
                 None if answer.variant is None else json.dumps(answer.variant)))

        self._submit(run, "answer")

    def rerate(self, session_id: int, question_id: str, rating: int, card: StoredCard) -> None:
        """Replace the rating of an answer and the card it produced (the student overrode the
        rating after the reveal); the card before the answer stays kept for undo."""
        def run(db: sqlite3.Connection) -> None:
            db.execute("UPDATE answers SET rating = ? WHERE session_id = ? AND question_id = ?",
                       (rating, self._real(session_id), question_id))
            _put_card(db, card, utc_now())

        self._submit(run, "answer")

    def undo_answer(self, session_id: int, question_id: str) -> bool:
        """Delete an answer and put back the review card it replaced, in one transaction.
        Returns False when there was no such answer (True while it waits to be saved)."""
        def run(db: sqlite3.Connection) -> bool:
            sid = self._real(session_id)
            row = db.execute("SELECT scheduled, card_before FROM answers "
                             "WHERE session_id = ? AND question_id = ?",
                             (sid, question_id)).fetchone()
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
                       (sid, question_id))
            return True

        result = self._submit(run, "answer")
        return True if result is PENDING else bool(result)

    def card_before(self, session_id: int, question_id: str) -> StoredCard | None:
        """The review card a question had before this session's answer moved it (``None``
        when it had none)."""
        row = self._db.execute("SELECT card_before FROM answers WHERE session_id = ? AND "
                               "question_id = ?", (self._real(session_id),
                                                   question_id)).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            return _card((question_id, *_before(row[0])))
        except DamagedRow as exc:
            self._skip(exc)
            return None

    def answers(self, session_id: int | None = None) -> list[AnswerRecord]:
        """Answers of one session (or all), oldest first."""
        from quiz.study.store_records import AnswerRecord

        sql = ("SELECT session_id, question_id, bank_id, content_hash, chosen, correct, seconds, "
               "answered_at, rating, scheduled, variant FROM answers")
        args: tuple[Any, ...] = ()
        if session_id is not None:
            sql += " WHERE session_id = ?"
            args = (self._real(session_id),)
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
        from quiz.study.store_records import QuestionTally

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
            self._submit(lambda db: db.executemany("DELETE FROM cards WHERE question_id = ?",
                                                   [(qid,) for qid in stale]))
        return stale

    # -- flags ------------------------------------------------------------------------------
    def set_flag(self, session_id: int, question_id: str, flagged: bool, *,
                 now: datetime | None = None) -> None:
        """Flag (or unflag) a question for review within a session."""
        when = to_text(now or utc_now())

        def run(db: sqlite3.Connection) -> None:
            if flagged:
                db.execute("INSERT OR IGNORE INTO flags (session_id, question_id, flagged_at) "
                           "VALUES (?, ?, ?)", (self._real(session_id), question_id, when))
            else:
                db.execute("DELETE FROM flags WHERE session_id = ? AND question_id = ?",
                           (self._real(session_id), question_id))

        self._submit(run)

    def flags(self, session_id: int | None = None) -> set[str]:
        """Question ids flagged in one session (or in any)."""
        if session_id is None:
            rows = self._db.execute("SELECT DISTINCT question_id FROM flags")
        else:
            rows = self._db.execute("SELECT question_id FROM flags WHERE session_id = ?",
                                    (self._real(session_id),))
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
        text = json.dumps(value)
        self._submit(lambda db: db.execute(
            "INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, text)))

    # -- maintenance ------------------------------------------------------------------------
    def backup(self, target: Path) -> Path:
        """Copy the whole database, consistently, to ``target`` (SQLite's online backup).
        Returns ``target``.

        Raises:
            StoreError: the copy could not be written whole (a full disk, a file-size limit, a
                read-only folder); nothing is left at ``target``.
        """
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            dest = sqlite3.connect(target)
            try:
                self._db.backup(dest)
            finally:
                dest.close()
        except (sqlite3.Error, OSError) as exc:
            for leftover in (target, target.with_name(target.name + "-journal")):
                try:
                    leftover.unlink()
                except OSError:
                    pass
            raise StoreError(f"could not back up the progress file to {target} "
                             f"({fault_of(exc, target) or exc}): nothing was changed") from exc
        return target

    def reset(self) -> None:
        """Delete every session, answer, card and flag (settings stay), at once and in one
        transaction. Back up first.

        Raises:
            StoreError: the file cannot be written (the reason said); nothing was deleted.
        """
        try:
            if self.problem is not None:
                raise Unavailable(self.problem)
            db = connect(self.path, check=False)
            try:
                db.execute("BEGIN IMMEDIATE")
                for table in ("flags", "answers", "cards", "sessions"):
                    db.execute(f"DELETE FROM {table}")
                db.execute("COMMIT")
            finally:
                db.close()
        except (sqlite3.Error, OSError, Unavailable) as exc:
            reason = fault_of(exc, self.path) or str(exc)
            raise StoreError(f"could not reset the progress file {self.path} ({reason}): "
                             "nothing was deleted") from exc


def saving_text(store: Store, problem: str | None) -> str:
    """What to tell the student when saving stops (``problem``: why) or works again."""
    if problem is None:
        return "Your progress is saved again: every answer kept in memory is in the progress file."
    waiting = store.unsaved
    kept = f" ({waiting} waiting)" if waiting else ""
    return (f"Your answers cannot be saved right now: {problem} ({store.path}). They are kept "
            f"in memory{kept} and saved as soon as the file can be written; quitting before "
            "then loses them.")


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
    from quiz.study.store_records import SessionRecord

    return SessionRecord(**session_fields(row))


def _card(row: tuple[Any, ...]) -> StoredCard:
    """A checked ``cards`` row. Raises DamagedRow."""
    from quiz.study.store_records import StoredCard

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
