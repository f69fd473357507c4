"""Writing the files a user owns: whole or not at all, never over something that is not theirs
to lose.

:func:`write_atomic` writes the complete new content to a temporary file beside the target,
flushes it to disk and renames it over the target, so the target is at every moment either its
old bytes or its new ones: a full disk, a file-size limit or a kill leaves the old file byte for
byte (``quiz import`` and ``quiz new`` append this way, and ``quiz export`` writes this way).
The temporary file is named ``.NAME.PID.RANDOM.quiz-part``; a writer that is killed leaves it
behind, and the next write to the same target removes every such file whose process is gone
(:func:`remove_stale`).

:func:`replace_problem` says why an existing path must not be replaced by an export (a link, a
device or pipe, a read-only file, one of the export's own inputs).
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

PART_SUFFIX = ".quiz-part"
"""The suffix of a temporary file that :func:`write_atomic` renames into place."""

_KINDS = ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISDIR, "a folder"))


def kind_of(mode: int) -> str | None:
    """What a file of ``st_mode`` ``mode`` is when it is not a regular file ("a named pipe",
    "a character device", ...), or None for a regular file."""
    for test, name in _KINDS:
        if test(mode):
            return name
    return None if stat.S_ISREG(mode) else "not a regular file"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists but belongs to someone else
        return True
    return True


def remove_stale(path: Path) -> list[Path]:
    """Remove the temporary files that a killed writer of ``path`` left beside it (those of
    :func:`write_atomic` whose process no longer runs). Returns the files removed."""
    pattern = re.compile(rf"^\.{re.escape(path.name)}\.(\d+)\.[0-9a-f]+{re.escape(PART_SUFFIX)}$")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(path.parent))
    except OSError:
        return removed
    for entry in entries:
        found = pattern.match(entry.name)
        if found and int(found.group(1)) != os.getpid() and not _alive(int(found.group(1))):
            try:
                if entry.is_file(follow_symlinks=False):
                    os.unlink(entry.path)
                    removed.append(Path(entry.path))
            except OSError:
                continue
    return removed


def write_atomic(path: Path, data: bytes) -> None:
    """Replace (or create) the file ``path`` with ``data``, all or nothing.

    A symbolic link is followed: the file it names is replaced and the link stays. The new file
    keeps the old one's permission bits (a new file gets read-write for all, less the umask).
    Raises ``OSError`` (no space, a file-size limit, no permission ...); the old file is then
    unchanged and no temporary file is left."""
    import secrets  # only here: a start reads bank files (quiz.bank.bank_paths), writes none

    target = Path(os.path.realpath(path))
    remove_stale(target)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mask = os.umask(0)
        os.umask(mask)
        mode = 0o666 & ~mask
    temp = target.parent / f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}{PART_SUFFIX}"
    handle = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "wb") as file:
            view = memoryview(data)
            while view:
                view = view[file.write(view):]
            file.flush()
            os.fsync(file.fileno())
            os.fchmod(file.fileno(), mode)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    try:
        folder = os.open(target.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(folder)
    except OSError:
        pass
    finally:
        os.close(folder)


def replace_problem(path: Path, inputs: Iterable[Path] = ()) -> str | None:
    """Why an export must not replace the existing ``path`` even with ``--force``, or None when
    it may (or when nothing is there): a symbolic link (a dangling one too), anything but a
    regular file, a read-only file, or one of the ``inputs`` (the banks being exported)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"{path} cannot be checked: {exc.strerror or exc}"
    if stat.S_ISLNK(info.st_mode):
        return (f"{path} is a symbolic link; quiz export does not write through links: give "
                "the file's real path, or another name")
    kind = kind_of(info.st_mode)
    if kind is not None:
        return f"{path} is {kind}, not a file; give a file name"
    if not info.st_mode & 0o222:
        return f"{path} is read-only; quiz export does not replace it (make it writable first)"
    for source in inputs:
        try:
            other = os.stat(source)
        except OSError:
            continue
        if (other.st_dev, other.st_ino) == (info.st_dev, info.st_ino):
            return f"{path} is the bank {source} being exported; write the export elsewhere"
    return None
