"""``quiz import`` and ``quiz export``: files in other formats → a bank, and banks → a file.

Import reads each source with its format's ``parse``, gives every question a topic and an id that
is fresh across the destination's folder, fills what the format cannot carry with ``TODO``
placeholders (:func:`quiz.bank.formats.complete`), and then either creates the destination bank
or appends the questions to it as text (its existing text is never re-written). It never replaces
an existing file unless ``force`` is given.

Export loads banks (they must load without errors), renders them in the chosen format and writes
the file through a temporary file in the same folder, so an interrupted export never leaves half a
file; it never replaces an existing file unless ``force`` is given.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quiz import yamlio
from quiz.bank.formats import (
    Note,
    Parsed,
    aiken,
    anki,
    complete,
    csv_format,
    gift,
    moodle_xml,
    seed,
)
from quiz.bank.library import LoadedBank
from quiz.bank.model import SLUG_PATTERN
from quiz.bank.schema import SCHEMA_FILE
from quiz.bank.template import TemplateError, open_for_append, slug, taken_ids


class TransferError(ValueError):
    """Import or export cannot run at all (a usage problem): the message says why."""


@dataclass(frozen=True)
class Format:
    """A file format: its ``name`` (for ``--format``), the file ``extensions`` it is picked by,
    and its ``parse`` and ``render`` functions (None when it cannot be imported or exported)."""

    name: str
    title: str
    extensions: tuple[str, ...]
    parse: Callable[[str], Parsed] | None = None
    render: Callable[[list[LoadedBank]], str | bytes] | None = None


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("seed", "seed-layout document (plain text)", (".txt",), seed.parse),
    Format("seed-md", "seed-layout document (Markdown)", (".md", ".markdown"),
           lambda text: seed.parse(text, markdown=True)),
    Format("gift", "Moodle GIFT", (".gift",), gift.parse, gift.render),
    Format("xml", "Moodle XML", (".xml",), moodle_xml.parse, moodle_xml.render),
    Format("aiken", "Aiken", (".aiken",), aiken.parse),
    Format("csv", "CSV (header documented in FORMAT.md)", (".csv",), csv_format.parse,
           csv_format.render),
    Format("apkg", "Anki deck", (".apkg",), None, anki.render),
)}
"""Every format, by ``--format`` name."""


def pick_format(path: Path, given: str | None, *, exporting: bool) -> Format:
    """The format named by ``given``, else the one ``path``'s extension stands for. Raises
    :class:`TransferError` when neither says, or the format cannot be used that way."""
    if given is not None:
        fmt = FORMATS.get(given)
        if fmt is None:
            raise TransferError(f"unknown format {given!r}; formats: {', '.join(FORMATS)}")
    else:
        suffix = path.suffix.lower()
        found = [f for f in FORMATS.values() if suffix in f.extensions]
        if not found:
            raise TransferError(f"{path}: cannot tell the format from {suffix or 'no extension'!r};"
                                f" give --format ({', '.join(FORMATS)})")
        fmt = found[0]
    if exporting and fmt.render is None:
        raise TransferError(f"{fmt.title} files can be imported, not exported; export to "
                            + ", ".join(f.name for f in FORMATS.values() if f.render))
    if not exporting and fmt.parse is None:
        raise TransferError(f"{fmt.title} files can be exported, not imported; import from "
                            + ", ".join(f.name for f in FORMATS.values() if f.parse))
    return fmt


@dataclass
class ImportReport:
    """What an import did: ``notes`` as ``(source path, note)``, the ids ``imported``, the
    destination ``path``, whether it was ``created``, and the line where the new questions
    start."""

    path: Path
    notes: list[tuple[str, Note]] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    created: bool = False
    line: int = 0


def import_files(sources: Sequence[Path], to: Path, *, fmt: str | None = None,
                 force: bool = False, topic: str | None = None,
                 schema_ref: str | None = None) -> ImportReport:
    """Import every question of ``sources`` into the bank ``to``.

    ``to`` is created when missing or when ``force`` is given (then it is replaced); otherwise
    the questions are appended to it. ``topic`` (a slug) overrides each question's topic;
    without it a question keeps the topic its source gives when the bank declares it (or when
    the bank is new), else takes the bank's first topic, with a note. ``schema_ref`` is named on
    a new bank's first line (default: the schema next to it). Raises :class:`TransferError` for
    an unknown format or a destination that cannot be appended to."""
    if topic is not None and not re.match(SLUG_PATTERN, topic):
        raise TransferError(f"topic {topic!r} is not a slug: use lowercase letters, digits, "
                            "'.', '_' and '-'")
    formats = [pick_format(source, fmt, exporting=False) for source in sources]
    _check_folder(to)
    report = ImportReport(to)
    target = None
    if to.exists() and not force:
        try:
            target = open_for_append(to)
        except TemplateError as exc:
            raise TransferError(f"{exc} (or give --force to replace the file)") from exc
    taken = taken_ids(to.parent, target.text if target else "")
    if force and to.exists():  # the file is replaced: its own ids are free again
        taken -= set(re.findall(r"^[ \t]*-?[ \t]*id:[ \t]*[\"']?([a-z0-9][a-z0-9._-]*)",
                                to.read_text(encoding="utf-8", errors="replace"), re.M))
    default_topic = topic or (target.declared[0] if target and target.declared else
                              target.last_topic if target and target.last_topic else slug(to.stem))
    header: dict[str, Any] | None = None
    questions: list[dict[str, Any]] = []
    for source, form in zip(sources, formats, strict=True):
        name = str(source)
        try:
            data = source.read_bytes()
        except OSError as exc:
            report.notes.append((name, Note(0, f"cannot read this file: {exc.strerror or exc}",
                                            "error")))
            continue
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            report.notes.append((name, Note(data.count(b"\n", 0, exc.start) + 1,
                                            f"not UTF-8 (byte 0x{data[exc.start]:02X}); save "
                                            "the file as UTF-8", "error")))
            continue
        assert form.parse is not None
        parsed = form.parse(text)
        report.notes += [(name, note) for note in parsed.notes]
        if parsed.bank is not None and header is None:
            header = parsed.bank
        for question in parsed.questions:
            line = question.pop("line", 0)
            wanted = topic or question.get("topic") or default_topic
            declared = target.declared if target else None
            if declared and wanted not in declared:
                report.notes.append((name, Note(line, f"topic {wanted!r} is not declared in "
                                                f"{to}: this question goes to topic "
                                                f"{default_topic!r}")))
                wanted = default_topic
            question["topic"] = wanted
            base = question.get("id") or f"{wanted}-imported"
            question["id"] = _fresh(base, taken, numbered=not question.get("id"))
            taken.add(question["id"])
            questions.append(complete(question))
    if not questions:
        return report
    report.imported = [q["id"] for q in questions]
    if target is not None:
        items = _items(questions, target.indent)
        try:
            report.line = target.append("\n" + items, report.imported) + 1
        except TemplateError as exc:
            raise TransferError(str(exc)) from exc
        return report
    topics = list(dict.fromkeys(q["topic"] for q in questions))
    bank: dict[str, Any] = dict(header) if header else {
        "id": slug(to.stem), "title": to.stem.replace("-", " ").replace("_", " ").strip()
        .capitalize() or "Imported questions", "version": 1}
    names = dict(bank.get("topics") or {})
    bank["topics"] = {t: names.get(t, t.replace("-", " ").capitalize()) for t in topics}
    ref = schema_ref or f"./{SCHEMA_FILE}"
    head = (f"# yaml-language-server: $schema={ref}\n"
            f"# Imported by 'quiz import'. Replace every TODO, then run: quiz validate {to.name}\n"
            "\n")
    body = yamlio.dump({"bank": bank, "questions": questions}, fold=True)
    _write(to, (head + body).encode("utf-8"))
    report.created = True
    report.line = head.count("\n") + body[:body.index("questions:")].count("\n") + 2
    return report


def _fresh(base: str, taken: set[str], *, numbered: bool) -> str:
    """``base`` itself when free (and not ``numbered``), else ``base-N`` (``base-NNN`` when
    ``numbered``) with the smallest free N."""
    if not numbered and base not in taken:
        return base
    n = 1 if numbered else 2
    while True:
        candidate = f"{base}-{n:03d}" if numbered else f"{base}-{n}"
        if candidate not in taken:
            return candidate
        n += 1


def _items(questions: list[dict[str, Any]], indent: int) -> str:
    """Questions as YAML list items whose ``-`` is at column ``indent``, one blank line between
    them (block scalars indent along, so their text is unchanged)."""
    pad = " " * indent
    chunks = []
    for question in questions:
        text = yamlio.dump([question], fold=True)
        chunks.append("\n".join(pad + line if line else line for line in text.split("\n")))
    return "\n".join(chunks)


def export_banks(banks: list[LoadedBank], to: Path, *, fmt: str | None = None,
                 force: bool = False) -> Format:
    """Render ``banks`` in the format of ``to`` (or ``fmt``) and write it. Raises
    :class:`TransferError` when ``to`` exists and ``force`` is not given, or for an unknown
    format; ``OSError`` when the file cannot be written. Returns the format used."""
    form = pick_format(to, fmt, exporting=True)
    _check_folder(to)
    if to.exists() and not force:
        raise TransferError(f"{to} already exists; give --force to replace it")
    assert form.render is not None
    content = form.render(banks)
    _write(to, content.encode("utf-8") if isinstance(content, str) else content)
    return form


def _check_folder(path: Path) -> None:
    if not path.parent.is_dir():
        raise TransferError(f"the folder {path.parent} does not exist; create it first")
    if path.is_dir():
        raise TransferError(f"{path} is a folder; give a file name")


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename.
    The file gets the usual permissions (read-write for all, less the umask), as ``open``
    would give it."""
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temp, 0o666 & ~mask)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
