"""Command line entry point: ``quiz`` (study in the TUI) and its subcommands.

Thin by design: parse arguments, call one core function, print its result. Heavy modules
(Textual, the loader, the calculator) are imported only by the command that needs them.

Every subcommand is one entry of :data:`COMMANDS`: its name, a usage line, a one-line summary
and the function that runs it. ``quiz --help``, ``quiz help``, the dispatch and the "did you
mean" hint for a mistyped command are all read from that table, so adding a subcommand is
adding one :class:`Command` there.

Output convention (as linters such as ruff do): everything a command reports — diagnostics,
counts, results — goes to stdout, and the exit status says how it went. Only usage errors
(argparse) and the messages of a command that cannot run at all go to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from quiz import __version__
from quiz.wording import plural as _plural

if TYPE_CHECKING:
    from quiz.bank.library import Diagnostic

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2

NEEDS_TERMINAL = (
    "quiz: the study app needs a terminal (stdin and stdout must be a terminal).\n"
    "Without one, 'quiz validate PATH...' checks banks and 'quiz footprint ...' computes "
    "memory footprints."
)


@dataclass(frozen=True)
class Command:
    """One ``quiz`` subcommand.

    Attributes:
        name: what the user types after ``quiz`` (``"validate"``).
        usage: the arguments shown after the name in ``quiz --help`` (``"PATH..."``).
        summary: one line saying what it does.
        run: called with the arguments after the name; returns the exit status
            (0 success, 1 errors found, 2 usage error). It imports what it needs itself.
    """

    name: str
    usage: str
    summary: str
    run: Callable[[list[str]], int]


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
    parser.add_argument("paths", nargs="*", metavar="PATH", help="bank files or folders")
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
    return parser


def _split(entries: Sequence[str]) -> list[str]:
    return [part.strip() for entry in entries for part in entry.split(",") if part.strip()]


def run_validate(argv: Sequence[str]) -> int:
    """``quiz validate PATH...``: load the banks, run the lint rules (:mod:`quiz.bank.lint`) on
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
        parser.error("give at least one bank file or folder")
    try:
        rules = lint.resolve_rules(_split(ns.select), _split(ns.ignore))
    except lint.SelectionError as exc:
        parser.error(str(exc))
    from quiz.bank.load import load_library

    report = load_library(ns.paths)
    diagnostics = list(report.diagnostics)
    if report.library is not None:
        diagnostics += lint.lint_library(report.library, rules)
    if ns.strict:
        diagnostics = [replace(d, severity="error") for d in diagnostics]
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
            count = len(lib.questions) if lib else 0
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
                             schema_ref=_schema_ref(path.parent))
    except TemplateError as exc:
        print(f"quiz new: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    what = "created the bank with" if added.created else "added"
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


def _schema_ref(folder: Path) -> str:
    """How a bank in ``folder`` names the JSON Schema: the copy next to it, or the bundled one."""
    from quiz.bank.schema import SCHEMA_FILE
    from quiz.paths import bundled_bank_dir

    if (folder / SCHEMA_FILE).is_file():
        return f"./{SCHEMA_FILE}"
    return str(bundled_bank_dir() / SCHEMA_FILE)


def run_import(argv: Sequence[str]) -> int:
    """``quiz import FILE... --to BANK``: questions from other formats into a bank
    (:mod:`quiz.bank.formats.transfer`). Prints each note as ``file:line: severity: message``."""
    from quiz.bank.formats.transfer import FORMATS, TransferError, import_files

    parser = argparse.ArgumentParser(
        prog="quiz import",
        description="Import questions into a bank: seed-layout documents (.txt, .md), Moodle "
        "GIFT (.gift), Moodle XML (.xml), Aiken (.aiken) and CSV (.csv, header in FORMAT.md). "
        "The format comes from each file's extension, or from --format. An existing bank is "
        "appended to (its text is kept as it is; new questions get fresh ids); --force "
        "replaces it instead. What a format cannot carry becomes a TODO placeholder that "
        "'quiz validate' reports until it is written.",
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help="files to import")
    parser.add_argument("--to", required=True, metavar="BANK", help="the bank file (.yaml)")
    parser.add_argument("--format", choices=[f for f in FORMATS if FORMATS[f].parse],
                        help="the format of every FILE (default: from each extension)")
    parser.add_argument("--topic", help="put every question in this topic (a slug)")
    parser.add_argument("--force", action="store_true",
                        help="replace BANK if it exists, instead of appending to it")
    ns = parser.parse_args(argv)
    to = _bank_path(parser, ns.to)
    try:
        report = import_files([Path(f) for f in ns.files], to, fmt=ns.format, force=ns.force,
                              topic=ns.topic, schema_ref=_schema_ref(to.parent))
    except TransferError as exc:
        print(f"quiz import: {exc}", file=sys.stderr)
        return EXIT_USAGE
    for source, note in report.notes:
        where = f"{source}:{note.line}" if note.line else source
        print(f"{where}: {note.severity}: {note.message}")
    # An error note skips one question, or (line 0) a whole file that could not be read.
    errors = [note for _, note in report.notes if note.severity == "error"]
    skipped = [_plural(n, noun) for n, noun in (
        (sum(note.line > 0 for note in errors), "question"),
        (sum(note.line == 0 for note in errors), "file")) if n]
    if not report.imported:
        skipped_note = f" ({' and '.join(skipped)} skipped)" if skipped else ""
        print(f"nothing imported{skipped_note}; {to} is unchanged")
        return EXIT_ERRORS
    how = "created" if report.created else "appended to"
    print(f"{to}:{report.line}: imported {_plural(len(report.imported), 'question')} ({how} "
          f"the bank){', skipped ' + ' and '.join(skipped) if skipped else ''}; "
          f"next: quiz validate {to}")
    return EXIT_ERRORS if errors else EXIT_OK


def run_export(argv: Sequence[str]) -> int:
    """``quiz export BANK... --to FILE``: banks as GIFT, Moodle XML, CSV or an Anki deck."""
    from quiz.bank.formats.transfer import FORMATS, TransferError, export_banks

    parser = argparse.ArgumentParser(
        prog="quiz export",
        description="Export banks as Moodle GIFT (.gift) or Moodle XML (.xml), which an LMS "
        "imports, as CSV (.csv), or as an Anki deck (.apkg). The format comes from the "
        "extension of FILE, or from --format. An existing FILE is replaced only with --force.",
    )
    parser.add_argument("banks", nargs="+", metavar="BANK", help="bank files or folders")
    parser.add_argument("--to", required=True, metavar="FILE", help="the file to write")
    parser.add_argument("--format", choices=[f for f in FORMATS if FORMATS[f].render],
                        help="the format (default: from the extension of FILE)")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    ns = parser.parse_args(argv)
    from quiz.bank.load import load_library

    report = load_library(ns.banks)
    for diag in report.diagnostics:
        print(diag)
    if report.library is None:
        print(f"{_plural(len(report.errors), 'error')}: nothing exported; fix them "
              "(quiz validate) and try again")
        return EXIT_ERRORS
    to = Path(ns.to)
    try:
        form = export_banks(list(report.library.banks), to, fmt=ns.format, force=ns.force)
    except TransferError as exc:
        print(f"quiz export: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(f"quiz export: cannot write {to}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERRORS
    count = len(report.library.questions)
    print(f"{to}: exported {_plural(count, 'question')} as {form.title}")
    return EXIT_OK


# -- footprint --------------------------------------------------------------------------------
def run_footprint(argv: Sequence[str]) -> int:
    """``quiz footprint ...``: the calculator's own parser and runner
    (:mod:`quiz.footprint.cli`)."""
    from quiz.footprint.cli import main

    return main(list(argv))


# -- help -------------------------------------------------------------------------------------
def run_help(argv: Sequence[str]) -> int:
    """``quiz help [COMMAND]``: the overview, or one command's ``--help``."""
    if not argv:
        _study_parser().print_help()
        return EXIT_OK
    name = argv[0]
    if name in COMMANDS and name != "help":
        return COMMANDS[name].run(["--help"])
    print(_unknown_command(name), file=sys.stderr)
    return EXIT_USAGE


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command("validate", "PATH...", "check banks and lint their questions; prints "
                "path:line:col problems with fix hints",
                run_validate),
        Command("new", "BANK [--topic T] [--multiple]",
                "append a commented template question to a bank", run_new),
        Command("import", "FILE... --to BANK",
                "questions from seed documents, GIFT, Moodle XML, Aiken or CSV", run_import),
        Command("export", "BANK... --to FILE",
                "a bank as GIFT, Moodle XML, CSV or an Anki deck", run_export),
        Command("schema", "", "print the JSON Schema of a bank file, for editors", run_schema),
        Command("footprint", "...", "training/inference memory, with the derivation shown",
                run_footprint),
        Command("exam", "[PATH...]", "a timed exam: no feedback until you submit, then a report",
                lambda argv: run_study(argv, mode="exam")),
        Command("review", "[PATH...]", "spaced review: questions due now, then the most missed",
                lambda argv: run_study(argv, mode="review")),
        Command("stats", "[--json|--csv|--reset]", "your progress: topics, sessions, leeches",
                lambda argv: _run_stats(argv)),
        Command("help", "[COMMAND]", "this overview, or a command's options", run_help),
    )
}
"""Every subcommand, by name, in the order ``quiz --help`` lists them."""


def _unknown_command(name: str) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(COMMANDS), n=1, cutoff=0.6)
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return (f"quiz: '{name}' is neither a command nor an existing bank file or folder{hint}\n"
            f"(commands: {', '.join(COMMANDS)}; see quiz --help)")


# -- studying (no subcommand) -----------------------------------------------------------------
def _description() -> str:
    rows = [("quiz", "study the bundled bank"), ("quiz PATH...", "study bank files or folders")]
    rows += [(f"quiz {c.name} {c.usage}", c.summary) for c in COMMANDS.values()]
    width = max(len(left) for left, _ in rows) + 2
    lines = [f"  {left:<{width}}{right}" for left, right in rows]
    return ("Study AI infrastructure (training vs inference: memory, precision, storage) in "
            "your terminal.\n\n" + "\n".join(lines)
            + "\n\nRun 'quiz help COMMAND' or 'quiz COMMAND --help' for a command's options.")


def _study_parser(mode: str | None = None) -> argparse.ArgumentParser:
    from quiz.study_cli import add_study_options

    if mode is None:
        parser = argparse.ArgumentParser(
            prog="quiz",
            description=_description(),
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    else:
        descriptions = {
            "exam": "A timed exam over the chosen topics, drawn in proportion to their sizes. "
                    "No verdict until you submit (or the time is up); then a score report "
                    "with every question's explanation, flagged and wrong first.",
            "review": "Spaced review (fsrs): the questions due now, most overdue first, then "
                      "the ones you miss most.",
        }
        parser = argparse.ArgumentParser(prog=f"quiz {mode}", description=descriptions[mode])
    add_study_options(parser, exam=mode == "exam")
    if mode is None:
        parser.add_argument("--version", action="version", version=f"quiz {__version__}")
    return parser


def _run_stats(argv: Sequence[str]) -> int:
    from quiz.study_cli import run_stats

    return run_stats(argv)


def has_terminal() -> bool:
    """True when both stdin and stdout are terminals (the TUI needs both)."""
    try:
        return os.isatty(sys.stdin.fileno()) and os.isatty(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # closed or replaced streams
        return False


def run_study(argv: Sequence[str], mode: str | None = None) -> int:
    """``quiz [PATH...]`` (the start screen), ``quiz exam`` or ``quiz review``: open the progress
    store, then start the TUI, which paints first and loads the banks in a worker, with the
    progress on its start screen.

    A bank with errors ends the app as soon as the load finds them: every error is printed
    (path:line:col, on stderr) and the exit status is 1; so does a progress file written by a
    newer quiz. A ``--topic`` the banks lack is a usage error (exit 2) likewise. Without a
    terminal on stdin and stdout the app does not start: the banks are checked (exit 1 on
    errors), then exit 2 with :data:`NEEDS_TERMINAL`.
    """
    parser = _study_parser(mode)
    ns = parser.parse_args(argv)
    from quiz.paths import bundled_bank_dir
    from quiz.study_cli import launch_from, load, open_store, print_load_failure, topic_problem

    paths = list(ns.paths) or [str(bundled_bank_dir())]
    launch = launch_from(ns, mode)
    if isinstance(launch, str):
        parser.error(launch)
    if not has_terminal():
        library = load(paths)
        if library is None:
            return EXIT_ERRORS
        problem = topic_problem(ns.topic, library)
        if problem is not None:
            parser.error(problem)
        print(NEEDS_TERMINAL, file=sys.stderr)
        return EXIT_USAGE
    store = open_store(ns.data_dir)
    if store is None:
        return EXIT_ERRORS
    from quiz.tui.app import make_app

    with store:
        app = make_app(None, seed=ns.seed, shuffle=not ns.no_shuffle, store=store,
                       launch=launch, paths=paths,
                       check=lambda library: topic_problem(ns.topic, library))
        app.run()
    failure = app.failure
    if failure is not None:
        if failure.usage is not None:
            parser.error(failure.usage)
        print_load_failure(failure.diagnostics)
        return EXIT_ERRORS
    return app.return_code or EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``quiz`` console script and ``python -m quiz``.

    The first argument picks a :data:`COMMANDS` entry; anything else is a bank path to study.
    A first argument that is neither an existing path nor a command, but close to one, is a
    typo: say so and exit 2.

    Returns the exit status: 0 success, 1 errors found, 2 usage error.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] in COMMANDS:
            return COMMANDS[args[0]].run(args[1:])
        if args and not args[0].startswith("-") and not os.path.exists(args[0]):
            import difflib  # only for a first argument that is no path: not before a paint

            if difflib.get_close_matches(args[0], list(COMMANDS), n=1, cutoff=0.6):
                print(_unknown_command(args[0]), file=sys.stderr)
                return EXIT_USAGE
        return run_study(args)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (``quiz validate ... | head``): stop quietly, as Unix tools do.
        # Standard output is pointed at /dev/null so that flushing it at exit cannot raise
        # again (the Python documentation's recipe, "Note on SIGPIPE").
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a command killed by it
