"""The validated-bank cache: a bank file that loaded without errors is kept, validated, in the
user cache folder (:func:`quiz.paths.cache_dir`), so the next start skips parsing and validation.

An entry is one file per bank path. It is served only when everything it was made from is
unchanged: the file's resolved path, size, modification time (nanoseconds) and BLAKE2b content
hash, and the loader itself (quiz's version, the size and modification time of every module of
``quiz.bank`` and ``quiz.footprint``, the pydantic and Python versions). The entry's own bytes
carry a BLAKE2b digest that is checked before they are unpickled, so a damaged entry (truncated,
overwritten, from another version) is never served: any failure to read one is a cache miss, and
the bank is loaded in full, as if there were no cache. Failing to write an entry (a read-only
or full disk) is silent: the cache only ever saves time.

Entries are pickles written by this user into this user's cache folder; the digest guards
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
from functools import cache
from pathlib import Path
from typing import Any

from quiz import __version__

FORMAT = 1
"""Version of the entry layout; a change makes every older entry a miss."""

_MAGIC = b"quiz-bank-cache\n"
_DIGEST = 32
"""Bytes of the BLAKE2b digests (of the bank file, and of an entry's pickled payload)."""


def content_hash(data: bytes) -> str:
    """The BLAKE2b-256 hex digest of a bank file's bytes (a cache key)."""
    return hashlib.blake2b(data, digest_size=_DIGEST).hexdigest()


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
    def _key(path: Path, info: os.stat_result, digest: str) -> dict[str, Any]:
        return {"path": str(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns,
                "content": digest, "code": code_fingerprint()}

    def get(self, path: Path, info: os.stat_result, digest: str) -> Any | None:
        """The value stored for this exact file (``path`` resolved, ``info`` its ``stat``,
        ``digest`` its :func:`content_hash`), or ``None`` when there is none, it was made from
        anything else, or it cannot be read whole and intact."""
        try:
            with open(self._entry(path), "rb") as file:
                if file.readline() != _MAGIC:
                    return None
                if json.loads(file.readline()) != self._key(path, info, digest):
                    return None
                check = file.read(_DIGEST)
                payload = file.read()
            if hashlib.blake2b(payload, digest_size=_DIGEST).digest() != check:
                return None
            enabled = gc.isenabled()
            gc.disable()  # unpickling builds many objects: no collection passes over them
            try:
                return pickle.loads(payload)
            finally:
                if enabled:
                    gc.enable()
        except Exception:  # a missing, unreadable or damaged entry is a miss, never an error
            return None

    def put(self, path: Path, info: os.stat_result, digest: str, value: Any) -> None:
        """Store ``value`` for this exact file (written whole to a temporary file, then renamed
        over the entry, so a reader never sees half an entry). Failures are ignored."""
        try:
            payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            header = (_MAGIC + json.dumps(self._key(path, info, digest)).encode() + b"\n"
                      + hashlib.blake2b(payload, digest_size=_DIGEST).digest())
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
