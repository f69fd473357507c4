"""Load question banks: YAML files → a validated :class:`~quiz.bank.library.Library`, or every
problem found, each as ``path:line:col``.

The pipeline for one file (each step's problems are collected; the first fatal one stops that file):

1. bytes → text (:func:`quiz.bank.text_checks.decode`): invalid UTF-8 is an error naming the byte.
2. text checks (:func:`quiz.bank.text_checks.normalise`,
   :func:`~quiz.bank.text_checks.resolve_tabs`): byte-order marks, odd line breaks, over-long
   lines and tabs, decided the same way whichever YAML parser runs.
3. events → plain values with marks (:func:`quiz.bank.yaml_reader.build`): every scalar stays the
   string the author typed; anchors, aliases, tags, duplicate keys and deep nesting are rejected.
4. ``BankFile.model_validate`` (:mod:`quiz.bank.model`); when it fails, the cross-field rules
   that its failure skipped run field by field (:mod:`quiz.bank.field_checks`); each error is
   located by :func:`quiz.bank.validation_messages.validation_problems`; then unquoted free text
   cut short by `` #``, and question ids unique across the whole library.

Nothing here raises for bad input: an unexpected exception while loading a file becomes an
"internal error" diagnostic for that file.
"""

from __future__ import annotations

import gc
import os
import stat
import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz.bank.bank_paths import bank_files, not_regular
from quiz.bank.library import Library, LoadedBank, LoadReport
from quiz.bank.load_progress import LoadProgress, ProgressTracker
from quiz.bank.load_results import StoredBankError, _FileResult, _from_cache, _report
from quiz.bank.problems import Problem, mark_position

if TYPE_CHECKING:
    from quiz.bank import yaml_reader
    from quiz.bank.cache import BankCache
    from quiz.bank.model import BankInfo, Question

    Parsed = tuple[Any, dict[int, yaml_reader.Marks], str]
    """A file's parsed value, the marks of its containers and its text as parsed (see
    ``parses``)."""

MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest bank file read, in bytes (a 10,000-question bank is about 9 MB)."""

_SHAPE = "a bank file is a mapping with 'bank:' and 'questions:'"


def load_library(paths: Sequence[str | os.PathLike[str]], *,
                 pure_python: bool = False, cache_dir: Path | None = None,
                 progress: Callable[[LoadProgress], None] | None = None,
                 cache_writes: list[Callable[[], None]] | None = None,
                 parses: dict[str, Parsed] | None = None,
                 bank_cache: BankCache | None = None,
                 each: Callable[[LoadedBank, Parsed | None], None] | None = None) -> LoadReport:
    """Load every bank in ``paths`` into one library.

    Each path is a bank file (any name, hidden ones too) or a folder, whose ``*.yaml`` and
    ``*.yml`` files are loaded in name order, skipping hidden ones (``.draft.yaml``, macOS's
    ``._bank.yaml``) as a shell glob does (not recursively: sub-folders are ignored; a folder
    without banks of its own says so when its sub-folders have some). A file reached twice is
    loaded once. ``pure_python`` forces PyYAML's pure-Python parser instead of libyaml.
    With ``cache_dir``, a file that loaded without errors before, and has not changed since, is
    taken from the validated-bank cache there (:mod:`quiz.bank.cache`) with the same warnings,
    and a file that loads without errors is stored there; ``pure_python`` turns the cache off.
    A file missing from that cache is looked up in the bundled banks' prebuilt entries
    (:mod:`quiz.bank.shipped`), which serve a file of the same bytes as a bundled bank.
    With ``cache_writes``, the entries to store are not written here: a function that writes
    each is appended to that list, for the caller to run when it has time (the study app runs
    them once the start screen is ready), and one that stores the prebuilt entries that served
    files in the cache of ``cache_dir`` (:meth:`~quiz.bank.cache.BankCache.adopt`); without
    ``parses`` and ``each``, the function that writes the last file's entry lets its parse go
    first (when no bank came from the cache).
    A bank served by the cache has its questions decoded when they are first read
    (:class:`~quiz.bank.library.LoadedBank`).
    ``progress``, if given, is called with a :class:`LoadProgress` as each file starts, a few
    times a second while one is read and checked, and once at the end (stage ``"done"``), in
    the thread that loads.
    ``parses``, if given, receives each file read in full whose bank is valid: its path (as
    diagnostics name it) → its parsed value, the marks of its containers
    (:class:`~quiz.bank.yaml_reader.Document`) and its text as parsed, so that the linter
    places its findings without parsing the file again (:func:`quiz.bank.lint.lint_library`).
    A file served by the cache is not there.
    ``bank_cache``, if given, is the cache used instead of one in ``cache_dir`` (the lint
    cache of :mod:`quiz.bank.lint_cache` is one).
    ``each``, if given, is called with each file's bank as soon as the file is loaded without
    an error of its own (errors across files, such as a repeated id, are found at the end),
    with its parse when it was read in full (taken out of ``parses``), ``None`` when the cache
    served it. Its models are let go after the call: the banks of the library returned load
    their file again should their questions be read (``quiz validate`` lints a library file
    by file, never holding every file's models and parse at once).

    Returns a :class:`LoadReport` with every problem of every file, errors and warnings, file by
    file in the order loaded and by line:column within a file. ``report.library`` is ``None`` when
    any error was found. A missing or unreadable path, a path that is not a regular file or a
    folder (a device, a named pipe), a file over :data:`MAX_FILE_BYTES`, or a folder without
    banks, is an error at line 0. Question ids and bank ids must be unique across the library: a
    repeated one is an error at the repeat, naming the first one's file. A topic key that two banks
    give different display names is a warning at the second name (the first one is used).
    """
    results: list[_FileResult] = []
    own_cache = False
    if pure_python:
        bank_cache = None
    elif bank_cache is None and cache_dir is not None:
        own_cache = True
        from quiz.bank.cache import BankCache
        from quiz.bank.shipped import default_entries

        bank_cache = BankCache(cache_dir, prebuilt=default_entries())
    if not paths:
        results.append(_FileResult("<no paths>", [Problem(0, 0, "no bank file or folder given")]))
    seen: set[Path] = set()
    files: list[tuple[int, Path | _FileResult]] = []
    for given in paths:
        if not os.fspath(given):  # Path("") is ".": an empty argument must not mean this folder
            files.append((0, _FileResult("''", [Problem(
                0, 0, "an empty path names no bank file or folder (for the current folder, "
                "write .)")])))
            continue
        for path, problem in bank_files(Path(given)):
            if problem is not None:
                files.append((0, _FileResult(str(path), [problem])))
                continue
            resolved = path.resolve()
            if resolved in seen:
                continue
            seen.add(resolved)
            files.append((_size(path), path))
    tracker = ProgressTracker(progress, sum(1 for _, f in files if isinstance(f, Path)),
                       sum(size for size, _ in files))
    stat_ns = time.time_ns()  # before any file's stat: see quiz.bank.cache.stat_vouches
    # With cache_writes (the app, which shows the library first), the parse of the last file
    # is let go when its cache entry is written, not before the library is shown (freeing the
    # values and marks of a 10,000-question file takes 60-90 ms); an earlier file's goes as
    # the next file starts, so no more than one is kept.
    kept: tuple[_FileResult, int] | None = None
    for size, item in files:
        if isinstance(item, _FileResult):
            results.append(item)
            continue
        if kept is not None:
            kept[0].parsed = None
            kept = None
        tracker.start(item, size)
        writes = len(cache_writes) if cache_writes is not None else 0
        result = _load_path(item, pure_python, bank_cache, tracker, cache_writes, parses)
        if cache_writes is not None and parses is None and each is None \
                and len(cache_writes) == writes + 1:
            kept = (result, writes)
        else:
            result.parsed = None
        tracker.finish(len(result.ids))
        if each is not None:
            _visit(item, result, each, parses)
        results.append(result)
    if kept is not None and cache_writes is not None:
        if any(r.stored is not None for r in results):
            kept[0].parsed = None  # banks served by the cache are decoded first: not alongside
        else:
            cache_writes[kept[1]] = _after(kept[0].let_go, cache_writes[kept[1]])
    if own_cache and cache_writes is not None and bank_cache is not None \
            and bank_cache.served_by_prebuilt:
        cache_writes.append(partial(bank_cache.adopt, stat_ns))
    report = _report(results)
    if bank_cache is not None:
        report.notes += bank_cache.notes
    tracker.done()
    return report



def _after(first: Callable[[], None], then: Callable[[], None]) -> Callable[[], None]:
    """A function that calls ``first``, then ``then``."""
    def both() -> None:
        first()
        then()

    return both


def _visit(path: Path, result: _FileResult, each: Callable[[LoadedBank, Parsed | None], None],
           parses: dict[str, Parsed] | None) -> None:
    """Call ``each`` with the bank of a file loaded without errors (see :func:`load_library`),
    then let its models go: the result keeps a bank that loads the file again if asked."""
    if any(p.severity == "error" for p in result.problems):
        return
    parsed = parses.pop(result.path, None) if parses is not None else None
    if result.stored is not None:
        each(result.stored, parsed)
        return
    if result.bank is None:  # pragma: no cover - a file without a bank always has an error
        return
    from quiz.bank.library import BankHeader

    loaded = LoadedBank(path, result.bank.bank, tuple(result.bank.questions), result.hashes)
    each(loaded, parsed)
    ids = tuple(qid for qid, _, _ in result.ids)
    result.stored = LoadedBank.stored(path, BankHeader.of(result.bank.bank), ids,
                                      loaded.question_topics, result.hashes,
                                      lambda: _reload(path, ids))
    result.bank = None


def _size(path: Path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def load_for_study(paths: Sequence[str | os.PathLike[str]], *,
                   progress: Callable[[LoadProgress], None] | None = None,
                   cache_writes: list[Callable[[], None]] | None = None,
                   decode: bool = True) -> LoadReport:
    """Load a library for a study session: :func:`quiz.bank.load.load_library` with the cache
    in :func:`quiz.paths.cache_dir`, then, when the library is usable, ``gc.freeze()``.

    Freezing moves everything alive into the garbage collector's permanent generation, so a
    later full collection does not scan the library again (at 100,000 questions one scan takes
    most of a second). The collector is paused while loading (what a load builds is acyclic:
    a collection would only rescan the growing heap). Meant for the long-lived study process;
    ``progress`` is passed to :func:`load_library`.

    Banks served by the cache come with their models still encoded
    (:class:`~quiz.bank.library.LoadedBank`). Without ``cache_writes`` they are decoded here,
    before the freeze. With ``cache_writes`` (the study app, which shows the library first),
    the work that can wait is appended there for the caller to run once the library is on
    screen: first decoding those banks, then the freeze, then writing the cache entries of
    the banks loaded in full (see :func:`load_library`).

    Returns the :class:`~quiz.bank.library.LoadReport`."""
    from quiz.paths import cache_dir

    later: list[Callable[[], None]] = []
    enabled = gc.isenabled()
    gc.disable()
    try:
        report = load_library(paths, cache_dir=cache_dir(), progress=progress,
                              cache_writes=later if cache_writes is not None else None)
        library = report.library
        if library is not None:
            if cache_writes is not None and not all(bank.decoded for bank in library.banks):
                # Frozen once decoded, by the caller (a freeze walks the heap: 4-5 ms here).
                later.insert(0, lambda: _decode_and_freeze(library))
            elif decode:
                library.decode()
                gc.freeze()
    finally:
        if enabled:
            gc.enable()
    if cache_writes is not None:
        cache_writes += later
    return report


def _decode_and_freeze(library: Library) -> None:
    """Decode a library's stored banks, then move what that built out of the garbage
    collector's way (see :func:`load_for_study`)."""
    library.decode()
    gc.freeze()


def load_bank_text(text: str | bytes, path: str = "<string>", *,
                   pure_python: bool = False) -> LoadReport:
    """Load one bank from its content (``str``, or ``bytes`` to be decoded as UTF-8); ``path``
    names it in diagnostics. The same checks as :func:`load_library`, for one file, the size
    limit included: content over :data:`MAX_FILE_BYTES` bytes (a ``str`` counted in UTF-8) is
    an error at line 0 and is not parsed."""
    size = len(text) if isinstance(text, bytes) else _utf8_length(text)
    if size > MAX_FILE_BYTES:
        return _report([_FileResult(path, [Problem(
            0, 0, f"this text is {size:,} bytes; {_too_big()}")])])
    return _report([_load_text(text, path, pure_python)])


def _utf8_length(text: str) -> int:
    """The size of ``text`` in UTF-8 bytes; text too short to pass :data:`MAX_FILE_BYTES`
    whatever its characters is not encoded (its length in characters is returned)."""
    if text.isascii() or len(text) * 4 <= MAX_FILE_BYTES:
        return len(text)
    return len(text.encode("utf-8", "surrogatepass"))


def _too_big() -> str:
    return f"a bank file may have at most {MAX_FILE_BYTES:,} bytes"


def _load_path(path: Path, pure_python: bool, bank_cache: BankCache | None = None,
               tracker: ProgressTracker | None = None,
               cache_writes: list[Callable[[], None]] | None = None,
               parses: dict[str, Parsed] | None = None) -> _FileResult:
    """Read one file, refusing anything that is not a regular file before opening it, and never
    holding more than :data:`MAX_FILE_BYTES` + 1 bytes of it (the file may grow while read).
    With ``bank_cache``, an entry for the file is looked for first (the file is then only
    hashed as it is read); a file loaded in full without errors is stored, at once or, with
    ``cache_writes``, by a function appended there."""
    def fail(problem: Problem) -> _FileResult:
        return _FileResult(str(path), [problem])

    too_big = _too_big()
    try:
        stat_ns = time.time_ns()  # when the stat was taken: see quiz.bank.cache.stat_vouches
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            return fail(not_regular(info.st_mode))
        if info.st_size > MAX_FILE_BYTES:
            return fail(Problem(0, 0, f"this file is {info.st_size:,} bytes; {too_big}"))
        # O_NONBLOCK: should the path become a named pipe after the stat, opening it must not
        # block; fstat then sees what was really opened.
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        digest: str | None = None
        with open(fd, "rb") as file:
            mode = os.fstat(file.fileno()).st_mode
            if not stat.S_ISREG(mode):
                return fail(not_regular(mode))
            if bank_cache is not None:
                stored, digest = bank_cache.get(path.resolve(), info, file)
                cached = None if stored is None else _from_cache(path, stored, _reload)
                if cached is not None:
                    if tracker is not None:
                        tracker.cached(len(cached.ids))
                    return cached
                file.seek(0)
            data = file.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        return fail(Problem(0, 0, f"cannot read this file: {exc.strerror or exc}"))
    if len(data) > MAX_FILE_BYTES:
        return fail(Problem(0, 0, f"this file has more than {MAX_FILE_BYTES:,} bytes; {too_big}"))
    hashed: Callable[[], str] | None = None
    if bank_cache is not None and digest is None:  # the entry's content hash, made meanwhile
        from quiz.bank.cache import hashing

        hashed = hashing(data)
    result = (_load_text(data, str(path), pure_python, tracker) if parses is None
              else _load_text(data, str(path), pure_python, tracker, parses))
    del data
    bank = result.bank
    if bank_cache is None or bank is None or any(
            p.severity == "error" for p in result.problems):
        return result
    from quiz.bank.library import BankHeader

    if hashed is not None:
        digest = hashed()
    assert digest is not None  # from the cache's look-up, else hashed meanwhile
    put = bank_cache.put
    resolved = path.resolve()
    index = {
        "problems": [tuple(p) for p in result.problems], "ids": result.ids,
        "bank_id": result.bank_id, "topics": result.topics, "hashes": result.hashes,
        "header": BankHeader.of(bank.bank),
        "question_topics": tuple(q.topic for q in bank.questions),
    }

    def write() -> None:
        put(resolved, info, digest, index, (bank.bank, tuple(bank.questions)), stat_ns=stat_ns)

    if cache_writes is None:
        write()
    else:
        cache_writes.append(write)
    return result


def _reload(path: Path, ids: tuple[str, ...]) -> tuple[BankInfo, tuple[Question, ...]]:
    """The models of ``path`` loaded in full again, when it still has the questions ``ids``.

    Raises:
        StoredBankError: it no longer has them (the file changed or broke since it was
            loaded). Reading the questions again tries again.
    """
    result = _load_path(path, False)
    if result.bank is not None and not any(p.severity == "error" for p in result.problems) \
            and tuple(q.id for q in result.bank.questions) == ids:
        return result.bank.bank, tuple(result.bank.questions)
    raise StoredBankError(f"{path}: this bank's questions could not be read back from the "
                          "validated-bank cache, and the file has changed its questions since "
                          "quiz started: start quiz again to load it as it is now")


def _load_text(text: str | bytes, path: str, pure_python: bool,
               tracker: ProgressTracker | None = None,
               parses: dict[str, Parsed] | None = None) -> _FileResult:
    result = _FileResult(path)
    # No garbage collection while a file loads: its millions of values and marks are alive
    # throughout, and each collection would walk them all again (1 s of a 10,000-question
    # file's load went to collections).
    enabled = gc.isenabled()
    gc.disable()
    try:
        _load_into(result, text, pure_python, tracker, parses)
    except Exception as exc:  # any bug must become a diagnostic, not a traceback
        from quiz.debug import HINT, show_traceback

        show_traceback(exc)
        result.problems.append(Problem(0, 0, f"internal error while loading this file "
                                       f"({type(exc).__name__}: {exc}); please report it "
                                       f"({HINT})"))
        result.bank = None
    finally:
        if enabled:
            gc.enable()
    return result


def _load_into(result: _FileResult, raw: str | bytes, pure_python: bool,
               tracker: ProgressTracker | None = None,
               parses: dict[str, Parsed] | None = None) -> None:
    # The parser and the validation are imported here, not with this module: a start served
    # from the cache needs neither.
    from pydantic import ValidationError

    from quiz.bank import display_checks, validation_messages, yaml_messages, yaml_reader
    from quiz.bank.computed.template import placeholder_questions
    from quiz.bank.field_checks import cross_field_errors
    from quiz.bank.model import BankFile
    from quiz.bank.places import header_places, question_ids
    from quiz.bank.text_checks import decode, flagged_problems, normalise, resolve_tabs

    problems = result.problems
    from_utf8 = isinstance(raw, bytes)
    if isinstance(raw, bytes):
        decoded, problem = decode(raw)
        if problem is not None:
            problems.append(problem)
            return
        assert decoded is not None
        raw = decoded
    text, found = normalise(raw, from_utf8=from_utf8)
    if not found and "\t" in text:
        spans = yaml_reader.scalar_spans(text.replace("\t", " "), pure_python=pure_python)
        try:
            text, found = resolve_tabs(text, spans)
        finally:
            spans.close()
    if found:
        problems += found
        return
    length = len(text)
    doc = yaml_reader.build(text, pure_python=pure_python, keys=validation_messages.model_keys(),
                            progress=None if tracker is None or tracker.report is None else
                            lambda items, index: tracker.reading(items, index, length))
    problems += doc.problems
    problems += flagged_problems(text, doc.flagged)
    if doc.fatal:
        return
    value = doc.value
    if not doc.found or value == "":
        problems.append(Problem(1, 1, f"the file is empty: {_SHAPE}"))
        return
    if not isinstance(value, dict):
        kind = "a list" if isinstance(value, list) else "text"
        line, column = mark_position(doc.start)
        problems.append(Problem(line, column, f"{_SHAPE} (this file is {kind})"))
        return
    result.ids = question_ids(value, doc.marks)
    result.bank_id, result.topics = header_places(value, doc.marks)
    if tracker is not None:
        tracker.checking(len(result.ids))
    enabled = gc.isenabled()
    gc.disable()
    try:
        # A question without '{{' in its lines has no placeholder: the model then looks only
        # for the computed keys (quiz.bank.model.Question._render_computed).
        result.bank = BankFile.model_validate(value, by_name=False, context={
            "placeholders": placeholder_questions(text, value, doc.marks)})
    except ValidationError as exc:
        # A value already reported while reading (an alias, a tag) would only repeat the news.
        taken = {(p.line, p.column) for p in doc.problems if p.severity == "error"}
        errors = exc.errors(include_url=False)
        errors += cross_field_errors(value, errors)
        located = validation_messages.validation_problems(errors, value, doc.marks, text)
        problems += [p for p in located if (p.line, p.column) not in taken]
    finally:
        if enabled:
            gc.enable()
    if result.bank is not None:
        from quiz.bank.identity import content_hash

        result.hashes = tuple(content_hash(q) for q in result.bank.questions)
        problems += display_checks.wide_diagrams(text, value, doc.marks, result.bank)
        problems += display_checks.letter_references(text, result.bank, value, doc.marks)
        problems += display_checks.idle_misconceptions(text, result.bank, value, doc.marks)
        result.parsed = (value, doc.marks, text)
        if parses is not None:
            parses[result.path] = result.parsed
    if doc.comments:
        lines = text.split("\n")
        for keys, start, end in doc.comments:
            if validation_messages.is_free_text(keys):
                problems.append(Problem(*mark_position(start),
                                        yaml_messages.comment_message(lines, start, end)))
