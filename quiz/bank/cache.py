"""The validated-bank cache: a bank file that loaded without errors is kept, validated, in the
user cache folder (:func:`quiz.paths.cache_dir`), so the next start skips parsing and validation.

An entry is one file per bank path. It is served only when everything it was made from is
unchanged: the file's resolved path, size, modification time (nanoseconds) and SHA-1 content
hash, and the loader itself (quiz's version, the size and modification time of every module of
``quiz.bank`` and ``quiz.footprint``, the pydantic and Python versions). The entry's own bytes
carry a CRC-32 that is checked before they are unpickled, so a damaged entry (truncated,
overwritten, from another version) is never served: any failure to read one is a cache miss, and
the bank is loaded in full, as if there were no cache. Failing to write an entry (a read-only
or full disk) is silent: the cache only ever saves time.

Serving an entry holds neither the bank file nor the entry's bytes in memory: both are checked as
they are read, in chunks, and the payload is unpickled from the file once its CRC matches
(an entry is replaced by renaming, never rewritten in place, so the open file stays the one
that was checked). The file's content hash is computed only when the rest of the key matches.

Entries are pickles written by this user into this user's cache folder; the CRC guards
against damage, not against someone who can already write the user's files.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import pickle
import sys
import tempfile
import zlib
from functools import cache
from pathlib import Path
from typing import IO, Any

from quiz import __version__

FORMAT = 3
"""Version of the entry layout; a change makes every older entry a miss."""

_MAGIC = b"quiz-bank-cache\n"
_CHECK = 4
"""Bytes of an entry's check of its payload (a CRC-32, big-endian)."""


_CHUNK = 1 << 20
"""Bytes hashed at a time when a file is hashed as it is read."""


def content_hash(data: bytes) -> str:
    """The SHA-1 hex digest of a bank file's bytes (a cache key: it tells a changed file from
    an unchanged one; SHA-1 because it is the fastest of hashlib's on this kind of machine,
    twice BLAKE2b's speed; nothing here is a security boundary, see the module docstring)."""
    return hashlib.sha1(data, usedforsecurity=False).hexdigest()


def _hash_stream(file: IO[bytes]) -> str:
    """:func:`content_hash` of what is left to read of ``file``, read in chunks."""
    digest = hashlib.sha1(usedforsecurity=False)
    while chunk := file.read(_CHUNK):
        digest.update(chunk)
    return digest.hexdigest()


def _crc_stream(file: IO[bytes]) -> int:
    """The CRC-32 of what is left to read of ``file``, read in chunks (a check against damage:
    it finds every burst of up to 32 changed bits, and all but one in 2**32 of the rest)."""
    crc = 0
    while chunk := file.read(_CHUNK):
        crc = zlib.crc32(chunk, crc)
    return crc


@cache
def code_fingerprint() -> str:
    """A digest of everything that decides what loading a bank gives: quiz's version, the size and
    modification time of each module of ``quiz.bank`` and ``quiz.footprint`` (a changed rule in a
    source checkout invalidates the cache too), and the pydantic and Python versions."""
    import pydantic

    root = Path(__file__).resolve().parent.parent
    parts: list[Any] = [FORMAT, __version__, pydantic.VERSION, sys.version]
    for package in ("bank", "footprint"):
        for path in sorted((root / package).rglob("*")):
            if path.suffix in (".py", ".yaml", ".json"):
                info = path.stat()
                parts.append((str(path.relative_to(root)), info.st_size, info.st_mtime_ns))
    return hashlib.blake2b(repr(parts).encode(), digest_size=16).hexdigest()


class BankCache:
    """Entries in one folder (created when the first entry is written)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _entry(self, path: Path) -> Path:
        name = hashlib.blake2b(str(path).encode("utf-8", "surrogatepass"),
                               digest_size=16).hexdigest()
        return self.folder / f"{name}.bank"

    @staticmethod
    def _key(path: Path, info: os.stat_result, digest: str | None) -> dict[str, Any]:
        return {"path": str(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns,
                "content": digest, "code": code_fingerprint()}

    def get(self, path: Path, info: os.stat_result, bank: IO[bytes]) -> tuple[Any, str | None]:
        """The value stored for this exact file (``path`` resolved, ``info`` its ``stat``,
        ``bank`` the file open for reading, at its start), or ``None`` when there is none, it
        was made from anything else, or it cannot be read whole and intact; with the file's
        :func:`content_hash` when it was computed (``None`` when the rest of the key already
        differed). ``bank`` is left anywhere: seek before reading it again."""
        digest: str | None = None
        try:
            with open(self._entry(path), "rb") as file:
                if file.readline() != _MAGIC:
                    return None, None
                stored = json.loads(file.readline())
                # Everything but the content first: the file is hashed only when that matches.
                expected = self._key(path, info, None)
                if not isinstance(stored, dict) or set(stored) != set(expected) or any(
                        stored[k] != v for k, v in expected.items() if k != "content"):
                    return None, None
                digest = _hash_stream(bank)
                if stored["content"] != digest:
                    return None, digest
                check = file.read(_CHECK)
                start = file.tell()
                if _crc_stream(file).to_bytes(_CHECK, "big") != check:
                    return None, digest
                file.seek(start)
                enabled = gc.isenabled()
                gc.disable()  # unpickling builds many objects: no collection passes over them
                try:
                    return pickle.load(file), digest
                finally:
                    if enabled:
                        gc.enable()
        except Exception:  # a missing, unreadable or damaged entry is a miss, never an error
            return None, digest

    def put(self, path: Path, info: os.stat_result, digest: str, value: Any) -> None:
        """Store ``value`` for this exact file (written whole to a temporary file, then renamed
        over the entry, so a reader never sees half an entry). Failures are ignored."""
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            header = (_MAGIC + json.dumps(self._key(path, info, digest)).encode() + b"\n"
                      + zlib.crc32(payload).to_bytes(_CHECK, "big"))
            self.folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".entry-")
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(header)
                    file.write(payload)
                os.replace(tmp, self._entry(path))
            except BaseException:
                os.unlink(tmp)
                raise
        except Exception:  # the cache only saves time: never fail a load for it
            return
