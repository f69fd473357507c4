"""Which bank files a path given on the command line stands for: a file, or the ``*.yaml`` and
``*.yml`` files of a folder (not its subfolders), or the problem that it stands for none.

Only ``stat`` and directory listings are used: nothing is opened (opening a named pipe would
block). Used by :func:`quiz.bank.load.load_library` and ``quiz new``.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from quiz.bank.files import kind_of
from quiz.bank.problems import Problem

BANK_SUFFIXES = (".yaml", ".yml")
"""File names a folder's banks end with."""


def bank_files(path: Path) -> list[tuple[Path, Problem | None]]:
    """The bank files ``path`` stands for (each with None), or the path with the problem that it
    stands for none.

    Only ``stat`` is used here: nothing is opened (opening a named pipe would block)."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError, ValueError):  # ValueError: a NUL in the path
        return [(path, Problem(0, 0, "no such file or folder"))]
    except OSError as exc:
        return [(path, Problem(0, 0, f"cannot read this path: {exc.strerror or exc}"))]
    if stat.S_ISREG(mode):
        return [(path, None)]
    if not stat.S_ISDIR(mode):
        return [(path, not_regular(mode))]
    try:
        # Hidden names are skipped, as a shell's *.yaml does: a macOS "._bank.yaml" (AppleDouble
        # metadata, not YAML) or a ".draft.yaml" is not part of the library.
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in BANK_SUFFIXES
                       and not p.name.startswith(".") and not p.is_dir() and p.exists())
        if files:
            return [(p, None) for p in files]
        message = "this folder has no bank files (*.yaml, *.yml)"
        nested = _nested_bank_folder(path)
        if nested is not None:
            message += f" (subfolders are not searched: name them too, e.g. {nested})"
        return [(path, Problem(0, 0, message))]
    except OSError as exc:
        return [(path, Problem(0, 0, f"cannot read this folder: {exc.strerror or exc}"))]


_NESTED_DEPTH = 3
"""How deep :func:`_nested_bank_folder` looks below a folder without banks."""

_NESTED_FOLDERS = 200
"""How many folders :func:`_nested_bank_folder` looks into at most (``quiz validate ~``)."""


def _nested_bank_folder(folder: Path) -> Path | None:
    """The first sub-folder (breadth first, a few levels deep, hidden ones skipped) that holds a
    ``*.yaml`` or ``*.yml`` file, or None. Only used for the hint of an empty folder."""
    level = [folder]
    seen = 0
    for _ in range(_NESTED_DEPTH):
        below: list[Path] = []
        for parent in level:
            try:
                children = sorted(p for p in parent.iterdir()
                                  if p.is_dir() and not p.name.startswith("."))
            except OSError:
                continue
            for child in children:
                seen += 1
                if seen > _NESTED_FOLDERS:
                    return None
                try:
                    if any(p.suffix.lower() in BANK_SUFFIXES and p.is_file()
                           for p in child.iterdir()):
                        return child
                except OSError:
                    continue
                below.append(child)
        level = below
    return None


def not_regular(mode: int) -> Problem:
    """The problem of a path whose ``st_mode`` is neither a regular file nor a folder."""
    kind = kind_of(mode) or "not a file or a folder"
    return Problem(0, 0, f"not a regular file ({kind}): give a bank file or a folder of them")
