"""What loading gives for each bank file, and the load report made of them: shared by the full
loader (:mod:`quiz.bank.load`) and a start served by the validated-bank cache
(:mod:`quiz.bank.cached_start`), which reads its entries' indexes before the first paint without
importing the loader (its YAML reader, models and progress are for files loaded in full).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quiz.bank.library import BankHeader, Diagnostic, Library, LoadedBank, LoadReport
from quiz.bank.problems import Problem

if TYPE_CHECKING:
    from quiz.bank import yaml_reader
    from quiz.bank.cache_entry import Stored
    from quiz.bank.model import BankFile, BankInfo, Question

    Parsed = tuple[Any, dict[int, yaml_reader.Marks], str]
    """A file's parsed value, the marks of its containers and its text as parsed (see
    :func:`quiz.bank.load.load_library`'s ``each``)."""

    Reload = Callable[[Path, tuple[str, ...]], tuple[BankInfo, tuple[Question, ...]]]
    """Loads a file in full again for the questions of the given ids (raising
    :class:`StoredBankError` when it no longer has them)."""


class _FileResult:
    """One file's outcome: its problems, its validated bank, and its question ids with marks.

    A plain class rather than a dataclass (a dataclass takes about 0.5 ms to create, at every
    start, served by the cache or not); nothing compares, copies or prints one."""

    __slots__ = ("path", "problems", "bank", "ids", "bank_id", "topics", "hashes", "stored",
                 "parsed")

    def __init__(self, path: str, problems: list[Problem] | None = None,
                 bank: BankFile | None = None, ids: list[tuple[str, int, int]] | None = None,
                 bank_id: tuple[str, int, int] | None = None,
                 topics: list[tuple[str, str, int, int]] | None = None,
                 hashes: tuple[str, ...] = (), stored: LoadedBank | None = None,
                 parsed: Parsed | None = None) -> None:
        self.path = path
        self.problems: list[Problem] = [] if problems is None else problems
        self.bank = bank
        self.ids: list[tuple[str, int, int]] = [] if ids is None else ids
        self.bank_id = bank_id
        """``bank: id:`` with the line:column of its value, when it is text."""
        self.topics: list[tuple[str, str, int, int]] = [] if topics is None else topics
        """``bank: topics:`` as (key, display name, line, column of the name), where both are
        text."""
        self.hashes = hashes
        """Each question's content hash (:mod:`quiz.bank.identity`), once the bank is valid."""
        self.stored = stored
        """The bank served by the validated-bank cache (its models decoded when first read);
        ``bank`` is then ``None``."""
        self.parsed = parsed
        """A valid bank's parse, until :func:`load_library` lets it go."""

    def let_go(self) -> None:
        """Let the parse go (:attr:`parsed`)."""
        self.parsed = None


def _from_cache(path: Path, stored: Stored, reload: Reload) -> _FileResult | None:
    """The result of a file served by the cache (``path`` as given this time: diagnostics
    name it so), or ``None`` when the entry's index is not what this loader writes. Should its
    payload not read back, ``reload`` gives the file's models (see :func:`_decode_stored`)."""

    try:
        index = stored.index
        header, hashes = index["header"], tuple(index["hashes"])
        ids = [(str(qid), int(line), int(column)) for qid, line, column in index["ids"]]
        topics = tuple(index["question_topics"])
        if not isinstance(header, BankHeader) or not len(hashes) == len(ids) == len(topics):
            return None
        result = _FileResult(
            str(path), [Problem(*p) for p in index["problems"]], ids=ids,
            bank_id=index["bank_id"], topics=index["topics"], hashes=hashes)
    except (KeyError, TypeError, ValueError):
        return None
    question_ids = tuple(qid for qid, _, _ in ids)
    result.stored = LoadedBank.stored(path, header, question_ids, topics, hashes,
                                      lambda: _decode_stored(stored, path, question_ids, reload))
    return result


class StoredBankError(RuntimeError):
    """A bank served by the cache could not be decoded, and its file no longer gives the
    same questions (the message says what to do)."""


def _decode_stored(stored: Stored, path: Path, ids: tuple[str, ...],
                   reload: Reload) -> tuple[BankInfo, tuple[Question, ...]]:
    """The models of a bank served by the cache: its payload read, checked and unpickled; or,
    should that fail (the entry was damaged, removed or replaced since the start), the file
    loaded in full again (``reload``: :func:`quiz.bank.load._reload`), when it still has the
    same question ids in the same order — what the library already shows (its count, topics
    and progress index).

    Raises:
        StoredBankError: neither works (the file changed its questions, or broke, since the
            start). Reading the questions again tries again.
    """
    try:
        info, questions = stored.decode()
        return info, tuple(questions)
    except Exception as exc:  # never serve a payload that does not read back whole
        from quiz.debug import show_traceback

        show_traceback(exc)
    return reload(path, ids)


def _across_files(results: list[_FileResult]) -> None:
    """Bank ids must be unique across the library; a topic key should have one display name."""
    banks: dict[str, str] = {}
    topics: dict[str, tuple[str, str]] = {}
    for result in results:
        if result.bank_id is not None:
            bank_id, line, column = result.bank_id
            if bank_id in banks:
                result.problems.append(Problem(line, column, f"bank id {_shown(bank_id)} is "
                                               f"already used by {banks[bank_id]}"))
            else:
                banks[bank_id] = result.path
        for key, name, line, column in result.topics:
            if key not in topics:
                topics[key] = (name, result.path)
            elif topics[key][0] != name:
                known, where = topics[key]
                result.problems.append(Problem(
                    line, column, f"topic {_shown(key)} is already named {_shown(known)} by "
                    f"{where}; this bank's name {_shown(name)} is not used", "warning"))


def _shown(text: str) -> str:
    """``text`` quoted for a message: ``repr`` escapes control characters; long text is cut."""
    return repr(text if len(text) <= 60 else text[:57] + "...")


def _report(results: list[_FileResult]) -> LoadReport:
    """Check ids across files, order the diagnostics and build the library if all is well."""
    _across_files(results)
    first: dict[str, tuple[str, int]] = {}
    for result in results:
        for qid, line, column in result.ids:
            if qid in first:
                where = "%s:%d" % first[qid]
                result.problems.append(Problem(line, column, f"duplicate question id "
                                               f"{_shown(qid)}: already used at {where}"))
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
        if result.stored is not None:
            banks.append(result.stored)
            continue
        if result.bank is None:  # pragma: no cover - a file without a bank always has an error
            diagnostics.append(Diagnostic(result.path, 0, 0, "internal error: this file gave "
                                          "neither a bank nor an error; please report it"))
            return LoadReport(library=None, diagnostics=diagnostics)
        banks.append(LoadedBank(Path(result.path), result.bank.bank,
                                tuple(result.bank.questions), result.hashes))
    topics: dict[str, str] = {}
    for bank in banks:
        for key, name in bank.header.topics.items():
            topics.setdefault(key, name)
    for bank in banks:
        for topic in bank.question_topics:
            topics.setdefault(topic, topic)
    return LoadReport(library=Library(banks=tuple(banks), topics=topics), diagnostics=diagnostics)
