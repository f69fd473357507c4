"""Writing the progress store off the caller's thread, and never losing a write to a fault.

Every write of :class:`quiz.study.store.Store` is an operation run, in its own transaction, by
one writer thread with its own SQLite connection, in the order given. The caller waits for it
at most :data:`WAIT_S` (an answer is committed before the call returns, as it always was,
unless the disk cannot take it); a write that cannot be made — the disk is full, the file or
its folder is read-only, another program holds the write lock past SQLite's busy timeout, the
file-size limit is reached — stays queued in memory, in order, with every later write behind
it, and is tried again (after 1 s, then doubling up to :data:`RETRY_MAX_S`, or at once on
:meth:`Writer.retry_now`). Meanwhile the caller is not kept waiting at all, and
:attr:`Writer.problem` says what is wrong; listeners hear when saving fails and when it
works again. These faults never count as damage: the file stays where it is.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

WAIT_S = 1.0
"""How long a caller waits for its write before leaving it queued (seconds): long enough for
a commit on a busy machine, short enough that a held lock no longer freezes the app."""

RETRY_FIRST_S = 1.0
RETRY_MAX_S = 30.0
"""Retry delays of a write that failed (seconds): the first, and the most it doubles to."""

PENDING: Any = type("Pending", (), {"__repr__": lambda self: "PENDING"})()
"""What :meth:`Writer.submit` returns for a write left queued."""

_FAULTS = {
    sqlite3.SQLITE_FULL: "the disk is full",
    sqlite3.SQLITE_READONLY: "the file or its folder is read-only",
    sqlite3.SQLITE_PERM: "the file or its folder is read-only",
    sqlite3.SQLITE_CANTOPEN: "it cannot be opened or created (a read-only or missing folder?)",
    sqlite3.SQLITE_BUSY: "another program has held its write lock for over 10 seconds",
    sqlite3.SQLITE_LOCKED: "another program has held its write lock for over 10 seconds",
    sqlite3.SQLITE_IOERR: "the disk failed to write it (full, or a file-size limit reached?)",
}
_OS_FAULTS = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file or its folder is read-only",
    errno.EACCES: "the file or its folder is read-only",
    errno.EPERM: "the file or its folder is read-only",
    errno.EFBIG: "the file-size limit was reached",
}


def fault_of(exc: BaseException, path: Path | None = None) -> str | None:
    """Why a write failed, when the failure is a fault of the disk or of access that may pass
    (what :data:`_FAULTS` and :data:`_OS_FAULTS` name), in words for the user; ``None`` for
    anything else (damage, a bug). With ``path`` (the file written), a disk with no room left
    is named as such whatever error SQLite gave (a full disk can show as an I/O error)."""
    reason = _fault(exc)
    if reason is not None and path is not None and reason != _FAULTS[sqlite3.SQLITE_FULL]:
        try:
            room = os.statvfs(path.parent)
            if room.f_flag & os.ST_RDONLY:
                return "the disk holding it is mounted read-only"
            if room.f_bavail * room.f_frsize < _FULL_BYTES:
                return _FAULTS[sqlite3.SQLITE_FULL]
        except (OSError, AttributeError):
            pass
    return reason


_FULL_BYTES = 64 * 1024
"""Less room than this on the disk (bytes) counts as a full disk."""


def _fault(exc: BaseException) -> str | None:
    given = getattr(exc, "reason", None)  # quiz.study.store_open.Unavailable
    if isinstance(given, str):
        return given
    if isinstance(exc, sqlite3.Error):
        code = getattr(exc, "sqlite_errorcode", None)
        if code is not None:
            return _FAULTS.get(code & 0xFF)
        text = str(exc).lower()
        for words, reason in (("disk is full", "the disk is full"),
                              ("readonly", "the file or its folder is read-only"),
                              ("locked", _FAULTS[sqlite3.SQLITE_BUSY]),
                              ("unable to open", _FAULTS[sqlite3.SQLITE_CANTOPEN]),
                              ("disk i/o error", _FAULTS[sqlite3.SQLITE_IOERR])):
            if words in text:
                return reason
        return None
    if isinstance(exc, OSError):
        return _OS_FAULTS.get(exc.errno or 0, exc.strerror or str(exc))
    return None


class _Op:
    __slots__ = ("run", "done", "settled", "result", "error", "kind")

    def __init__(self, run: Callable[[sqlite3.Connection], Any], kind: str) -> None:
        self.run = run
        self.kind = kind
        self.done = threading.Event()
        self.settled = threading.Event()
        """Set when done, or when a first try failed with a fault (the caller stops waiting)."""
        self.result: Any = None
        self.error: BaseException | None = None


class Writer:
    """The writer thread of one store (started on the first write).

    ``connect`` opens the writer's own connection (called in the writer thread, again after a
    failure); ``problem`` (the fault that keeps writes queued, in words) starts as
    ``initial_problem`` when the store could not be opened for writing."""

    def __init__(self, connect: Callable[[], sqlite3.Connection], path: Path,
                 initial_problem: str | None = None) -> None:
        self._connect = connect
        self._path = path
        self._db: sqlite3.Connection | None = None
        self._queue: deque[_Op] = deque()
        self._cond = threading.Condition()
        self._thread: threading.Thread | None = None
        self._stopping = False
        self._wake = False
        self.problem = initial_problem
        """Why writes are queued instead of saved, in words; ``None`` while saving works."""
        self.listeners: list[Callable[[str | None], object]] = []
        """Called (in the writer thread) with :attr:`problem` each time it changes."""
        self.dropped: list[str] = []
        """Writes given up because of an error that is no fault (a bug), in words."""

    # -- for the store ----------------------------------------------------------------------
    def submit(self, run: Callable[[sqlite3.Connection], Any], kind: str = "change") -> Any:
        """Queue ``run`` (called with the writer's connection inside a transaction). Returns
        its result when it was committed within :data:`WAIT_S`, else :data:`PENDING` (at once
        while earlier writes wait or saving fails). ``kind`` names it for
        :meth:`pending` (``"answer"`` for an answer). Raises what ``run`` raised when that is
        no fault (a constraint, a bug)."""
        op = _Op(run, kind)
        with self._cond:
            healthy = not self._queue and self.problem is None
            self._queue.append(op)
            self._start()
            self._cond.notify_all()
        if not healthy or not op.settled.wait(WAIT_S) or not op.done.is_set():
            return PENDING
        if op.error is not None:
            raise op.error
        return op.result

    def pending(self, kind: str | None = None) -> int:
        """How many writes (of ``kind``, or all) wait in memory."""
        with self._cond:
            return sum(1 for op in self._queue if kind is None or op.kind == kind)

    def retry_now(self) -> None:
        """Try the queued writes again now, not at the next retry time."""
        with self._cond:
            self._wake = True
            self._cond.notify_all()

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for every queued write, trying at once; True when
        none is left."""
        deadline = time.monotonic() + timeout
        while True:
            self.retry_now()
            with self._cond:
                left = deadline - time.monotonic()
                if self._cond.wait_for(lambda: not self._queue, max(0.0, min(left, 0.25))):
                    return True
            if left <= 0:
                return False

    def close(self, timeout: float) -> int:
        """Flush (up to ``timeout`` s), stop the thread, close the connection; returns how many
        answers are still unsaved (lost with this process)."""
        self.flush(timeout)
        with self._cond:
            self._stopping = True
            left = sum(1 for op in self._queue if op.kind == "answer")
            self._queue.clear()
            self._cond.notify_all()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout + 1)
        return left

    # -- the thread -------------------------------------------------------------------------
    def _start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="quiz-store-writer",
                                            daemon=True)
            self._thread.start()

    def _set_problem(self, problem: str | None) -> None:
        if problem == self.problem:
            return
        self.problem = problem
        for listener in list(self.listeners):
            try:
                listener(problem)
            except Exception:  # a listener's failure must not stop the writes
                pass

    def _loop(self) -> None:
        delay = RETRY_FIRST_S
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._queue or self._stopping)
                if self._stopping:
                    break
                op = self._queue[0]
            fault = self._run(op)
            if fault is None:
                delay = RETRY_FIRST_S
                with self._cond:
                    self._queue.popleft()
                    self._cond.notify_all()
                    empty = not self._queue
                op.done.set()
                op.settled.set()
                if empty:
                    self._set_problem(None)
                continue
            self._set_problem(fault)
            op.settled.set()
            with self._cond:
                self._cond.wait_for(lambda: self._wake or self._stopping, delay)
                self._wake = False
            delay = min(delay * 2, RETRY_MAX_S)
        if self._db is not None:
            self._db.close()

    def _run(self, op: _Op) -> str | None:
        """Run one write; the fault that kept it from being saved, or ``None`` when it is done
        (committed, or given up for an error that is no fault)."""
        try:
            if self._db is None:
                self._db = self._connect()
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                op.result = op.run(db)
            except BaseException:
                if db.in_transaction:
                    try:
                        db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                raise
            db.execute("COMMIT")
            return None
        except Exception as exc:
            fault = fault_of(exc, self._path) or _damage(exc)
            if fault is not None:
                self._reset_connection()
                return fault
            op.error = exc
            self.dropped.append(f"{type(exc).__name__}: {exc}")
            return None

    def _reset_connection(self) -> None:
        """Drop the connection after a fault: the next try opens a new one (a file made
        writable again, a folder created again)."""
        if self._db is not None:
            try:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._db.close()
            self._db = None


def _damage(exc: BaseException) -> str | None:
    """The writer's connection found the file unusable (damaged, foreign, newer): a fault to
    wait out too (the file is never set aside from here), said as such."""
    from quiz.study.store_schema import StoreError, Unusable

    if isinstance(exc, (Unusable, StoreError)):
        return f"the file cannot be used ({exc})"
    return None
