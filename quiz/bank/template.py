"""``quiz new``: a commented template question appended to a bank as text, or a new bank.

The bank's existing text is never re-written: the template is appended after the last byte of the
file, so comments, quoting, folding and key order of the questions already there stay exactly as
the author wrote them (a YAML dumper would lose all four). Before anything is written, the
combined text is parsed to check that the template landed inside the ``questions:`` list; if it
would not (``questions:`` is not the file's last key, or is written in flow style ``[...]``), the
file is left alone and the reason is given.

Every text field of the template holds a ``TODO`` placeholder, so ``quiz validate`` reports each
field still to be written (lint rule ``Q102 placeholder-text``, an error) until it is filled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quiz.bank import yaml_reader
from quiz.bank.bank_paths import BANK_SUFFIXES
from quiz.bank.files import kind_of, write_atomic
from quiz.bank.model import SLUG_PATTERN
from quiz.bank.text_checks import decode, normalise


class TemplateError(ValueError):
    """The template cannot be added: the message says why and what to do."""


@dataclass(frozen=True)
class Added:
    """What :func:`add_question` did: the new question's ``id`` and ``topic``, the ``line`` where
    it starts (1-based), and whether the bank file was ``created``."""

    id: str
    topic: str
    line: int
    created: bool


_ID_LINE = re.compile(r"^[ \t]*-?[ \t]*id:[ \t]*[\"']?([a-z0-9][a-z0-9._-]*)", re.MULTILINE)


def taken_ids(folder: Path, extra_text: str = "") -> set[str]:
    """Every question or bank id written in the bank files of ``folder`` (and in
    ``extra_text``), found line by line, so a bank that does not load yet counts too."""
    found = set(_ID_LINE.findall(extra_text))
    try:
        files = [p for p in folder.iterdir() if p.suffix.lower() in BANK_SUFFIXES and p.is_file()]
    except OSError:
        files = []
    for path in files:
        try:
            found.update(_ID_LINE.findall(path.read_text(encoding="utf-8", errors="replace")))
        except OSError:
            continue
    return found


def ids_in(text: str) -> set[str]:
    """Every id written on an ``id:`` line of ``text`` (a bank file's text)."""
    return set(_ID_LINE.findall(text))


def fresh_id(topic: str, taken: set[str]) -> str:
    """``<topic>-new-NNN`` with the smallest NNN (from 001) not in ``taken``."""
    n = 1
    while f"{topic}-new-{n:03d}" in taken:
        n += 1
    return f"{topic}-new-{n:03d}"


_OPTION_TODOS = {
    False: ("the right answer.", "a wrong answer a student might believe.",
            "a wrong answer from a common mistake.", "a wrong answer that is almost right."),
    True: ("one right answer.", "a wrong answer a student might believe.",
           "the other right answer.", "a wrong answer that is almost right."),
}
"""The template's option placeholders (single answer, multiple response): different texts (the
loader refuses equal options) that name no option by letter (which would stop shuffling)."""


def question_template(qid: str, topic: str, *, multiple: bool = False, indent: int = 2) -> str:
    """The text of one commented template question, its ``- id:`` at column ``indent``, with a
    blank line before it. ``multiple`` gives a multiple-response ("Choose two.") question."""
    if multiple:
        stem = "TODO: write the stem. Choose two."
        answer = "[A, C]"
        reviewed = "BD"
    else:
        stem = "TODO: write the stem."
        answer = "A"
        reviewed = "BCD"
    reviews = "".join(f"    {k}: >-\n      TODO: why this option is wrong.\n" for k in reviewed)

    def note(line: str, comment: str) -> str:
        return f"{line:<35}# {comment}"

    body = "\n".join([
        "",
        "# New question: replace every TODO, then run 'quiz validate'. Field guide: FORMAT.md.",
        note(f"- id: {qid}", "stable: rename it now if you like, never later"),
        note(f"  topic: {topic}", "a key of bank.topics"),
        note("  difficulty: medium", "easy | medium | hard"),
        note("  tags: []", "slugs, e.g. [vram, kv-cache]"),
        note("  question: >-", "the stem: one clear question"),
        f"    {stem}",
        note("  options:", "A-D, about equally long; students see them shuffled"),
        *[f"    {k}: >-\n      TODO: {text}"
          for k, text in zip("ABCD", _OPTION_TODOS[multiple], strict=True)],
        note(f"  answer: {answer}", "the right option's letter" if not multiple
             else "the right options' letters (as many as the stem asks)"),
        note("  short_explanation: |", "plain words and one analogy"),
        "    TODO: why the answer is right, in a few plain sentences.",
        note("  # infographic:", "optional: exactly one of table, text, footprint"),
        "  #   footprint: {model: llama-2-7b, inference: {weights: bf16}}",
        note("  full_explanation: |", "the complete reasoning; name ideas, not letters"),
        "    TODO: the full reasoning.",
        note("  distractor_review:", "one entry per WRONG option; say \"this option\""),
        reviews.rstrip("\n"),
        note("  references:", "sources a student can check"),
        '    - "TODO: author, year, title, section"',
        ""])
    pad = " " * indent
    return "\n".join(pad + line if line else line for line in body.split("\n"))


def bank_header(bank_id: str, title: str, topic: str, schema_ref: str) -> str:
    """The text of a new bank file up to ``questions:``, naming the JSON Schema ``schema_ref``
    on its first line for editors."""
    return (f"# yaml-language-server: $schema={schema_ref}\n"
            f"# Format: FORMAT.md (quiz's question_bank folder). Check with: quiz validate FILE\n"
            f"\n"
            f"bank:\n"
            f"  id: {bank_id}\n"
            f"  title: {_quoted(title)}\n"
            f"  version: 1\n"
            f"  pass_mark: 0.7\n"
            f"  topics:\n"
            f"    {topic}: {_quoted(topic.replace('-', ' ').capitalize())}\n"
            f"\n"
            f"questions:\n")


def _dash_column(text: str, mark: Any) -> int:
    """The 0-based column of the ``-`` that opens the list item whose value starts at ``mark``
    (the value's own column when no dash precedes it on its line)."""
    at = mark.index - 1
    while at >= 0 and text[at] == " ":
        at -= 1
    if at >= 0 and text[at] == "-":
        return int(mark.column - (mark.index - at))
    return int(mark.column)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def slug(text: str) -> str:
    """``text`` as a slug (lowercase letters, digits and ``-``), or ``bank`` when nothing is
    left."""
    found = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return found if found and re.match(SLUG_PATTERN, found) else "bank"


def add_question(path: Path, *, topic: str | None = None, multiple: bool = False,
                 schema_ref: str = "./quiz-bank.schema.json") -> Added:
    """Append a template question to the bank at ``path``, or create the bank with one.

    ``topic`` defaults to the bank's first declared topic (for a new bank: the file name as a
    slug). The id is fresh across the bank files of the same folder. Raises
    :class:`TemplateError` when the file cannot be read, does not parse, declares topics that do
    not include ``topic``, or would not take the template at its end; the file is then unchanged.
    """
    if topic is not None and not re.match(SLUG_PATTERN, topic):
        raise TemplateError(f"topic {topic!r} is not a slug: use lowercase letters, digits, "
                            "'.', '_' and '-'")
    if not path.exists():
        topic = topic or slug(path.stem)
        header = bank_header(slug(path.stem), path.stem.replace("-", " ").replace("_", " ")
                             .strip().capitalize() or "New bank", topic, schema_ref)
        qid = fresh_id(topic, taken_ids(path.parent))
        text = header + question_template(qid, topic, multiple=multiple).lstrip("\n")
        try:
            write_atomic(path, text.encode("utf-8"))
        except OSError as exc:
            raise TemplateError(f"cannot create {path}: {exc.strerror or exc}; nothing was "
                                "written") from exc
        return Added(qid, topic, header.count("\n") + 2, True)
    target = open_for_append(path)
    if topic is None:
        topic = target.declared[0] if target.declared else target.last_topic or slug(path.stem)
    elif target.declared and topic not in target.declared:
        raise TemplateError(f"topic {topic!r} is not declared in bank.topics of {path} "
                            f"({', '.join(target.declared)}); declare it there first, or pick "
                            "one of those")
    qid = fresh_id(topic, taken_ids(path.parent, target.text))
    addition = question_template(qid, topic, multiple=multiple, indent=target.indent)
    line = target.append(addition, [qid])
    return Added(qid, topic, line + 2, False)


@dataclass
class AppendTarget:
    """An existing bank file that questions can be appended to as text (see
    :func:`open_for_append`): its ``text`` (normalised), the ``indent`` of its question items'
    ``-``, its ``declared`` topics, the topic of its last question, and how many questions it
    has."""

    path: Path
    text: str
    decoded: str
    raw: bytes
    indent: int
    declared: list[str]
    last_topic: str | None
    count: int

    def append(self, addition: str, ids: list[str]) -> int:
        """Append ``addition`` (question items at :attr:`indent`, starting with a blank line)
        after checking that the combined text parses into this bank's questions plus exactly
        the ``ids`` given, in order. Returns the 1-based line where ``addition`` starts. Raises
        :class:`TemplateError`, leaving the file unchanged, when the check fails or the file
        cannot be written. The file's line breaks (LF or CR LF) are kept. The whole new file is
        written beside the old one and renamed over it (:func:`quiz.bank.files.write_atomic`),
        so a full disk leaves the old file byte for byte."""
        newline = "\r\n" if "\r\n" in self.decoded else "\n"
        ending = "" if self.decoded.endswith(("\n", "\r")) or not self.decoded else newline
        combined = yaml_reader.build((self.text + ("\n" if ending else "") + addition)
                                     .replace("\t", " "))
        after = combined.value.get("questions") if isinstance(combined.value, dict) else None
        if (combined.fatal or not isinstance(after, list) or len(after) != self.count + len(ids)
                or [q.get("id") if isinstance(q, dict) else None
                    for q in after[self.count:]] != ids):
            raise TemplateError(f"the new questions would not land in the questions of "
                                f"{self.path} (is the last question indented differently?); "
                                "the file is unchanged")
        try:
            write_atomic(self.path, self.raw + (ending + addition.replace("\n", newline))
                         .encode("utf-8"))
        except OSError as exc:
            raise TemplateError(f"cannot write {self.path}: {exc.strerror or exc}; the file is "
                                "unchanged") from exc
        return self.text.count("\n") + (1 if ending else 0) + 1


def open_for_append(path: Path) -> AppendTarget:
    """Read the bank at ``path`` and check that text appended at its end lands in its
    ``questions:`` list. Raises :class:`TemplateError` when the file cannot be read, does not
    parse, or ``questions:`` is not its last key or is written in flow style."""
    try:
        kind = kind_of(path.stat().st_mode)
        if kind is not None:
            raise TemplateError(f"{path} is {kind}, not a bank file")
        raw = path.read_bytes()
    except OSError as exc:
        raise TemplateError(f"cannot read {path}: {exc.strerror or exc}") from exc
    decoded, problem = decode(raw)
    if decoded is None or problem is not None:
        raise TemplateError(f"{path}: {problem.message if problem else 'cannot decode'}")
    text, problems = normalise(decoded)
    doc = yaml_reader.build(text.replace("\t", " "))
    if problems or doc.fatal or not isinstance(doc.value, dict):
        raise TemplateError(f"{path} does not parse as a bank; run 'quiz validate {path}' and "
                            "fix it first")
    value: dict[str, Any] = doc.value
    if not isinstance(value.get("bank"), dict):
        raise TemplateError(f"{path} is not a question bank: it has no 'bank:' header (see "
                            "FORMAT.md); name a bank file, or a new file to create")
    questions = value.get("questions")
    if not isinstance(questions, list):
        raise TemplateError(f"{path} has no 'questions:' list to add to")
    if list(value)[-1] != "questions":
        raise TemplateError(f"'questions:' is not the last key of {path}, so text appended at "
                            "the end would not be a question; move 'questions:' to the end")
    start, _, items = doc.marks[id(questions)]
    if text[start.index] == "[":
        raise TemplateError(f"'questions:' in {path} is written in flow style [...]; write it "
                            "as a block list ('- id: ...' lines) to add questions")
    bank = value.get("bank")
    topics = bank.get("topics") if isinstance(bank, dict) else None
    last = questions[-1] if questions and isinstance(questions[-1], dict) else {}
    used = last.get("topic")
    return AppendTarget(
        path, text, decoded, raw, _dash_column(text, items[0]) if items else 2,
        [str(k) for k in topics] if isinstance(topics, dict) else [],
        used if isinstance(used, str) else None, len(questions))
