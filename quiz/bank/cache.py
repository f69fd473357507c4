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

An entry holds two sections, each with a check of its bytes (a keyed MAC: see below): a small
**index** of plain values (what a start screen needs: the bank's header, question ids, topics
and content hashes, the warnings) and the **payload** (the validated models).
:meth:`BankCache.get` reads and checks the index only, so a start shows the library without
reading or building 10,000 models, or even importing pydantic;
:meth:`~quiz.bank.cache_entry.Stored.decode` reads, checks and unpickles the payload when the
questions are first needed. A damaged entry (truncated, overwritten, from another version) is
never served: an index that fails to read is a cache miss, and the bank is loaded in full, as
if there were no cache; a payload that fails to read later raises, and its caller
(:func:`quiz.bank.load.load_library`'s stored banks) loads the file in full then. Failing to
write an entry (a read-only or full disk) is silent: the cache only ever saves time.

**No content of the cache can run code.** Entries are pickles, and unpickling can run code,
so every section is authenticated before it is unpickled: its check is a keyed BLAKE2b MAC
(an HMAC construction of its own, RFC 7693 §2.1) over the entry's key line and the section,
made with a 32-byte secret that only this user can read
(:data:`~quiz.bank.cache_entry.KEY_FILE` in the user data folder, mode 0600, made on first
use). Someone who can write the cache folder but not read that key cannot make an entry that
is unpickled. On top of that, an entry is read only when
it is a regular file (a named pipe, a device or a link is skipped before anything is read:
a FIFO would block, ``/dev/zero`` would never end), owned by this user and writable by no one
else, in a folder owned by this user and writable by no one else; the cache folder is
created 0700. What is refused is said in :attr:`BankCache.notes` (the loader passes them on
as :attr:`~quiz.bank.library.LoadReport.notes`), and the bank is loaded in full.

The entry file itself (its sections, their keyed checks, the key, the rule for opening one) is
:mod:`quiz.bank.cache_entry`, which the prebuilt entries and the kept CSS share; this module is
what makes a bank file's entry: its key line, when it serves, and where it lives.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import IO, Any, Protocol

from quiz import __version__
from quiz.bank.cache_entry import (
    KEY_FILE,
    CacheRefused,
    Stored,
    open_entry,
    read_index,
    read_key,
    unsafe_entry,
    unsafe_owner,
    write_entry,
    write_sections,
)
from quiz.digest import blake2b
from quiz.paths import make_private_dirs

FORMAT = 5
"""Version of the entry layout; a change makes every older entry a miss."""

_MAGIC = b"quiz-bank-cache 5\n"
"""An entry's first line; its second is its key (JSON); then two sections, the index and the
payload, each a check, a length and that many bytes."""

def content_hash(data: bytes) -> str:
    """A bank file's content hash (a cache key: it tells a changed file from an unchanged one):
    the SHA-1 hex digest of the SHA-1 digests of the first and the second half of ``data``
    (split at ``len(data) // 2``). SHA-1 because it is the fastest of hashlib's on this kind of
    machine, twice BLAKE2b's speed; two halves so that two threads hash a large file at once
    (hashlib lets go of the GIL; see :func:`hash_file`). Not a security boundary: entries are
    authenticated by their keyed checks (see the module docstring)."""
    view = memoryview(data)
    half = len(view) // 2
    return _combine(_sha1(view[:half]), _sha1(view[half:]))


def hashing(data: bytes) -> Callable[[], str]:
    """Start :func:`content_hash` of ``data`` and return a function that waits for it and
    returns it. Data of :data:`_PARALLEL_BYTES` or more is hashed by another thread meanwhile
    (hashlib lets go of the GIL: a bank file is hashed while the loader parses it, 40 ms of a
    40 MB file off the loading thread); less is hashed when asked."""
    if len(data) < _PARALLEL_BYTES:
        return lambda: content_hash(data)
    digest: list[str] = []
    thread = threading.Thread(target=lambda: digest.append(content_hash(data)),
                              name="quiz-hash", daemon=True)
    thread.start()

    def result() -> str:
        thread.join()
        return digest[0] if digest else content_hash(data)

    return result


def _sha1(data: bytes | memoryview) -> bytes:
    import hashlib  # OpenSSL's SHA-1: not before the first frame (see quiz.digest)

    return hashlib.sha1(data, usedforsecurity=False).digest()


def _combine(first: bytes, second: bytes) -> str:
    import hashlib

    return hashlib.sha1(first + second, usedforsecurity=False).hexdigest()


_PARALLEL_BYTES = 1 << 20
"""Files of at least this many bytes are read and hashed by two threads at once."""


def hash_file(file: IO[bytes], size: int) -> str:
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
    modification time of ``quiz/yamlio.py`` (the parser the loader reads events from) and of
    each module of ``quiz.bank`` and ``quiz.footprint`` (a changed rule in a source checkout
    invalidates the cache too), the Python version, and pydantic's and PyYAML's versions.

    pydantic is not imported (a start served from the cache never needs it): the name, size
    and modification time of each file in its, pydantic-core's and PyYAML's top folders stand
    for their versions (an upgrade rewrites them; pydantic-core's compiled module and PyYAML's
    libyaml binding are among them)."""
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    parts: list[Any] = [FORMAT, __version__, sys.version, *_package_stamps("pydantic"),
                        *_package_stamps("pydantic_core"), *_package_stamps("yaml")]
    info = os.stat(os.path.join(root, "yamlio.py"))  # the loader's YAML parser
    parts.append(("yamlio.py", info.st_size, info.st_mtime_ns))
    for package in ("bank", "footprint"):
        _source_stamps(os.path.join(root, package), package, parts)
    return blake2b(repr(parts).encode(), digest_size=16).hexdigest()


_SOURCE_SUFFIXES = (".py", ".yaml", ".json")


def source_files(folder: str, name: str) -> list[tuple[str, str]]:
    """The source files (:data:`_SOURCE_SUFFIXES`) in ``folder`` and its sub-folders, as
    ``(name/... relative name, path)`` sorted by name; ``__pycache__`` and links to folders
    are skipped. ``os.scandir`` rather than ``Path.rglob``: a start walks them (a tenth of the
    time: no Path per entry, no walk through the bytecode folders). The one walk of the
    loader's code, for this cache's :func:`code_fingerprint` and the prebuilt entries'
    :func:`quiz.bank.shipped.fingerprint`."""
    found = []
    stack = [(folder, name)]
    while stack:
        path, label = stack.pop()
        with os.scandir(path) as entries:
            for entry in entries:
                child = f"{label}/{entry.name}"
                if entry.is_dir(follow_symlinks=False):
                    if entry.name != "__pycache__":
                        stack.append((entry.path, child))
                elif entry.name.endswith(_SOURCE_SUFFIXES) and entry.is_file():
                    found.append((child, entry.path))
    return sorted(found)


def _source_stamps(folder: str, name: str, stamps: list[Any]) -> None:
    """Append the name (``name``/...), size and modification time (ns) of each source file in
    ``folder`` (:func:`source_files`) to ``stamps``."""
    for child, path in source_files(folder, name):
        info = os.stat(path)
        stamps.append((child, info.st_size, info.st_mtime_ns))


def package_folders(name: str) -> list[str]:
    """The folders of the installed top-level package ``name``, found without importing it
    (empty when it is not installed): on ``sys.path``, as the path finder finds it
    (``importlib.machinery.PathFinder``, which every start has loaded); else through the other
    finders (an editable install's, say) with ``importlib.util.find_spec``, whose import is
    0.3 ms more before the first frame where the path finder finds it."""
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec(name)
    if spec is None:
        import importlib.util

        spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return []
    return list(spec.submodule_search_locations)


def _package_stamps(name: str) -> list[tuple[str, int, int]]:
    """Name, size and modification time (ns) of each file of an installed package's top
    folder, found without importing it (empty when it is not installed)."""
    stamps = []
    for folder in package_folders(name):
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            if entry.is_file():
                info = entry.stat()
                stamps.append((entry.name, info.st_size, info.st_mtime_ns))
    return stamps


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


class Prebuilt(Protocol):
    """Entries made when quiz was built, looked up by a bank file's bytes
    (:class:`quiz.bank.shipped.ShippedEntries`)."""

    def lookup(self, info: os.stat_result, bank: IO[bytes], digest: str | None,
               note: Callable[[str], None]) -> tuple[Stored | None, str | None]:
        """The entry for the file open as ``bank`` (``info`` its ``stat``; ``digest`` its
        :func:`content_hash` when known), or ``None``; with the content hash when it is known.
        Refusals are said through ``note``."""
        ...  # pragma: no cover - a protocol

    def made_from(self, data: bytes, stored: Stored) -> bool:
        """Whether ``stored`` (an entry :meth:`lookup` served) was made from a file of these
        bytes."""
        ...  # pragma: no cover - a protocol


class BankCache:
    """Entries in one folder (created 0700 when the first entry is written), authenticated with
    the key in ``key_file`` (default: :data:`KEY_FILE` in the user data folder); with
    ``prebuilt``, the entries made when quiz was built are looked up after this cache's own
    (:meth:`get`; nothing is ever written there).

    Attributes:
        notes: what was refused and why (an unsafe folder, entry or key), one sentence each,
            for the user.
        served_by_prebuilt: each file :meth:`get` served from the prebuilt entries (its
            resolved path, its ``stat`` and the entry), for :meth:`adopt`.
    """

    def __init__(self, folder: Path, key_file: Path | None = None, *,
                 prebuilt: Prebuilt | None = None) -> None:
        self.folder = folder
        self.notes: list[str] = []
        self.served_by_prebuilt: list[tuple[Path, os.stat_result, Stored]] = []
        self._key_file = key_file
        self._prebuilt = prebuilt
        self._folder_ok = False
        """True once the folder passed its checks (:meth:`_usable_folder`)."""
        self._secret: bytes | None = None
        self._off = False
        """True once the cache is refused for this run (said in :attr:`notes`)."""

    def _note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def _unusable(self, what: str, exc: OSError) -> None:
        """Turn the cache off for this run, saying why (once): its folder ``what`` (``"cannot
        be created"``, ``"cannot be read"``) for the reason ``exc`` gives."""
        self._off = True
        self._note(f"validated-bank cache {self.folder}: it {what} ({exc.strerror or exc}); "
                   "no entry is used or written (banks load in full at every start). Set "
                   "QUIZ_CACHE_DIR to a folder you can write")

    def _entry(self, path: Path) -> Path:
        name = blake2b(str(path).encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        return self.folder / f"{name}.bank"

    def _usable_key(self, *, create: bool, make_key: bool = True) -> bytes | None:
        """The key, once the folder passed its checks; ``None`` (the cache is off) when the
        folder is missing (``create``: made 0700) or unsafe, or the key cannot be had; ``None``
        too (the cache not off) when the key file is missing and not ``make_key``."""
        if self._secret is not None or not self._usable_folder(create=create):
            return self._secret
        try:
            key_file = self._key_file
            if key_file is None:
                from quiz.paths import data_dir

                key_file = data_dir() / KEY_FILE
            if not make_key and not os.path.lexists(key_file):
                return None
            self._secret = read_key(key_file)
        except CacheRefused as exc:
            self._off = True
            self._note(str(exc))
        except OSError:  # a read-only data folder: no key, no cache, nothing to say
            self._off = True
        return self._secret

    def _usable_folder(self, *, create: bool) -> bool:
        """True once the folder passed its checks (made 0700 when missing, with ``create``);
        False, the cache off with a note, when it is unsafe or cannot be made or read; False
        too when it is missing (without ``create``)."""
        if self._off:
            return False
        if self._folder_ok:
            return True
        try:
            info = os.stat(self.folder)
        except (FileNotFoundError, NotADirectoryError):  # missing, or under a file
            if not create:
                return False
            try:
                make_private_dirs(self.folder)
                info = os.stat(self.folder)
            except OSError as exc:
                self._unusable("cannot be created", exc)
                return False
        except OSError as exc:
            self._unusable("cannot be read", exc)
            return False
        is_folder = stat.S_ISDIR(info.st_mode)
        problem = "it is not a folder" if not is_folder else unsafe_owner(info, "folder")
        if problem is not None:
            self._off = True
            fix = (f"Use a folder only you can write: chmod 700 {self.folder}, or set "
                   "QUIZ_CACHE_DIR" if is_folder else  # chmod cannot make a file a folder
                   "Set QUIZ_CACHE_DIR to a folder only you can write")
            self._note(f"validated-bank cache {self.folder}: {problem}; its entries are not "
                       f"used and none is written (banks load in full). {fix}")
            return False
        self._folder_ok = True
        return True

    @staticmethod
    def _key(path: Path, info: os.stat_result, digest: str | None,
             verify: bool | None = None) -> dict[str, Any]:
        return {"path": str(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns,
                "ctime_ns": info.st_ctime_ns, "inode": info.st_ino, "content": digest,
                "verify": verify, "code": code_fingerprint()}

    def get(self, path: Path, info: os.stat_result,
            bank: IO[bytes]) -> tuple[Stored | None, str | None]:
        """The entry stored for this exact file in this cache (see :meth:`_get_own`), else,
        when the cache was made with ``prebuilt``, the prebuilt entry for a file of the same
        bytes (:mod:`quiz.bank.shipped`: the bundled banks, validated when quiz was built),
        else ``None``; with the file's :func:`content_hash` when it was computed."""
        stored, digest = self._get_own(path, info, bank)
        if stored is None and self._prebuilt is not None:
            stored, digest = self._prebuilt.lookup(info, bank, digest, self._note)
            if stored is not None:
                self.served_by_prebuilt.append((path, info, stored))
        return stored, digest

    def adopt(self, stat_ns: int) -> None:
        """Store in this cache, for each file :meth:`get` served from the prebuilt entries
        (:attr:`served_by_prebuilt`, then emptied), the entry that served it: its index and
        payload bytes (the payload read and checked again) under this cache's key, with the
        key line of the file's ``stat`` (taken at ``stat_ns``, ``time.time_ns()`` just before
        it, as :meth:`put`'s) and content hash. A later start of the bundled banks is then
        served by this cache as any bank's, where the ``stat`` vouches for the file: the file
        is not hashed, and the code is fingerprinted by its files' stamps
        (:func:`code_fingerprint`, 0.8 ms) rather than their content
        (:func:`quiz.bank.shipped.fingerprint`, 5 ms). Run it once the start is drawn.

        A file whose ``stat`` or bytes are no longer those the prebuilt entry was served for
        is passed over (its next start looks it up again). An entry of this cache that was
        refused for that file (a link, one others can write) is replaced. Failures are ignored
        (the cache only saves time)."""
        served, self.served_by_prebuilt = self.served_by_prebuilt, []
        for path, info, stored in served:
            try:
                self._adopt(path, info, stored, stat_ns)
            except Exception:  # the cache only saves time: never fail a start for it
                continue

    def _adopt(self, path: Path, info: os.stat_result, stored: Stored, stat_ns: int) -> None:
        if self._prebuilt is None:
            return
        key = self._usable_key(create=True)
        if key is None:
            return
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
        with open(fd, "rb") as file:
            now = os.fstat(file.fileno())
            if (now.st_size, now.st_mtime_ns, now.st_ctime_ns, now.st_ino) != (
                    info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino):
                return
            data = file.read(info.st_size + 1)
        if len(data) != info.st_size or not self._prebuilt.made_from(data, stored):
            return
        verify = not stat_vouches(info, stat_ns)
        key_line = json.dumps(self._key(path, info, content_hash(data), verify)).encode()
        write_sections(self._entry(path), _MAGIC, key_line, key, stored.index_bytes,
                       stored.payload_bytes())

    def _get_own(self, path: Path, info: os.stat_result,
                 bank: IO[bytes]) -> tuple[Stored | None, str | None]:
        """The entry stored for this exact file (``path`` resolved, ``info`` its ``stat``,
        ``bank`` the file open for reading, at its start), or ``None`` when there is none, it
        was made from anything else, its index cannot be read whole and authenticated, or the
        entry or its folder is not safe to read (see the module docstring; said in
        :attr:`notes`); with the file's :func:`content_hash` when it was computed (``None``
        when the rest of the key already differed, or the stat vouches for the content: see
        :func:`stat_vouches`). ``bank`` is left anywhere: seek before reading it again. The
        payload is read and checked only by :meth:`Stored.decode`. A missing folder is made
        here (0700), as :meth:`put` would: one that cannot be made turns the cache off with a
        note at the first file, not silently at the first write. A missing key is not made
        here (no entry could be authenticated without it): :meth:`put` and :meth:`adopt` make
        it, after the first frame, so a start served by prebuilt entries makes none before
        that frame."""
        digest: str | None = None
        key = self._usable_key(create=True, make_key=False)
        if key is None:
            return None, None
        entry = self._entry(path)
        try:
            file = open_entry(entry)
        except FileNotFoundError:
            return None, None
        except OSError:
            if os.path.islink(entry):
                self._note(f"validated-bank cache entry {entry}: a link, skipped unread; not "
                           "used (the bank is loaded without it; a new entry replaces it)")
            return None, None
        try:
            with file:
                problem = unsafe_entry(os.fstat(file.fileno()))
                if problem is not None:
                    self._note(f"validated-bank cache entry {entry}: {problem}; not used (the "
                               "bank is loaded without it; a new entry replaces it)")
                    return None, None
                if file.readline(len(_MAGIC)) != _MAGIC:
                    return None, None
                line = file.readline(1 << 16)
                stored = json.loads(line)
                # Everything but the content first: the file is hashed only when that matches,
                # and the stat did not vouch for it when the entry was made.
                expected = self._key(path, info, None)
                if not isinstance(stored, dict) or set(stored) != set(expected) or any(
                        stored[k] != v for k, v in expected.items()
                        if k not in ("content", "verify")):
                    return None, None
                if stored["verify"] is not False:
                    digest = hash_file(bank, info.st_size)
                    if stored["content"] != digest:
                        return None, digest
                # Authenticated before it is unpickled: written by this user's quiz.
                return read_index(file, entry, _MAGIC + line, key), digest
        except Exception:  # a missing, unreadable or damaged entry is a miss, never an error
            return None, digest

    def put(self, path: Path, info: os.stat_result, digest: str, index: Any,
            payload: Any, *, stat_ns: int | None = None) -> None:
        """Store ``index`` (plain values, unpickled by every :meth:`get`) and ``payload``
        (unpickled only by :meth:`Stored.decode`) for this exact file, whose content hash is
        ``digest`` and whose ``stat`` is ``info``, taken at ``stat_ns`` (``time.time_ns()``
        just before it; ``None``: unknown, and the file is hashed at every :meth:`get`). The
        entry is written whole to a temporary file (mode 0600), then renamed over the old one,
        so a reader never sees half an entry; nothing is written into an unsafe folder.
        Failures are ignored."""
        try:
            key = self._usable_key(create=True)
            if key is None:
                return
            verify = stat_ns is None or not stat_vouches(info, stat_ns)
            key_line = json.dumps(self._key(path, info, digest, verify)).encode()
            write_entry(self._entry(path), _MAGIC, key_line, key, index, payload)
        except Exception:  # the cache only saves time: never fail a load for it
            return
