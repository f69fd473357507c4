"""Import and export: questions in the formats instructors already use.

One module per format, each a pair of pure functions:

- ``parse(text) -> Parsed``: the questions found (as plain data, keyed as a bank file writes them:
  ``question``, ``options``, ``answer`` ...) and every :class:`Note` with its line;
- ``render(bank) -> str`` (or ``bytes``): a loaded bank in that format.

===========================  ==============  ======  ======
format                       extensions      import  export
===========================  ==============  ======  ======
seed-layout documents        .txt .md        yes     no
Moodle GIFT                  .gift           yes     yes
Moodle XML                   .xml            yes     yes
Aiken                        .aiken          yes     no
CSV (documented header)      .csv .tsv       yes     yes
Markdown practice exams      .md             yes     no
certificationy YAML          .yml .yaml      yes     no
Anki deck                    .apkg           no      yes
===========================  ==============  ======  ======

A file whose extension does not name one format (``.txt``, ``.md``, ``.yaml``, none) is
recognised by its content (:func:`quiz.bank.formats.transfer.sniff`).

:mod:`quiz.bank.formats.transfer` runs ``quiz import`` on top of these: it picks the format,
gives fresh ids, fills what a format cannot carry with ``TODO`` placeholders (which
``quiz validate`` reports until they are written) and writes the bank;
:mod:`quiz.bank.formats.export` runs ``quiz export``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
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
    scope: Literal["question", "file"] = "question"
    """What an error skipped: one ``question``, or the whole ``file`` (unreadable, a header
    that cannot be used)."""


@dataclass
class Parsed:
    """What a parser found: ``questions`` as bank data (dicts keyed as in a bank file, each
    with a ``line`` entry saying where it starts and, when the source holds several banks, a
    ``bank`` entry: the index of its header in ``banks``; both removed before writing),
    ``notes``, the ``banks`` headers the source carries (a file exported by quiz does, one per
    bank), and ``topics``: display names of the topic keys the questions use, when the source
    names them (a CSV topic column in words, a Moodle category)."""

    questions: list[dict[str, Any]] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    banks: list[dict[str, Any]] = field(default_factory=list)
    topics: dict[str, str] = field(default_factory=dict)

    @property
    def bank(self) -> dict[str, Any] | None:
        """The one header an import into a single bank keeps: the first, with the topic names of
        all of them (:func:`merge_header`); None when the source has none."""
        merged = None
        for header in self.banks:
            merged = merge_header(merged, header)
        return merged

    def add_bank(self, header: dict[str, Any]) -> int:
        """Record a bank header; returns its index (for the ``bank`` entry of its questions)."""
        self.banks.append(header)
        return len(self.banks) - 1


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


_QUESTION_META: dict[str, tuple[type, ...]] = {
    "id": (str,), "topic": (str,), "difficulty": (str,), "tags": (list,), "shuffle": (bool,),
    "short_explanation": (str,), "infographic": (dict,), "worked_example": (dict,),
    "references": (list,), "lint": (dict,)}
_BANK_META: dict[str, tuple[type, ...]] = {
    "id": (str,), "title": (str,), "version": (int,), "pass_mark": (int, float),
    "time_limit": (int, float), "description": (str,), "topics": (dict,), "lint": (dict,)}
_LISTS_OF_TEXT = ("tags", "references")
_NAMES = {str: "text", bool: "true or false", int: "a whole number", float: "a number",
          list: "a list", dict: "a mapping"}


def checked_meta(value: Any, line: int, notes: list[Note], *, header: bool = False,
                 label: str = "quiz") -> dict[str, Any]:
    """The fields of a ``quiz:`` (``header``: ``quiz-bank:``) metadata comment that have the
    right JSON type; each other field, and a value that is not a JSON object, is dropped with a
    warning at ``line`` naming it. Deeper problems (a footprint key that does not exist) are
    left to the bank loader, which the import runs before writing."""
    if not isinstance(value, dict):
        notes.append(Note(line, f"this '{label}:' comment holds {type(value).__name__}, not a "
                          "JSON object ({...}); ignored"))
        return {}
    kinds = _BANK_META if header else _QUESTION_META
    kept: dict[str, Any] = {}
    for key, item in value.items():
        wanted = kinds.get(key)
        if wanted is None:
            notes.append(Note(line, f"the '{label}:' comment has an unknown field {key!r}; "
                              "ignored"))
            continue
        ok = isinstance(item, wanted) and not (isinstance(item, bool) and bool not in wanted)
        if ok and key in _LISTS_OF_TEXT:
            ok = all(isinstance(x, str) for x in item)
        if ok and key == "topics":
            ok = all(isinstance(k, str) and isinstance(v, str) for k, v in item.items())
        if not ok:
            shown = " of text" if key in _LISTS_OF_TEXT else (
                " of text to text" if key == "topics" else "")
            notes.append(Note(line, f"in the '{label}:' comment, {key!r} should be "
                              f"{_NAMES[wanted[0]]}{shown}, not {json_type(item)}; ignored"))
            continue
        kept[key] = item
    return kept


def json_type(value: Any) -> str:
    """The JSON name of a value's type, for messages ("a list", "a number", ...)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        return "a number"
    names: dict[type, str] = {str: "text", list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def id_from(name: str) -> str:
    """A source's question name as an id: kept as it is when it is already a slug (``kv.v2``,
    ``q_1``: ids quiz exports), else made one (``Moodle activities`` → ``moodle-activities``)."""
    from quiz.bank.model import SLUG_PATTERN
    from quiz.bank.template import slug

    name = name.strip()
    return name if re.match(SLUG_PATTERN, name) and len(name) <= 120 else slug(name)


def placeholder(what: str) -> str:
    """A clearly marked placeholder for text the source does not give."""
    return f"{TODO}: {what} (not in the source file)"


def question_data(question: Question, written: dict[str, Any] | None = None,
                  ) -> dict[str, Any]:
    """A loaded question as bank data: the keys the author wrote (no defaults added), values as
    a bank file would hold them. ``Question.model_validate(question_data(q)) == q``.

    ``written`` is the question as its file writes it (:func:`written_questions`): its
    ``infographic`` and ``worked_example`` are kept as written, so number shorthands such as
    ``7B`` or ``4k`` stay shorthands instead of becoming ``7000000000``."""
    data: dict[str, Any] = question.model_dump(mode="json", by_alias=True, exclude_unset=True)
    from quiz.bank.computed.template import is_computed

    if written and not is_computed(written):  # a computed question's text is as rendered
        for key in ("infographic", "worked_example"):
            if key in data and isinstance(written.get(key), dict):
                data[key] = written[key]
    return data


def written_questions(path: Path) -> dict[str, dict[str, Any]]:
    """The questions of the bank file ``path`` as written (every scalar the text typed), by
    id; empty when the file cannot be read again."""
    from quiz.bank import yaml_reader

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return {}
    doc = yaml_reader.build(text.replace("\r\n", "\n"))
    value = doc.value if isinstance(doc.value, dict) else {}
    items = value.get("questions")
    return {q["id"]: q for q in items if isinstance(q, dict) and isinstance(q.get("id"), str)
            } if isinstance(items, list) else {}


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
