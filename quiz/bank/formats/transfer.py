"""``quiz import``: files in other formats → a bank (and the formats ``quiz export`` shares).

Import reads each source (a regular file; a pipe or device is refused without being opened, and
a file named twice is read once), picks its format (``--format``, else the extension, else the
content: :func:`sniff`), parses it, gives every question a topic and an id that is fresh across
the destination's folder, and fills what the format cannot carry with ``TODO`` placeholders
(:func:`quiz.bank.formats.complete`). It then builds the whole new bank file (a new bank, or the
existing bank's bytes followed by the new questions: the text already there is never re-written)
and loads it with the bank loader before writing anything: a question the loader would reject is
skipped with an error naming its source line and the loader's reason, and a problem outside the
new questions stops the import with nothing written. The file is written beside the old one and
renamed over it (:func:`quiz.bank.files.write_atomic`). ``--to FOLDER`` writes each bank of the
sources to its own file in that folder (``BANK-ID.yaml``), so several banks exported together
come back as several banks.

Export is :mod:`quiz.bank.formats.export`; the formats (:data:`FORMATS`) and how one is picked
(:func:`pick_format`) are shared by both.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from quiz import yamlio
from quiz.bank.files import kind_of, write_atomic
from quiz.bank.formats import (
    Note,
    Parsed,
    aiken,
    anki,
    certificationy,
    complete,
    csv_format,
    gift,
    markdown_exam,
    moodle_xml,
    seed,
)
from quiz.bank.library import LoadedBank
from quiz.bank.model import SLUG_PATTERN
from quiz.bank.schema import SCHEMA_FILE
from quiz.bank.template import (
    AppendTarget,
    TemplateError,
    ids_in,
    open_for_append,
    slug,
    taken_ids,
)


class TransferError(ValueError):
    """Import or export cannot run at all (a usage problem): the message says why."""


@dataclass(frozen=True)
class Format:
    """A file format: its ``name`` (for ``--format``), the file ``extensions`` it is picked by,
    and its ``parse`` and ``render`` functions (None when it cannot be imported or exported).
    ``render`` takes the banks and a list to add warnings to."""

    name: str
    title: str
    extensions: tuple[str, ...]
    parse: Callable[[str], Parsed] | None = None
    render: Callable[[list[LoadedBank], list[str]], str | bytes] | None = None


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("seed", "seed-layout document (plain text)", (".txt",), seed.parse),
    Format("seed-md", "seed-layout document (Markdown)", (".md", ".markdown"),
           lambda text: seed.parse(text, markdown=True)),
    Format("gift", "Moodle GIFT", (".gift",), gift.parse, gift.render),
    Format("xml", "Moodle XML", (".xml",), moodle_xml.parse, moodle_xml.render),
    Format("aiken", "Aiken", (".aiken",), aiken.parse),
    Format("csv", "CSV (header documented in FORMAT.md)", (".csv", ".tsv"), csv_format.parse,
           csv_format.render),
    Format("markdown", "Markdown practice exam (numbered questions, '- A.' options)", (),
           markdown_exam.parse),
    Format("certificationy", "certificationy YAML", (), certificationy.parse),
    Format("apkg", "Anki deck", (".apkg",), None, anki.render),
)}
"""Every format, by ``--format`` name."""

_BY_CONTENT = (".txt", ".md", ".markdown", ".yaml", ".yml", "")
"""Extensions that do not name one format: such a file is recognised by its content."""


def sniff(text: str) -> str | None:
    """The format a source's ``text`` is written in, by its content, or None when nothing
    fits: Moodle XML, a seed-layout document, a Markdown practice exam, certificationy YAML,
    GIFT, Aiken, then CSV (in that order: the first whose marks are found)."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith(("<?xml", "<quiz")):
        return "xml"
    if (re.search(r"(?im)^[\s#*_]*short explanation", text)
            and re.search(r"(?im)^[\s#*_]*full explanation", text)):
        return "seed"
    if (re.search(r"(?m)^ {0,3}\d+\.\s+\S", text)
            and re.search(r"(?m)^\s*[-*]\s+[A-H][.)]\s", text)):
        return "markdown"
    if (re.search(r"(?m)^questions:\s*$", text) and re.search(r"(?m)^\s*answers:", text)
            and re.search(r"\bcorrect:\s*(true|false)", text)):
        return "certificationy"
    if (re.search(r"(?m)^\s*\$CATEGORY:", text) or re.search(r"(?m)^\s*::[^:\n]+::", text)
            or re.search(r"\{[^{}]*(?<!\\)[=~][^{}]*\}", text)
            or re.search(r"\{\s*(T|F|TRUE|FALSE)\s*(#[^{}]*)?\}", text)):
        return "gift"
    if re.search(r"(?im)^ANSWER\s*:\s*[A-H]\b", text):
        return "aiken"
    first = head.split("\n", 1)[0]
    if re.search(r"(?i)\b(question|stem)\b", first) and max(
            first.count(c) for c in ",;\t") >= 2:
        return "csv"
    return None


def pick_format(path: Path, given: str | None, *, exporting: bool,
                text: str | None = None) -> Format:
    """The format named by ``given``, else the one ``path``'s extension stands for, else (for
    an import whose extension says nothing, given its ``text``) the one :func:`sniff` finds.
    Raises :class:`TransferError` when none says, or the format cannot be used that way."""
    suffix = path.suffix.lower()
    if given is not None:
        fmt = FORMATS.get(given)
        if fmt is None:
            raise TransferError(f"unknown format {given!r}; formats: {', '.join(FORMATS)}")
    else:
        found = [f for f in FORMATS.values() if suffix in f.extensions]
        sniffed = sniff(text) if text is not None and suffix in _BY_CONTENT else None
        if sniffed == "seed" and suffix in (".md", ".markdown"):
            sniffed = "seed-md"
        if sniffed is not None:
            fmt = FORMATS[sniffed]
        elif found:
            fmt = found[0]
        else:
            raise TransferError(f"{path}: cannot tell the format from "
                                f"{suffix or 'no extension'!r}"
                                + (" or from the content" if text is not None else "")
                                + f"; give --format ({', '.join(FORMATS)})")
    if exporting and fmt.render is None:
        raise TransferError(f"{fmt.title} files can be imported, not exported; export to "
                            + ", ".join(f.name for f in FORMATS.values() if f.render))
    if not exporting and fmt.parse is None:
        raise TransferError(f"{fmt.title} files can be exported, not imported; import from "
                            + ", ".join(f.name for f in FORMATS.values() if f.parse))
    return fmt


@dataclass
class Written:
    """One bank an import wrote: its ``path``, whether it was ``created``, the line where the
    new questions start and their ``ids``."""

    path: Path
    created: bool
    line: int
    ids: list[str]


@dataclass
class ImportReport:
    """What an import did: ``notes`` as ``(source path, note)``, the ids ``imported``, and each
    bank ``written``; ``path``, ``created`` and ``line`` describe the first one written (for
    ``--to BANK``: the one bank)."""

    path: Path
    notes: list[tuple[str, Note]] = field(default_factory=list)
    imported: list[str] = field(default_factory=list)
    written: list[Written] = field(default_factory=list)

    @property
    def created(self) -> bool:
        """Whether the (first) bank written was created rather than appended to."""
        return bool(self.written) and self.written[0].created

    @property
    def line(self) -> int:
        """The line of the (first) bank written where the new questions start (0: none)."""
        return self.written[0].line if self.written else 0


@dataclass
class _Group:
    """Questions bound for one bank: the source header (if any) and topic names."""

    header: dict[str, Any] | None
    questions: list[dict[str, Any]] = field(default_factory=list)
    topics: dict[str, str] = field(default_factory=dict)
    stem: str = "imported"


def import_files(sources: Sequence[Path], to: Path, *, fmt: str | None = None,
                 force: bool = False, topic: str | None = None,
                 schema_ref: str | None = None) -> ImportReport:
    """Import every question of ``sources`` into the bank ``to`` (or, when ``to`` is a folder,
    each bank of the sources into its own file there).

    A bank file is created when missing or when ``force`` is given (then it is replaced);
    otherwise the questions are appended to it, which must be a bank that loads. ``topic`` (a
    slug) overrides each question's topic; without it a question keeps the topic its source
    gives when the bank declares it (or when the bank is new), else takes the bank's first
    topic, with a note. ``schema_ref`` is named on a new bank's first line (default: the schema
    next to it). Raises :class:`TransferError` for an unknown format, a destination that cannot
    be appended to, or a result the loader would reject for a reason outside the new questions;
    nothing is written then."""
    if topic is not None and not re.match(SLUG_PATTERN, topic):
        raise TransferError(f"topic {topic!r} is not a slug: use lowercase letters, digits, "
                            "'.', '_' and '-'")
    if fmt is not None:
        pick_format(Path(), fmt, exporting=False)
    into_folder = to.is_dir()
    if not into_folder:
        _check_folder(to)
    report = ImportReport(to)
    groups = _read_sources(sources, fmt, report)
    if not into_folder:
        merged = _Group(None, stem=to.stem)
        headers = []
        for group in groups:
            if group.header is not None:
                headers.append(group.header)
                merged.header = merged.header or group.header
            merged.questions += group.questions
            merged.topics = {**group.topics, **merged.topics}
        if len({h.get("id") for h in headers}) > 1:
            report.notes.append((str(sources[0]), Note(0, f"the sources hold {len(headers)} "
                                                       "banks; they go into one bank here "
                                                       "(give --to FOLDER to keep them apart)")))
        if merged.header is not None:
            topics: dict[str, str] = {}
            for header in headers:
                names = header.get("topics")
                for key, name in (names.items() if isinstance(names, dict) else ()):
                    topics.setdefault(key, name)
            merged.header = {**merged.header, "topics": topics}
        plan = [(to, merged)]
    else:
        plan = []
        by_path: dict[Path, _Group] = {}
        for group in groups:
            name = group.header.get("id") if group.header else None
            path = to / f"{name if isinstance(name, str) else slug(group.stem)}.yaml"
            if path in by_path:
                by_path[path].questions += group.questions
                by_path[path].topics = {**group.topics, **by_path[path].topics}
            else:
                by_path[path] = group
                plan.append((path, group))
    for path, group in plan:
        if group.questions:
            _import_into(path, group, report, force=force, topic=topic, schema_ref=schema_ref)
    return report


def _read_sources(sources: Sequence[Path], fmt: str | None,
                  report: ImportReport) -> list[_Group]:
    """Parse each source once; returns the groups of questions, one per bank it holds."""
    groups: list[_Group] = []
    seen: dict[tuple[int, int], Path] = {}
    for source in sources:
        name = str(source)

        def note(line: int, message: str, severity: str = "error", name: str = name) -> None:
            report.notes.append((name, Note(line, message, "error" if severity == "error"
                                            else "warning", "file")))

        try:
            info = source.stat()
        except OSError as exc:
            note(0, f"cannot read this file: {exc.strerror or exc}")
            continue
        kind = kind_of(info.st_mode)
        if kind is not None:
            note(0, f"this is {kind}, not a file; skipped (save the questions to a file first)")
            continue
        if (info.st_dev, info.st_ino) in seen:
            note(0, f"the same file as {seen[(info.st_dev, info.st_ino)]}, given again: "
                 "imported once", "warning")
            continue
        seen[(info.st_dev, info.st_ino)] = source
        try:
            data = source.read_bytes()
        except OSError as exc:
            note(0, f"cannot read this file: {exc.strerror or exc}")
            continue
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            note(data.count(b"\n", 0, exc.start) + 1, f"not UTF-8 (byte "
                 f"0x{data[exc.start]:02X}); save the file as UTF-8")
            continue
        form = pick_format(source, fmt, exporting=False, text=text)
        assert form.parse is not None
        parsed = form.parse(text)
        report.notes += [(name, n) for n in parsed.notes]
        if not parsed.questions and fmt is not None:
            other = sniff(text)
            if other is not None and other != form.name and not form.name.startswith(other):
                note(0, f"nothing in this file reads as {form.title}, but it reads as "
                     f"{FORMATS[other].title}: try --format {other}", "warning")
        mine = [_Group(h, stem=source.stem) for h in parsed.banks] or [
            _Group(None, stem=source.stem)]
        for group in mine:
            group.topics = dict(parsed.topics)
        for question in parsed.questions:
            index = question.pop("bank", 0)
            question["source"] = name
            mine[index if isinstance(index, int) and 0 <= index < len(mine) else 0
                 ].questions.append(question)
        groups += mine
    return groups


class _Ids:
    """Fresh ids in linear time: the ids taken, and per base the next number to try."""

    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.next: dict[str, int] = {}

    def fresh(self, base: str, *, numbered: bool) -> str:
        """``base`` itself when free (and not ``numbered``), else ``base-N`` (``base-NNN``
        when ``numbered``) with the smallest N not yet tried for ``base`` that is free."""
        if not numbered and base not in self.taken:
            self.taken.add(base)
            return base
        n = self.next.get(base, 1 if numbered else 2)
        while True:
            candidate = f"{base}-{n:03d}" if numbered else f"{base}-{n}"
            n += 1
            if candidate not in self.taken:
                self.next[base] = n
                self.taken.add(candidate)
                return candidate


_SEPARATORS = {"\u2028": "\n", "\u2029": "\n\n", "\x85": "\n", "\r\n": "\n", "\r": "\n"}
_SEPARATOR = re.compile("\r\n|[\r\u2028\u2029\x85]")


def _plain_breaks(value: Any) -> tuple[Any, bool]:
    """``value`` with every line or paragraph separator (U+2028, U+2029, U+0085, CR) written
    as plain line breaks, which a bank file holds; and whether any was found."""
    if isinstance(value, str):
        if _SEPARATOR.search(value) is None:
            return value, False
        return _SEPARATOR.sub(lambda m: _SEPARATORS[m.group(0)], value), True
    if isinstance(value, list):
        pairs = [_plain_breaks(v) for v in value]
        return [v for v, _ in pairs], any(c for _, c in pairs)
    if isinstance(value, dict):
        changed = False
        out = {}
        for key, item in value.items():
            out[key], was = _plain_breaks(item)
            changed = changed or was
        return out, changed
    return value, False


def _literal_braces(question: dict[str, Any]) -> dict[str, Any]:
    """``question`` with each ``{{`` in its source text written ``{{{{``: a bank reads ``{{`` as
    a calculator placeholder (FORMAT.md, "Computed questions"), and a source's ``{{`` (a Twig or
    Jinja example) is text. The infographic and worked example are left as they are (a quiz
    export carries them as the author wrote them, placeholders and all)."""
    out = dict(question)
    for key in ("question", "short_explanation", "full_explanation"):
        if isinstance(out.get(key), str):
            out[key] = out[key].replace("{{", "{{{{")
    for key in ("options", "distractor_review"):
        if isinstance(out.get(key), dict):
            out[key] = {k: v.replace("{{", "{{{{") if isinstance(v, str) else v
                        for k, v in out[key].items()}
    return out


def _import_into(to: Path, group: _Group, report: ImportReport, *, force: bool,
                 topic: str | None, schema_ref: str | None) -> None:
    """Add ``group``'s questions to the bank file ``to`` (see :func:`import_files`)."""
    target: AppendTarget | None = None
    exists = to.exists() or to.is_symlink()
    if exists:
        kind = kind_of(to.stat().st_mode) if to.exists() else "a dangling link"
        if kind is not None:
            raise TransferError(f"{to} is {kind}, not a bank file; give a .yaml file name")
    if exists and not force:
        try:
            target = open_for_append(to)
        except TemplateError as exc:
            raise TransferError(f"{exc} (or give --force to replace the file)") from exc
        from quiz.bank.load import load_bank_text

        errors = load_bank_text(target.raw, str(to)).errors
        if errors:
            raise TransferError(f"{to} does not load ({len(errors)} error"
                                f"{'s' * (len(errors) > 1)}, first: {errors[0]}); fix it "
                                f"first (quiz validate {to}), or give --force to replace it")
    taken = taken_ids(to.parent, target.text if target else "")
    if force and exists:  # the file is replaced: its own ids are free again
        taken -= ids_in(to.read_text(encoding="utf-8", errors="replace"))
    ids = _Ids(taken)
    names = dict(group.topics)
    header_topics = group.header.get("topics") if group.header else None
    if isinstance(header_topics, dict):
        names.update(header_topics)
    default_topic = topic or (target.declared[0] if target and target.declared else
                              target.last_topic if target and target.last_topic else
                              slug(to.stem))
    questions: list[dict[str, Any]] = []
    for question in group.questions:
        line = question.pop("line", 0)
        source = question.pop("source", "")
        wanted = topic or question.get("topic") or default_topic
        declared = target.declared if target else None
        if declared and wanted not in declared:
            report.notes.append((source, Note(line, f"topic {wanted!r} is not declared in "
                                              f"{to}: this question goes to topic "
                                              f"{default_topic!r}")))
            wanted = default_topic
        question["topic"] = wanted
        given = question.get("id")
        question["id"] = ids.fresh(given or f"{wanted}-imported", numbered=not given)
        question = _literal_braces(question)
        question, changed = _plain_breaks(question)
        if changed:
            report.notes.append((source, Note(line, "a line or paragraph separator (U+2028, "
                                              "U+2029, U+0085 or CR) became a plain line "
                                              "break")))
        done = complete(question)
        done["line"], done["source"] = line, source
        questions.append(done)
    builder = _Builder(to, target, group, names, questions, schema_ref)
    result = builder.validated(report)
    if result is None:
        return
    data, first_line, kept = result
    try:
        write_atomic(to, data)
    except OSError as exc:
        raise TransferError(f"cannot write {to}: {exc.strerror or exc}; "
                            + ("the bank is unchanged" if target else "nothing was written")
                            ) from exc
    ids_written = [q["id"] for q in kept]
    report.imported += ids_written
    report.written.append(Written(to, target is None, first_line, ids_written))


class _Builder:
    """Builds the bytes of the bank an import writes, and checks them with the loader."""

    def __init__(self, to: Path, target: AppendTarget | None, group: _Group,
                 names: dict[str, str], questions: list[dict[str, Any]],
                 schema_ref: str | None) -> None:
        self.to, self.target, self.group = to, target, group
        self.names, self.questions, self.schema_ref = names, questions, schema_ref

    def text(self, questions: list[dict[str, Any]]) -> tuple[bytes, list[int]]:
        """The file's bytes and the 1-based line where each question starts (and one more:
        the line after the last)."""
        pad = " " * (self.target.indent if self.target else 0)
        chunks = []
        for question in questions:
            item = {k: v for k, v in question.items() if k not in ("line", "source")}
            dumped = yamlio.dump([item], fold=True)
            chunks.append("\n".join(pad + ln if ln else ln for ln in dumped.split("\n")))
        if self.target is not None:
            decoded = self.target.decoded
            newline = "\r\n" if "\r\n" in decoded else "\n"
            ending = "" if decoded.endswith(("\n", "\r")) or not decoded else newline
            prefix_lines = self.target.text.count("\n") + (1 if ending else 0)
            addition = "\n" + "\n".join(chunks)
            data = self.target.raw + (ending + addition.replace("\n", newline)).encode("utf-8")
            first = prefix_lines + 2
        else:
            head = self._head(questions)
            data = (head + "\n".join(chunks)).encode("utf-8")
            first = head.count("\n") + 1
        starts = []
        line = first
        for chunk in chunks:
            starts.append(line)
            line += chunk.count("\n") + 1
        starts.append(line)
        return data, starts

    def _head(self, questions: list[dict[str, Any]]) -> str:
        header = self.group.header
        to = self.to
        bank: dict[str, Any] = dict(header) if header else {
            "id": slug(to.stem), "title": to.stem.replace("-", " ").replace("_", " ").strip()
            .capitalize() or "Imported questions", "version": 1}
        topics = list(dict.fromkeys(q["topic"] for q in questions))
        bank["topics"] = {t: self.names.get(t) or t.replace("-", " ").capitalize()
                          for t in topics}
        ref = self.schema_ref or f"./{SCHEMA_FILE}"
        return (f"# yaml-language-server: $schema={ref}\n"
                f"# Imported by 'quiz import'. Replace every TODO, then run: quiz validate "
                f"{to.name}\n\n" + yamlio.dump({"bank": bank}, fold=True) + "\nquestions:\n")

    def validated(self, report: ImportReport,
                  ) -> tuple[bytes, int, list[dict[str, Any]]] | None:
        """The bytes to write, the line of the first new question and the questions kept:
        each question the loader rejects is dropped with an error note (at its source line,
        with the loader's reason). None when no question is left. Raises
        :class:`TransferError` for a problem outside the new questions."""
        from quiz.bank.load import load_bank_text

        questions = self.questions
        while questions:
            data, starts = self.text(questions)
            loaded = load_bank_text(data, str(self.to))
            errors = loaded.errors
            if not errors:
                library = loaded.library
                got = [q.id for q in library.questions] if library else []
                want = [q["id"] for q in questions]
                if got[len(got) - len(want):] != want or (
                        self.target and len(got) != self.target.count + len(want)):
                    raise TransferError(f"the new questions would not land in the questions "
                                        f"of {self.to}; nothing was written")
                return data, starts[0], questions
            bad: dict[int, list[str]] = {}
            outside = []
            for diag in errors:
                index = bisect_right(starts, diag.line) - 1
                if 0 <= index < len(questions):
                    bad.setdefault(index, []).append(diag.message)
                else:
                    outside.append(str(diag))
            if outside:
                raise TransferError(f"{self.to} would not load after this import, so nothing "
                                    "was written:\n  " + "\n  ".join(outside[:10]))
            for index, messages in sorted(bad.items()):
                question = questions[index]
                report.notes.append((question["source"], Note(
                    question["line"], "this question would not load in a bank: "
                    + "; ".join(dict.fromkeys(messages)) + "; skipped", "error")))
            questions = [q for i, q in enumerate(questions) if i not in bad]
        return None


def _check_folder(path: Path) -> None:
    if not path.parent.is_dir():
        raise TransferError(f"the folder {path.parent} does not exist; create it first")
    if path.is_dir():
        raise TransferError(f"{path} is a folder; give a file name")
