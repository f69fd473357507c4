"""Cache entry files, and the key that authenticates them: the file format shared by the
validated-bank cache (:mod:`quiz.bank.cache`), the bundled banks' prebuilt entries
(:mod:`quiz.bank.shipped`) and the kept and shipped CSS of the start screen
(:mod:`quiz.tui.css_cache`, :mod:`quiz.tui.css_prebuilt`).

An entry is a first line naming its format (its magic), a key line (what it was made from,
compared by its reader), then two sections, the **index** and the **payload**, each a check,
a length (8 bytes, big-endian) and that many bytes of a pickle. A section's check is a BLAKE2b
MAC (RFC 7693 §2.1) keyed with a secret, over the key line, the section's name and its bytes,
so that a section is unpickled only once authenticated (:func:`read_index`,
:meth:`Stored.decode`): for a user's entries the secret is the user's cache key
(:func:`read_key`, :data:`KEY_FILE` in the user data folder, mode 0600), which no one else
can read. An entry file is read only when it is a regular file, never through a link, and
not writable by anyone else (:func:`open_entry`, :func:`unsafe_entry`, :func:`unsafe_owner`).
Entries are written whole to a temporary file, then renamed (:func:`write_entry`), so a
reader never sees half an entry.
"""

from __future__ import annotations

import gc
import os
import pickle
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from quiz.digest import blake2b, compare_digest
from quiz.paths import make_private_dirs

_CHECK = 32
"""Bytes of a section's check: a BLAKE2b MAC keyed with the user's cache key (see the module
docstring), of the entry's key line, the section's name and its bytes."""

KEY_FILE = "cache.key"
"""The cache key's file name in the user data folder (:func:`quiz.paths.data_dir`)."""

_KEY_BYTES = 32

_LENGTH = 8
"""Bytes of a section's length (big-endian), after its check."""

_SECTION = _CHECK + _LENGTH


class Stored:
    """An entry served by :meth:`BankCache.get`: its ``index``, checked and unpickled, and
    where its payload lies (not read yet: see :meth:`decode`)."""

    __slots__ = ("index", "index_bytes", "_entry", "_offset", "_section", "_mac", "_unsafe")

    def __init__(self, index: Any, entry: Path, offset: int, section: bytes,
                 mac: Any, unsafe: Callable[[os.stat_result], str | None] | None = None,
                 index_bytes: bytes = b"") -> None:
        self.index = index
        self.index_bytes = index_bytes
        """The index section's bytes as read and authenticated (pickled ``index``)."""
        self._entry = entry
        self._offset = offset
        self._section = section
        """The payload section's head (check and length) as :meth:`BankCache.get` read it."""
        self._mac = mac
        """The keyed hash the payload is checked with, fed with the key line already."""
        self._unsafe = unsafe or unsafe_entry
        """Why the open entry (its ``fstat``) must not be read, or ``None``: by default
        :func:`unsafe_entry` (a user cache entry); the prebuilt entries of
        :mod:`quiz.bank.shipped` have their own rule."""

    def decode(self) -> Any:
        """Read the payload from the entry, check it, and unpickle it (the garbage collector
        paused meanwhile: unpickling builds many objects, none of them garbage). A user cache
        entry whose payload fails its check is removed (when the file at its path is still the
        one read, as checked just before), so that the next start loads the bank in full and
        stores it again rather than find the same damage at every start; a prebuilt entry is
        never touched.

        Raises:
            OSError: the entry cannot be read any more.
            ValueError: the payload is not the one the index was stored with, or fails its
                check (the entry was replaced or damaged since :meth:`BankCache.get`), or the
                entry is no longer one that may be read (a regular file of this user's that only
                they can write; for a prebuilt entry, see :mod:`quiz.bank.shipped`).
            Exception: whatever unpickling raises (only ever of a payload this user's key
                authenticated).
        """
        data = self.payload_bytes()
        enabled = gc.isenabled()
        gc.disable()
        try:
            return pickle.loads(data)
        finally:
            if enabled:
                gc.enable()

    @property
    def entry(self) -> Path:
        """The entry file this was read from."""
        return self._entry

    def payload_bytes(self) -> bytes:
        """The payload section's bytes (pickled), read from the entry and checked, as
        :meth:`decode` reads them before unpickling; raises what it raises for that."""
        with open_entry(self._entry) as file:
            info = os.fstat(file.fileno())
            problem = self._unsafe(info)
            if problem is not None:
                raise ValueError(f"{self._entry}: {problem}")
            file.seek(self._offset)
            if file.read(_SECTION) != self._section:
                raise ValueError(f"{self._entry}: this cache entry was replaced")
            try:
                return _read_section(file, self._section, self._mac.copy(), b"payload")
            except ValueError:
                self._remove_damaged(info)
                raise

    def _remove_damaged(self, info: os.stat_result) -> None:
        """Remove the entry read (``info``, its ``fstat``) when it is a user cache entry and
        the file at its path is still that one (another quiz may have replaced it since). The
        check and the removal are two steps: another quiz replacing the entry between them
        loses its new entry, which costs the next start one full load, nothing else."""
        if self._unsafe is not unsafe_entry:
            return
        try:
            now = os.lstat(self._entry)
            if (now.st_ino, now.st_dev) == (info.st_ino, info.st_dev):
                os.unlink(self._entry)
        except OSError:
            pass


def _read_section(file: IO[bytes], head: bytes, mac: Any, name: bytes) -> bytes:
    """The bytes of the section ``name`` whose head (check, then length) is ``head``, read
    from ``file`` and authenticated with ``mac`` (a keyed hash fed with the entry's key line:
    see :func:`_check`). Raises ValueError when they are cut short, longer than the file, or
    fail the check."""
    if len(head) != _SECTION:
        raise ValueError("a cache entry ends early")
    length = int.from_bytes(head[_CHECK:], "big")
    if length > os.fstat(file.fileno()).st_size:  # a forged length must not allocate 2**60 bytes
        raise ValueError("a cache entry's section is longer than the entry")
    data = file.read(length)
    if len(data) != length or not compare_digest(_check(mac, name, data), head[:_CHECK]):
        raise ValueError("a cache entry's section fails its check")
    return data


def _check(mac: Any, name: bytes, data: bytes) -> bytes:
    """The check of section ``name`` holding ``data``: ``mac`` (keyed, fed with the entry's
    key line; updated here) fed with the name and the data."""
    mac.update(name + b"\0" + len(data).to_bytes(_LENGTH, "big"))
    mac.update(data)
    return bytes(mac.digest())


def _section(mac: Any, name: bytes, data: bytes) -> bytes:
    """The head of a section holding ``data``: its check, then its length."""
    return _check(mac, name, data) + len(data).to_bytes(_LENGTH, "big")


def write_entry(target: Path, magic: bytes, key_line: bytes, key: bytes, index: Any,
                payload: Any, mode: int | None = None) -> None:
    """Write an entry to ``target`` whole: ``magic`` (its first line), ``key_line`` (JSON,
    without its line break), then the sections ``index`` and ``payload``, pickled, each
    checked with the BLAKE2b MAC keyed with ``key``. It is written to a temporary file in the
    same folder (mode 0600, or ``mode``), then renamed over ``target``, so a reader never sees
    half an entry.

    Raises:
        OSError: the entry cannot be written (nothing is left behind).
        pickle.PicklingError: a section cannot be pickled."""
    write_sections(target, magic, key_line, key,
                   pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL),
                   pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL), mode)


def write_sections(target: Path, magic: bytes, key_line: bytes, key: bytes, head: bytes,
                   body: bytes, mode: int | None = None) -> None:
    """:func:`write_entry` with its index and payload pickled already (``head``, ``body``).

    Raises:
        OSError: the entry cannot be written (nothing is left behind)."""
    header = magic + key_line + b"\n"
    mac = _keyed(key, header)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".entry-")
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(header)
            file.write(_section(mac.copy(), b"index", head))
            file.write(head)
            file.write(_section(mac.copy(), b"payload", body))
            file.write(body)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        os.unlink(tmp)
        raise


def read_index(file: IO[bytes], entry: Path, header: bytes, key: bytes,
               unsafe: Callable[[os.stat_result], str | None] | None = None) -> Stored:
    """The entry ``entry``, open as ``file`` and read past ``header`` (its magic and key
    lines, as read):
    its index section authenticated with ``key`` and unpickled (the garbage collector paused
    meanwhile), and where its payload lies (see :class:`Stored`; ``unsafe`` is its check of
    the entry when the payload is read).

    Raises:
        ValueError: a section is cut short or fails its check.
        Exception: whatever unpickling the (authenticated) index raises."""
    mac = _keyed(key, header)
    data = _read_section(file, file.read(_SECTION), mac.copy(), b"index")
    offset = file.tell()
    payload = file.read(_SECTION)
    if len(payload) != _SECTION:
        raise ValueError("a cache entry ends early")
    enabled = gc.isenabled()
    gc.disable()
    try:
        index = pickle.loads(data)
    finally:
        if enabled:
            gc.enable()
    return Stored(index, entry, offset, payload, mac, unsafe, data)


def _keyed(key: bytes, header: bytes) -> Any:
    """A BLAKE2b MAC keyed with ``key`` and fed with an entry's key line ``header``."""
    mac = blake2b(key=key, digest_size=_CHECK)
    mac.update(header)
    return mac


def open_entry(path: Path) -> IO[bytes]:
    """``path`` open for reading, never following a link and never blocking (a named pipe
    opens at once; :func:`unsafe_entry` then refuses it before anything is read)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    return open(fd, "rb")


def unsafe_entry(info: os.stat_result) -> str | None:
    """Why an open entry (its ``fstat``) must not be read, or ``None`` when it may: it must
    be a regular file, this user's, that no one else can write."""
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file: skipped unread"
    return unsafe_owner(info, "entry")


def unsafe_owner(info: os.stat_result, what: str) -> str | None:
    """Why a cache file or folder (its ``stat``) is not to be trusted: owned by another user,
    or writable by the group or by everyone (``None`` when neither)."""
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        return f"this {what} belongs to another user (uid {info.st_uid})"
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return (f"this {what} can be written by other users (mode "
                f"{stat.S_IMODE(info.st_mode):04o})")
    return None


class CacheRefused(Exception):
    """The cache must not be used this time (the message says why and what to do)."""


def read_key(path: Path) -> bytes:
    """The user's cache key, from ``path`` (made there, 32 random bytes, mode 0600, when
    missing; its folder made 0700).

    Raises:
        CacheRefused: the key file is a link or not a regular file, belongs to another user, or
            can be read or written by others (it may be known to them), or has the wrong size.
        OSError: it cannot be made or read (a read-only data folder).
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        _make_key(path)
        fd = os.open(path, flags)
    except OSError as exc:
        if os.path.islink(path):
            raise CacheRefused(f"the cache key {path} is a link: not used; remove it (a new "
                               "one is made)") from exc
        raise
    with open(fd, "rb") as file:
        info = os.fstat(file.fileno())
        problem = ("it is not a regular file" if not stat.S_ISREG(info.st_mode)
                   else unsafe_owner(info, "key file"))
        if problem is None and stat.S_IMODE(info.st_mode) & 0o077:
            problem = (f"other users can read it (mode {stat.S_IMODE(info.st_mode):04o})")
        if problem is not None:
            raise CacheRefused(f"the cache key {path}: {problem}; the validated-bank cache is "
                               f"off. Remove the file (a new key is made), or chmod 600 it")
        key = file.read(_KEY_BYTES + 1)
    if len(key) != _KEY_BYTES:
        raise CacheRefused(f"the cache key {path} has {len(key)} bytes, not {_KEY_BYTES}; the "
                           "validated-bank cache is off. Remove the file (a new key is made)")
    return key


def _make_key(path: Path) -> None:
    """Write a new key to ``path`` whole, or leave the one another process made first (a key
    is written to a temporary file, then linked to its name: never seen half written)."""
    import secrets  # only here: it imports random (2 ms), and a key is made once

    make_private_dirs(path.parent)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cache-key-")  # mode 0600
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(secrets.token_bytes(_KEY_BYTES))
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)
