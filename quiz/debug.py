"""``QUIZ_DEBUG=1``: show the traceback behind an "internal error".

Every front end turns an unexpected exception into one line ("internal error: ...; please report
it") rather than a traceback. With the environment variable :data:`DEBUG_ENV` set to ``1`` the
traceback is printed to stderr as well, so a bug report can carry it.
"""

from __future__ import annotations

import os
import sys
import traceback

DEBUG_ENV = "QUIZ_DEBUG"
"""Environment variable that, set to ``1``, prints the traceback behind an internal error."""

HINT = f"set {DEBUG_ENV}=1 to see the traceback"
"""Appended to an internal-error message: how to see more."""


def debug_enabled() -> bool:
    """True when ``QUIZ_DEBUG=1`` is set."""
    return os.environ.get(DEBUG_ENV, "").strip() == "1"


def show_traceback(exc: BaseException) -> None:
    """Print the traceback of ``exc`` to stderr when :func:`debug_enabled`; else nothing."""
    if debug_enabled():
        traceback.print_exception(exc, file=sys.stderr)
