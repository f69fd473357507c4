"""The progress store's schema: the migrations that build it, version by version, and the
checks that a file holds it whole (:mod:`quiz.study.store` opens files with them)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

APPLICATION_ID = 0x5155495A
"""``PRAGMA application_id`` of a quiz progress file ("QUIZ" in ASCII): tells ours from a
foreign SQLite file."""

SCHEMA_VERSION = 3
"""The schema version this code reads and writes."""


class StoreError(RuntimeError):
    """The progress file cannot be used and must not be touched (e.g. written by a newer quiz).
    The message says what happened and what to do."""


# -- migrations --------------------------------------------------------------------------------
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


def _migrate_to_3(db: sqlite3.Connection) -> None:
    """Version 3: the variant each answer was given in (a computed question's ``vary:``
    values as JSON; NULL for every other question, and for the answers stored before)."""
    _run(db, "ALTER TABLE answers ADD COLUMN variant TEXT;")


MIGRATIONS: dict[int, Callable[[sqlite3.Connection], None]] = {
    1: _migrate_to_1,
    2: _migrate_to_2,
    3: _migrate_to_3,
}
"""Migration to version N, for N = 1 … :data:`SCHEMA_VERSION`; each runs inside the opening
transaction."""


class Unusable(Exception):
    """The file is damaged or foreign: set it aside (the message says why)."""


def read_version(db: sqlite3.Connection) -> int:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "schema_version" not in tables:
        return 0
    rows = db.execute("SELECT version FROM schema_version").fetchall()
    versions = [r[0] for r in rows]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in versions):
        raise Unusable(f"it is damaged: its schema version is {versions[:3]!r}, not a number")
    return max(versions, default=0)


_COLUMNS = {
    "sessions": {"id", "mode", "bank_ids", "seed", "plan", "started_at", "ended_at", "status",
                 "state"},
    "answers": {"id", "session_id", "question_id", "bank_id", "content_hash", "chosen",
                "correct", "seconds", "answered_at", "rating", "scheduled", "card_before",
                "variant"},
    "cards": {"question_id", "content_hash", "card", "due", "updated_at"},
    "flags": {"session_id", "question_id", "flagged_at"},
    "settings": {"key", "value"},
}
"""The columns of every table at :data:`SCHEMA_VERSION`."""


def check_tables(db: sqlite3.Connection) -> None:
    """Raise :class:`Unusable` when a table or column of the schema is missing (a file at
    the current version that lost one cannot be used: every read of it would fail)."""
    for table, columns in _COLUMNS.items():
        have = {r[1] for r in db.execute(f"PRAGMA table_info({table})")}
        if not have:
            raise Unusable(f"it is damaged: its table {table} is missing")
        if missing := sorted(columns - have):
            raise Unusable(f"it is damaged: table {table} lacks {', '.join(missing)}")


def migrate(db: sqlite3.Connection, path: Path) -> None:
    """Bring the file to :data:`SCHEMA_VERSION` in one transaction (another process may be
    doing the same: the version is read again under the write lock)."""
    if read_version(db) == SCHEMA_VERSION:
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        version = read_version(db)
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


