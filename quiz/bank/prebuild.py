"""Write the bundled banks' prebuilt entries (:mod:`quiz.bank.shipped`): each bank file loaded
with quiz's own loader, as a first start would load it, and its validated-bank cache entry
written, keyed by the file's bytes and the code's :func:`~quiz.bank.shipped.fingerprint`.

``python -m quiz.bank.prebuild`` writes them for a source checkout, into the git-ignored
``build/bundled-cache`` where the app finds them (:func:`quiz.paths.prebuilt_dir`); the wheel's
build hook (``hatch_build.py``) runs ``python -m quiz.bank.prebuild --out FOLDER`` on the
sources being built and ships FOLDER as ``quiz/_bundled_cache``. Run it again after changing
a bundled bank or the loader: stale entries are ignored (the banks then load in full), never
served. Exit status 0 when every entry is written, 1 when a bank has errors (they are
printed; nothing is written), 2 for a usage error.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, Any

from quiz.bank.cache import BankCache, content_hash
from quiz.bank.cache_entry import Stored, write_entry
from quiz.bank.shipped import CHECK_KEY, MAGIC, SUFFIX, entry_key, entry_name, file_digest

ENTRY_MODE = 0o644
"""Mode of a written entry: readable by whoever can read the code beside it."""


class _Collector(BankCache):
    """A cache that serves nothing and keeps what the loader would store: each file's size,
    :func:`~quiz.bank.shipped.file_digest` (of the bytes it has now, as the loader read them),
    index and payload, in :attr:`entries`."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.entries: list[tuple[int, str, Any, Any]] = []

    def get(self, path: Path, info: os.stat_result,
            bank: IO[bytes]) -> tuple[Stored | None, str | None]:
        return None, None

    def put(self, path: Path, info: os.stat_result, digest: str, index: Any,
            payload: Any, *, stat_ns: int | None = None) -> None:
        """Keep the entry, named by the file's bytes read again: they must be the bytes the
        loader parsed (its content hash ``digest``), or the entry would serve a file of other
        bytes with these questions.

        Raises:
            PrebuildError: the file changed while it was loaded (build again)."""
        data = path.read_bytes()
        if content_hash(data) != digest:
            raise PrebuildError(f"{path}: the file changed while it was loaded; build again")
        self.entries.append((len(data), file_digest(data), index, payload))


class PrebuildError(Exception):
    """The banks did not load without errors (the message lists the diagnostics)."""


def prebuild(banks: Path, out: Path) -> tuple[int, int]:
    """Load the bank files of the folder ``banks`` (as :func:`quiz.bank.load.load_library`
    does) and write the entry of each into ``out`` (created), replacing what was there
    (other files ending in ``.bank`` are removed; anything else is left). Returns how many
    entries and questions were written.

    Raises:
        PrebuildError: a bank has an error, or a file changed while it was loaded (nothing
            is written).
        OSError: ``out`` cannot be made or written."""
    from quiz.bank.load import load_library

    collector = _Collector(out)
    report = load_library([banks], bank_cache=collector)
    errors = [str(d) for d in report.diagnostics if d.severity == "error"]
    if report.library is None or errors:
        raise PrebuildError("\n".join(errors) or f"{banks}: no library loaded")
    out.mkdir(parents=True, exist_ok=True)
    written = set()
    questions = 0
    for size, digest, index, payload in collector.entries:
        name = entry_name(size, digest)
        write_entry(out / name, MAGIC, entry_key(size, digest), CHECK_KEY, index, payload,
                    ENTRY_MODE)
        written.add(name)
        questions += len(index["ids"])
    for stale in out.glob(f"*{SUFFIX}"):
        if stale.name not in written:
            stale.unlink()
    return len(written), questions


def prebuild_arguments(prog: str, description: str, argv: list[str] | None, *,
                       banks: bool = False) -> tuple[argparse.Namespace, Path]:
    """The arguments of a prebuild command (this one, ``quiz.tui.css_prebuild``): ``--out``,
    the folder to write (:func:`quiz.paths.prebuild_out`), and with ``banks`` an optional
    folder of bank files. Returns the namespace and the folder to write. Exits with argparse's
    usage error (status 2) for an ``--out`` that cannot be used."""
    from quiz.paths import prebuild_out

    parser = argparse.ArgumentParser(prog=prog, description=description)
    if banks:
        parser.add_argument("banks", nargs="?", type=Path,
                            help="the folder of bank files (default: the bundled banks)")
    parser.add_argument("--out", type=Path,
                        help="the folder to write (default: build/bundled-cache in this "
                        "source checkout, where quiz finds it)")
    ns = parser.parse_args(argv)
    try:
        return ns, prebuild_out(ns.out)
    except ValueError as exc:
        parser.error(str(exc))


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring)."""
    from quiz.paths import bundled_bank_dir

    ns, out = prebuild_arguments(
        "python -m quiz.bank.prebuild",
        "Write the bundled banks' prebuilt validated-bank cache entries.", argv, banks=True)
    banks: Path = ns.banks if ns.banks is not None else bundled_bank_dir()
    try:
        count, questions = prebuild(banks, out)
    except PrebuildError as exc:
        print(f"{exc}\nquiz prebuild: the banks in {banks} have errors; no entry written",
              file=sys.stderr)
        return 1
    print(f"quiz prebuild: {count} entries ({questions:,} questions) in {out}")
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())
