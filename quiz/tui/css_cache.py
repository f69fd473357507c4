"""Textual's parsed stylesheets kept between runs, so that a start does not parse the app's CSS
and its widgets' again: :func:`reuse_parsed` before the app runs, :func:`keep_parsed` once its
first frame is drawn.

Textual parses every CSS source it meets (``app.tcss`` and each widget class's default CSS:
about 20 ms of CPU before the start screen's first frame, a tenth of a bare Textual app's
whole start) and keeps the rule sets in memory, keyed by the source's text, location and
flags. Here they are kept in one file in the user cache folder (:func:`quiz.paths.cache_dir`),
made for one Textual (its files' stamps), one Python and one set of CSS variables (the
theme); any other and the file is ignored (the sources are parsed as usual, and the file made
again). A source whose text changed is simply not found in it.

The file is a pickle, so it is authenticated before it is unpickled as the validated-bank
cache's entries are (:mod:`quiz.bank.cache`: a BLAKE2b MAC keyed with the user's cache key,
read only from a regular file of this user's that no one else can write, in a folder of
theirs). Failing to read or write it only costs the parse: nothing is said.
"""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path
from typing import Any

import textual
from textual.css.stylesheet import Stylesheet

from quiz.digest import blake2b
from quiz.tui.textual_internals import css_variables, parsed_css, reuse_parsed_css

FILE = "textual-css.cache"
"""The file's name in the user cache folder."""

MAGIC = b"quiz-textual-css 1\n"


def variables_digest(variables: dict[str, str]) -> str:
    """A digest of the CSS variables (the theme) rules were parsed with: 32 hex digits."""
    return blake2b(repr(sorted(variables.items())).encode(), digest_size=16).hexdigest()


def _key_line(variables: dict[str, str]) -> bytes:
    """What the parsed rules were made for: this Textual (:func:`_textual_stamps`), this
    Python, the variables."""
    # Imported here, not with the module: the app imports this module before its first paint,
    # and needs these only once it reads or writes the file (json: the progress store has
    # imported it by then).
    import json

    return json.dumps({"textual": _textual_stamps(), "python": sys.implementation.cache_tag,
                       "variables": variables_digest(variables)}).encode()


@cache
def _textual_stamps() -> str:
    """A digest of the name, size and modification time of Textual's ``__init__.py`` and of
    each module of its CSS package (an upgrade rewrites them). Not ``textual.__version__``:
    that reads the package's metadata (``importlib.metadata`` and the ``email`` parser,
    about 12 ms, more than the parse saved)."""
    root = os.path.dirname(os.path.abspath(textual.__file__))
    stamps = []
    for folder in (root, os.path.join(root, "css")):
        with os.scandir(folder) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                if entry.name.endswith(".py") and (folder != root or entry.name == "__init__.py"):
                    info = entry.stat()
                    stamps.append((entry.path[len(root):], info.st_size, info.st_mtime_ns))
    return blake2b(repr(stamps).encode(), digest_size=16).hexdigest()


def _folder() -> Path:
    from quiz.paths import cache_dir

    return cache_dir()


def reuse_parsed(stylesheet: Stylesheet) -> int:
    """Give ``stylesheet`` the rule sets kept by :func:`keep_parsed` for its variables (and
    this Textual and Python), when the file is there, safe and authentic; returns how many
    sources it got (0 when none)."""
    from quiz.bank.cache_entry import KEY_FILE, open_entry, read_index, unsafe_entry, unsafe_owner
    from quiz.paths import data_dir

    try:
        folder = _folder()
        key_file = data_dir(create=False) / KEY_FILE
        if not key_file.exists() or unsafe_owner(os.stat(folder), "folder") is not None:
            return 0
        from quiz.bank.cache_entry import read_key

        key = read_key(key_file)
        path = folder / FILE
        with open_entry(path) as file:
            if unsafe_entry(os.fstat(file.fileno())) is not None:
                return 0
            line = file.readline(1 << 12)
            if line != MAGIC:
                return 0
            key_line = file.readline(1 << 12)
            if key_line.rstrip(b"\n") != _key_line(css_variables(stylesheet)):
                return 0
            parsed = read_index(file, path, MAGIC + key_line, key).index
        if not isinstance(parsed, list):
            return 0
        reuse_parsed_css(stylesheet, parsed)
        return len(parsed)
    except Exception:  # a missing, unreadable, refused or damaged file: the CSS is parsed
        return 0


def parsed_now(stylesheet: Stylesheet) -> tuple[bytes, list[tuple[Any, Any]]]:
    """What :func:`keep_parsed` keeps: the key line for ``stylesheet``'s variables now, and
    the rule sets it holds (taken in the app's thread; written in another)."""
    return _key_line(css_variables(stylesheet)), parsed_css(stylesheet)


def keep_parsed(key_line: bytes, parsed: list[tuple[Any, Any]]) -> None:
    """Write ``parsed`` (from :func:`parsed_now`) to the file, whole (a temporary file renamed
    over it), authenticated with the user's cache key (made if missing), in the user cache
    folder (made 0700 if missing; nothing is written into a folder others can write)."""
    from quiz.bank.cache_entry import KEY_FILE, read_key, unsafe_owner, write_entry
    from quiz.paths import data_dir, make_private_dirs

    try:
        folder = _folder()
        make_private_dirs(folder)
        if unsafe_owner(os.stat(folder), "folder") is not None:
            return
        key = read_key(data_dir() / KEY_FILE)
        write_entry(folder / FILE, MAGIC, key_line, key, parsed, None)
    except Exception:  # the file only saves time
        return
