"""The bundled banks' prebuilt entries: validated-bank cache entries made when quiz was built,
so that a user's very first start is served as a later one is (no parsing, no validation, not
even pydantic imported before the start screen is ready).

Building a wheel (the build hook ``hatch_build.py``) loads ``question_bank/`` with quiz's own
loader and writes one entry per bank file into the wheel, as ``quiz/_bundled_cache/``; in a
source checkout ``python -m quiz.bank.prebuild`` writes the same entries into the git-ignored
``build/bundled-cache`` (:func:`quiz.paths.prebuilt_dir` finds either). At run time the
study loader (:func:`quiz.bank.load.load_for_study`) looks a bank file up in the user's cache
first (:class:`~quiz.bank.cache.BankCache`), then here. Nothing is ever written here at run
time, and the user's own banks are served only by an entry made from the same bytes.

**What an entry is served for.** An entry is named by the size and :func:`file_digest` of
the bank file it was made from (``SIZE-DIGEST.bank``), and its key line holds them with
:func:`fingerprint`, a digest of the **content** of the code that
decides what loading gives (quiz's version, ``quiz/yamlio.py`` and every module of
``quiz.bank`` and ``quiz.footprint``, PyYAML's and pydantic's version files, the Python
version). A file whose size matches no entry is not even hashed. Any other bytes, or any
other code (an edited module, another pydantic), and the entry is ignored: the bank loads in
full, as it would without it, and is stored in the user's cache as usual.

**Why its pickles may be unpickled.** A prebuilt entry is part of the installed package,
trusted as the code beside it is, and no more: it is read only when it is a regular file
(never through a link) in a folder, neither of which anyone can write who cannot write
quiz's own code (:func:`wider_writers`: owner, group-write and other-write bits against
those of this module and its folder); refused otherwise, with a note. Each section carries a
BLAKE2b check (keyed with the public :data:`CHECK_KEY`: an integrity check, not a secret), so
a damaged or edited entry is never served, and the bank loads in full.
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import IO

from quiz import __version__
from quiz.bank.cache import FORMAT, package_folders, source_files
from quiz.bank.cache_entry import Stored, open_entry, read_index
from quiz.digest import blake2b

SHIPPED_FORMAT = 2
"""Version of the prebuilt entries' layout; a change makes every older entry a miss."""

MAGIC = b"quiz-prebuilt-bank 2\n"
"""A prebuilt entry's first line (a user cache entry's differs)."""

CHECK_KEY = b"quiz prebuilt bank entry"
"""The key of every section's BLAKE2b check: public, so the check finds damage and edits,
not forgeries (whoever could forge an entry could edit quiz's code as well)."""

SUFFIX = ".bank"


def file_digest(data: bytes) -> str:
    """What a prebuilt entry is named and keyed by, with the file's size: the BLAKE2b digest
    (20 bytes, RFC 7693) of a bank file's bytes, 40 hex digits.

    Not the user cache's SHA-1 :func:`~quiz.bank.cache.content_hash`: this BLAKE2b is CPython's
    own (:mod:`quiz.digest`), so a start served by these entries hashes without importing
    OpenSSL's bindings (1.1 ms before the first frame), and at the bundled banks' sizes it
    takes less in all (0.64 ms for the 11 files, 690 kB, where SHA-1 took 0.32 ms after that
    import)."""
    return blake2b(data, digest_size=20).hexdigest()


def _digest_of(file: IO[bytes], size: int) -> str | None:
    """:func:`file_digest` of the file open as ``file``, read from its start, when it has
    ``size`` bytes; ``None`` when it has more or fewer."""
    file.seek(0)
    data = file.read(size + 1)
    return file_digest(data) if len(data) == size else None


def entry_name(size: int, digest: str) -> str:
    """The file name of the entry for a bank file of ``size`` bytes and :func:`file_digest`
    ``digest``."""
    return f"{size}-{digest}{SUFFIX}"


def entry_key(size: int, digest: str) -> bytes:
    """The key line (JSON, no line break) of the entry for a bank file of ``size`` bytes and
    :func:`file_digest` ``digest``, made by the code running now."""
    import json  # a start served by the user cache never looks here: not before a paint

    return json.dumps({"size": size, "content": digest, "code": fingerprint()}).encode()


@cache
def fingerprint() -> str:
    """A digest of the content of everything that decides what loading a bank gives: the cache
    formats, quiz's version, ``quiz/__init__.py``, ``quiz/yamlio.py`` and every ``.py``,
    ``.yaml`` and ``.json`` file of ``quiz.bank`` and ``quiz.footprint`` (path and bytes),
    the bytes of PyYAML's ``yaml/__init__.py`` and of pydantic's ``version.py`` (their
    versions; pydantic pins pydantic-core's), and the Python implementation and version
    (``sys.implementation.cache_tag``, e.g. ``cpython-311``). Unlike the user cache's
    :func:`~quiz.bank.cache.code_fingerprint`, no time stamp: a wheel's files are written at
    install time. About 2.5 ms (109 files, 1.1 MB, read and hashed); nothing is imported."""

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = blake2b(digest_size=16)
    digest.update(repr((FORMAT, SHIPPED_FORMAT, __version__,
                        sys.implementation.cache_tag)).encode())
    files = [(name, os.path.join(root, name)) for name in ("__init__.py", "yamlio.py")]
    for package in ("bank", "footprint"):
        files += source_files(os.path.join(root, package), package)
    for name, path in files:
        with open(path, "rb") as file:
            data = file.read()
        digest.update(name.encode() + b"\0")
        digest.update(len(data).to_bytes(8, "big") + data)
    for package, name in (("yaml", "__init__.py"), ("pydantic", "version.py")):
        folders = package_folders(package)
        data = b""
        if folders:
            try:
                data = Path(list(folders)[0], name).read_bytes()
            except OSError:
                pass
        digest.update(package.encode() + b"\0" + len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def wider_writers(info: os.stat_result, code: os.stat_result) -> str | None:
    """Who can write a file or folder (its ``stat``, ``info``) that cannot write quiz's code
    (the ``stat`` of the corresponding code file or folder, ``code``), or ``None`` when no one:
    its owner is neither the code's nor root, or the group or everyone can write it but not
    the code."""
    if info.st_uid not in (code.st_uid, 0):
        return f"it belongs to user {info.st_uid}, quiz's code to user {code.st_uid}"
    if info.st_mode & stat.S_IWOTH and not code.st_mode & stat.S_IWOTH:
        return "everyone can write it, not quiz's code"
    if info.st_mode & stat.S_IWGRP and not code.st_mode & stat.S_IWOTH and not (
            code.st_mode & stat.S_IWGRP and code.st_gid == info.st_gid):
        return f"group {info.st_gid} can write it, not quiz's code"
    return None


class ShippedEntries:
    """The prebuilt entries in ``folder`` (see the module docstring), for
    :class:`~quiz.bank.cache.BankCache`'s ``prebuilt``. The folder is listed and checked once,
    at the first lookup."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._names: dict[int, set[str]] | None = None
        """Entry names by the size they stand for; empty when the folder cannot be used."""

    def _code_stat(self, folder: bool) -> os.stat_result:
        here = Path(__file__)
        return os.stat(here.parent if folder else here)

    def _unsafe(self, info: os.stat_result) -> str | None:
        """Why an open entry (its ``fstat``) must not be read, or ``None`` when it may."""
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        return wider_writers(info, self._code_stat(False))

    def _listing(self, note: Callable[[str], None]) -> dict[int, set[str]]:
        if self._names is not None:
            return self._names
        self._names = {}
        try:
            info = os.stat(self.folder)
            problem = ("it is not a folder" if not stat.S_ISDIR(info.st_mode)
                       else wider_writers(info, self._code_stat(True)))
            if problem is not None:
                note(f"prebuilt bank entries {self.folder}: {problem}; not used (the bundled "
                     "banks load in full). Reinstall quiz, or make the folder writable only "
                     "by whoever can write quiz's code")
                return self._names
            names = os.listdir(self.folder)
        except OSError:
            return self._names
        for name in names:
            size, dash, rest = name.partition("-")
            if dash and rest.endswith(SUFFIX) and size.isdigit():
                self._names.setdefault(int(size), set()).add(name)
        return self._names

    def made_from(self, data: bytes, stored: Stored) -> bool:
        """Whether ``stored``, an entry :meth:`lookup` served, was made from a file of these
        bytes (its name holds their size and :func:`file_digest`)."""
        return stored.entry.name == entry_name(len(data), file_digest(data))

    def lookup(self, info: os.stat_result, bank: IO[bytes], digest: str | None,
               note: Callable[[str], None]) -> tuple[Stored | None, str | None]:
        """The entry made from a file of the same bytes as the one open as ``bank`` (``info``
        its ``stat``) by the same code, or ``None``; with ``digest``, the file's content hash
        when the caller knows it (:func:`file_digest`, which finds the entry, is another).
        ``bank`` is left anywhere. A damaged entry is a miss; one that others may have written
        is refused, said through ``note``."""
        names = self._listing(note).get(info.st_size)
        if not names:
            return None, digest
        own = _digest_of(bank, info.st_size)
        if own is None:
            return None, digest
        name = entry_name(info.st_size, own)
        if name not in names:
            return None, digest
        entry = self.folder / name
        try:
            with open_entry(entry) as file:
                problem = self._unsafe(os.fstat(file.fileno()))
                if problem is not None:
                    note(f"prebuilt bank entry {entry}: {problem}; not used (the bank is "
                         "loaded in full). Reinstall quiz")
                    return None, digest
                if file.readline(len(MAGIC)) != MAGIC:
                    return None, digest
                line = file.readline(1 << 12)
                if line.rstrip(b"\n") != entry_key(info.st_size, own):
                    return None, digest
                return read_index(file, entry, MAGIC + line, CHECK_KEY, self._unsafe), digest
        except Exception:  # a missing, unreadable or damaged entry is a miss, never an error
            return None, digest


def default_entries() -> ShippedEntries | None:
    """The prebuilt entries of this installation (:func:`quiz.paths.prebuilt_dir`), or
    ``None`` when there are none."""
    from quiz.paths import prebuilt_dir

    folder = prebuilt_dir()
    return ShippedEntries(folder) if folder is not None else None
