"""How far a load has got: :class:`LoadProgress`, the report :func:`quiz.bank.load.load_library`
gives its ``progress`` callback, and the tracker that makes those reports while files are
read, checked or taken from the cache."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class LoadProgress:
    """How far :func:`quiz.bank.load.load_library` has got, for a progress display.

    Attributes:
        file: the 1-based number of the file being read (``files`` when all are read).
        files: how many bank files the paths stand for.
        path: the file being read, as given.
        questions: questions read so far: those of the files done, then this file's so far.
        stage: ``"reading"`` (parsing the YAML), ``"checking"`` (validating the questions read),
            ``"cached"`` (taken whole from the validated-bank cache) or ``"done"``; ``"opening"``
            as a file starts.
        done_bytes: an estimate of the work done, in bytes of bank files: a file read counts
            :data:`READ_SHARE` of its size, a file checked (or taken from the cache) all of it.
        total_bytes: the size of every bank file, in bytes (``done_bytes`` reaches it at the end).
    """

    file: int
    files: int
    path: str
    questions: int
    stage: str
    done_bytes: int
    total_bytes: int


READ_SHARE = 0.6
"""The share of a file's loading time spent parsing it (the rest is validation), measured on
the generated 10,000-question bank: it weighs :attr:`LoadProgress.done_bytes`."""

PROGRESS_INTERVAL_S = 0.25
"""Shortest time between two progress reports within a file (each report costs a repaint)."""

PROGRESS_STEP = 0.04
"""Least share of a file's text read between two progress reports within it. Each report
costs the app's thread a repaint, which holds the interpreter lock the loading thread needs:
on a busy machine a load lasts longer, and reports by time alone then took as much as 40 % of
a 10,000-question file's parsing (96 repaints); by share, a file is reported at most 25 times
while it is read, however slow the machine."""


class ProgressTracker:
    """Turns what :func:`quiz.bank.load.load_library` does into :class:`LoadProgress` reports
    (none when there is no ``progress`` callback)."""

    def __init__(self, report: Callable[[LoadProgress], None] | None, files: int,
                 total_bytes: int) -> None:
        self.report = report
        self.files = files
        self.total = total_bytes
        self.file = 0
        self.path = ""
        self.questions = 0
        """Questions of the files done."""
        self.bytes_done = 0
        """Bytes of the files done."""
        self.size = 0
        self.last = 0.0
        self.last_index = 0
        """Where the last report of the current file's reading was, in characters."""

    def _send(self, stage: str, questions: int, done: float) -> None:
        if self.report is not None:
            self.last = time.monotonic()
            done_bytes = min(self.total, self.bytes_done + int(done))
            self.report(LoadProgress(self.file, self.files, self.path, self.questions + questions,
                                     stage, done_bytes, self.total))

    def start(self, path: Path, size: int) -> None:
        """A file starts."""
        self.file += 1
        self.path, self.size = str(path), size
        self.last_index = 0
        self._send("opening", 0, 0)

    def reading(self, items: int, index: int, length: int) -> None:
        """``items`` questions of the current file read, up to character ``index`` of
        ``length``: reported at most every :data:`PROGRESS_INTERVAL_S` seconds, and every
        :data:`PROGRESS_STEP` of the file."""
        if self.report is not None and time.monotonic() - self.last >= PROGRESS_INTERVAL_S \
                and index - self.last_index >= PROGRESS_STEP * length:
            self.last_index = index
            self._send("reading", items, self.size * READ_SHARE * index / max(length, 1))

    def checking(self, items: int) -> None:
        """The current file's ``items`` questions are read; validation starts."""
        self._send("checking", items, self.size * READ_SHARE)

    def cached(self, items: int) -> None:
        """The current file came from the cache whole."""
        self._send("cached", items, self.size)

    def finish(self, items: int) -> None:
        """The current file is done, with ``items`` questions."""
        self.questions += items
        self.bytes_done += self.size

    def done(self) -> None:
        """Every file is done."""
        self.path = ""
        self._send("done", 0, 0)
