"""The bank commands: ``quiz validate``, ``quiz schema``, ``quiz new``, ``quiz import`` and
``quiz export`` (registered in :data:`quiz.cli.COMMANDS`).

Each parses its arguments, calls one core function (:mod:`quiz.bank.lint`,
:mod:`quiz.bank.template`, :mod:`quiz.bank.formats.transfer`, :mod:`quiz.bank.formats.export`)
and prints its result to stdout; the exit status says how it went (:mod:`quiz.cli.status`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from quiz.cli.status import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from quiz.wording import plural as _plural

if TYPE_CHECKING:
    from quiz.bank.library import Diagnostic

SCHEMA_REF = "./quiz-bank.schema.json"
"""How a new bank names its JSON Schema: the copy beside it (:func:`_schema_beside`), a path
that travels with the folder (not the installed package's, which a colleague does not have)."""


# -- validate ---------------------------------------------------------------------------------
def _validate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quiz validate",
        description="Check question banks: the format, then the instructor checks (lint rules, "
        "each with a code, a name and a fix hint; see FORMAT.md). Prints every problem as "
        "path:line:col: severity: message, then a count ('ok: ...' when there is no error). "
        "Everything goes to stdout; the exit status says the result: 0 no errors "
        "(warnings allowed), 1 errors found, 2 usage error.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="bank files or folders (default: the bundled bank)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="print the errors only: no warnings, no count, no 'ok' line")
    parser.add_argument("--strict", action="store_true",
                        help="treat warnings as errors (exit 1 if there is any)")
    parser.add_argument("--select", action="append", default=[], metavar="RULES",
                        help="run only these lint rules: codes (Q104), names "
                        "(longest-option-is-key) or code prefixes (Q1), comma-separated")
    parser.add_argument("--ignore", action="append", default=[], metavar="RULES",
                        help="do not run these lint rules (same forms as --select)")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text (default), or json: a list of diagnostics for editors and "
                        "tools")
    parser.add_argument("--rules", action="store_true",
                        help="list the lint rules with what each checks, then exit")
    parser.add_argument("--no-cache", action="store_true",
                        help="check every file in full: do not read or write the lint cache "
                        "(by default an unchanged file's findings come from it)")
    return parser


def _split(entries: Sequence[str]) -> list[str]:
    return [part.strip() for entry in entries for part in entry.split(",") if part.strip()]


def run_validate(argv: Sequence[str]) -> int:
    """``quiz validate [PATH...]``: load the banks (default: the bundled bank, as ``quiz``
    studies it without a path), run the lint rules (:mod:`quiz.bank.lint`) on
    those that load, print every diagnostic with its fix hint and a count to stdout; return 0
    (clean), 1 (errors, or warnings with ``--strict``) or 2 (usage)."""
    parser = _validate_parser()
    ns = parser.parse_args(argv)
    from quiz.bank import lint

    if ns.rules:
        for rule in lint.RULES:
            print(f"{rule.code} {rule.name:24} {rule.severity:8} {rule.summary}")
        return EXIT_OK
    if not ns.paths:
        from quiz.paths import bundled_bank_dir

        ns.paths = [str(bundled_bank_dir())]  # as ``quiz`` studies it without a path
    try:
        rules = lint.resolve_rules(_split(ns.select), _split(ns.ignore))
    except lint.SelectionError as exc:
        parser.error(str(exc))
    import gc

    from quiz.bank.lint_cache import check_library

    # No garbage collection walks the millions of values, marks and models that loading and
    # linting keep alive (collections were a fifth of a 10,000-question validate); what they
    # drop is freed by reference counting, and what is left is frozen before collections
    # resume, so the first one does not walk it all either. Files are checked one by one, each
    # let go before the next (check_library), and an unchanged file comes from the lint cache.
    enabled = gc.isenabled()
    gc.disable()
    try:
        if ns.no_cache:
            cache = None
        else:
            from quiz.paths import cache_dir

            cache = cache_dir()
        checked = check_library(ns.paths, rules, cache)
        report = checked.report
        diagnostics = list(report.diagnostics) + checked.findings
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
    if ns.strict:
        diagnostics = [d._replace(severity="error") for d in diagnostics]
    shown = [d for d in diagnostics if d.severity == "error" or not ns.quiet]
    n_err = sum(d.severity == "error" for d in diagnostics)
    n_warn = len(diagnostics) - n_err
    if ns.format == "json":
        import json  # only for --json: not imported before the app's first paint

        print(json.dumps([_as_json(d) for d in shown], indent=2, ensure_ascii=False))
        return EXIT_ERRORS if n_err else EXIT_OK
    for diag in shown:
        print(diag)
        if diag.hint:
            print(f"    hint: {diag.hint}")
    warnings = f", {_plural(n_warn, 'warning')}" if n_warn else ""
    if not n_err:
        if not ns.quiet:
            lib = report.library
            count = lib.question_count if lib else 0
            banks = len(lib.banks) if lib else 0
            print(f"ok: {_plural(count, 'question')} in {_plural(banks, 'bank')}{warnings}")
        return EXIT_OK
    if not ns.quiet:
        print(f"{_plural(n_err, 'error')}{warnings}")
    return EXIT_ERRORS


def _as_json(diag: Diagnostic) -> dict[str, object]:
    """One diagnostic for ``--format json``: ``code`` and ``rule`` are null for format errors."""
    code, _, name = (diag.rule or "").partition(" ")
    return {"path": diag.path, "line": diag.line, "column": diag.column,
            "severity": diag.severity, "code": code or None, "rule": name or None,
            "message": diag.message, "hint": diag.hint}


# -- schema -----------------------------------------------------------------------------------
def run_schema(argv: Sequence[str]) -> int:
    """``quiz schema``: print the JSON Schema of a bank file (:mod:`quiz.bank.schema`)."""
    argparse.ArgumentParser(
        prog="quiz schema",
        description="Print the JSON Schema of a bank file, for editors. A copy ships next to "
        "the bundled banks as quiz-bank.schema.json; name it on a bank's first line: "
        "'# yaml-language-server: $schema=./quiz-bank.schema.json'.",
    ).parse_args(argv)
    from quiz.bank.schema import render

    sys.stdout.write(render())
    return EXIT_OK


# -- new --------------------------------------------------------------------------------------
def run_new(argv: Sequence[str]) -> int:
    """``quiz new BANK.yaml [--topic T] [--multiple]``: append a commented template question
    (:mod:`quiz.bank.template`), or create the bank with one."""
    parser = argparse.ArgumentParser(
        prog="quiz new",
        description="Append a commented template question with a fresh id to BANK (the text "
        "already there is never re-written), or create BANK with one. Every field to write "
        "holds a TODO, which 'quiz validate' reports until it is filled.",
    )
    parser.add_argument("bank", metavar="BANK", help="the bank file (.yaml)")
    parser.add_argument("--topic", help="the question's topic key (default: the bank's first)")
    parser.add_argument("--multiple", action="store_true",
                        help="a multiple-response question ('Choose two.')")
    ns = parser.parse_args(argv)

    from quiz.bank.template import TemplateError, add_question

    path = _bank_path(parser, ns.bank)
    try:
        added = add_question(path, topic=ns.topic, multiple=ns.multiple,
                             schema_ref=SCHEMA_REF)
    except TemplateError as exc:
        print(f"quiz new: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    what = "created the bank with" if added.created else "added"
    if added.created:
        _schema_beside(path.parent)
    print(f"{path}:{added.line}: {what} question '{added.id}' (topic {added.topic}); replace "
          f"each TODO, then run: quiz validate {path}")
    return EXIT_OK


# -- import / export ---------------------------------------------------------------------------
def _bank_path(parser: argparse.ArgumentParser, text: str) -> Path:
    """``text`` as a bank file's path; a usage error (exit 2) unless it ends in .yaml or .yml."""
    path = Path(text)
    if path.suffix.lower() not in (".yaml", ".yml"):
        parser.error(f"{path}: a bank file's name ends in .yaml or .yml")
    return path


def _schema_beside(folder: Path) -> None:
    """Write a copy of the bank JSON Schema into ``folder`` when it has none, so the
    ``$schema=./quiz-bank.schema.json`` line of a bank just created there works on this
    machine and on a colleague's (said on stderr; a folder that cannot take it is left)."""
    from quiz.bank.files import write_atomic
    from quiz.bank.schema import SCHEMA_FILE, render

    copy = folder / SCHEMA_FILE
    if copy.exists() or copy.is_symlink() or not folder.is_dir():
        return
    try:
        write_atomic(copy, render().encode("utf-8"))
    except OSError:
        return
    print(f"{copy}: wrote the bank JSON Schema beside the bank, for editors", file=sys.stderr)


def run_import(argv: Sequence[str]) -> int:
    """``quiz import FILE... --to BANK``: questions from other formats into a bank
    (:mod:`quiz.bank.formats.transfer`). Prints each note as ``file:line: severity: message``."""
    from quiz.bank.formats.transfer import FORMATS, TransferError, import_files

    parser = argparse.ArgumentParser(
        prog="quiz import",
        description="Import questions into a bank: Moodle GIFT (.gift), Moodle XML (.xml), "
        "Aiken (.aiken), CSV (.csv, .tsv; header in FORMAT.md), Markdown practice exams "
        "(numbered questions, '- A.' options), certificationy YAML and seed-layout documents. "
        "The format comes from --format, else each file's extension, else its content (.txt, "
        ".md, .yaml or no extension). An existing bank is appended to (its text is kept as it "
        "is; new questions get fresh ids); --force replaces it instead. With --to FOLDER, each "
        "bank in the files goes to its own file there. The result is loaded before anything is "
        "written: a question the bank would reject is skipped and named. What a format cannot "
        "carry becomes a TODO placeholder that 'quiz validate' reports until it is written.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="files to import")
    parser.add_argument("--to", required=True, metavar="BANK",
                        help="the bank file (.yaml), or a folder: one bank file per bank")
    parser.add_argument("--format", choices=[f for f in FORMATS if FORMATS[f].parse],
                        help="the format of every FILE (default: from each extension or its "
                        "content)")
    parser.add_argument("--topic", help="put every question in this topic (a slug)")
    parser.add_argument("--force", action="store_true",
                        help="replace BANK if it exists, instead of appending to it")
    ns = parser.parse_args(argv)
    if not ns.to:
        parser.error("--to needs a bank file or a folder")
    to = Path(ns.to) if Path(ns.to).is_dir() else _bank_path(parser, ns.to)
    try:
        report = import_files([Path(f) for f in ns.files], to, fmt=ns.format, force=ns.force,
                              topic=ns.topic, schema_ref=SCHEMA_REF)
    except TransferError as exc:
        print(f"quiz import: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for source, note in report.notes:
        where = f"{source}:{note.line}" if note.line else source
        print(f"{where}: {note.severity}: {note.message}")
    errors = [note for _, note in report.notes if note.severity == "error"]
    # An error skips one question, or a whole file (however many errors it has).
    skipped = [_plural(n, noun) for n, noun in (
        (sum(note.scope == "question" for note in errors), "question"),
        (len({source for source, note in report.notes
              if note.severity == "error" and note.scope == "file"}), "file")) if n]
    warnings = sum(note.severity == "warning" for _, note in report.notes)
    said = (f", {_plural(warnings, 'warning')}" if warnings else "")
    if not report.imported:
        skipped_note = f" ({' and '.join(skipped)} skipped)" if skipped else ""
        print(f"nothing imported{skipped_note}; {to} is unchanged")
        return EXIT_ERRORS
    for folder in dict.fromkeys(w.path.parent for w in report.written if w.created):
        _schema_beside(folder)
    for n, written in enumerate(report.written):
        how = "created" if written.created else "appended to"
        tail = (f", skipped {' and '.join(skipped)}" if skipped else "") + said
        print(f"{written.path}:{written.line}: imported {_plural(len(written.ids), 'question')} "
              f"({how} the bank){tail if n == len(report.written) - 1 else ''}; "
              f"next: quiz validate {written.path}")
    return EXIT_ERRORS if errors else EXIT_OK


def run_export(argv: Sequence[str]) -> int:
    """``quiz export BANK... --to FILE``: banks as GIFT, Moodle XML, CSV or an Anki deck."""
    from quiz.bank.formats.export import export_banks
    from quiz.bank.formats.transfer import FORMATS, TransferError

    parser = argparse.ArgumentParser(
        prog="quiz export",
        description="Export banks as Moodle GIFT (.gift) or Moodle XML (.xml), which an LMS "
        "imports, as CSV (.csv), or as an Anki deck (.apkg). The format comes from the "
        "extension of FILE, or from --format; '--to -' writes to standard output. An existing "
        "FILE is replaced only with --force, and never when it is a link, a device, a "
        "read-only file or one of the banks. Questions that still hold placeholder text "
        "(TODO, rule Q102) are refused unless --allow-unfinished.",
    )
    parser.add_argument("banks", nargs="+", metavar="BANK", help="bank files or folders")
    parser.add_argument("--to", required=True, metavar="FILE",
                        help="the file to write ('-': standard output, with --format)")
    parser.add_argument("--format", choices=[f for f in FORMATS if FORMATS[f].render],
                        help="the format (default: from the extension of FILE)")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.add_argument("--allow-unfinished", action="store_true",
                        help="export questions that still hold placeholder text (TODO)")
    parser.add_argument("--no-bom", action="store_true",
                        help="CSV: no UTF-8 byte-order mark at the start (by default there is "
                        "one, so Excel reads the file as UTF-8)")
    parser.add_argument("--variants", type=int, default=1, metavar="N",
                        help="write a computed question with vary: as its first N variants, "
                        "each a question of its own (ids <id>, <id>.v2, ...; default 1)")
    ns = parser.parse_args(argv)
    if not ns.to:
        parser.error("--to needs a file name, or - for standard output")
    if ns.variants < 1:
        parser.error("--variants must be at least 1")
    from quiz.bank.load import load_library

    report = load_library(ns.banks)
    to = None if ns.to == "-" else Path(ns.to)
    out = sys.stderr if to is None else sys.stdout
    for diag in report.diagnostics:
        print(diag, file=out)
    if report.library is None:
        print(f"{_plural(len(report.errors), 'error')}: nothing exported; fix them "
              "(quiz validate) and try again", file=out)
        return EXIT_ERRORS
    from quiz.bank.variants import bank_with_variants

    banks = [bank_with_variants(bank, ns.variants) for bank in report.library.banks]
    try:
        done = export_banks(banks, to, fmt=ns.format, force=ns.force,
                            allow_unfinished=ns.allow_unfinished, bom=not ns.no_bom,
                            inputs=[bank.path for bank in banks])
    except TransferError as exc:
        print(f"quiz export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"quiz export: cannot write {to}: {exc.strerror or exc}"
              + ("; the file is unchanged" if to is not None and to.exists() else ""),
              file=sys.stderr)
        return EXIT_ERRORS
    for warning in done.warnings:
        print(f"quiz export: warning: {warning}", file=sys.stderr)
    count = sum(len(bank.questions) for bank in banks)
    print(f"{ns.to if to is not None else 'standard output'}: exported "
          f"{_plural(count, 'question')} as {done.format.title}", file=out)
    return EXIT_OK
