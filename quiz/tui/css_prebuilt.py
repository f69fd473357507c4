"""Textual's parsed CSS, made when quiz is built, for a first start (issue 26).

A start parses every CSS source its screens need (``app.tcss`` and each widget class's default
CSS: about 20 ms of CPU before the start screen's first frame); :mod:`quiz.tui.css_cache`
keeps what one run parsed for the next, so only a user's very first start parses. That one is
served here, as the bundled banks' prebuilt entries serve its banks (:mod:`quiz.bank.shipped`):
building a wheel (``hatch_build.py``) runs ``python -m quiz.tui.css_prebuild --out FOLDER``
(:mod:`quiz.tui.css_prebuild`), which starts the app headless on the bundled banks and writes
the rule sets Textual parsed into :data:`FILE` in the folder the wheel ships as
``quiz/_bundled_cache``; in a source checkout, ``python -m quiz.tui.css_prebuild`` writes it
into ``build/bundled-cache`` (:func:`quiz.paths.prebuilt_dir` finds either).

**What it is served for.** Each parsed source is named by its text and the file it comes from,
relative to its package's folder (:func:`portable`: Textual names it by the file's absolute
path, which differs between the build and an installation). The key line holds
:func:`textual_identity` (a digest of the installed Textual's own record of its files and
their hashes, the ``RECORD`` of its ``dist-info``), the Python (its cache tag) and a digest of
the CSS variables (the theme) it was parsed with. Any other Textual, Python or theme, and it is
not used: the CSS is parsed as usual. A source whose text changed is simply not found in it
(Textual's parse cache is keyed by the source's text).

**Why it may be unpickled.** It is part of the installed package, trusted as the code beside it
is and no more: read only when it is a regular file, in a folder, neither of which anyone can
write who cannot write quiz's code (:func:`quiz.bank.shipped.wider_writers`), and its pickled
section carries the BLAKE2b check of the prebuilt entries (:data:`quiz.bank.shipped.CHECK_KEY`),
so a damaged or edited file is never unpickled. Failing to read it only costs the parse.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path
from typing import Any

from textual.css.stylesheet import Stylesheet

from quiz.digest import blake2b

FILE = "textual-css.prebuilt"
"""The file's name in the prebuilt folder."""

MAGIC = b"quiz-prebuilt-css 1\n"
"""The file's first line."""

def textual_identity() -> str | None:
    """A digest of the lines of the installed Textual's ``RECORD`` (its ``dist-info``: each
    file of the package with its SHA-256 and size) that name files of the package itself,
    compiled bytecode aside: the same for every installation of the same Textual, whoever
    installed it. ``None`` when it cannot be read (not one ``textual-*.dist-info`` beside the
    package, no ``RECORD``). Not ``textual.__version__``: reading the package's metadata costs
    about 12 ms, more than half the parse it saves."""
    import textual

    site = os.path.dirname(os.path.dirname(os.path.abspath(textual.__file__)))
    try:
        with os.scandir(site) as entries:
            found = [e.name for e in entries
                     if e.name.startswith("textual-") and e.name.endswith(".dist-info")]
        if len(found) != 1:
            return None
        with open(os.path.join(site, found[0], "RECORD"), "rb") as record:
            lines = sorted(line.strip() for line in record
                           if line.startswith(b"textual/") and b"__pycache__" not in line)
    except OSError:
        return None
    if not lines:
        return None
    return blake2b(b"\n".join(lines), digest_size=16).hexdigest()


def key_line(variables: dict[str, str]) -> bytes | None:
    """The key line for CSS parsed with ``variables`` by this Textual and this Python
    (``None`` when Textual's identity is unknown)."""
    identity = textual_identity()
    if identity is None:
        return None
    from quiz.tui.css_cache import variables_digest

    digest = variables_digest(variables)
    # Three hex digests and a cache tag: no JSON library needed to write or compare it.
    return (f'{{"textual": "{identity}", "python": "{sys.implementation.cache_tag}", '
            f'"variables": "{digest}"}}').encode()


def _package_bases() -> dict[str, str]:
    """The folder that holds each package whose files name CSS sources: Textual (its widgets'
    default CSS) and quiz (``app.tcss``, its widgets' default CSS)."""
    import textual

    import quiz

    return {name: os.path.dirname(os.path.dirname(os.path.abspath(module.__file__ or "")))
            for name, module in (("textual", textual), ("quiz", quiz))}


def portable(parsed: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """``parsed`` (from :func:`quiz.tui.textual_internals.parsed_css`) with the file each
    source was read from named relative to its package's folder (``("textual",
    "textual/widgets/_button.py")``), so that it serves an installation elsewhere: Textual
    keys a parsed source by the absolute path of its file. Sources from other files are
    left out."""
    bases = _package_bases()
    out = []
    for key, rules in parsed:
        css, (path, name), *rest = key
        for package, base in bases.items():
            if path.startswith(base + os.sep):
                out.append(((css, ((package, path[len(base) + 1:]), name), *rest), rules))
                break
    return out


def localized(parsed: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    """The inverse of :func:`portable`, for the packages installed here."""
    bases = _package_bases()
    return [((css, (os.path.join(bases[package], relative), name), *rest), rules)
            for (css, ((package, relative), name), *rest), rules in parsed]


def _code_stat(folder: bool) -> os.stat_result:
    from quiz.bank import shipped

    here = Path(shipped.__file__)
    return os.stat(here.parent if folder else here)


def reuse_prebuilt(stylesheet: Stylesheet, folder: Path | None = None) -> int:
    """Give ``stylesheet`` the rule sets of the prebuilt file in ``folder`` (default: this
    installation's prebuilt folder, :func:`quiz.paths.prebuilt_dir`) when it was made for its
    variables, this Textual and this Python, and may be read (see the module docstring);
    returns how many sources it got (0 when none)."""
    from quiz.bank.cache_entry import open_entry, read_index
    from quiz.bank.shipped import CHECK_KEY, wider_writers
    from quiz.paths import prebuilt_dir
    from quiz.tui.textual_internals import css_variables, reuse_parsed_css

    try:
        folder = folder if folder is not None else prebuilt_dir()
        if folder is None:
            return 0
        info = os.stat(folder)
        if not stat.S_ISDIR(info.st_mode) or wider_writers(info, _code_stat(True)):
            return 0
        path = folder / FILE

        def unsafe(entry: os.stat_result) -> str | None:
            if not stat.S_ISREG(entry.st_mode):
                return "not a regular file"
            return wider_writers(entry, _code_stat(False))

        with open_entry(path) as file:
            if unsafe(os.fstat(file.fileno())) is not None:
                return 0
            if file.readline(len(MAGIC)) != MAGIC:
                return 0
            line = file.readline(1 << 12)
            expected = key_line(css_variables(stylesheet))
            if expected is None or line.rstrip(b"\n") != expected:
                return 0
            parsed = read_index(file, path, MAGIC + line, CHECK_KEY, unsafe).index
        if not isinstance(parsed, list):
            return 0
        reuse_parsed_css(stylesheet, localized(parsed))
        return len(parsed)
    except Exception:  # missing, unreadable, refused or damaged: the CSS is parsed
        return 0
