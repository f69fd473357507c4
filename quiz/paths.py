"""Where quiz finds its bundled bank and keeps its data.

All paths are resolved here so that tests can redirect them (``QUIZ_DATA_DIR``,
``QUIZ_CACHE_DIR``) and an installed wheel finds its files wherever the current directory is.
"""

from __future__ import annotations

import os
from pathlib import Path

DATA_DIR_ENV = "QUIZ_DATA_DIR"
"""Environment variable that overrides the user data folder (the tests point it at a temporary
folder; a user can keep progress elsewhere with it)."""


def bundled_bank_dir() -> Path:
    """Return the folder of the shipped question banks.

    In an installed wheel the banks live in ``quiz/_bundled_bank``; in a source checkout they
    live in ``question_bank/`` beside the package.

    Raises:
        FileNotFoundError: if neither folder exists (a broken installation).
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "_bundled_bank", here.parent / "question_bank"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        f"the bundled question bank is missing (looked in {here / '_bundled_bank'} and "
        f"{here.parent / 'question_bank'}); reinstall quiz"
    )


def data_dir(override: Path | None = None, *, create: bool = True) -> Path:
    """Return (and, with ``create``, create, mode 0700: see :func:`make_private_dirs`) the
    folder for progress data: ``override`` (``--data-dir``), else ``$QUIZ_DATA_DIR``, else the
    platform's user data folder from ``platformdirs``.

    Raises:
        OSError: ``create`` and the folder cannot be created."""
    if override is not None:
        path = Path(override).expanduser()
    elif env := os.environ.get(DATA_DIR_ENV):
        path = Path(env)
    else:
        from platformdirs import user_data_path

        path = user_data_path("quiz", appauthor=False)
    if create:
        make_private_dirs(path)
    return path


def make_private_dirs(folder: Path) -> None:
    """Create ``folder`` and each missing parent with mode 0700 (``Path.mkdir(parents=True)``
    gives parents the umask's mode: 0775 under umask 002). An existing folder is left as it
    is."""
    missing = []
    at = folder
    while not at.exists():
        missing.append(at)
        if at.parent == at:
            break
        at = at.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(path, 0o700)  # whatever the umask took away


CACHE_DIR_ENV = "QUIZ_CACHE_DIR"
"""Environment variable that overrides the user cache folder (used by tests and benchmarks)."""


def cache_dir() -> Path:
    """Return the folder for the validated-bank cache: ``$QUIZ_CACHE_DIR`` or the platform's user
    cache folder from ``platformdirs`` (``~/.cache/quiz`` on Linux). Not created here: the cache
    creates it when it first writes, so reading never leaves an empty folder behind."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override)
    from platformdirs import user_cache_path

    return user_cache_path("quiz", appauthor=False)


PREBUILT_DIR_ENV = "QUIZ_PREBUILT_DIR"
"""Environment variable that overrides where the prebuilt entries of the bundled banks are
looked for (:func:`prebuilt_dir`): a folder, or empty for none (the tests set it empty, so
that a checkout's entries never decide what a test loads)."""

CHECKOUT_PREBUILT = ("build", "bundled-cache")
"""Where ``python -m quiz.bank.prebuild`` writes the prebuilt entries in a source checkout,
under its root (``build/`` is git-ignored)."""


def prebuilt_dir() -> Path | None:
    """Return the folder of the bundled banks' prebuilt entries (:mod:`quiz.bank.shipped`):
    ``$QUIZ_PREBUILT_DIR`` when it is set (``None`` when it is empty); else, in an installed
    wheel, ``quiz/_bundled_cache`` (made by the build hook, ``hatch_build.py``); else, in a
    source checkout, ``build/bundled-cache`` (made by ``python -m quiz.bank.prebuild``); else
    ``None``. Read only: quiz never writes there at run time."""
    override = os.environ.get(PREBUILT_DIR_ENV)
    if override is not None:
        return Path(override) if override else None
    here = Path(__file__).resolve().parent
    for candidate in (here / "_bundled_cache", checkout_prebuilt_dir()):
        if candidate.is_dir():
            return candidate
    return None


def checkout_prebuilt_dir() -> Path:
    """Return where a source checkout keeps the bundled banks' prebuilt entries
    (:data:`CHECKOUT_PREBUILT` under the folder that holds the ``quiz`` package)."""
    return Path(__file__).resolve().parent.parent.joinpath(*CHECKOUT_PREBUILT)


def prebuild_out(out: Path | None) -> Path:
    """The folder a prebuild (``python -m quiz.bank.prebuild``, ``python -m
    quiz.tui.css_prebuild``) writes: ``out`` (its ``--out``), else the source checkout's
    :func:`checkout_prebuilt_dir`.

    Raises:
        ValueError: no ``out``, and quiz is not run from a source checkout (no
            ``pyproject.toml`` beside the package); the message says to give ``--out``.
    """
    if out is not None:
        return out
    out = checkout_prebuilt_dir()
    if not (out.parent.parent / "pyproject.toml").is_file():
        raise ValueError(f"quiz is not run from a source checkout ({out.parent.parent} has no "
                         "pyproject.toml): give --out (an installed wheel ships what it "
                         "writes)")
    return out


PROGRESS_DB = "progress.db"
"""File name of the progress database inside the data folder."""


def progress_db(override: Path | None = None) -> Path:
    """Return the path of the progress database (its folder is created); ``override`` is
    ``--data-dir``."""
    return data_dir(override) / PROGRESS_DB


def backups_dir(folder: Path | None = None) -> Path:
    """Return (and create) the folder where ``quiz stats --reset`` keeps its backups: a
    ``backups`` folder in the data folder (or in ``folder``)."""
    path = (folder if folder is not None else data_dir()) / "backups"
    path.mkdir(parents=True, exist_ok=True)
    return path


def screenshots_dir() -> Path:
    """Return (and create) the folder where the app saves screenshots: the user's Downloads
    folder when it exists, else ``screenshots`` in the data folder (always, when
    ``$QUIZ_DATA_DIR`` redirects the data folder, so tests never write to the real home).

    Raises:
        OSError: when the folder cannot be created.
    """
    if not os.environ.get(DATA_DIR_ENV):
        from platformdirs import user_downloads_path

        downloads = user_downloads_path()
        if downloads.is_dir():
            return downloads
    path = data_dir() / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path
