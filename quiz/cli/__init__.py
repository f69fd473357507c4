"""Command line entry point: ``quiz`` (study in the TUI) and its subcommands.

Thin by design: parse arguments, call one core function, print its result. Heavy modules
(Textual, the loader, the calculator) are imported only by the command that needs them.

Every subcommand is one entry of :data:`COMMANDS`: its name, a usage line, a one-line summary
and the function that runs it. ``quiz --help``, ``quiz help``, the dispatch and the "did you
mean" hint for a mistyped command are all read from that table, so adding a subcommand is
adding one :class:`Command` there, with its code in a module of this package:

- :mod:`quiz.cli.bank`: ``validate``, ``schema``, ``new``, ``import``, ``export``;
- :mod:`quiz.cli.study`: studying (``quiz``, ``quiz exam``, ``quiz review``) and ``stats``;
- :mod:`quiz.cli.footprint`: the calculator, ``quiz footprint``;
- :mod:`quiz.cli.results`: ``results export`` and ``analyze``; :mod:`quiz.cli.serve`: ``serve``;
- :mod:`quiz.cli.show`: one question and its reveal as text, ``quiz show``;
- :mod:`quiz.cli.status`: the exit statuses they share.

Output convention (as linters such as ruff do): everything a command reports — diagnostics,
counts, results — goes to stdout, and the exit status says how it went. Only usage errors
(argparse) and the messages of a command that cannot run at all go to stderr.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence

from quiz.cli.status import EXIT_OK, EXIT_USAGE

__all__ = ["COMMANDS", "Command", "main"]


class Command:
    """One ``quiz`` subcommand. (A plain class: made at every start, it costs next to nothing,
    where a frozen dataclass took 0.7 ms and a named tuple 0.2.)

    Attributes:
        name: what the user types after ``quiz`` (``"validate"``).
        usage: the arguments shown after the name in ``quiz --help`` (``"PATH..."``).
        summary: one line saying what it does.
        run: called with the arguments after the name; returns the exit status
            (0 success, 1 errors found, 2 usage error). It imports what it needs itself.
    """

    __slots__ = ("name", "usage", "summary", "run")

    def __init__(self, name: str, usage: str, summary: str,
                 run: Callable[[list[str]], int]) -> None:
        self.name = name
        self.usage = usage
        self.summary = summary
        self.run = run

    def __repr__(self) -> str:
        return f"Command({self.name!r}, {self.usage!r}, {self.summary!r})"


def _bank(name: str) -> Callable[[list[str]], int]:
    """A runner that imports :mod:`quiz.cli.bank` only when its command is used."""

    def run(argv: list[str]) -> int:
        from quiz.cli import bank

        runner: Callable[[Sequence[str]], int] = getattr(bank, name)
        return runner(argv)

    return run


def _footprint(argv: list[str]) -> int:
    """``quiz footprint ...``: the calculator's parser and runner (:mod:`quiz.cli.footprint`)."""
    from quiz.cli.footprint import main as footprint_main

    return footprint_main(list(argv))


def _show(argv: list[str]) -> int:
    """``quiz show ...``: :mod:`quiz.cli.show`."""
    from quiz.cli.show import run_show

    return run_show(argv)


def _stats(argv: list[str]) -> int:
    from quiz.cli.study import run_stats

    return run_stats(argv)


def _results(name: str) -> Callable[[list[str]], int]:
    """A runner that imports :mod:`quiz.cli.results` only when its command is used."""

    def run(argv: list[str]) -> int:
        from quiz.cli import results

        runner: Callable[[Sequence[str]], int] = getattr(results, name)
        return runner(argv)

    return run


def _serve(argv: list[str]) -> int:
    from quiz.cli.serve import run_serve

    return run_serve(argv)


def run_study(argv: Sequence[str], mode: str | None = None) -> int:
    """``quiz [PATH...]``, ``quiz exam`` or ``quiz review``: :func:`quiz.cli.study.run_study`,
    with this table's overview as ``quiz --help``."""
    from quiz.cli.study import run_study as study

    return study(argv, mode, overview=_description())


def run_help(argv: Sequence[str]) -> int:
    """``quiz help [COMMAND]``: the overview, or one command's ``--help``."""
    if not argv:
        from quiz.cli.study import study_parser

        study_parser(overview=_description()).print_help()
        return EXIT_OK
    name = argv[0]
    if name in ("help", "-h", "--help"):
        print(HELP_USAGE)
        return EXIT_OK
    if name in COMMANDS:
        return COMMANDS[name].run(["--help"])
    print(_unknown_command(name), file=sys.stderr)
    return EXIT_USAGE


HELP_USAGE = ("usage: quiz help [COMMAND]\n\n"
              "Without COMMAND: the overview of every command (as quiz --help). With one: that "
              "command's options\n(as quiz COMMAND --help).")
"""What ``quiz help help`` prints."""


COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command("validate", "[PATH...]", "check banks and lint their questions; prints "
                "path:line:col problems with fix hints",
                _bank("run_validate")),
        Command("new", "BANK [--topic T] [--multiple]",
                "append a commented template question to a bank", _bank("run_new")),
        Command("import", "FILE... --to BANK",
                "questions from seed documents, GIFT, Moodle XML, Aiken or CSV",
                _bank("run_import")),
        Command("export", "BANK... --to FILE",
                "a bank as GIFT, Moodle XML, CSV or an Anki deck", _bank("run_export")),
        Command("show", "BANK... ID [--seed N] [--json]",
                "one question and its reveal as plain text (a computed one in a variant)",
                _show),
        Command("schema", "", "print the JSON Schema of a bank file, for editors",
                _bank("run_schema")),
        Command("footprint", "...", "training/inference memory, with the derivation shown",
                _footprint),
        Command("exam", "[PATH...]", "a timed exam: no feedback until you submit, then a report",
                lambda argv: run_study(argv, mode="exam")),
        Command("review", "[PATH...]", "spaced review: questions due now, then the most missed",
                lambda argv: run_study(argv, mode="review")),
        Command("stats", "[--json|--csv|--reset]", "your progress: topics, sessions, leeches",
                _stats),
        Command("results", "export [--format json|csv|xapi] [--out FILE]",
                "every answer you recorded, for your instructor or a learning record store",
                _results("run_results")),
        Command("analyze", "RESULTS... [--bank PATH...]",
                "item analysis of students' results: facility, discrimination, distractors",
                _results("run_analyze")),
        Command("serve", "[PATH...] [--port N]", "the app in a web browser (textual-serve)",
                _serve),
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


def _description() -> str:
    rows = [("quiz", "study the bundled bank"), ("quiz PATH...", "study bank files or folders")]
    rows += [(f"quiz {c.name} {c.usage}", c.summary) for c in COMMANDS.values()]
    width = max(len(left) for left, _ in rows) + 2
    lines = [f"  {left:<{width}}{right}" for left, right in rows]
    return ("Study AI infrastructure (training vs inference: memory, precision, storage) in "
            "your terminal.\n\n" + "\n".join(lines)
            + "\n\nRun 'quiz help COMMAND' or 'quiz COMMAND --help' for a command's options.")


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
