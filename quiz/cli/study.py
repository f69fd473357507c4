"""Studying from the command line: ``quiz [PATH...]``, ``quiz exam``, ``quiz review`` (the TUI)
and ``quiz stats`` (registered in :data:`quiz.cli.COMMANDS`).

Every mode takes the same filters (``--topic``, ``--tag``, ``--difficulty``, ``--count``) and
the data folder (``--data-dir``, else ``$QUIZ_DATA_DIR``, else the platform's user data
folder).
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, NoReturn, cast

from quiz import __version__
from quiz.cli.status import EXIT_ERRORS, EXIT_OK, EXIT_USAGE
from quiz.wording import plural

if TYPE_CHECKING:
    import argparse

    from quiz.bank.library import Diagnostic, Library
    from quiz.study.launch import Launch
    from quiz.study.store import Store

NEEDS_TERMINAL = (
    "quiz: the study app needs a terminal (stdin and stdout must be a terminal).\n"
    "Without one, 'quiz validate PATH...' checks banks and 'quiz footprint ...' computes "
    "memory footprints."
)

_MODE_DESCRIPTIONS = {
    "exam": "A timed exam over the chosen topics, drawn in proportion to their sizes. "
            "No verdict until you submit (or the time is up); then a score report "
            "with every question's explanation, flagged and wrong first.",
    "review": "Spaced review (fsrs): the questions due now, most overdue first, then "
              "the ones you miss most.",
}


def study_parser(mode: str | None = None, *, overview: str = "") -> argparse.ArgumentParser:
    """The parser of ``quiz`` (``mode`` None: ``overview`` is its ``--help`` description),
    ``quiz exam`` or ``quiz review``."""
    import argparse  # with its parser, not with this module (imported before the app's paint)

    if mode is None:
        parser = argparse.ArgumentParser(
            prog="quiz",
            description=overview,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    else:
        parser = argparse.ArgumentParser(prog=f"quiz {mode}",
                                         description=_MODE_DESCRIPTIONS[mode])
    add_study_options(parser, exam=mode == "exam")
    if mode is None:
        parser.add_argument("--version", action="version", version=f"quiz {__version__}")
    return parser


def paths_only(argv: Sequence[str], mode: str | None) -> argparse.Namespace | None:
    """The options of ``argv`` when it holds bank paths only, no option (``quiz``,
    ``quiz PATH...``, ``quiz exam PATH...``: the usual start), as :func:`study_parser`'s
    ``parse_args`` gives them: the paths and every option's default. ``None`` when any argument
    starts with ``-`` (an option, ``--`` or ``-``): parse those with :func:`study_parser`.

    This spares the usual start argparse's import (1.4 ms of a 140 ms first frame, with gettext
    and its patterns). ``tests/test_cli.py`` checks that it gives what argparse gives."""
    if any(arg.startswith("-") for arg in argv):
        return None
    ns = SimpleNamespace(paths=list(argv), topic=None, tag=None, difficulty=None, count=None,
                         seed=None, no_shuffle=False, data_dir=None)
    if mode == "exam":
        ns.minutes = None
        ns.strict = False
    return cast("argparse.Namespace", ns)


def has_terminal() -> bool:
    """True when both stdin and stdout are terminals (the TUI needs both), or when textual-serve
    started this process for a browser (its web driver talks over pipes instead)."""
    if os.environ.get("TEXTUAL_DRIVER") == "textual.drivers.web_driver:WebDriver":
        return True
    try:
        return os.isatty(sys.stdin.fileno()) and os.isatty(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # closed or replaced streams
        return False


def run_study(argv: Sequence[str], mode: str | None = None, *, overview: str = "") -> int:
    """``quiz [PATH...]`` (the start screen), ``quiz exam`` or ``quiz review``: open the progress
    store, then start the TUI, which paints first and loads the banks in a worker, with the
    progress on its start screen.

    A bank with errors ends the app as soon as the load finds them: every error is printed
    (path:line:col, on stderr) and the exit status is 1; so does a progress file written by a
    newer quiz. A ``--topic`` the banks lack is a usage error (exit 2) likewise. Without a
    terminal on stdin and stdout the app does not start: the banks are checked (exit 1 on
    errors), then exit 2 with :data:`NEEDS_TERMINAL`. ``overview`` is ``quiz --help``'s text.
    """
    ns = paths_only(argv, mode)
    if ns is None:
        ns = study_parser(mode, overview=overview).parse_args(argv)

    def usage_error(message: str) -> NoReturn:
        """Print the usage line and ``message``, exit 2 (argparse's ``error``)."""
        study_parser(mode, overview=overview).error(message)

    from quiz.paths import bundled_bank_dir

    paths = list(ns.paths) or [str(bundled_bank_dir())]
    launch = launch_from(ns, mode)
    if isinstance(launch, str):
        usage_error(launch)
    if not has_terminal():
        library = load(paths)
        if library is None:
            return EXIT_ERRORS
        problem = topic_problem(ns.topic, library)
        if problem is not None:
            usage_error(problem)
        print(NEEDS_TERMINAL, file=sys.stderr)
        return EXIT_USAGE
    # The garbage collector waits until the app's first frame is drawn (QuizApp resumes it):
    # start-up builds a few hundred thousand lasting objects (modules, classes, styles, widgets)
    # and next to no garbage, and collections that scanned them all took 50 ms of CPU before
    # the first frame (a bare Textual app's whole start takes 200).
    collecting = gc.isenabled()
    gc.disable()
    try:
        store = open_store(ns.data_dir)
        if store is None:
            return EXIT_ERRORS
        from quiz.tui.app import make_app

        with store:
            app = make_app(None, seed=ns.seed, shuffle=not ns.no_shuffle, store=store,
                           launch=launch, paths=paths,
                           check=lambda library: topic_problem(ns.topic, library),
                           collector_paused=collecting, keep_css=True)
            app.run()
    finally:
        if collecting:
            gc.enable()
    if store.unsaved_at_close:
        print(f"quiz: {plural(store.unsaved_at_close, 'answer')} could not be saved to "
              f"{store.path} ({store.problem or 'the file could not be written'}).",
              file=sys.stderr)
    failure = app.failure
    if failure is not None:
        if failure.usage is not None:
            usage_error(failure.usage)
        print_load_failure(failure.diagnostics)
        return EXIT_ERRORS
    return app.return_code or EXIT_OK


def add_study_options(parser: argparse.ArgumentParser, *, exam: bool = False) -> None:
    """Add the options every study mode takes (and ``--minutes`` for an exam)."""
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="bank files (.yaml) or folders of them (default: the bundled bank)")
    parser.add_argument("--topic", action="append", metavar="T",
                        help="only this topic key (repeat for several)")
    parser.add_argument("--tag", action="append", metavar="TAG",
                        help="only questions with this tag (repeat: any of them)")
    parser.add_argument("--difficulty", action="append", choices=("easy", "medium", "hard"),
                        help="only this difficulty (repeat for several)")
    parser.add_argument("--count", type=int, metavar="N", help="at most N questions")
    if exam:
        parser.add_argument("--minutes", type=float, metavar="M",
                            help="minutes on the clock (default: the bank's time_limit, or 1.2 "
                            "per question)")
        parser.add_argument("--strict", action="store_true",
                            help="as at a test centre: no pause, and the clock runs in wall "
                            "time through a quit or a crash")
    parser.add_argument("--seed", type=seed_value, default=None, metavar="N",
                        help="seed for drawing and shuffling (reproducible)")
    parser.add_argument("--no-shuffle", action="store_true",
                        help="keep questions and options in bank order")
    add_data_dir(parser)


MAX_SEED = 2**63 - 1
"""The largest ``--seed``: the progress store keeps it in an SQLite INTEGER (64-bit signed)."""


def seed_value(text: str) -> int:
    """``--seed``'s type: a whole number from 0 to :data:`MAX_SEED`.

    Raises:
        argparse.ArgumentTypeError: for anything else (argparse makes it a usage error)."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, found {text!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"must be from 0 to {MAX_SEED:,} (a 64-bit number), "
                                         f"found {text}")
    return value


def folder_value(text: str) -> Path:
    """``--data-dir``'s type: a path, never empty (``Path('')`` would be the current folder).

    Raises:
        argparse.ArgumentTypeError: for an empty path."""
    import argparse

    if not text:
        raise argparse.ArgumentTypeError("an empty path names no folder (for the current "
                                         "folder, write .)")
    return Path(text)


def add_data_dir(parser: argparse.ArgumentParser) -> None:
    """Add ``--data-dir``."""
    parser.add_argument("--data-dir", metavar="DIR", type=folder_value,
                        help="folder of the progress database (default: $QUIZ_DATA_DIR, or the "
                        "user data folder)")


def load(paths: Sequence[str], *, decode: bool = True) -> Library | None:
    """Load the banks (default: the bundled one) for a study run, through the validated-bank
    cache (:func:`quiz.bank.load.load_for_study`; ``decode=False``: banks served by the cache
    are decoded only when their questions are read); print problems to stderr; ``None`` on
    errors."""
    from quiz.bank.load import load_for_study
    from quiz.paths import bundled_bank_dir

    report = load_for_study(list(paths) or [str(bundled_bank_dir())], decode=decode)
    for note in report.notes:
        print(f"quiz: {note}", file=sys.stderr)
    if report.library is None:
        print_load_failure(report.diagnostics)
    else:
        for diag in report.diagnostics:
            print(diag, file=sys.stderr)
    return report.library


def open_store(data_dir: Path | None) -> Store | None:
    """Open the progress store; print why not (and return ``None``) when it cannot be used."""
    from quiz.paths import PROGRESS_DB, progress_db
    from quiz.paths import data_dir as folder_of
    from quiz.study.store import Store, StoreError

    folder = folder_of(data_dir, create=False)
    if folder.exists() and not folder.is_dir():
        print(f"quiz: the data folder {folder} is a file, not a folder: progress cannot be kept "
              "there; name a folder with --data-dir DIR or QUIZ_DATA_DIR", file=sys.stderr)
        return None
    try:
        try:
            path = progress_db(data_dir)
        except OSError:  # a folder that cannot be made: Store.open says so, and runs unsaved
            path = folder / PROGRESS_DB
        store = Store.open(path)
    except (StoreError, OSError) as exc:
        print(f"quiz: {exc}", file=sys.stderr)
        return None
    return store


def launch_from(ns: argparse.Namespace, mode: str | None) -> Launch | str | None:
    """The :class:`~quiz.study.launch.Launch` the options ask for, or a usage message (the
    checks that need no library; :func:`topic_problem` checks ``--topic`` once the banks are
    loaded); ``None`` when they ask for nothing in particular (the start screen, as
    ``Launch()``: the app makes that one when it is first needed, after its first paint)."""
    if ns.count is not None and ns.count < 1:
        return "--count must be at least 1"
    minutes = getattr(ns, "minutes", None)
    if minutes is not None and not 0 < minutes <= 1440:
        return "--minutes must be more than 0 and at most 1440"
    strict = bool(getattr(ns, "strict", False))
    if mode is None and not (ns.topic or ns.tag or ns.difficulty) and ns.count is None \
            and minutes is None and not strict:
        return None
    from quiz.study.launch import Launch
    from quiz.study.mode import Mode

    return Launch(mode=Mode(mode) if mode is not None else None,
                  topics=frozenset(ns.topic) if ns.topic else None,
                  tags=frozenset(ns.tag) if ns.tag else None,
                  difficulties=frozenset(ns.difficulty) if ns.difficulty else None,
                  count=ns.count, minutes=minutes,
                  strict=strict)


def topic_problem(topics: Sequence[str] | None, library: Library) -> str | None:
    """A usage message when a ``--topic`` is none of the library's topics, else ``None``."""
    if not topics:
        return None
    known = set(library.topic_counts())
    unknown = [t for t in topics if t not in known]
    if unknown:
        return f"unknown topic {', '.join(unknown)} (topics: {', '.join(sorted(known))})"
    return None


def print_load_failure(diagnostics: Sequence[Diagnostic]) -> None:
    """Print a failed load's diagnostics to stderr, then what to do."""
    for diag in diagnostics:
        print(diag, file=sys.stderr)
    print("quiz: fix the errors above, then try again (quiz validate PATH checks a bank)",
          file=sys.stderr)


# -- stats ------------------------------------------------------------------------------------
def _stats_parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="quiz stats",
        description="Progress: questions seen, mastered and due; accuracy per topic; leeches; "
        "every session with its score. --json prints these statistics as JSON, --csv the sessions "
        "table; every single answer is exported by 'quiz results export'.")
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="the banks the statistics are about (default: the bundled bank)")
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print JSON")
    out.add_argument("--csv", action="store_true", help="print the sessions table as CSV")
    out.add_argument("--reset", action="store_true",
                     help="delete every session, answer and schedule (asks first; backs up)")
    parser.add_argument("--yes", action="store_true", help="with --reset: do not ask")
    add_data_dir(parser)
    return parser


def run_stats(argv: Sequence[str]) -> int:
    """``quiz stats``: print the statistics table (or ``--json``/``--csv``), or ``--reset``
    them after a confirmation and a backup. Exit 0, 1 (a bank or the store cannot be read) or
    2 (usage)."""
    parser = _stats_parser()
    ns = parser.parse_args(argv)
    if ns.yes and not ns.reset:
        parser.error("--yes only answers --reset's question: add --reset, or leave --yes out")
    store = open_store(ns.data_dir)
    if store is None:
        return EXIT_ERRORS
    with store:
        if store.problem is not None:
            print(f"quiz: the progress file {store.path} cannot be written now "
                  f"({store.problem}); it is read as it is", file=sys.stderr)
        elif store.notice:
            print(f"quiz: {store.notice}", file=sys.stderr)
        if ns.reset:
            return _reset(store, assume_yes=ns.yes)
        # The statistics read ids, topics and content hashes: a cached bank stays encoded.
        library = load(ns.paths, decode=False)
        if library is None:
            return EXIT_ERRORS
        from quiz.study.stats import compute
        from quiz.study.store import damage_text, utc_now

        stats = compute(store, library, utc_now())
        if store.damage:
            print(f"quiz: {damage_text(store)}", file=sys.stderr)
    if ns.json:
        import json  # only for --json: not imported before the app's first paint

        print(json.dumps(stats.to_json(), indent=2, ensure_ascii=False))
    elif ns.csv:
        sys.stdout.write(stats.sessions_csv())
    else:
        print(format_stats(stats, stats_width()))
    return EXIT_OK


def _reset(store: Store, *, assume_yes: bool) -> int:
    """Back up, then empty the store; a backup or a reset that cannot be written is said, and
    nothing is deleted (exit 1)."""
    from quiz.paths import backups_dir
    from quiz.study.store import StoreError, utc_now
    from quiz.study.store_writer import fault_of

    n_sessions, n_answers = len(store.sessions()), store.answer_count()
    if not assume_yes:
        if not sys.stdin.isatty():
            print("quiz: --reset asks for confirmation; without a terminal add --yes",
                  file=sys.stderr)
            return EXIT_USAGE
        reply = input(f"Delete {plural(n_sessions, 'session')} and "
                      f"{plural(n_answers, 'answer')}, with every review schedule? A backup is "
                      "made first. Type 'yes' to confirm: ")
        if reply.strip().lower() != "yes":
            print("Nothing deleted.")
            return EXIT_OK
    stamp = utc_now().strftime("%Y%m%dT%H%M%SZ")
    try:
        if store.problem is not None:
            raise StoreError(f"the progress file {store.path} cannot be written "
                             f"({store.problem}): nothing was deleted")
        try:
            folder = backups_dir(store.path.parent)
        except OSError as exc:
            raise StoreError(f"could not make the backup folder {store.path.parent / 'backups'}"
                             f" ({fault_of(exc)}): nothing was deleted") from exc
        backup = store.backup(folder / f"progress-{stamp}.db")
        store.reset()
    except StoreError as exc:
        print(f"quiz: {exc}", file=sys.stderr)
        return EXIT_ERRORS
    print(f"Deleted {plural(n_sessions, 'session')} and {plural(n_answers, 'answer')}. "
          f"Backup: {backup}")
    return EXIT_OK


def stats_width() -> int:
    """The width ``quiz stats`` fits: the terminal's, or 80 columns when not a terminal."""
    import shutil

    if not sys.stdout.isatty():
        return 80
    return max(40, shutil.get_terminal_size((80, 24)).columns)


def format_stats(stats: object, width: int = 80) -> str:
    """The plain-text table of ``quiz stats``, every line at most ``width`` columns (a topic
    name too long is cut with …; a session's status that does not fit goes on a line of its
    own under it)."""
    import textwrap

    from quiz.study.stats import Stats, clock_text, status_words

    assert isinstance(stats, Stats)
    lines = textwrap.wrap(
        f"Questions: {stats.seen} of {stats.questions} seen, {stats.mastered} mastered, "
        f"{stats.due} due today; {plural(stats.answers, 'answer')} given", width) + [""]
    fixed = 2 + 8 + 2 + 7 + 2 + 9 + 2 + 8 + 2 + 4
    name_width = max(5, min(max([len(t.name) for t in stats.topics] + [5]), width - fixed))

    def name(text: str) -> str:
        return text if len(text) <= name_width else text[:name_width - 1] + "…"

    narrow = width - fixed < 12
    """Too narrow for the topic table with a readable name (and for the session table): each
    row becomes a heading line and an indented line of its figures, wrapped to ``width``."""

    def figures(text: str) -> list[str]:
        return textwrap.wrap(text, width, initial_indent="     ", subsequent_indent="     ")

    if narrow:
        lines.append("Topics")
    else:
        lines.append(f"{'Topic':<{name_width}}  {'Accuracy':>8}  {'Answers':>7}  {'Seen':>9}  "
                     f"{'Mastered':>8}  {'Due':>4}")
    for t in stats.topics:
        acc = f"{t.accuracy:.0%}" if t.answered else "-"
        if narrow:
            cut = t.name if len(t.name) <= width - 2 else t.name[:width - 3] + "…"
            lines.append(f"  {cut}")
            lines += figures(f"accuracy {acc} · {plural(t.answered, 'answer')} · "
                             f"{t.seen}/{t.questions} seen · {t.mastered} mastered · "
                             f"{t.due} due")
            continue
        lines.append(f"{name(t.name):<{name_width}}  {acc:>8}  {t.answered:>7}  "
                     f"{f'{t.seen}/{t.questions}':>9}  {t.mastered:>8}  {t.due:>4}")
    lines.append("")
    if stats.leeches:
        lines.append("Leeches (missed 4 times or more):")
        lines += [f"  {x.question_id}: missed {x.wrong}, right {x.right}"[:width]
                  for x in stats.leeches]
        lines.append("")
    head = f"{'#':>3}  {'Started':<16}  {'Mode':<8}  {'Score':>11}  {'Result':<14}  {'Time':>7}"
    narrow_sessions = len(head) + 2 + len("Status") > width
    lines.append("Sessions" if narrow_sessions else head + "  Status")
    for s in stats.sessions:
        if s.mode == "exam":
            score = f"{s.correct}/{s.total} {s.score:.0%}"
            result = "pass" if s.passed else "below the mark"
        else:
            score = f"{s.correct}/{s.answered} {s.score:.0%}" if s.answered else "-"
            result = f"{s.answered} of {s.total} done"
        time_used = "-" if s.seconds is None else clock_text(s.seconds)
        row = (f"{s.id:>3}  {s.started_at:<16}  {s.mode:<8}  {score:>11}  {result:<14}  "
               f"{time_used:>7}")
        status = status_words(s.status)
        if narrow_sessions:
            lines.append(f"{s.id:>3}  {s.started_at:<16}  {s.mode}"[:width])
            lines += figures(f"score {score} · {result} · time {time_used} · {status}")
        elif len(row) + 2 + len(status) <= width:
            lines.append(f"{row}  {status}")
        else:  # on a line of its own, under the row, never past the edge
            lines += [row, f"{'':>5}{status}"[:width]]
    if not stats.sessions:
        lines.append("   (no session yet)")
    return "\n".join(lines)
