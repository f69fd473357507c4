"""Class results on the command line: ``quiz results export`` (a student's answers as JSON,
CSV or xAPI) and ``quiz analyze`` (item analysis over many students' exports), registered in
:data:`quiz.cli.COMMANDS`. The work is done by :mod:`quiz.results`."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from quiz.cli.status import EXIT_ERRORS, EXIT_OK

if TYPE_CHECKING:
    from quiz.bank.library import Library

FORMATS = ("json", "csv", "xapi")
"""What ``quiz results export --format`` writes."""


def _export_parser() -> argparse.ArgumentParser:
    from quiz.results.xapi import DEFAULT_IRI_BASE

    parser = argparse.ArgumentParser(
        prog="quiz results export",
        description="Export every answer you recorded: which question (bank and question id, "
        "the variant of a computed question), the options shown and chosen as the bank's keys, "
        "right or wrong, seconds taken, time (UTC), session and mode, under a pseudonymous "
        "learner id. json is what 'quiz analyze' reads; csv is a row per answer for a "
        "spreadsheet; xapi is a JSON array of xAPI 1.0.3 statements for a learning record store "
        "(the file is only written: nothing is sent).",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="the banks you studied, for each question's topic, key and text "
                        "(default: the bundled bank)")
    parser.add_argument("--format", choices=FORMATS, default="json", help="json (default), csv "
                        "or xapi")
    parser.add_argument("--out", metavar="FILE",
                        help="write to FILE (default: standard output; '-' too)")
    parser.add_argument("--force", action="store_true", help="replace FILE if it exists")
    parser.add_argument("--learner", metavar="NAME",
                        help="the id to export under (default: a random id made once and kept "
                        "in the data folder)")
    parser.add_argument("--iri-base", metavar="IRI", default=DEFAULT_IRI_BASE,
                        help="xapi: the base of activity ids and of the learner's account home "
                        f"page (default {DEFAULT_IRI_BASE}, which never resolves)")
    parser.add_argument("--data-dir", metavar="DIR", type=Path,
                        help="folder of the progress database (default: $QUIZ_DATA_DIR, or the "
                        "user data folder)")
    return parser


def _write(parser: argparse.ArgumentParser, out: str | None, text: str, *, force: bool,
           bom: bool = False) -> None:
    """Write ``text`` to standard output (``out`` None or ``-``) or atomically to ``out``: the
    whole file is written beside it, then renamed over it; an existing file is replaced only
    with ``force``, and never one that is not a regular file."""
    if out is None or out == "-":
        sys.stdout.write(text)
        return
    target = Path(out)
    if target.is_dir():
        parser.error(f"--out {out}: is a folder; name a file")
    if target.exists() or target.is_symlink():
        if not target.is_file() or target.is_symlink():
            parser.error(f"--out {out}: exists and is not a regular file; name another file")
        if not force:
            parser.error(f"--out {out}: exists; add --force to replace it")
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8-sig" if bom else "utf-8", newline="") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _bad_iri_base(base: str) -> bool:
    """True when ``base`` cannot start an xAPI activity id (an absolute IRI, RFC 3987): it must
    be http or https with a host, and hold no whitespace or control character."""
    from urllib.parse import urlsplit

    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in base):
        return True
    try:
        parts = urlsplit(base)
    except ValueError:
        return True
    return parts.scheme not in ("http", "https") or not parts.hostname


def _library(paths: Sequence[str]) -> Library | None:
    from quiz.cli.study import load

    return load(paths)


def run_results(argv: Sequence[str]) -> int:
    """``quiz results export ...``: see :func:`_export_parser`. Returns 0, 1 (the banks or the
    progress file could not be read, or the file not written) or 2 (usage)."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: quiz results export [--format json|csv|xapi] [--out FILE] [--learner NAME]"
              " [PATH...]\n\nquiz results export: every answer you recorded, as a file (see "
              "'quiz results export --help').")
        return EXIT_OK
    if argv[0] != "export":
        print(f"quiz results: unknown action '{argv[0]}' (the one action is 'export': "
              "quiz results export --help)", file=sys.stderr)
        return 2
    parser = _export_parser()
    ns = parser.parse_args(list(argv[1:]))
    from quiz.paths import bundled_bank_dir, data_dir, progress_db
    from quiz.results.export import LearnerError, check_learner, collect, learner_id, to_csv
    from quiz.results.export import to_json as results_json
    from quiz.results.xapi import to_xapi

    if _bad_iri_base(ns.iri_base):
        parser.error(f"--iri-base: give an absolute http:// or https:// address with a host "
                     f"and no spaces or control characters (found {ns.iri_base!r}): xAPI "
                     "activity ids are built from it")
    library = _library(list(ns.paths) or [str(bundled_bank_dir())])
    if library is None:
        return EXIT_ERRORS
    try:
        learner = (check_learner(ns.learner) if ns.learner is not None
                   else learner_id(data_dir(ns.data_dir)))
    except LearnerError as exc:
        parser.error(str(exc))
    except OSError as exc:
        print(f"quiz results: cannot keep the learner id in the data folder: "
              f"{exc.strerror or exc}; give one with --learner NAME", file=sys.stderr)
        return EXIT_ERRORS
    db = progress_db(ns.data_dir)
    answers = []
    if db.exists():
        from quiz.study.store import Store, StoreError, damage_text

        try:
            with Store.open(db) as store:
                if store.notice and store.problem is None:
                    # A damaged file was set aside: say so, or "no answers recorded yet"
                    # below would read as if the student had never studied.
                    print(f"quiz results: {store.notice}", file=sys.stderr)
                answers = collect(store, library, learner)
                if store.damage:
                    print(f"quiz results: {damage_text(store)}", file=sys.stderr)
        except (StoreError, OSError) as exc:
            print(f"quiz results: {exc}", file=sys.stderr)
            return EXIT_ERRORS
    if not answers:
        print(f"quiz results: no answers recorded yet in {db}", file=sys.stderr)
    if ns.format == "json":
        text = results_json(answers, learner)
    elif ns.format == "csv":
        text = to_csv(answers)
    else:
        text = to_xapi(answers, iri_base=ns.iri_base, library=library)
    try:
        _write(parser, ns.out, text, force=ns.force, bom=ns.format == "csv" and ns.out not in
               (None, "-"))
    except OSError as exc:
        print(f"quiz results: cannot write {ns.out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_ERRORS
    if ns.out not in (None, "-"):
        print(f"{ns.out}: {len(answers):,} answers of learner {learner} as {ns.format}",
              file=sys.stderr)
    return EXIT_OK


def _analyze_parser() -> argparse.ArgumentParser:
    from quiz.results.report import CSV_TABLES

    parser = argparse.ArgumentParser(
        prog="quiz analyze",
        description="Item analysis over students' results exports ('quiz results export' "
        "files, or folders of them): per question the facility (share right), the "
        "discrimination (point-biserial against the rest of the score, and the upper-lower 27% "
        "index), each option's share and flags (a distractor under 5%%, a negative "
        "discrimination, facility above 95%% or below 20%%); per topic the facility; per student "
        "the score. Each student's first attempt at a question counts.",
    )
    parser.add_argument("results", nargs="+", metavar="RESULTS",
                        help="results files (.json) or folders of them")
    parser.add_argument("--bank", action="append", default=[], metavar="PATH",
                        help="the banks (files or folders): show each question's text and list "
                        "the questions nobody answered")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--csv", action="store_true", help="print one table as CSV (--table)")
    parser.add_argument("--table", choices=CSV_TABLES,
                        help="with --csv: which table (default questions)")
    return parser


def run_analyze(argv: Sequence[str]) -> int:
    """``quiz analyze RESULTS... [--bank PATH...] [--json|--csv]``. Returns 0 when at least one
    file was read (messages about the others are printed), 1 when none was, 2 for usage."""
    parser = _analyze_parser()
    ns = parser.parse_args(list(argv))
    if ns.table is not None and not ns.csv:
        parser.error("--table picks which table --csv prints: add --csv")
    from quiz.results.analysis import analyze
    from quiz.results.report import render, to_csv

    library = None
    if ns.bank:
        library = _library(ns.bank)
        if library is None:
            return EXIT_ERRORS
    missing = [p for p in ns.results if not Path(p).exists()]
    for path in missing:
        print(f"quiz analyze: {path}: no such file or folder", file=sys.stderr)
    analysis = analyze([Path(p) for p in ns.results if p not in missing], library)
    if analysis.files_read == 0:
        # Nothing to analyse: an empty table (or JSON of zeros) would read as a class that
        # answered nothing; say why each file was not read instead.
        for message in analysis.messages:
            print(message, file=sys.stderr)
        print("quiz analyze: no results file could be read", file=sys.stderr)
        return EXIT_ERRORS
    if ns.json:
        import json

        print(json.dumps(analysis.to_json(), indent=2, ensure_ascii=False))
    elif ns.csv:
        sys.stdout.write(to_csv(analysis, ns.table or "questions"))
    else:
        width = shutil.get_terminal_size((80, 24)).columns if sys.stdout.isatty() else 80
        sys.stdout.write(render(analysis, width))
    if (ns.json or ns.csv) and analysis.messages:
        for message in analysis.messages:
            print(message, file=sys.stderr)
    return EXIT_OK
