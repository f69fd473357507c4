"""CSV: import and export, one question per row under a header row (documented in FORMAT.md).

The header names the columns, in any order; only ``question``, ``A``, ``B`` and ``answer`` are
required::

    id,topic,difficulty,tags,question,A,B,C,D,E,F,G,H,answer,shuffle,short_explanation,
    full_explanation,review_A,...,review_H,references,infographic,worked_example,lint_ignore

- ``answer``: one letter (``B``), or several for multiple response (``A, C`` or ``A C``);
- ``tags`` and ``lint_ignore``: separated by spaces or commas;
- ``references``: one per line inside the cell;
- ``shuffle``: ``true`` or ``false`` (empty: true);
- ``infographic`` and ``worked_example``: the mapping as JSON (what ``quiz export`` writes);
- an empty cell is a missing value; missing explanations and reviews become ``TODO``
  placeholders.

Files are UTF-8, with or without a byte-order mark; cells are quoted the usual way (``"..."``,
``""`` for a quote) and may hold line breaks. Excel's "CSV UTF-8" and LibreOffice's defaults
both read and write this. Problems are reported at the row's first line: an unknown column (the
file is refused), a row with more cells than the header, a missing required cell, JSON that does
not parse.
"""

from __future__ import annotations

import csv
import io
import json
import re
from difflib import get_close_matches
from typing import Any

from quiz.bank.formats import Note, Parsed, question_data
from quiz.bank.library import LoadedBank
from quiz.bank.model import OPTION_KEYS

COLUMNS = ("id", "topic", "difficulty", "tags", "question", *OPTION_KEYS, "answer", "shuffle",
           "short_explanation", "full_explanation", *(f"review_{k}" for k in OPTION_KEYS),
           "references", "infographic", "worked_example", "lint_ignore")
"""Every column, in the order export writes them."""

REQUIRED = ("question", "A", "B", "answer")


def parse(text: str) -> Parsed:
    """Read a CSV file (see the module docstring) into questions and notes."""
    result = Parsed()
    if text.startswith("\ufeff"):
        text = text[1:]
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        result.notes.append(Note(0, "the file is empty: it needs a header row", "error"))
        return result
    except csv.Error as exc:
        result.notes.append(Note(1, f"the header row cannot be read: {exc}", "error"))
        return result
    names = [h.strip() for h in header]
    for name in names:
        if name and name not in COLUMNS:
            close = get_close_matches(name, COLUMNS, n=1)
            result.notes.append(Note(1, f"unknown column {name!r}"
                                     + (f"; did you mean {close[0]!r}?" if close else "")
                                     + " (columns: see FORMAT.md)", "error"))
    missing = [r for r in REQUIRED if r not in names]
    if missing:
        result.notes.append(Note(1, f"the header lacks the column{'s' * (len(missing) > 1)} "
                                 + ", ".join(missing), "error"))
    if result.notes:
        return result
    line = reader.line_num + 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            result.notes.append(Note(line, f"this row cannot be read: {exc}", "error"))
            break
        start, line = line, reader.line_num + 1
        if not any(cell.strip() for cell in row):
            continue
        if len(row) > len(names):
            result.notes.append(Note(start, f"this row has {len(row)} cells but the header "
                                     f"has {len(names)} columns; skipped", "error"))
            continue
        cells = {n: c for n, c in zip(names, row, strict=False) if n and c.strip()}
        question = _question(cells, start, result)
        if question is not None:
            result.questions.append(question)
    return result


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
    keys = [k.upper() for k in re.split(r"[,;\s]+", cells["answer"]) if k]
    wrong = [k for k in keys if k not in options]
    if wrong or not keys:
        fail(f"answer {cells['answer']!r} is not one of the options ({', '.join(options)})")
        return None
    data: dict[str, Any] = {"line": line}
    for name in ("id", "topic", "difficulty"):
        if name in cells:
            data[name] = cells[name].strip()
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


def render(banks: list[LoadedBank]) -> str:
    """The questions of ``banks`` as CSV text with the full header (option and review columns
    up to the most options any question has)."""
    questions = [q for bank in banks for q in bank.questions]
    width = max((len(q.options) for q in questions), default=2)
    unused = set(OPTION_KEYS[width:]) | {f"review_{k}" for k in OPTION_KEYS[width:]}
    columns = [c for c in COLUMNS if c not in unused]
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for question in questions:
        data = question_data(question)
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
        writer.writerow([cells.get(c, "") for c in columns])
    return out.getvalue()
