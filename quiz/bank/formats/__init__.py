"""Import and export: questions in the formats instructors already use.

One module per format, each a pair of pure functions:

- ``parse(text) -> Parsed``: the questions found (as plain data, keyed as a bank file writes them:
  ``question``, ``options``, ``answer`` ...) and every :class:`Note` with its line;
- ``render(bank) -> str`` (or ``bytes``): a loaded bank in that format.

=========================  =============  ======  ======
format                     extensions     import  export
=========================  =============  ======  ======
seed-layout documents      .txt .md       yes     no
Moodle GIFT                .gift          yes     yes
Moodle XML                 .xml           yes     yes
Aiken                      .aiken         yes     no
CSV (documented header)    .csv           yes     yes
Anki deck                  .apkg          no      yes
=========================  =============  ======  ======

:mod:`quiz.bank.formats.transfer` runs ``quiz import`` and ``quiz export`` on top of these: it
picks the format, gives fresh ids, fills what a format cannot carry with ``TODO`` placeholders
(which ``quiz validate`` reports until they are written) and writes the bank.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from quiz.bank.model import OPTION_KEYS, Question

TODO = "TODO"
"""The word that marks a placeholder (lint rule ``Q102 placeholder-text`` reports it)."""


@dataclass(frozen=True)
class Note:
    """Something a reader of a source file should know: 1-based ``line`` (0: the whole file),
    the ``message``, and ``severity``: ``error`` (the question was skipped) or ``warning`` (it
    was imported, with a loss or a guess the message names)."""

    line: int
    message: str
    severity: Literal["error", "warning"] = "warning"


@dataclass
class Parsed:
    """What a parser found: ``questions`` as bank data (dicts keyed as in a bank file, each
    with a ``line`` entry saying where it starts, removed before writing), ``notes``, and the
    ``bank`` header when the source carries one (a file exported by quiz does)."""

    questions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    bank: dict[str, Any] | None = None


def merge_header(first: dict[str, Any] | None, header: dict[str, Any]) -> dict[str, Any]:
    """The bank header an import keeps when its source holds several banks' headers: the
    first one, with the topic names of all of them (the first name of a topic wins)."""
    if first is None:
        return dict(header)
    topics = dict(first.get("topics") or {})
    more = header.get("topics")
    if isinstance(more, dict):
        for key, name in more.items():
            topics.setdefault(key, name)
    return {**first, "topics": topics} if topics else first


def placeholder(what: str) -> str:
    """A clearly marked placeholder for text the source does not give."""
    return f"{TODO}: {what} (not in the source file)"


def question_data(question: Question) -> dict[str, Any]:
    """A loaded question as bank data: the keys the author wrote (no defaults added), values as
    a bank file would hold them. ``Question.model_validate(question_data(q)) == q``."""
    data: dict[str, Any] = question.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return data


def letters(count: int) -> str:
    """The first ``count`` option keys (``ABCD`` for 4)."""
    return OPTION_KEYS[:count]


def complete(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every required field a format may lack filled with a placeholder: the
    explanations, and a review for each wrong option. Key order follows the bank format."""
    keys = data.get("answer")
    right = set(keys if isinstance(keys, list) else [keys])
    options: dict[str, str] = data.get("options", {})
    reviews: dict[str, str] = dict(data.get("distractor_review") or {})
    for key in options:
        if key not in right and not reviews.get(key, "").strip():
            reviews[key] = placeholder("why this option is wrong")
    head = ("line", "id", "topic", "difficulty", "tags", "question", "options", "answer",
            "shuffle")
    out: dict[str, Any] = {k: data[k] for k in head if k in data}
    out["short_explanation"] = data.get("short_explanation") or placeholder(
        "a short explanation in plain words")
    for key in ("infographic",):
        if key in data:
            out[key] = data[key]
    out["full_explanation"] = data.get("full_explanation") or placeholder("the full explanation")
    out["distractor_review"] = {k: reviews[k] for k in options if k in reviews}
    for key in ("worked_example", "references", "lint"):
        if key in data:
            out[key] = data[key]
    return out
