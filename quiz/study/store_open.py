"""Opening the progress file (:mod:`quiz.study.store`): telling damage (set the file aside)
from faults that may pass (a full disk, a read-only file or folder, a held lock: keep the file,
read it if it can be read, and queue the writes: :mod:`quiz.study.store_writer`)."""

from __future__ import annotations

import shutil
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from quiz.study.store_schema import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    StoreError,
    Unusable,
    check_tables,
    migrate,
    read_version,
)
from quiz.study.store_writer import fault_of

BUSY_TIMEOUT_MS = 10_000
"""How long a write waits for another process's transaction before giving up (milliseconds)."""

SQLITE_HEADER = b"SQLite format 3\x00"


class Unavailable(Exception):
    """The file cannot be opened for writing now, for a reason that may pass (``reason``: the
    disk is full, it is read-only, its lock is held): it is no damage, and stays as it is."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def connect(path: Path, *, check: bool = True) -> sqlite3.Connection:
    """Open, check and migrate (``check=False``: only open, for a second connection to a file
    already checked). Raises :class:`Unusable` for a damaged or foreign file,
    :class:`StoreError` for one too new to read, :class:`Unavailable` for a fault."""
    try:
        if check and path.exists() and path.stat().st_size > 0:
            with path.open("rb") as fh:
                if fh.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                    raise Unusable("it is not a SQLite database")
        db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None,
                             check_same_thread=False)
    except OSError as exc:
        raise Unavailable(fault_of(exc, path) or str(exc)) from exc
    except sqlite3.Error as exc:
        fault = fault_of(exc, path)
        if fault is not None:
            raise Unavailable(fault) from exc
        raise StoreError(f"cannot open the progress file {path}: {exc}") from exc
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if check:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            tables = [r[0] for r in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")]
            if app_id not in (0, APPLICATION_ID) or (app_id == 0 and tables):
                raise Unusable("it belongs to another program")
            result = db.execute("PRAGMA quick_check").fetchone()[0]
            if result != "ok":
                raise Unusable(f"it is damaged: {result}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")
        db.execute("PRAGMA foreign_keys = ON")
        if check:
            migrate(db, path)
            check_tables(db)
    except Unusable:
        db.close()
        raise
    except sqlite3.DatabaseError as exc:
        db.close()
        fault = fault_of(exc, path)
        if fault is not None:  # full, read-only, locked: no damage
            raise Unavailable(fault) from exc
        raise Unusable(f"it is damaged: {exc}") from exc
    except BaseException:
        db.close()
        raise
    return db


def reader(path: Path) -> tuple[sqlite3.Connection, bool]:
    """A connection to read ``path`` without writing anything (not even the ``-wal`` and
    ``-shm`` files: a full disk or a read-only folder), and whether it holds the file; an empty
    store in memory (False) when the file cannot be read so, is missing, or is not at
    :data:`SCHEMA_VERSION` (a migration would need writing).

    Raises:
        Unusable: the file reads, but as damage (a missing table, a version that is no
            number): the caller decides.
    """
    if path.is_file():
        for query in ("mode=ro", "immutable=1"):
            try:
                db = sqlite3.connect(f"file:{quote(str(path))}?{query}", uri=True,
                                     isolation_level=None, check_same_thread=False)
            except sqlite3.Error:
                continue
            try:
                if read_version(db) == SCHEMA_VERSION:
                    check_tables(db)
                    return db, True
            except sqlite3.Error:
                pass
            except Unusable:
                db.close()
                raise
            db.close()
    return empty(path), False


def empty(path: Path) -> sqlite3.Connection:
    """An empty store in memory (``path`` names it in messages only)."""
    db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    migrate(db, path)
    return db


def set_aside(path: Path, now: datetime) -> Path:
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
