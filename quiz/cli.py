"""Command line entry point: ``quiz`` (study in the TUI), ``quiz validate``, ``quiz footprint``.

Thin by design: parse arguments, call one core function, print its result. Heavy modules
(Textual, the loader, the calculator) are imported only by the command that needs them.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from quiz import __version__

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2

_DESCRIPTION = """\
Study AI infrastructure (training vs inference: memory, precision, storage) in your terminal.

  quiz                      study the bundled bank
  quiz PATH...              study bank files or folders of banks
  quiz validate PATH...     check banks; prints path:line:col errors
  quiz footprint ...        compute training/inference memory with the derivation shown

Run 'quiz COMMAND --help' for a command's options."""


def _study_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quiz",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths", nargs="*", metavar="PATH",
        help="bank files (.yaml) or folders of them (default: the bundled bank)",
    )
    parser.add_argument("--seed", type=int, default=None,
                        help="seed for question and option shuffling (reproducible order)")
    parser.add_argument("--no-shuffle", action="store_true",
                        help="keep questions and options in bank order")
    parser.add_argument("--version", action="version", version=f"quiz {__version__}")
    return parser


def _validate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quiz validate",
        description="Check question banks. Prints every problem as path:line:col: message. "
        "Exit status: 0 no errors (warnings allowed), 1 errors found, 2 usage error.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="bank files or folders")
    parser.add_argument("-q", "--quiet", action="store_true", help="print errors only")
    return parser


def _footprint_parser() -> argparse.ArgumentParser:
    from quiz.footprint.cli import register

    parser = argparse.ArgumentParser(prog="quiz")
    register(parser.add_subparsers(dest="command"))
    return parser


def run_validate(argv: Sequence[str]) -> int:
    """``quiz validate PATH...``: print diagnostics, return 0 (clean), 1 (errors) or 2 (usage)."""
    ns = _validate_parser().parse_args(argv)
    from quiz.bank.load import load_library

    report = load_library(ns.paths)
    for diag in report.diagnostics:
        if diag.severity == "error" or not ns.quiet:
            print(diag)
    n_err, n_warn = len(report.errors), len(report.warnings)
    if report.ok:
        lib = report.library
        count = len(lib.questions) if lib else 0
        banks = len(lib.banks) if lib else 0
        summary = f"ok: {count} question{'s' * (count != 1)} in {banks} bank{'s' * (banks != 1)}"
        if n_warn:
            summary += f", {n_warn} warning{'s' * (n_warn != 1)}"
        print(summary)
        return EXIT_OK
    print(f"{n_err} error{'s' * (n_err != 1)}" + (f", {n_warn} warning{'s' * (n_warn != 1)}"
                                                  if n_warn else ""), file=sys.stderr)
    return EXIT_ERRORS


def run_study(argv: Sequence[str]) -> int:
    """``quiz [PATH...]``: load the banks, then start the TUI. A bank with errors is reported
    (path:line:col) and the app does not start: exit 1."""
    ns = _study_parser().parse_args(argv)
    from quiz.bank.load import load_library
    from quiz.paths import bundled_bank_dir

    paths = ns.paths or [str(bundled_bank_dir())]
    report = load_library(paths)
    for diag in report.diagnostics:
        print(diag, file=sys.stderr)
    if report.library is None:
        print("quiz: fix the errors above, then try again (quiz validate PATH checks a bank)",
              file=sys.stderr)
        return EXIT_ERRORS
    from quiz.tui.app import make_app

    app = make_app(report.library, seed=ns.seed, shuffle=not ns.no_shuffle)
    app.run()
    return app.return_code or EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``quiz`` console script and ``python -m quiz``.

    Returns the exit status: 0 success, 1 errors found, 2 usage error.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args and args[0] == "validate":
            return run_validate(args[1:])
        if args and args[0] == "footprint":
            ns = _footprint_parser().parse_args(args)
            return int(ns.func(ns))
        return run_study(args)
    except SystemExit as exc:  # argparse: --help/--version exit 0, usage errors exit 2
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    except KeyboardInterrupt:
        return 130
