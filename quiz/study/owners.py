"""Which running quiz owns an open session: an operating-system lock, not a process id.

The process that starts or resumes a session takes an exclusive ``flock`` on that session's
lock file (``<progress file>.locks/session-<id>.lock`` beside the progress file) and keeps it
until the session ends or the process exits. The kernel releases a lock when its owner dies,
however it dies (``kill -9`` included), so another quiz can tell a session still being studied
from one left behind without guessing from process ids or command lines (a pid is reused, and
"quiz" may be anywhere in any command line).

Where ``flock`` is missing (Windows) or the folder cannot be written, nothing is locked and
every open session counts as left behind: it is offered for resumption, as before any lock.
"""

from __future__ import annotations

import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock
    fcntl = None  # type: ignore[assignment]

_held: dict[Path, int] = {}
"""The lock files this process holds, each with its open descriptor (closing it unlocks)."""


def lock_path(store_path: Path, session_id: int) -> Path:
    """The lock file of session ``session_id`` of the progress file ``store_path``."""
    return store_path.with_name(f"{store_path.name}.locks") / f"session-{int(session_id)}.lock"


def claim(store_path: Path, session_id: int) -> bool:
    """Take this session's lock for this process (kept until :func:`release` or exit).

    Returns True when this process holds it now; False when another process holds it or it
    cannot be taken (no ``flock``, a folder that cannot be written): the caller studies on
    regardless, only unmarked."""
    path = lock_path(store_path, session_id)
    if path in _held:
        return True
    if fcntl is None:  # pragma: no cover - Windows
        return False
    try:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
                     | os.O_NONBLOCK, 0o600)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return False
    _held[path] = fd
    return True


def owned_elsewhere(store_path: Path, session_id: int) -> bool:
    """True when another running process holds this session's lock (it is being studied
    there: not to be offered for resumption). A session this process holds, or whose lock
    file is missing or unlocked (its owner ended, even by ``kill -9``), is not."""
    path = lock_path(store_path, session_id)
    if path in _held or fcntl is None:
        return False
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # no lock file: nobody ever locked it, or it was released
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # closing drops the shared lock taken to test it
    return False


def release(store_path: Path, session_id: int) -> None:
    """Give up this session's lock (it ended) and remove its lock file."""
    path = lock_path(store_path, session_id)
    fd = _held.pop(path, None)
    if fd is None:
        return
    try:
        path.unlink()
    except OSError:
        pass
    os.close(fd)
