"""A library: the banks loaded from files or folders; question ids are unique across it.

Built by :func:`quiz.bank.load.load_library`; consumed by the study session and the TUI.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:  # not imported at run time: the study app paints before pydantic is loaded
    from quiz.bank.model import BankInfo, Question


@dataclass(frozen=True)
class Diagnostic:
    """One problem found in a bank file.

    ``line`` and ``column`` are 1-based; 0 means "the whole file" (an unreadable file, say).
    ``str()`` gives the ``path:line:col: severity: message`` form that editors and CI understand.
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
        where = f"{self.path}:{self.line}:{self.column}" if self.line else self.path
        rule = f"{self.rule}: " if self.rule else ""
        return f"{where}: {self.severity}: {rule}{self.message}"


@dataclass(frozen=True)
class LoadedBank:
    """One bank file after validation: where it came from, its header and its questions."""

    path: Path
    info: BankInfo
    questions: tuple[Question, ...]
    content_hashes: tuple[str, ...] = ()
    """Each question's :func:`~quiz.bank.identity.content_hash`, in order, when the loader
    computed them (empty otherwise: they are computed when needed)."""


@dataclass(frozen=True)
class Library:
    """All banks of a study run. Question ids are unique across the library.

    ``topics`` maps topic key → display name over every bank (the first bank to name a topic wins);
    a topic used by a question but not declared anywhere shows under its key.
    """

    banks: tuple[LoadedBank, ...]
    topics: dict[str, str] = field(default_factory=dict)

    @cached_property
    def questions(self) -> list[Question]:
        """Every question, in file order, bank by bank (built once)."""
        return [q for bank in self.banks for q in bank.questions]

    @property
    def title(self) -> str:
        """The bank's title, or a summary title for several banks: their shared series title
        (the text before ``": "``) when they have one, else every title."""
        if len(self.banks) == 1:
            return self.banks[0].info.title
        # Banks of one series ("AI infrastructure: Memory", "AI infrastructure: Serving") are
        # titled by what they share; the topic list names the rest.
        heads = {b.info.title.partition(": ")[0] for b in self.banks}
        if len(heads) == 1 and all(": " in b.info.title for b in self.banks):
            return f"{heads.pop()} ({len(self.banks)} banks)"
        return f"{len(self.banks)} banks: " + ", ".join(b.info.title for b in self.banks)

    @property
    def pass_mark(self) -> float:
        """The strictest pass mark of the library's banks (a fraction 0–1)."""
        return max((b.info.pass_mark for b in self.banks), default=0.7)

    @property
    def time_limit(self) -> float | None:
        """Exam minutes from the banks' ``time_limit``: the one bank's, or the sum over several
        banks when every one declares it; ``None`` otherwise."""
        limits = [b.info.time_limit for b in self.banks]
        if not limits or any(m is None for m in limits):
            return None
        return sum(m for m in limits if m is not None)

    def topic_name(self, key: str) -> str:
        """Display name of a topic key (the key itself when no bank declares it)."""
        return self.topics.get(key, key)

    def question(self, question_id: str) -> Question:
        """Return the question with this id. Raises ``KeyError`` if there is none."""
        for q in self.questions:
            if q.id == question_id:
                return q
        raise KeyError(question_id)


@dataclass
class LoadReport:
    """What loading produced: the library (None when any error was found) and every diagnostic,
    errors and warnings, in file order."""

    library: Library | None
    diagnostics: list[Diagnostic]

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
