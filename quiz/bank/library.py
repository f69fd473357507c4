"""A library: the banks loaded from files or folders; question ids are unique across it.

Built by :func:`quiz.bank.load.load_library`; consumed by the study session and the TUI.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:  # not imported at run time: the study app paints before pydantic is loaded
    from quiz.bank.model import BankInfo, Question


_ESCAPES = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\\": "\\\\", '"': '\\"'}


def quoted_path(path: str) -> str:
    """``path`` as a diagnostic shows it: unchanged, unless it holds a control character or a
    line or paragraph separator (a file name may hold a newline, which would break the
    one-line ``path:line:col`` form). Such a path is written in double quotes with C escapes
    (``\\n``, ``\\t``, ``\\xNN``, ``\\uNNNN``; a backslash and a quote escaped too), as git
    quotes an unusual file name."""
    if path.isprintable() or not any(_unprintable(c) for c in path):
        return path  # (a printable path has none of them: tested in C first)
    out = []
    for c in path:
        if c in _ESCAPES:
            out.append(_ESCAPES[c])
        elif "\udc80" <= c <= "\udcff":  # a byte of a name that is not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(c) - 0xDC00:02x}")
        elif _unprintable(c):
            out.append(f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _unprintable(c: str) -> bool:
    return c < " " or "\x7f" <= c <= "\x9f" or c in "\u2028\u2029" or "\udc80" <= c <= "\udcff"


class Diagnostic(NamedTuple):
    """One problem found in a bank file.

    ``line`` and ``column`` are 1-based; 0 means "the whole file" (an unreadable file, say).
    ``str()`` gives the ``path:line:col: severity: message`` form that editors and CI understand.
    Immutable; ``d._replace(severity="error")`` is a changed copy. (A named tuple, not a frozen
    dataclass: this module is imported before the study app's first frame, and making the
    dataclass took 0.5 ms of it.)
    """

    path: str
    line: int
    column: int
    message: str
    severity: Literal["error", "warning"] = "error"
    rule: str | None = None
    """For a lint finding, the rule as ``code name`` (``Q104 longest-option-is-key``); None for
    a problem of the format itself."""
    hint: str | None = None
    """For a lint finding, a one-line suggestion of how to fix it."""

    def __str__(self) -> str:
        path = quoted_path(self.path)
        where = f"{path}:{self.line}:{self.column}" if self.line else path
        rule = f"{self.rule}: " if self.rule else ""
        return f"{where}: {self.severity}: {rule}{self.message}"


class BankHeader(NamedTuple):
    """A bank's ``bank:`` header as plain values (no pydantic model): what the start screen and
    :class:`Library` read, available before a cached bank's questions are decoded.

    ``pass_mark`` is a fraction 0–1, ``time_limit`` exam minutes (``None``: not given),
    ``topics`` topic key → display name. Every field is given (:meth:`of` builds it). A named
    tuple, immutable, for the reason :class:`Diagnostic` is one."""

    id: str
    title: str
    description: str | None
    pass_mark: float
    time_limit: float | None
    topics: dict[str, str]

    @classmethod
    def of(cls, info: BankInfo) -> BankHeader:
        """The header of a validated :class:`~quiz.bank.model.BankInfo`."""
        return cls(info.id, info.title, info.description, info.pass_mark, info.time_limit,
                   dict(info.topics))


BankContent = tuple["BankInfo", tuple["Question", ...]]
"""A bank's validated header and questions, as a stored bank decodes to."""


class LoadedBank:
    """One bank file after validation: where it came from, its header and its questions.

    A bank loaded in full holds its models. A bank served by the validated-bank cache
    (:mod:`quiz.bank.cache`) holds only plain values at first — :attr:`header`,
    :attr:`question_ids`, :attr:`question_topics`, :attr:`content_hashes` — and decodes
    :attr:`info` and :attr:`questions` when one of them is first read (once, in whichever thread
    reads first; :meth:`Library.decode` does it ahead of time). Decoding raises whatever the
    ``decode`` function given to :meth:`stored` raises.
    """

    __slots__ = ("path", "header", "question_ids", "question_topics", "content_hashes",
                 "_content", "_decode", "_lock")

    def __init__(self, path: Path, info: BankInfo, questions: tuple[Question, ...],
                 content_hashes: tuple[str, ...] = ()) -> None:
        """A bank loaded in full: ``info`` and ``questions`` validated; ``content_hashes``
        each question's :func:`~quiz.bank.identity.content_hash`, in order, when the loader
        computed them (empty otherwise: they are computed when needed)."""
        self.path = path
        self.header = BankHeader.of(info)
        self.question_ids = tuple(q.id for q in questions)
        self.question_topics = tuple(q.topic for q in questions)
        self.content_hashes = content_hashes
        self._content: BankContent | None = (info, tuple(questions))
        self._decode: Callable[[], BankContent] | None = None
        self._lock: threading.Lock | None = None

    @classmethod
    def stored(cls, path: Path, header: BankHeader, question_ids: tuple[str, ...],
               question_topics: tuple[str, ...], content_hashes: tuple[str, ...],
               decode: Callable[[], BankContent]) -> LoadedBank:
        """A bank whose models are decoded by ``decode`` when first needed; the plain values
        describe them (``question_ids``, ``question_topics`` and ``content_hashes`` in question
        order, one each per question)."""
        bank = cls.__new__(cls)
        bank.path = path
        bank.header = header
        bank.question_ids = question_ids
        bank.question_topics = question_topics
        bank.content_hashes = content_hashes
        bank._content = None
        bank._decode = decode
        bank._lock = threading.Lock()
        return bank

    def _decoded(self) -> BankContent:
        content = self._content
        if content is not None:
            return content
        assert self._lock is not None and self._decode is not None
        with self._lock:  # two threads asking at once decode once
            if self._content is None:
                self._content = self._decode()
                self._decode = None  # what it held (the entry's bytes) can go
            return self._content

    @property
    def decoded(self) -> bool:
        """True when :attr:`info` and :attr:`questions` are there without decoding."""
        return self._content is not None

    @property
    def info(self) -> BankInfo:
        """The validated ``bank:`` header (decoded first for a stored bank)."""
        return self._decoded()[0]

    @property
    def questions(self) -> tuple[Question, ...]:
        """The validated questions, in file order (decoded first for a stored bank)."""
        return self._decoded()[1]

    def question_hashes(self) -> tuple[str, ...]:
        """Each question's content hash, in file order: :attr:`content_hashes` as the loader
        (or the validated-bank cache) gave them, or, for a bank built otherwise, computed from
        its questions (:func:`quiz.bank.identity.content_hash`; the only case that decodes)."""
        if len(self.content_hashes) == len(self.question_ids):
            return self.content_hashes
        from quiz.bank.identity import content_hash

        return tuple(content_hash(q) for q in self.questions)

    def __repr__(self) -> str:
        return (f"LoadedBank({str(self.path)!r}, {self.header.id!r}, "
                f"{len(self.question_ids)} questions)")


class Library:
    """All banks of a study run. Question ids are unique across the library.

    ``topics`` maps topic key → display name over every bank (the first bank to name a topic wins);
    a topic used by a question but not declared anywhere shows under its key. Read-only (an
    assignment raises ``AttributeError``); two libraries are equal when their banks and topics
    are; a library is not hashable. (A plain class, not a frozen dataclass: this module is
    imported before the study app's first frame, and making the dataclass took 0.3 ms of it.)
    """

    __hash__ = None  # type: ignore[assignment]  # its topics are a dict, as the dataclass's were

    banks: tuple[LoadedBank, ...]
    topics: dict[str, str]

    def __init__(self, banks: tuple[LoadedBank, ...], topics: dict[str, str] | None = None) -> None:
        object.__setattr__(self, "banks", banks)
        object.__setattr__(self, "topics", {} if topics is None else topics)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r}: a Library is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r}: a Library is read-only")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Library):
            return NotImplemented
        return (self.banks, self.topics) == (other.banks, other.topics)

    def __repr__(self) -> str:
        return f"Library(banks={self.banks!r}, topics={self.topics!r})"

    @cached_property
    def questions(self) -> list[Question]:
        """Every question, in file order, bank by bank (built once; decodes stored banks)."""
        return [q for bank in self.banks for q in bank.questions]

    @property
    def question_count(self) -> int:
        """How many questions the library has (nothing is decoded)."""
        return sum(len(bank.question_ids) for bank in self.banks)

    def topic_counts(self) -> Counter[str]:
        """Questions per topic key, in the order topics first appear (nothing is decoded)."""
        return Counter(t for bank in self.banks for t in bank.question_topics)

    def decode(self) -> None:
        """Decode every stored bank's models now (:class:`LoadedBank`), so that no later
        read of :attr:`questions` waits for it."""
        for bank in self.banks:
            bank.questions  # noqa: B018 - read for its effect

    @cached_property
    def _positions(self) -> dict[str, tuple[LoadedBank, int]]:
        """Question id → its bank and its position there (the first, should an id repeat)."""
        positions: dict[str, tuple[LoadedBank, int]] = {}
        for bank in reversed(self.banks):
            positions.update((qid, (bank, i)) for i, qid in reversed(
                list(enumerate(bank.question_ids))))
        return positions

    @property
    def title(self) -> str:
        """The bank's title, or a summary title for several banks: their shared series title
        (the text before ``": "``) when they have one, else every title."""
        if len(self.banks) == 1:
            return self.banks[0].header.title
        # Banks of one series ("AI infrastructure: Memory", "AI infrastructure: Serving") are
        # titled by what they share; the topic list names the rest.
        heads = {b.header.title.partition(": ")[0] for b in self.banks}
        if len(heads) == 1 and all(": " in b.header.title for b in self.banks):
            return f"{heads.pop()} ({len(self.banks)} banks)"
        return f"{len(self.banks)} banks: " + ", ".join(b.header.title for b in self.banks)

    @property
    def pass_mark(self) -> float:
        """The strictest pass mark of the library's banks (a fraction 0–1)."""
        return max((b.header.pass_mark for b in self.banks), default=0.7)

    @property
    def time_limit(self) -> float | None:
        """Exam minutes from the banks' ``time_limit``: the one bank's, or the sum over several
        banks when every one declares it; ``None`` otherwise."""
        limits = [b.header.time_limit for b in self.banks]
        if not limits or any(m is None for m in limits):
            return None
        return sum(m for m in limits if m is not None)

    def topic_name(self, key: str) -> str:
        """Display name of a topic key (the key itself when no bank declares it)."""
        return self.topics.get(key, key)

    def question(self, question_id: str) -> Question:
        """Return the question with this id. Raises ``KeyError`` if there is none."""
        bank, position = self._positions[question_id]
        return bank.questions[position]


class LoadReport:
    """What loading produced: the library (None when any error was found) and every diagnostic,
    errors and warnings, in file order.

    ``notes``: what the validated-bank cache refused and why (an entry or folder others can
    write, a link, a named pipe: :attr:`quiz.bank.cache.BankCache.notes`): said to the user,
    never an error (the banks were loaded in full instead). Equal when every field is. (A
    plain class, for the reason :class:`Library` is one.)"""

    __slots__ = ("library", "diagnostics", "notes")
    __hash__ = None  # type: ignore[assignment]  # mutable

    def __init__(self, library: Library | None, diagnostics: list[Diagnostic],
                 notes: list[str] | None = None) -> None:
        self.library = library
        self.diagnostics = diagnostics
        self.notes: list[str] = [] if notes is None else notes

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LoadReport):
            return NotImplemented
        return ((self.library, self.diagnostics, self.notes)
                == (other.library, other.diagnostics, other.notes))

    def __repr__(self) -> str:
        return (f"LoadReport(library={self.library!r}, diagnostics={self.diagnostics!r}, "
                f"notes={self.notes!r})")

    @property
    def errors(self) -> list[Diagnostic]:
        """The diagnostics of severity ``error``."""
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        """The diagnostics of severity ``warning``."""
        return [d for d in self.diagnostics if d.severity == "warning"]

    @property
    def ok(self) -> bool:
        """True when no error was found (warnings allowed)."""
        return not self.errors
