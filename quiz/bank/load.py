"""Load question banks: YAML files → a validated :class:`~quiz.bank.library.Library`, or every
problem found, each as ``path:line:col``.

The pipeline for one file (each step's problems are collected; the first fatal one stops that file):

1. bytes → text (:func:`quiz.bank.source.decode`): invalid UTF-8 is an error naming the byte.
2. text checks (:func:`quiz.bank.source.normalise`, :func:`~quiz.bank.source.resolve_tabs`):
   byte-order marks, odd line breaks, over-long lines and tabs, decided the same way whichever
   YAML parser runs.
3. events → plain values with marks (:func:`quiz.bank.nodes.build`): every scalar stays the string
   the author typed; anchors, aliases, tags, duplicate keys and deep nesting are rejected.
4. ``BankFile.model_validate`` (:mod:`quiz.bank.model`), each error located by
   :func:`quiz.bank.errors.validation_problems`; then unquoted free text cut short by `` #``, and
   question ids unique across the whole library.

Nothing here raises for bad input: an unexpected exception while loading a file becomes an
"internal error" diagnostic for that file.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from quiz.bank import errors, nodes
from quiz.bank.library import Diagnostic, Library, LoadedBank, LoadReport
from quiz.bank.model import BankFile
from quiz.bank.source import Problem, decode, normalise, resolve_tabs

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest bank file read, in bytes (a 10,000-question bank is about 9 MB)."""

BANK_SUFFIXES = (".yaml", ".yml")
"""File names a folder's banks end with."""

_SHAPE = "a bank file is a mapping with 'bank:' and 'questions:'"


@dataclass
class _FileResult:
    """One file's outcome: its problems, its validated bank, and its question ids with marks."""

    path: str
    problems: list[Problem] = field(default_factory=list)
    bank: BankFile | None = None
    ids: list[tuple[str, int, int]] = field(default_factory=list)


def load_library(paths: Sequence[str | os.PathLike[str]], *,
                 pure_python: bool = False) -> LoadReport:
    """Load every bank in ``paths`` into one library.

    Each path is a bank file (any name) or a folder, whose ``*.yaml`` and ``*.yml`` files are
    loaded in name order (not recursively: sub-folders are ignored). A file reached twice is
    loaded once. ``pure_python`` forces PyYAML's pure-Python parser instead of libyaml.

    Returns a :class:`LoadReport` with every problem of every file, errors and warnings, file by
    file in the order loaded and by line:column within a file. ``report.library`` is ``None`` when
    any error was found. A missing or unreadable path, or a folder without banks, is an error at
    line 0. Question ids must be unique across the library: a repeated id is an error at the
    repeat, naming the first one's ``path:line``.
    """
    results: list[_FileResult] = []
    if not paths:
        results.append(_FileResult("<no paths>", [Problem(0, 0, "no bank file or folder given")]))
    seen: set[Path] = set()
    for given in paths:
        for path, problem in _expand(Path(given)):
            if problem is not None:
                results.append(_FileResult(str(path), [problem]))
                continue
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            results.append(_load_path(path, pure_python))
    return _report(results)


def load_bank_text(text: str | bytes, path: str = "<string>", *,
                   pure_python: bool = False) -> LoadReport:
    """Load one bank from its content (``str``, or ``bytes`` to be decoded as UTF-8); ``path``
    names it in diagnostics. The same checks as :func:`load_library`, for one file."""
    return _report([_load_text(text, path, pure_python)])


def _expand(path: Path) -> list[tuple[Path, Problem | None]]:
    """The bank files a given path stands for, or the problem that it stands for none."""
    try:
        if path.is_dir():
            files = sorted(p for p in path.iterdir()
                           if p.suffix.lower() in BANK_SUFFIXES and p.is_file())
            if not files:
                return [(path, Problem(0, 0, "this folder has no bank files (*.yaml, *.yml)"))]
            return [(p, None) for p in files]
        if path.exists():
            return [(path, None)]
        return [(path, Problem(0, 0, "no such file or folder"))]
    except OSError as exc:
        return [(path, Problem(0, 0, f"cannot read this folder: {exc.strerror or exc}"))]


def _load_path(path: Path, pure_python: bool) -> _FileResult:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return _FileResult(str(path), [Problem(0, 0, f"this file is {size:,} bytes; a bank "
                                                  f"file may have at most {MAX_FILE_BYTES:,}")])
        data = path.read_bytes()
    except OSError as exc:
        return _FileResult(str(path), [Problem(0, 0, f"cannot read this file: "
                                                  f"{exc.strerror or exc}")])
    return _load_text(data, str(path), pure_python)


def _load_text(text: str | bytes, path: str, pure_python: bool) -> _FileResult:
    result = _FileResult(path)
    try:
        _load_into(result, text, pure_python)
    except Exception as exc:  # any bug must become a diagnostic, not a traceback
        result.problems.append(Problem(0, 0, f"internal error while loading this file "
                                       f"({type(exc).__name__}: {exc}); please report it"))
        result.bank = None
    return result


def _load_into(result: _FileResult, raw: str | bytes, pure_python: bool) -> None:
    problems = result.problems
    if isinstance(raw, bytes):
        decoded, problem = decode(raw)
        if problem is not None:
            problems.append(problem)
            return
        assert decoded is not None
        raw = decoded
    text, found = normalise(raw)
    if not found and "\t" in text:
        spans = nodes.scalar_spans(text.replace("\t", " "), pure_python=pure_python)
        try:
            text, found = resolve_tabs(text, spans)
        finally:
            spans.close()
    if found:
        problems += found
        return
    doc = nodes.build(text, pure_python=pure_python)
    problems += doc.problems
    if doc.fatal:
        return
    value = doc.value
    if not doc.found or value == "":
        problems.append(Problem(1, 1, f"the file is empty: {_SHAPE}"))
        return
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else "text"
        line, column = _position(doc.start)
        problems.append(Problem(line, column, f"{_SHAPE} (this file is {kind})"))
        return
    result.ids = _question_ids(value, doc.marks)
    enabled = gc.isenabled()
    gc.disable()
    try:
        result.bank = BankFile.model_validate(value, by_name=False)
    except ValidationError as exc:
        # A value already reported while reading (an alias, a tag) would only repeat the news.
        taken = {(p.line, p.column) for p in doc.problems if p.severity == "error"}
        problems += [p for p in errors.validation_problems(exc, value, doc.marks)
                     if (p.line, p.column) not in taken]
    finally:
        if enabled:
            gc.enable()
    if doc.comments:
        lines = text.split("\n")
        for keys, start, end in doc.comments:
            if errors.is_free_text(keys):
                problems.append(Problem(*_position(start),
                                        errors.comment_message(lines, start, end)))


def _position(mark: Any) -> tuple[int, int]:
    return (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)


def _question_ids(value: dict[str, Any],
                  marks: dict[int, nodes.Marks]) -> list[tuple[str, int, int]]:
    """Each question's id with the line:column of its value (ids that are not text are skipped:
    validation reports them)."""
    questions = value.get("questions")
    if not isinstance(questions, list):
        return []
    ids = []
    for question in questions:
        if isinstance(question, dict) and isinstance(question.get("id"), str):
            ids.append((question["id"], *_position(marks[id(question)][2]["id"])))
    return ids


def _report(results: list[_FileResult]) -> LoadReport:
    """Check ids across files, order the diagnostics and build the library if all is well."""
    first: dict[str, tuple[str, int]] = {}
    for result in results:
        for qid, line, column in result.ids:
            if qid in first:
                where = "%s:%d" % first[qid]
                result.problems.append(Problem(line, column, f"duplicate question id '{qid}': "
                                               f"already used at {where}"))
            else:
                first[qid] = (result.path, line)
    diagnostics = [
        Diagnostic(r.path, p.line, p.column, p.message,
                   "warning" if p.severity == "warning" else "error")
        for r in results
        for p in sorted(r.problems, key=lambda p: (p.line, p.column))
    ]
    if any(d.severity == "error" for d in diagnostics):
        return LoadReport(library=None, diagnostics=diagnostics)
    banks = []
    for result in results:
        if result.bank is None:  # pragma: no cover - a file without a bank always has an error
            diagnostics.append(Diagnostic(result.path, 0, 0, "internal error: this file gave "
                                          "neither a bank nor an error; please report it"))
            return LoadReport(library=None, diagnostics=diagnostics)
        banks.append(LoadedBank(Path(result.path), result.bank.bank,
                                tuple(result.bank.questions)))
    topics: dict[str, str] = {}
    for bank in banks:
        for key, name in bank.info.topics.items():
            topics.setdefault(key, name)
    for bank in banks:
        for question in bank.questions:
            topics.setdefault(question.topic, question.topic)
    return LoadReport(library=Library(banks=tuple(banks), topics=topics), diagnostics=diagnostics)
