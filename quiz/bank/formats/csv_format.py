"""CSV: import and export, one question per row under a header row (documented in FORMAT.md).

The header names the columns, in any order; only ``question``, ``A``, ``B`` and ``answer`` are
required::

    id,topic,difficulty,tags,question,A,B,C,D,E,F,G,H,answer,shuffle,short_explanation,
    full_explanation,review_A,...,review_H,references,infographic,worked_example,lint_ignore

Header names are matched without regard to case, spaces, ``_`` or ``-``, and with the usual
synonyms (:data:`SYNONYMS`: ``Question``/``Stem``, ``Option A``/``Choice A``, ``Correct
Answer``/``Key``, ``Explanation``, ``Category``...). The separator is found from the header row:
``,``, ``;`` (spreadsheets in locales with a decimal comma), tab or ``|``; Anki's text files name
it on a ``#separator:`` line (and may give the columns on ``#columns:``), which is read.

- ``answer``: one letter (``B``), or several for multiple response (``A, C`` or ``A C``);
- ``topic``: a key (``kv-cache``), or words ("Primitive Casting and Overflow"): the words
  become a key (``primitive-casting-and-overflow``) and the topic's name;
- ``tags`` and ``lint_ignore``: separated by spaces or commas;
- ``references``: one per line inside the cell;
- ``shuffle``: ``true`` or ``false`` (empty: true);
- ``infographic`` and ``worked_example``: the mapping as JSON (what ``quiz export`` writes);
- an empty cell is a missing value; missing explanations and reviews become ``TODO``
  placeholders.

Files are UTF-8, with or without a byte-order mark; cells are quoted the usual way (``"..."``,
``""`` for a quote) and may hold line breaks, of any length. Problems are reported at the row's
first line: an unknown column or a missing required one (the file is refused), a row with more
cells than the header, a missing required cell, JSON that does not parse, a row whose every
option is right.

Export writes the full header, a UTF-8 byte-order mark first (so Excel opens it as UTF-8; it can
be left out), and puts an apostrophe before a cell that starts with ``=``, ``+``, ``-``, ``@``, a
tab or a carriage return (after any apostrophes), so a spreadsheet shows it as text instead of
running it as a formula; import takes that apostrophe off again.
"""

from __future__ import annotations

import csv
import io
import json
import re
from difflib import get_close_matches
from typing import Any

from quiz.bank.formats import Note, Parsed, question_data, written_questions
from quiz.bank.library import LoadedBank
from quiz.bank.model import OPTION_KEYS, SLUG_PATTERN
from quiz.bank.template import slug

COLUMNS = ("id", "topic", "difficulty", "tags", "question", *OPTION_KEYS, "answer", "shuffle",
           "short_explanation", "full_explanation", *(f"review_{k}" for k in OPTION_KEYS),
           "references", "infographic", "worked_example", "lint_ignore")
"""Every column, in the order export writes them."""

REQUIRED = ("question", "A", "B", "answer")

SYNONYMS: dict[str, str] = {
    "stem": "question", "questiontext": "question", "prompt": "question",
    "correctanswer": "answer", "correctanswers": "answer", "correct": "answer",
    "key": "answer", "answerkey": "answer", "rightanswer": "answer", "answers": "answer",
    "explanation": "full_explanation", "fullexplanation": "full_explanation",
    "shortexplanation": "short_explanation", "category": "topic", "section": "topic",
    "level": "difficulty", "tag": "tags", "reference": "references", "source": "references",
    **{f"{word}{k.lower()}": k for k in OPTION_KEYS
       for word in ("option", "choice", "answer", "opt")},
    **{f"{word}{n}": k for n, k in enumerate(OPTION_KEYS, start=1)
       for word in ("option", "choice")},
    **{f"{word}{k.lower()}": f"review_{k}" for k in OPTION_KEYS
       for word in ("review", "feedback", "reviewoption", "feedbackoption")},
}
"""Other names of the columns (normalised: lowercase, no spaces, ``_`` or ``-``)."""

_CANONICAL = {re.sub(r"[\s_-]+", "", c.lower()): c for c in COLUMNS}
_FORMULA = re.compile(r"^'*[=+\-@\t\r]")
_ESCAPED = re.compile(r"^'+[=+\-@\t\r]")
_ANKI_SEPARATORS = {"comma": ",", "semicolon": ";", "tab": "\t", "space": " ", "pipe": "|",
                    "colon": ":"}


def column(name: str) -> str | None:
    """The column a header cell names (:data:`SYNONYMS` included), or None."""
    key = re.sub(r"[\s_-]+", "", name.strip().lower())
    return _CANONICAL.get(key) or SYNONYMS.get(key)


def _separator(line: str) -> str:
    """The separator of a header row: the one of ``,`` ``;`` tab ``|`` it holds most of,
    outside quotes (a comma when none)."""
    outside = re.sub(r'"[^"]*"', "", line)
    counts = {sep: outside.count(sep) for sep in (",", ";", "\t", "|")}
    best = max(counts, key=lambda sep: counts[sep])
    return best if counts[best] else ","


def parse(text: str) -> Parsed:
    """Read a CSV file (see the module docstring) into questions and notes."""
    result = Parsed()
    if text.startswith("\ufeff"):
        text = text[1:]
    offset = 0
    separator = None
    columns_line: str | None = None
    lines = text.split("\n")
    while offset < len(lines) and re.match(r"^#[a-z ]+:", lines[offset], re.IGNORECASE):
        name, _, value = lines[offset][1:].partition(":")
        value = value.rstrip("\r")
        if name.strip().lower() == "separator":
            separator = _ANKI_SEPARATORS.get(value.strip().lower(), value[:1] or ",")
        elif name.strip().lower() == "columns":
            columns_line = value
        offset += 1
    body = "\n".join(lines[offset:])
    if separator is None:
        separator = _separator(columns_line if columns_line is not None
                               else body.split("\n", 1)[0])
    old_limit = csv.field_size_limit()
    csv.field_size_limit(2**31 - 1)  # a cell may be long: never drop the rows after it
    try:
        _rows(body, separator, offset, columns_line, result)
    finally:
        csv.field_size_limit(old_limit)
    return result


def _rows(body: str, separator: str, offset: int, columns_line: str | None,
          result: Parsed) -> None:
    reader = csv.reader(io.StringIO(body, newline=""), delimiter=separator)

    def header_error(message: str) -> None:
        result.notes.append(Note(offset + 1, message, "error", "file"))

    try:
        header = (next(csv.reader([columns_line], delimiter=separator))
                  if columns_line is not None else next(reader))
    except StopIteration:
        result.notes.append(Note(0, "the file is empty: it needs a header row", "error",
                                 "file"))
        return
    except csv.Error as exc:
        header_error(f"the header row cannot be read: {exc}")
        return
    names: list[str] = []
    for cell in header:
        found = column(cell) if cell.strip() else ""
        if found is None:
            close = get_close_matches(cell.strip(), COLUMNS, n=1)
            header_error(f"unknown column {cell.strip()!r}"
                         + (f"; did you mean {close[0]!r}?" if close else "")
                         + " (columns: see FORMAT.md)")
        elif found and found in names:
            header_error(f"column {found!r} is given twice ({cell.strip()!r})")
        names.append(found or "")
    missing = [r for r in REQUIRED if r not in names]
    if missing:
        header_error(f"the header lacks the column{'s' * (len(missing) > 1)} "
                     + ", ".join(missing))
    if result.notes:
        return
    line = offset + (reader.line_num if columns_line is None else 0) + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            result.notes.append(Note(line, f"this row cannot be read: {exc}; the rows after it "
                                     "are not read either", "error", "file"))
            break
        start, line = line, offset + reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(names):
            result.notes.append(Note(start, f"this row has {len(row)} cells but the header "
                                     f"has {len(names)} columns; skipped", "error"))
            continue
        cells = {n: _unescaped(c) for n, c in zip(names, row, strict=False)
                 if n and c.strip()}
        question = _question(cells, start, result)
        if question is not None:
            result.questions.append(question)


def _unescaped(cell: str) -> str:
    """A cell as written before export neutralised it (one leading apostrophe off)."""
    return cell[1:] if _ESCAPED.match(cell) else cell


def _question(cells: dict[str, str], line: int, result: Parsed) -> dict[str, Any] | None:
    def fail(message: str) -> None:
        result.notes.append(Note(line, message + "; skipped", "error"))

    empty = [r for r in REQUIRED if r not in cells]
    if empty:
        fail(f"this row has no {', '.join(empty)}")
        return None
    options = {k: cells[k] for k in OPTION_KEYS if k in cells}
    gaps = [k for k in OPTION_KEYS[:len(options)] if k not in options]
    if gaps:
        fail(f"options must be filled A, B, C ... without gaps (missing {', '.join(gaps)})")
        return None
    keys = list(dict.fromkeys(k.upper() for k in re.split(r"[,;\s]+", cells["answer"]) if k))
    wrong = [k for k in keys if k not in options]
    if wrong or not keys:
        fail(f"answer {cells['answer']!r} is not one of the options ({', '.join(options)})")
        return None
    if len(keys) == len(options):
        fail("every option is right: a question needs a distractor")
        return None
    data: dict[str, Any] = {"line": line}
    for name in ("id", "difficulty"):
        if name in cells:
            data[name] = cells[name].strip()
    if "topic" in cells:
        words = " ".join(cells["topic"].split())
        key = words if re.match(SLUG_PATTERN, words) else slug(words)
        if key != words:
            result.topics.setdefault(key, words)
        data["topic"] = key
    if "tags" in cells:
        data["tags"] = [t for t in re.split(r"[,\s]+", cells["tags"]) if t]
    data["question"] = cells["question"]
    data["options"] = options
    data["answer"] = keys[0] if len(keys) == 1 else keys
    if "shuffle" in cells:
        value = cells["shuffle"].strip().lower()
        if value not in ("true", "false"):
            fail(f"shuffle is {cells['shuffle']!r}; write true or false")
            return None
        data["shuffle"] = value == "true"
    for name in ("short_explanation", "full_explanation"):
        if name in cells:
            data[name] = cells[name]
    reviews = {k: cells[f"review_{k}"] for k in OPTION_KEYS if f"review_{k}" in cells}
    if reviews:
        data["distractor_review"] = reviews
    if "references" in cells:
        data["references"] = [r.strip() for r in cells["references"].split("\n") if r.strip()]
    for name in ("infographic", "worked_example"):
        if name in cells:
            try:
                data[name] = json.loads(cells[name])
            except json.JSONDecodeError as exc:
                fail(f"{name} is not valid JSON ({exc.msg} at character {exc.pos})")
                return None
    if "lint_ignore" in cells:
        data["lint"] = {"ignore": [r for r in re.split(r"[,\s]+", cells["lint_ignore"]) if r]}
    return data


def _cell(text: str) -> str:
    """A cell as export writes it: an apostrophe before text a spreadsheet would run as a
    formula (``=``, ``+``, ``-``, ``@``, tab, carriage return, after any apostrophes)."""
    return "'" + text if _FORMULA.match(text) else text


def render(banks: list[LoadedBank], warnings: list[str] | None = None) -> str:
    """The questions of ``banks`` as CSV text with the full header (option and review columns
    up to the most options any question has), formula-like cells neutralised (:func:`_cell`).
    The byte-order mark is added by the caller (``quiz export --no-bom`` leaves it out).
    ``warnings`` is not used: CSV can write any text."""
    questions = [q for bank in banks for q in bank.questions]
    written = {k: v for bank in banks for k, v in written_questions(bank.path).items()}
    width = max((len(q.options) for q in questions), default=2)
    unused = set(OPTION_KEYS[width:]) | {f"review_{k}" for k in OPTION_KEYS[width:]}
    columns = [c for c in COLUMNS if c not in unused]
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for question in questions:
        data = question_data(question, written.get(question.id))
        cells: dict[str, str] = {
            "id": question.id, "topic": question.topic, "difficulty": question.difficulty or "",
            "tags": " ".join(question.tags), "question": question.stem,
            "answer": question.answer if isinstance(question.answer, str)
            else ", ".join(question.answer),
            "shuffle": "" if "shuffle" not in data else str(question.shuffle).lower(),
            "short_explanation": question.short_explanation,
            "full_explanation": question.full_explanation,
            "references": "\n".join(question.references),
            "lint_ignore": " ".join(question.lint.ignore) if question.lint else "",
        }
        cells.update(question.options)
        cells.update({f"review_{k}": v for k, v in question.distractor_review.items()})
        for name in ("infographic", "worked_example"):
            if name in data:
                cells[name] = json.dumps(data[name], ensure_ascii=False)
        writer.writerow([_cell(cells.get(c, "")) for c in columns])
    return out.getvalue()
