"""The validated-bank cache: a bank file that loaded without errors is kept, validated, in the
user cache folder (:func:`quiz.paths.cache_dir`), so the next start skips parsing and validation.

An entry is one file per bank path. It is served only when everything it was made from is
unchanged: the file's resolved path, size, inode, modification and change times (nanoseconds)
and content hash (:func:`content_hash`, SHA-1 based), and the loader itself (quiz's version,
the size and modification time of every module of ``quiz.bank`` and ``quiz.footprint``, the
pydantic and Python versions). The content hash is computed, and compared, only when the rest
of the key matches and the file's stat cannot vouch for its content (it had changed within
seconds of when its entry was made: :func:`stat_vouches`, git's "racily clean" rule); any
write to a file sets its change time, which nothing sets back.

An entry holds two sections, each with a CRC-32 of its bytes: a small **index** of plain
values (what a start screen needs: the bank's header, question ids, topics and content hashes,
the warnings) and the **payload** (the validated models). :meth:`BankCache.get` reads and checks
the index only, so a start shows the library without reading or building 10,000 models, or
even importing pydantic; :meth:`Stored.decode` reads, checks and unpickles the payload when the
questions are first needed. A damaged entry (truncated, overwritten, from another version) is
never served: an index that fails to read is a cache miss, and the bank is loaded in full, as
if there were no cache; a payload that fails to read later raises, and its caller
(:func:`quiz.bank.load.load_library`'s stored banks) loads the file in full then. Failing to
write an entry (a read-only or full disk) is silent: the cache only ever saves time.

Entries are pickles written by this user into this user's cache folder; the CRC guards
against damage, not against someone who can already write the user's files.
"""

from __future__ import annotations

import gc
import hashlib
import importlib.util
import json
import os
import pickle
import sys
import tempfile
import threading
import zlib
from functools import cache
from pathlib import Path
from typing import IO, Any

from quiz import __version__

FORMAT = 4
"""Version of the entry layout; a change makes every older entry a miss."""

_MAGIC = b"quiz-bank-cache\n"
"""An entry's first line; its second is its key (JSON); then two sections, the index and the
payload, each a check, a length and that many bytes."""

_CHECK = 4
"""Bytes of a section's check of its bytes (a CRC-32, big-endian: it finds every burst of up
to 32 changed bits, and all but one in 2**32 of the rest)."""

_LENGTH = 8
"""Bytes of a section's length (big-endian), after its check."""

_SECTION = _CHECK + _LENGTH


def content_hash(data: bytes) -> str:
    """A bank file's content hash (a cache key: it tells a changed file from an unchanged one):
    the SHA-1 hex digest of the SHA-1 digests of the first and the second half of ``data``
    (split at ``len(data) // 2``). SHA-1 because it is the fastest of hashlib's on this kind of
    machine, twice BLAKE2b's speed; two halves so that two threads hash a large file at once
    (hashlib lets go of the GIL; see :func:`_hash_file`). Nothing here is a security boundary
    (see the module docstring)."""
    view = memoryview(data)
    half = len(view) // 2
    return _combine(_sha1(view[:half]), _sha1(view[half:]))


def _sha1(data: bytes | memoryview) -> bytes:
    return hashlib.sha1(data, usedforsecurity=False).digest()


def _combine(first: bytes, second: bytes) -> str:
    return hashlib.sha1(first + second, usedforsecurity=False).hexdigest()


_PARALLEL_BYTES = 1 << 20
"""Files of at least this many bytes are read and hashed by two threads at once."""


def _hash_file(file: IO[bytes], size: int) -> str:
    """:func:`content_hash` of the file open as ``file`` when it has ``size`` bytes (the size
    its entry was stored for); another value (never a content hash) when its size differs.

    Each half is read and hashed whole, a large file's two halves by two threads at once:
    reading and hashing let go of the GIL, and in one piece they do not wait for it again and
    again while the app's thread paints (a 42 MB bank: 80 ms in 1 MiB chunks, 45 ms whole in
    one thread, about 25 ms in two)."""
    fd = file.fileno()
    half = size // 2
    digests: list[bytes] = [b"", b""]

    def second() -> None:
        rest = _pread(fd, size - half + 1, half)
        digests[1] = _sha1(rest) if len(rest) == size - half else b"size changed"

    if size >= _PARALLEL_BYTES:
        thread = threading.Thread(target=second, name="quiz-hash", daemon=True)
        thread.start()
        digests[0] = _sha1(_pread(fd, half, 0))
        thread.join()
    else:
        second()
        digests[0] = _sha1(_pread(fd, half, 0))
    return _combine(*digests)


def _pread(fd: int, count: int, offset: int) -> bytes:
    """Up to ``count`` bytes of the open file ``fd`` from ``offset`` (fewer only at its end)."""
    parts = []
    while count > 0:
        chunk = os.pread(fd, count, offset)
        if not chunk:
            break
        parts.append(chunk)
        count -= len(chunk)
        offset += len(chunk)
    return parts[0] if len(parts) == 1 else b"".join(parts)


@cache
def code_fingerprint() -> str:
    """A digest of everything that decides what loading a bank gives: quiz's version, the size and
    modification time of each module of ``quiz.bank`` and ``quiz.footprint`` (a changed rule in a
    source checkout invalidates the cache too), the Python version, and pydantic's version.

    pydantic is not imported (a start served from the cache never needs it): the name, size
    and modification time of each file in its and pydantic-core's top folders stand for its
    version (an upgrade rewrites them; pydantic-core's compiled module is among them)."""
    root = Path(__file__).resolve().parent.parent
    parts: list[Any] = [FORMAT, __version__, sys.version, *_package_stamps("pydantic"),
                        *_package_stamps("pydantic_core")]
    for package in ("bank", "footprint"):
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".yaml", ".json"):
                info = path.stat()
                parts.append((str(path.relative_to(root)), info.st_size, info.st_mtime_ns))
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


def _package_stamps(name: str) -> list[tuple[str, int, int]]:
    """Name, size and modification time (ns) of each file of an installed package's top
    folder, found without importing it (empty when it is not installed)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return []
    stamps = []
    for folder in spec.submodule_search_locations:
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.is_file():
                info = entry.stat()
                stamps.append((entry.name, info.st_size, info.st_mtime_ns))
    return stamps


class Stored:
    """An entry served by :meth:`BankCache.get`: its ``index``, checked and unpickled, and
    where its payload lies (not read yet: see :meth:`decode`)."""

    __slots__ = ("index", "_entry", "_offset", "_section")

    def __init__(self, index: Any, entry: Path, offset: int, section: bytes) -> None:
        self.index = index
        self._entry = entry
        self._offset = offset
        self._section = section
        """The payload section's head (check and length) as :meth:`BankCache.get` read it."""

    def decode(self) -> Any:
        """Read the payload from the entry, check it, and unpickle it (the garbage collector
        paused meanwhile: unpickling builds many objects, none of them garbage).

        Raises:
            OSError: the entry cannot be read any more.
            ValueError: the payload is not the one the index was stored with, or fails its
                check (the entry was replaced or damaged since :meth:`BankCache.get`).
            Exception: whatever unpickling raises.
        """
        with open(self._entry, "rb") as file:
            file.seek(self._offset)
            if file.read(_SECTION) != self._section:
                raise ValueError(f"{self._entry}: this cache entry was replaced")
            data = _read_section(file, self._section)
        enabled = gc.isenabled()
        gc.disable()
        try:
            return pickle.loads(data)
        finally:
            if enabled:
                gc.enable()


def _read_section(file: IO[bytes], head: bytes) -> bytes:
    """The bytes of the section whose head (check, then length) is ``head``, read from
    ``file`` and checked. Raises ValueError when they are cut short or fail the check."""
    length = int.from_bytes(head[_CHECK:], "big")
    data = file.read(length)
    if len(data) != length or zlib.crc32(data).to_bytes(_CHECK, "big") != head[:_CHECK]:
        raise ValueError("a cache entry's section fails its check")
    return data


def _section(data: bytes) -> bytes:
    """The head of a section holding ``data``: its check, then its length."""
    return zlib.crc32(data).to_bytes(_CHECK, "big") + len(data).to_bytes(_LENGTH, "big")


STAT_SETTLED_NS = 3 * 10**9
"""How long before its entry is made a file's last change must be for its stat to vouch for
its content (see :func:`stat_vouches`): more than the coarsest time stamps (FAT's 2 s)."""


def stat_vouches(info: os.stat_result, stat_ns: int) -> bool:
    """True when a later ``stat`` of a file equal to ``info`` (size, modification and change
    times in ns, inode), which was taken at ``stat_ns`` (``time.time_ns()`` just before it),
    proves the file's content unchanged, so that :meth:`BankCache.get` need not hash it
    (git's rule for a "racily clean" index entry).

    Any write to a file sets its change time (``st_ctime``) to the clock's time, and nothing
    sets it back (``touch``, ``os.utime``, ``cp -p`` and ``rsync -t`` set the modification time
    only). A changed file therefore shows another change time, unless the change fell in the
    same tick of the file system's time stamps as the one ``info`` records, which can only
    happen when that one was recent at ``stat_ns``: a file changed within
    :data:`STAT_SETTLED_NS` of it is hashed at every start. So is a file whose change time is
    older than its modification time (a file system whose ``st_ctime`` is a creation time, or
    a modification time set in the future)."""
    return (info.st_mtime_ns <= info.st_ctime_ns
            and info.st_ctime_ns < stat_ns - STAT_SETTLED_NS)


class BankCache:
    """Entries in one folder (created when the first entry is written)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _entry(self, path: Path) -> Path:
        name = hashlib.blake2b(str(path).encode("utf-8", "surrogatepass"),
                               digest_size=16).hexdigest()
        return self.folder / f"{name}.bank"

    @staticmethod
    def _key(path: Path, info: os.stat_result, digest: str | None,
             verify: bool | None = None) -> dict[str, Any]:
        return {"path": str(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns,
                "ctime_ns": info.st_ctime_ns, "inode": info.st_ino, "content": digest,
                "verify": verify, "code": code_fingerprint()}

    def get(self, path: Path, info: os.stat_result,
            bank: IO[bytes]) -> tuple[Stored | None, str | None]:
        """The entry stored for this exact file (``path`` resolved, ``info`` its ``stat``,
        ``bank`` the file open for reading, at its start), or ``None`` when there is none, it
        was made from anything else, or its index cannot be read whole and intact; with the
        file's :func:`content_hash` when it was computed (``None`` when the rest of the key
        already differed, or the stat vouches for the content: see :func:`stat_vouches`).
        ``bank`` is left anywhere: seek before reading it again. The payload is read and
        checked only by :meth:`Stored.decode`."""
        digest: str | None = None
        try:
            entry = self._entry(path)
            with open(entry, "rb") as file:
                if file.readline() != _MAGIC:
                    return None, None
                stored = json.loads(file.readline())
                # Everything but the content first: the file is hashed only when that matches,
                # and the stat did not vouch for it when the entry was made.
                expected = self._key(path, info, None)
                if not isinstance(stored, dict) or set(stored) != set(expected) or any(
                        stored[k] != v for k, v in expected.items()
                        if k not in ("content", "verify")):
                    return None, None
                if stored["verify"] is not False:
                    digest = _hash_file(bank, info.st_size)
                    if stored["content"] != digest:
                        return None, digest
                data = _read_section(file, file.read(_SECTION))
                offset = file.tell()
                payload = file.read(_SECTION)
            if len(payload) != _SECTION:
                return None, digest
            enabled = gc.isenabled()
            gc.disable()
            try:
                index = pickle.loads(data)
            finally:
                if enabled:
                    gc.enable()
            return Stored(index, entry, offset, payload), digest
        except Exception:  # a missing, unreadable or damaged entry is a miss, never an error
            return None, digest

    def put(self, path: Path, info: os.stat_result, digest: str, index: Any,
            payload: Any, *, stat_ns: int | None = None) -> None:
        """Store ``index`` (plain values, unpickled by every :meth:`get`) and ``payload``
        (unpickled only by :meth:`Stored.decode`) for this exact file, whose content hash is
        ``digest`` and whose ``stat`` is ``info``, taken at ``stat_ns`` (``time.time_ns()``
        just before it; ``None``: unknown, and the file is hashed at every :meth:`get`). The
        entry is written whole to a temporary file, then renamed over the old one, so a
        reader never sees half an entry. Failures are ignored."""
        try:
            head = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
            body = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
            verify = stat_ns is None or not stat_vouches(info, stat_ns)
            header = (_MAGIC + json.dumps(self._key(path, info, digest, verify)).encode()
                      + b"\n")
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".entry-")
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(header)
                    file.write(_section(head))
                    file.write(head)
                    file.write(_section(body))
                    file.write(body)
                os.replace(tmp, self._entry(path))
            except BaseException:
                os.unlink(tmp)
                raise
        except Exception:  # the cache only saves time: never fail a load for it
            return
