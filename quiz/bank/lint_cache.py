"""``quiz validate``'s library check, file by file, with the lint cache: an unchanged bank file is
neither parsed, validated nor linted again.

**The lint cache** is a second :class:`~quiz.bank.cache.BankCache`, in the ``lint`` folder of the
validated-bank cache (:func:`quiz.paths.cache_dir`), with the same entries, the same keyed
BLAKE2b checks and the same refusals (an entry is unpickled only once this user's cache key
has authenticated it: a planted or altered entry is a miss, never trusted). An entry stands for
one bank file that loaded without errors: what the loader reports of it (its warnings, question
ids, bank id and topics, as the validated-bank cache's index holds them) and what the linter
found in it (:class:`~quiz.bank.lint.BankLint`: the findings of every rule, and the stems rule
Q101 compares across the library). It holds no models.

An entry is served only for the same file (path, size, times, inode; content hash when the
stat cannot vouch for it) made by the same code: on top of the validated-bank cache's key (quiz's
version and its modules' sizes and times), its key holds :func:`lint_fingerprint`, a digest of
the linter's rules and thresholds and of the **content** of every module of ``quiz.bank`` and of
the calculator (``quiz.footprint``, whose figures rule Q114 compares with every computed
question's text). A cached run therefore reports the same findings, in the same order, at the
same ``file:line:col``, as a first run.

Entries are written only for runs of every rule (``--select`` and ``--ignore`` filter what a
cached entry holds, but a run of some rules stores nothing).
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import IO, Any

from quiz.bank import shipped
from quiz.bank.cache import BankCache
from quiz.bank.cache_entry import Stored
from quiz.bank.library import Diagnostic, LoadedBank, LoadReport

LINT_FORMAT = 2
"""Version of what a lint entry holds; a change makes every older entry a miss."""

FOLDER = "lint"
"""The lint cache's folder, inside the validated-bank cache's."""


@cache
def lint_fingerprint() -> str:
    """A digest of everything that decides a bank file's findings: :data:`LINT_FORMAT`, every
    rule (code, name, severity, summary, hint) and threshold of :mod:`quiz.bank.lint`, and the
    content of the loader's code (:func:`quiz.bank.shipped.fingerprint`: every module of
    ``quiz.bank`` and ``quiz.footprint`` - the loader, the linter, and the calculator whose
    figures rule Q114 checks, with its presets - ``quiz/yamlio.py``, and PyYAML's and
    pydantic's versions)."""
    from quiz.bank import lint

    digest = hashlib.blake2b(digest_size=16)
    digest.update(repr((LINT_FORMAT, lint.RULES, lint.MIN_SHORT_WORDS, lint.MIN_FULL_WORDS,
                        lint.MIN_REVIEW_WORDS, lint.LONGEST_RATIO, lint.LONGEST_MARGIN,
                        lint.DUPLICATE_SIMILARITY, lint.SKEW_MIN_QUESTIONS)).encode())
    digest.update(shipped.fingerprint().encode())
    return digest.hexdigest()


class LintCache(BankCache):
    """The lint cache in ``folder`` (see the module docstring). :meth:`get` keeps the lint of
    each entry it serves in :attr:`served`; :meth:`put` stores the lint given to
    :meth:`expect` for that file."""

    def __init__(self, folder: Path, key_file: Path | None = None) -> None:
        super().__init__(folder, key_file)
        self.served: dict[Path, Any] = {}
        """The lint of each entry served, by the file's resolved path."""
        self._pending: dict[Path, Any] = {}

    @staticmethod
    def _key(path: Path, info: os.stat_result, digest: str | None,
             verify: bool | None = None) -> dict[str, Any]:
        key = BankCache._key(path, info, digest, verify)
        key["lint"] = lint_fingerprint()
        return key

    def get(self, path: Path, info: os.stat_result,
            bank: IO[bytes]) -> tuple[Stored | None, str | None]:
        """:meth:`BankCache.get`, serving only an entry that holds a lint."""
        stored, digest = super().get(path, info, bank)
        if stored is None:
            return None, digest
        linted = _lint_of(stored.index)
        if linted is None:
            return None, digest
        self.served[path] = linted
        return stored, digest

    def expect(self, path: Path, linted: Any) -> None:
        """Store ``linted`` with the entry :meth:`put` is next asked to write for ``path``
        (resolved)."""
        self._pending[path] = linted

    def put(self, path: Path, info: os.stat_result, digest: str, index: Any,
            payload: Any, *, stat_ns: int | None = None) -> None:
        """:meth:`BankCache.put` of the loader's ``index`` with the lint given to
        :meth:`expect` (no models: ``payload`` is not kept); nothing when there is none."""
        linted = self._pending.pop(path, None)
        if linted is not None:
            super().put(path, info, digest, {**index, "lint": linted}, None, stat_ns=stat_ns)


def _lint_of(index: Any) -> Any:
    """The :class:`~quiz.bank.lint.BankLint` an entry's index holds, or None when it holds
    none of the expected shape."""
    from quiz.bank.lint import BankLint

    linted = index.get("lint") if isinstance(index, dict) else None
    if not isinstance(linted, BankLint) or not isinstance(linted.findings, tuple) \
            or not isinstance(linted.stems, tuple):
        return None
    if len(linted.stems) != len(index.get("ids", ())):
        return None
    return linted


@dataclass
class Checked:
    """What :func:`check_library` found: the loader's ``report`` (its library's banks load
    their files again if their questions are read) and the lint ``findings`` (empty when the
    library did not load)."""

    report: LoadReport
    findings: list[Diagnostic]


def check_library(paths: Sequence[str | os.PathLike[str]], rules: frozenset[str] | None,
                  cache_dir: Path | None) -> Checked:
    """Load and lint the banks in ``paths`` one file at a time, as ``quiz validate`` does:
    each file is loaded (:func:`quiz.bank.load.load_library`), linted
    (:func:`quiz.bank.lint.lint_bank`) and let go before the next, so the peak memory is that
    of one file, not of the library; rule Q101 then compares the stems of every file
    (:func:`quiz.bank.lint.library_findings`). ``rules``: the codes to run (None: all).

    With ``cache_dir``, the lint cache in its :data:`FOLDER` serves each unchanged file whole
    (see the module docstring), and a file checked in full with every rule is stored there;
    what the cache refuses (an unsafe folder or entry) is said on standard error."""
    from quiz.bank import lint
    from quiz.bank.computed.figures import forget_renderings
    from quiz.bank.load import load_library
    from quiz.bank.places import Places

    every_rule = rules is None or rules >= {r.code for r in lint.RULES}
    lint_cache = LintCache(cache_dir / FOLDER) if cache_dir is not None else None
    together = lint.LibraryLint(rules)
    writes: list[Callable[[], None]] = []
    parses: dict[str, Any] = {}

    def each(bank: LoadedBank, parsed: Any) -> None:
        served = None
        if parsed is None and lint_cache is not None:
            served = lint_cache.served.pop(bank.path.resolve(), None)
        if served is None:
            places = Places(*parsed) if parsed is not None else Places.read(bank.path)
            served = lint.lint_bank(bank, places, None if every_rule else rules)
            if lint_cache is not None and every_rule:
                lint_cache.expect(bank.path.resolve(), served)
        together.add(str(bank.path), served)
        for write in writes:
            write()
        writes.clear()
        forget_renderings()  # this file's texts are not rendered again

    report = load_library(paths, parses=parses, bank_cache=lint_cache,
                          cache_writes=writes if lint_cache is not None else None, each=each)
    if lint_cache is not None:
        for note in lint_cache.notes:
            print(f"quiz validate: {note}", file=sys.stderr)
    if report.library is None:
        return Checked(report, [])
    return Checked(report, together.findings())
