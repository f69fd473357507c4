"""A library served whole by the validated-bank cache, read before the study app's first paint:
:func:`library_from_cache`.

When every bank file of a start is unchanged since its entry was made, reading the entries'
indexes (ids, topics, content hashes, warnings: :meth:`quiz.bank.cache.BankCache.get`) takes a
few milliseconds, less than showing a loading screen and composing the start form a second
time. The app then shows its start screen with the library in its first frame; whenever any
file is not served (a first start, a changed or broken file, a cache refused), this gives
``None`` and the app loads the banks in a worker, with the progress on screen, as before.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from quiz.bank.bank_paths import bank_files
from quiz.bank.library import LoadReport

if TYPE_CHECKING:
    from quiz.bank.cache import BankCache
    from quiz.bank.load_results import _FileResult
    from quiz.bank.model import BankInfo, Question

FIRST_FRAME_BYTES = 16 * 2**20
"""Most bytes of bank files whose cached library is read before the first paint (the bundled
bank is under 1 MB, a 1,000-question bank about 4 MB). A larger library (10,000 questions,
40 MB, and more) paints first and is read in the worker: its indexes would hold the first
frame back longer than a loading screen takes."""


def library_from_cache(paths: Sequence[str | os.PathLike[str]], *,
                       cache_dir: Path | None = None,
                       max_bytes: int = FIRST_FRAME_BYTES,
                       cache_writes: list[Callable[[], None]] | None = None) -> LoadReport | None:
    """The load report of ``paths`` (as :func:`quiz.bank.load.load_for_study` would give it,
    every bank served by the cache and decoded when its questions are first read) when every
    bank file ``paths`` stand for has an entry that serves it, in the validated-bank cache
    (``cache_dir``, default :func:`quiz.paths.cache_dir`) or else among the bundled banks'
    prebuilt entries (:mod:`quiz.bank.shipped`: a user's very first start of the bundled
    banks is served so), and the library has no error;
    otherwise ``None``, having read no bank file: a path without bank files, a file that is not
    a regular file, over ``max_bytes`` bank bytes in all, a file with no entry or a changed
    one, a refused cache, an error across files (a repeated id). The caller then loads in
    full (:func:`~quiz.bank.load.load_for_study`), which says what went wrong.

    The one place where a start asks the caches for its banks (the same lookups as
    :func:`~quiz.bank.load.load_library` with a ``cache_dir``). When banks were served by
    prebuilt entries, what stores those in the user's cache (:meth:`~quiz.bank.cache.
    BankCache.adopt`, so that later starts neither hash the files nor fingerprint the code's
    content) is appended to ``cache_writes``, for the caller to run once the start is drawn.
    """
    files: list[Path] = []
    seen: set[Path] = set()
    total = 0
    for given in paths:
        if not os.fspath(given):
            return None
        for path, problem in bank_files(Path(given)):
            if problem is not None:
                return None
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            files.append(path)
    if not files:
        return None
    stat_ns = time.time_ns()  # before the stats: see quiz.bank.cache.stat_vouches
    sizes = []
    for path in files:
        try:
            info = os.stat(path)
        except OSError:
            return None
        total += info.st_size
        sizes.append(info)
        if not stat.S_ISREG(info.st_mode) or total > max_bytes:
            return None
    # Imported only now: a library too large for the first frame is told in a few stats. The
    # full loader (quiz.bank.load) is not: it is for files that are not served.
    from quiz.bank.cache import BankCache
    from quiz.bank.load_results import _report
    from quiz.bank.shipped import default_entries

    if cache_dir is None:
        from quiz.paths import cache_dir as user_cache_dir

        cache_dir = user_cache_dir()
    bank_cache = BankCache(cache_dir, prebuilt=default_entries())
    results = []
    for path, info in zip(files, sizes, strict=True):
        result = _served(path, info, bank_cache)
        if result is None:
            return None
        results.append(result)
    report = _report(results)
    if report.library is None or bank_cache.notes:
        return None
    if cache_writes is not None and bank_cache.served_by_prebuilt:
        cache_writes.append(partial(bank_cache.adopt, stat_ns))
    return report


def _served(path: Path, info: os.stat_result, bank_cache: BankCache) -> _FileResult | None:
    """The result of ``path`` (its ``stat`` ``info``) served by ``bank_cache``, or ``None``."""
    from quiz.bank.load_results import _from_cache

    try:
        # O_NONBLOCK: should the path become a named pipe after the stat, opening it must not
        # block; fstat then sees what was really opened (as the full load does).
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as file:
            if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
                return None
            stored, _ = bank_cache.get(path.resolve(), info, file)
    except OSError:
        return None
    return None if stored is None else _from_cache(path, stored, _reload)


def _reload(path: Path, ids: tuple[str, ...]) -> tuple[BankInfo, tuple[Question, ...]]:
    """The models of ``path`` loaded in full again (:func:`quiz.bank.load._reload`), should its
    cache entry's payload not read back when its questions are first read."""
    from quiz.bank.load import _reload as reload_in_full

    return reload_in_full(path, ids)
