"""The performance figures of issues 13 and 26, each as a ratio to a floor measured in the same run.

Run ``python benchmarks/run.py`` (about 15 minutes with the 100,000-question library; a quick
look: ``python benchmarks/run.py --sizes 1000 --rounds 3``). It prints one table and exits 1 when
a figure misses its target (2 when a figure could not be measured). Absolute times depend on the
machine and its load; ratios to floors measured seconds apart are what to compare.

Method
------
Every figure is the **median of ``--rounds`` rounds**; within a round every case runs once, in a
fixed order, so a burst of load on the machine hits the floors and the figures alike.

*Generated libraries* (:mod:`benchmarks.banks`): the bundled questions with every field
filled, each question's prose varied, one in ten a computed question, as folders of bank files
of at most 10,000 questions (about 4 kB a question).

*Floors*

- **A** — a bare Textual app whose only widget is a ``Static``: the time from starting the
  process to its first paint, as a terminal shows it.
- **B** — ``yaml.load(f, CSafeLoader)`` of the library's files in a fresh process: the whole
  process's time and its peak memory (``VmHWM``, which the process prints as it ends).
- **K** — a bare Textual app whose key binding updates one ``Static``: a key press measured in
  this process as every key press is (see *Key presses*).

*Paint and ready* — the app runs in a pseudo-terminal of 100×30 (``TERM=xterm-256color``), as
in a real terminal, and the benchmark reads what it writes. **First paint** is the moment the
text ``Start`` (the start screen's button and footer key, there from the first frame while the
banks load in a worker) first arrives; **ready to start** the moment ``questions in`` (the
start screen's count of the loaded library, shown with Start enabled once the load is done; the
progress lines never contain it) arrives. Its peak
memory (``VmHWM``) is read, then it is killed. ``QUIZ_CACHE_DIR`` and ``QUIZ_DATA_DIR`` point into
the benchmark's own folder: a *first run* starts with the cache folder emptied (and lasts until
the app has written its cache entries, which it does once the start screen is ready), a *later
run* finds what the run before it left.

*Bundled bank ready* — the ``quiz`` process on the bundled banks, until ``questions in`` (the
start screen's count of the library, there once the banks are loaded and Start is enabled),
**quiz as installed**: an installed wheel ships the bundled banks validated
(``quiz/_bundled_cache``, :mod:`quiz.bank.shipped`), so before it measures, the benchmark
writes the same prebuilt entries into this checkout (``python -m quiz.bank.prebuild``, into
the git-ignored ``build/bundled-cache``, where ``quiz`` run from the checkout finds them, with
the wheel's parsed CSS of the start screen, ``python -m quiz.tui.css_prebuild``; or,
when ``QUIZ_PREBUILT_DIR`` names a folder, there, where every process finds them: the test
suite's run, which leaves the checkout alone) and checks that they serve every bundled
bank. A *first run* starts with the cache folder emptied, as a user's first start after
``pip install .`` does, and lasts until the app has written the cache entries of the banks
the prebuilt entries did not serve (none: it then writes nothing, and ends once ready); a
*later run* follows it, as every start after a user's first does.

*quiz validate* — ``quiz validate`` of the library, lint included, to its end; its peak memory
(``VmHWM``, written by :data:`PEAK_OF` as the process ends). A *first run* finds the cache
folder emptied (it is, before the app's first run), and writes the lint cache; a *later run*
validates the unchanged library again, served by that cache, and must print the same.
*quiz stats, banks cached* — ``quiz stats`` of the library after the later run, whose cache
entries it finds.

*Open the calculator* — ``m`` on an answered single-answer question (the calculator filled in
with its worked example), timed in this process as a key press is (until quiet and painted),
against floor A: the issue states it as part of a first paint.

*Key presses* — in this process, with the library loaded as ``quiz`` loads it, on a 100×30
headless screen (``App.run_test``): Enter on the start screen's focused Start (start session,
shuffled as by default; the first Enter of each of :data:`START_APPS` new apps); then, in a
second session in bank order (``shuffle=False``), an option
letter (answer → reveal on a single-answer question, tick on a multiple-response one),
``pagedown`` (scroll), ``n`` (next), ``p`` (previous), ``s`` (open summary). A press is timed
from posting the key event to the app until the app is quiet and painted: every message queue
of the app and its screen's widgets empty, and the screen's pending update (layout, repaint and
the callbacks waiting for it) run at once, as its frame timer would run it, again and again
until nothing is left (:func:`settle`); an answer, a move and the calculator's ``m`` last
until their effect is there too (on a busy machine a key can wait, unseen by that check, for
the step before it). Not
``pilot.press`` + ``pilot.pause``: those sleep in steps of 20 ms until the process looks idle,
which measures the sleeps (a bare app's press then takes 80 ms instead of 1 ms). The median
over every press of every round is compared with the target; the slowest press is shown too.

*Committing an answer* — :meth:`quiz.study.recorder.Recorder.record` of a practice answer into
a progress store in the benchmark's folder (the fsrs review of the question's card, then one
transaction with the answer and the card), the median of 200 answers per round: absolute, as
the issue states its target (≤ 1 ms).

*Imports* — in a fresh process, the time to import every module that ``quiz`` has imported
by its first paint (a start on the bundled bank, served by its validated entries: whatever the
code imports there, at the top of a module or inside a function that runs before the paint),
against importing every module a bare Textual app has imported by its first paint, with the
widgets and containers of the start screen (its form and its load progress). The two lists are
taken once per run, from the two programs started in the pseudo-terminal until their first
frame (:data:`MODULES_AT_PAINT`). quiz's modules are compiled to bytecode first, as installing
a wheel does.

*One footprint estimate* — :func:`quiz.footprint.estimate` of a scenario with every option on
(and the same with QLoRA and GPTQ weights), each estimate given a spec object of its own, as
each edit in the calculator makes one: the best of 5 runs over 400 equal specs, absolute, as
the issue states its target (≤ 100 µs).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import fcntl
import os
import pty
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import banks  # noqa: E402

PY = sys.executable
SIZE = (100, 30)
"""Terminal columns × rows for every app in the benchmark."""
PAINT_MARKER = b"Start"
READY_MARKER = b"questions in"
TIMEOUT_S = 600.0
"""Longest wait for one process to paint or get ready."""
COMMITS = 200
"""Answers committed to the progress store per round."""
FOOTPRINT_SPECS = 400
"""Spec objects (equal) per timed run of one footprint scenario: one for each estimate."""

IMPORT_PAIRS = 5
"""Imports timed per round, floor then quiz, this many times (each about 150 ms): one pair a
round, right after the validate runs, varied by 10 ms and more with what ran before it (the
row read 0.99-1.10 × in runs an hour apart); the median of all pairs is the row's."""

FLOOR_A = """
from textual.app import App
from textual.widgets import Static

class FloorA(App):
    def compose(self):
        yield Static("Start")

FloorA().run()
"""

FLOOR_B = """
import sys, yaml
for name in sys.argv[1:]:
    with open(name, "rb") as f:
        yaml.load(f, Loader=yaml.CSafeLoader)
with open("/proc/self/status") as status:
    print(next(line.split()[1] for line in status if line.startswith("VmHWM:")))
"""

PEAK_OF = """
import atexit, os, runpy, sys

def _peak():
    with open("/proc/self/status") as status:
        peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
    os.write(2, f"\\nVmHWM {peak}\\n".encode())

atexit.register(_peak)
sys.argv = ["quiz", *sys.argv[1:]]
runpy.run_module("quiz", run_name="__main__", alter_sys=True)
"""
"""``python -c PEAK_OF ARGS`` runs ``quiz ARGS`` and writes its peak memory (``VmHWM``, kB)
to standard error as it ends."""

IMPORT_TIMER = """
import sys, time
t = time.perf_counter()
{body}
print(time.perf_counter() - t, "pydantic" in sys.modules)
"""
IMPORT_FLOOR = """
import textual.app
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import (Button, Checkbox, Footer, Header, Input, Label, ProgressBar,
                             RadioButton, RadioSet, SelectionList, Static, Switch)
"""
"""Textual's app with the widgets the start screen is made of (its form and its progress)."""
IMPORT_QUIZ = """
import quiz.cli
import quiz.cli.study
import quiz.tui.app
"""
"""What the app's modules import at their top (the rest comes from functions that run)."""

MODULES_AT_PAINT = """
import os, sys
_out = sys.argv.pop(1)

def written(*_):
    with open(_out, "w") as file:
        file.write("\\n".join(sys.modules))
    os.write(1, b"MODULES-WRITTEN")
    os._exit(0)
{body}
"""
"""``python -c MODULES_AT_PAINT OUT ARGS`` runs ``body`` (a program that calls ``written``
right after its first frame is on the terminal) and writes the names in ``sys.modules`` at
that moment to the file OUT, then says so (:data:`WRITTEN_MARKER`) and exits."""
WRITTEN_MARKER = b"MODULES-WRITTEN"
QUIZ_AT_PAINT = IMPORT_QUIZ + """
quiz.tui.app.QuizApp._drawn_first = written  # called after the app's first frame
from quiz.cli import main
main(sys.argv[1:])
"""
FLOOR_AT_PAINT = IMPORT_FLOOR + """
from textual.app import App
from textual.widgets import Static

class FloorA(App):
    def compose(self):
        yield Static("Start")

    def on_mount(self):
        self.call_after_refresh(written)

FloorA().run()
"""
IMPORT_NAMES = """
import importlib
for _name in {names!r}:
    try:
        importlib.import_module(_name)
    except Exception:
        pass
"""
"""Import each of ``names`` (in the order a program imported them; one that cannot be imported
on its own, such as a test double, is passed over)."""


def modules_at_paint(body: str, args: list[str], env: dict[str, str], work: Path) -> list[str]:
    """The modules the program ``body`` (see :data:`MODULES_AT_PAINT`) has imported by its first
    frame, in the order imported; ``__main__`` left out."""
    out = work / "modules-at-paint.txt"
    out.unlink(missing_ok=True)
    run = run_in_pty([PY, "-c", MODULES_AT_PAINT.format(body=body), str(out), *args],
                     (WRITTEN_MARKER,), env)
    if WRITTEN_MARKER not in run.seen or not out.exists():
        tail = run.output[-400:].decode(errors="replace")
        raise RuntimeError(f"the modules at the first paint were not written; last output: "
                           f"{tail!r}")
    return [name for name in out.read_text().split() if not name.endswith("__main__")]


# -- measuring processes ------------------------------------------------------------------------
@dataclass
class Run:
    """One process: seconds until each marker arrived (absent if it never did), peak memory."""

    seen: dict[bytes, float] = field(default_factory=dict)
    max_rss_bytes: int = 0
    output: bytes = b""


def run_in_pty(cmd: list[str], markers: tuple[bytes, ...], env: dict[str, str],
               settled: Callable[[], bool] | None = None) -> Run:
    """Start ``cmd`` in a 100×30 pseudo-terminal, wait until every marker has been written (or
    the process ends, or :data:`TIMEOUT_S`), then, with ``settled``, until it returns true (the
    process keeps running: a user does not quit at once), kill it and return what was seen."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, env=env,
                            start_new_session=True, close_fds=True)
    os.close(slave)
    run = Run()
    buffer = b""
    deadline = start + TIMEOUT_S
    try:
        while len(run.seen) < len(markers) and time.perf_counter() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 1 << 16)
            except OSError:  # the child closed the terminal
                break
            now = time.perf_counter()
            tail = buffer[-64:]
            buffer += chunk
            for marker in markers:
                if marker not in run.seen and marker in tail + chunk:
                    run.seen[marker] = now - start
        while settled is not None and not settled() and time.perf_counter() < deadline \
                and proc.poll() is None:
            ready, _, _ = select.select([master], [], [], 0.05)
            if ready:  # keep reading: a full terminal would block the app
                try:
                    buffer += os.read(master, 1 << 16)
                except OSError:
                    break
    finally:
        run.max_rss_bytes = peak_memory(proc.pid)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        os.close(master)
    run.output = buffer
    return run


def peak_memory(pid: int) -> int:
    """Peak resident memory of a running process in bytes (``VmHWM`` in ``/proc/PID/status``;
    0 if it has ended). Not ``ru_maxrss``: Linux carries that across ``execve`` from the
    forking process, here this benchmark with its libraries loaded."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_plain(cmd: list[str], env: dict[str, str]) -> tuple[float, str]:
    """Run ``cmd`` to its end: seconds and standard output."""
    start = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    elapsed = time.perf_counter() - start
    if out.returncode not in (0, 1):
        raise RuntimeError(f"{cmd[:3]} exited with {out.returncode}")
    return elapsed, out.stdout.decode()


def run_quiz(args: list[str], env: dict[str, str]) -> tuple[float, int, str]:
    """Run ``quiz ARGS`` to its end (:data:`PEAK_OF`): seconds, peak memory in bytes and
    standard output."""
    start = time.perf_counter()
    out = subprocess.run([PY, "-c", PEAK_OF, *args], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    elapsed = time.perf_counter() - start
    if out.returncode not in (0, 1):
        raise RuntimeError(f"quiz {' '.join(args[:2])} exited with {out.returncode}: "
                           f"{out.stderr.decode(errors='replace')[-400:]}")
    peaks = [line.split()[1] for line in out.stderr.decode(errors="replace").splitlines()
             if line.startswith("VmHWM ")]
    if not peaks:
        raise RuntimeError(f"quiz {' '.join(args[:2])} did not report its peak memory")
    return elapsed, int(peaks[-1]) * 1024, out.stdout.decode()


# -- key presses --------------------------------------------------------------------------------
def _screen_pending(app: Any) -> bool:
    """True while the current screen has an update waiting for its frame timer: a layout, a
    repaint, a scroll, or callbacks that run after the refresh (``call_after_refresh``)."""
    screen = app.screen
    return bool(screen._layout_required or screen._scroll_required
                or screen._repaint_required or screen._dirty_widgets or screen._callbacks)


def _queues_busy(app: Any) -> bool:
    return any(not node._message_queue.empty() or node._next_callbacks
               for node in (app, *app.screen.walk_children(with_self=True)))


async def settle(pilot: Any) -> None:
    """Run until the app is quiet and painted (see *Key presses* in the module doc): wait for
    every queue of the app and its current screen to drain, run the screen's pending update
    at once instead of at its next frame, and repeat until neither is left."""
    from textual.pilot import WaitForScreenTimeout

    app = pilot.app
    for _ in range(10_000):
        try:
            await pilot._wait_for_screen()
        except WaitForScreenTimeout as exc:  # a figure not measured (exit 2), not a miss (1)
            raise RuntimeError(f"the app's widgets did not process their messages in time "
                               f"after a key press ({exc}); is the machine overloaded?") from exc
        if _queues_busy(app):
            continue
        if _screen_pending(app):
            app.screen._on_timer_update()
            continue
        await asyncio.sleep(0)  # a task scheduled by the last step gets its turn
        if not (_queues_busy(app) or _screen_pending(app)):
            return
    raise RuntimeError("the app never became quiet after a key press")


async def start_screen_read(pilot: Any) -> None:
    """Wait, untimed, as a student reads the start screen: until what the app does meanwhile
    is done (:class:`quiz.tui.ahead.ScreensAhead`: the question and summary screens made,
    mounted and laid out off screen, the calculator screen made and mounted, the form's
    session drawn). Enter is timed
    after it, as the student presses it. ``pilot.pause()`` alone returned in the middle of
    that chain now and then (about 45 ms in instead of 210), and Enter then waited for the
    rest of it (170 ms)."""
    from quiz.tui.textual_internals import layout_pending

    app = pilot.app
    deadline = time.perf_counter() + TIMEOUT_S
    while time.perf_counter() < deadline:
        await settle(pilot)
        ahead = app.ahead
        screens = (ahead.question, ahead.summary)
        if (ahead.drawn is not None and ahead.calculator is not None
                and ahead.calculator.is_mounted
                and all(s is not None and s.is_mounted and not layout_pending(s)
                        for s in screens)):
            return
        await asyncio.sleep(0.005)
    raise RuntimeError("the start screen's work ahead never finished")


DONE_WAIT_S = 5.0
"""Longest wait, after the app looks quiet, for what a key press does (see :func:`_press`)."""


async def _press(pilot: Any, key: str, done: Callable[[], bool] | None = None) -> float:
    """Seconds from posting ``key`` to the app until it is quiet and painted; with ``done``,
    until it is quiet and painted with ``done()`` true. On a busy machine the app can look
    quiet while a key still waits for the step before it (the answer typed after the
    summary's Esc, acted on a few milliseconds later): the press then lasts until its effect
    is there, rather than ending early and failing the check that follows."""
    import unicodedata

    from textual import events
    from textual.keys import _get_unicode_name_from_key

    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(key))
    except KeyError:
        char = key if len(key) == 1 else None
    event = events.Key(key, char)
    app = pilot.app
    event.set_sender(app)
    start = time.perf_counter()
    app.post_message(event)
    await settle(pilot)
    deadline = start + DONE_WAIT_S
    while done is not None and not done() and time.perf_counter() < deadline:
        await asyncio.sleep(0.001)
        await settle(pilot)
    return time.perf_counter() - start


async def floor_k(presses: int) -> list[float]:
    """Floor K: ``presses`` key presses that each update one ``Static``."""
    from textual.app import App, ComposeResult
    from textual.widgets import Static

    class FloorK(App[None]):
        BINDINGS = [("x", "bump", "Bump")]
        count = 0

        def compose(self) -> ComposeResult:
            yield Static("0", id="count")

        def action_bump(self) -> None:
            self.count += 1
            self.query_one("#count", Static).update(str(self.count))

    times = []
    app = FloorK()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for _ in range(presses):
            times.append(await _press(pilot, "x"))
    assert app.count == presses, "floor K: the key did not reach the app"
    return times


async def quiz_keys(library: Any, presses: int) -> dict[str, list[float]]:
    """Time each kind of key press of a study session over ``library`` (see the module doc)."""
    from quiz.tui.app import make_app
    from quiz.tui.screens.footprint import FootprintScreen
    from quiz.tui.screens.question import QuestionScreen

    times: dict[str, list[float]] = {k: [] for k in (
        "start session", "answer → reveal", "tick", "scroll", "next", "previous",
        "open summary", "open calculator")}
    # Start session as the student starts one: shuffled (questions and options), the default;
    # the first Enter of a new app, START_APPS times a round (one press a round was too few
    # for a steady median).
    for _ in range(START_APPS):
        app = make_app(library, seed=1)
        async with app.run_test(size=SIZE) as pilot:
            await start_screen_read(pilot)
            times["start session"].append(await _press(pilot, "enter"))
            if not isinstance(app.screen, QuestionScreen):
                raise RuntimeError("Enter on the start screen did not start a session")
    # The other keys in bank order, so that each round meets the same questions.
    app = make_app(library, shuffle=False, seed=1)
    async with app.run_test(size=SIZE) as pilot:
        await start_screen_read(pilot)
        await _press(pilot, "enter")
        if not isinstance(app.screen, QuestionScreen):
            raise RuntimeError("Enter on the start screen did not start a session")
        for _ in range(presses):
            session = app.session
            assert session is not None
            if session.current.question.multiple_response:
                times["tick"].append(await _press(pilot, "a"))
                times["tick"].append(await _press(pilot, "a"))  # untick: nothing submitted
            else:
                times["answer → reveal"].append(
                    await _press(pilot, "a", lambda s=session: s.outcome() is not None))
                if session.outcome() is None:
                    raise RuntimeError("an option letter did not answer the question")
                # The calculator from the answered question (its worked example filled in):
                # until its layout and results are painted.
                times["open calculator"].append(
                    await _press(pilot, "m", lambda: isinstance(app.screen, FootprintScreen)))
                if not isinstance(app.screen, FootprintScreen):
                    raise RuntimeError("m on a question did not open the calculator")
                await pilot.press("escape")
                await pilot.pause()
                if not isinstance(app.screen, QuestionScreen):
                    raise RuntimeError("escape did not close the calculator")
            times["scroll"].append(await _press(pilot, "pagedown"))
            before = session.position
            moved, back = (lambda s=session, b=before: s.position == b + 1,
                           lambda s=session, b=before: s.position == b)
            times["next"].append(await _press(pilot, "n", moved))
            times["previous"].append(await _press(pilot, "p", back))
            times["next"].append(await _press(pilot, "n", moved))
            if session.position != before + 1:
                raise RuntimeError("n and p did not move between questions")
            times["open summary"].append(await _press(pilot, "s"))
            await pilot.press("escape")
            await pilot.pause()
            if not isinstance(app.screen, QuestionScreen):
                raise RuntimeError("escape did not close the summary")
    return times


START_APPS = 3
"""New apps per round whose first Enter is timed (start session)."""


def commit_times(library: Any, folder: Path, count: int) -> list[float]:
    """Seconds per committed practice answer (:meth:`~quiz.study.recorder.Recorder.record`:
    the fsrs review, then one transaction with the answer and the card) for the first
    ``count`` questions of a new session over ``library``, into the store in ``folder``."""
    from quiz.study.recorder import QuestionIndex, Recorder
    from quiz.study.session import SessionConfig, StudySession
    from quiz.study.shown import build_outcome
    from quiz.study.store import Store

    folder.mkdir(parents=True, exist_ok=True)
    session = StudySession.from_questions(library.questions, SessionConfig(shuffle=False))
    times = []
    with Store.open(folder / "progress.db") as store:
        sid = store.start_session("practice", ("bench",), None, {"questions": []})
        recorder = Recorder(store, sid, "practice", QuestionIndex.of(library))
        for position in range(min(count, session.total)):
            shown = session.go(position)
            outcome = build_outcome(shown, shown.options[: shown.choose])
            start = time.perf_counter()
            recorder.record(outcome, 12.0)
            times.append(time.perf_counter() - start)
    return times


def prebuilt_served(bundled: Path, cache: Path) -> int:
    """How many of the bundled bank files their prebuilt entries serve: a load with the cache
    folder ``cache`` emptied, counting the banks not loaded in full (their models not built)."""
    from quiz.bank.cache import BankCache
    from quiz.bank.load import load_library
    from quiz.bank.shipped import default_entries

    shutil.rmtree(cache, ignore_errors=True)
    bank_cache = BankCache(cache, key_file=cache.parent / "prebuilt-check.key",
                           prebuilt=default_entries())
    report = load_library([bundled], bank_cache=bank_cache)
    if report.library is None:
        raise RuntimeError(f"{bundled} does not load")
    return sum(not bank.decoded for bank in report.library.banks)


def load_in_process(folder: Path) -> Any:
    """The library, loaded the way ``quiz`` loads it for a study session."""
    from quiz.bank.load import load_for_study

    report = load_for_study([str(folder)])
    if report.library is None:
        raise RuntimeError(f"{folder} does not load")
    return report.library


# -- the table ----------------------------------------------------------------------------------
@dataclass
class Row:
    """One line of the table."""

    figure: str
    shown: str
    ratio: float | None
    floor: str
    target: float | None

    @property
    def ok(self) -> bool | None:
        if self.target is None or self.ratio is None:
            return None
        return self.ratio <= self.target


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"


def mb(size: float) -> str:
    return f"{size / 1e6:,.0f} MB"


def med(values: list[float]) -> float:
    return statistics.median(values)


def print_table(rows: list[Row], note: str) -> None:
    head = ("figure", "measured", "ratio", "target", "")
    lines = [(r.figure, r.shown,
              "" if r.ratio is None else f"{r.ratio:.2f} × {r.floor}",
              "" if r.target is None else f"≤ {r.target:g} × {r.floor}",
              {True: "met", False: "MISSED", None: ""}[r.ok]) for r in rows]
    print(f"| {' | '.join(head)} |")
    print("|" + "---|" * len(head))
    for line in lines:
        print(f"| {' | '.join(line)} |")
    print()
    print(note)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000, 100_000],
                        help="library sizes in questions (default: 1000 10000 100000)")
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--presses", type=int, default=8,
                        help="questions answered per round and size (default 8)")
    parser.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "quiz-bench",
                        help="folder for the generated libraries and the app's cache "
                        "(kept between runs; default: %(default)s)")
    ns = parser.parse_args(argv)
    sizes = sorted(set(ns.sizes))
    work: Path = ns.work
    prebuilt_dir = os.environ.get("QUIZ_PREBUILT_DIR") or None
    if prebuilt_dir is None:  # quiz as installed: it finds its own entries (never none)
        os.environ.pop("QUIZ_PREBUILT_DIR", None)
    libraries = {n: banks.write_library(work / f"library-{n}", n) for n in sizes}
    cache = work / "cache"
    env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(SIZE[0]), LINES=str(SIZE[1]),
               QUIZ_CACHE_DIR=str(cache), QUIZ_DATA_DIR=str(work / "data"),
               PYTHONPATH=str(ROOT))
    quiz = [PY, "-m", "quiz"]
    bundled = str(ROOT / "question_bank")
    banks_bundled = len(list(Path(bundled).glob("*.yaml")))
    # Bytecode for quiz's modules, as installing a wheel writes it (Textual's is there already):
    # without it every process would compile quiz's modules again (PYTHONDONTWRITEBYTECODE).
    subprocess.run([PY, "-m", "compileall", "-q", str(ROOT / "quiz")], check=True,
                   stdout=subprocess.DEVNULL,
                   env={k: v for k, v in env.items() if k != "PYTHONDONTWRITEBYTECODE"})

    # The bundled banks' prebuilt entries, as a wheel ships them (see the module docstring).
    out = ["--out", prebuilt_dir] if prebuilt_dir is not None else []
    subprocess.run([PY, "-m", "quiz.bank.prebuild", *out], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    # And Textual's parsed CSS of the start screen, as the wheel ships it too.
    subprocess.run([PY, "-m", "quiz.tui.css_prebuild", *out], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    prebuilt = prebuilt_served(Path(bundled), work / "prebuilt-check")
    if prebuilt != banks_bundled:
        raise RuntimeError(f"the prebuilt entries serve {prebuilt} of the {banks_bundled} "
                           "bundled banks")

    samples: dict[str, list[float]] = {}

    def add(key: str, value: float) -> None:
        samples.setdefault(key, []).append(value)

    def paint(key: str, cmd: list[str], markers: tuple[bytes, ...],
              settled: Callable[[], bool] | None = None) -> Run:
        run = run_in_pty(cmd, markers, env, settled)
        missing = [m for m in markers if m not in run.seen]
        if missing:
            tail = run.output[-400:].decode(errors="replace")
            raise RuntimeError(f"{key}: {missing} never shown; last output: {tail!r}")
        return run

    loaded = {n: load_in_process(libraries[n]) for n in sizes}
    floor_modules = IMPORT_NAMES.format(names=modules_at_paint(FLOOR_AT_PAINT, [], env, work))
    quiz_modules = IMPORT_NAMES.format(names=modules_at_paint(QUIZ_AT_PAINT, [bundled], env,
                                                               work))
    footprint = _footprint_case(EVERY_OPTION)
    footprint_adapters = _footprint_case(EVERY_OPTION_ADAPTERS)
    for round_ in range(ns.rounds):
        print(f"round {round_ + 1}/{ns.rounds}", file=sys.stderr, flush=True)
        add("A", paint("A", [PY, "-c", FLOOR_A], (PAINT_MARKER,)).seen[PAINT_MARKER])
        shutil.rmtree(cache, ignore_errors=True)
        run = paint("bundled", quiz + [bundled], (PAINT_MARKER, READY_MARKER),
                    lambda: len(list(cache.glob("*.bank"))) >= banks_bundled - prebuilt)
        add("paint bundled", run.seen[PAINT_MARKER])
        add("ready bundled", run.seen[READY_MARKER])
        run = paint("bundled later", quiz + [bundled], (PAINT_MARKER, READY_MARKER))
        add("ready bundled later", run.seen[READY_MARKER])
        for n in sizes:
            files = sorted(str(p) for p in libraries[n].glob("*.yaml"))
            seconds, out = run_plain([PY, "-c", FLOOR_B, *files], env)
            add(f"B {n}", seconds)
            add(f"B rss {n}", int(out.split()[-1]) * 1024)
            shutil.rmtree(cache, ignore_errors=True)
            # The app writes its cache entries once the start screen is ready: the first run
            # lasts until they are there (its peak memory counts them), as a user's would.
            count = len(files)
            run = paint(f"first {n}", quiz + [str(libraries[n])], (PAINT_MARKER, READY_MARKER),
                        lambda count=count: len(list(cache.glob("*.bank"))) >= count)
            add(f"paint first {n}", run.seen[PAINT_MARKER])
            add(f"ready first {n}", run.seen[READY_MARKER])
            add(f"rss first {n}", run.max_rss_bytes)
            run = paint(f"later {n}", quiz + [str(libraries[n])], (PAINT_MARKER, READY_MARKER))
            add(f"paint later {n}", run.seen[PAINT_MARKER])
            add(f"ready later {n}", run.seen[READY_MARKER])
            add(f"rss later {n}", run.max_rss_bytes)
            # quiz stats on the unchanged library: the banks come from the cache.
            seconds, _, _ = run_quiz(["stats", str(libraries[n])], env)
            add(f"stats later {n}", seconds)
            # quiz validate: first with the lint cache emptied (with the app's cache above),
            # then again on the unchanged library, served by the lint cache.
            seconds, peak, first_out = run_quiz(["validate", str(libraries[n])], env)
            add(f"validate {n}", seconds)
            add(f"validate rss {n}", peak)
            seconds, peak, later_out = run_quiz(["validate", str(libraries[n])], env)
            if later_out != first_out:
                raise RuntimeError(f"quiz validate of {n:,} questions printed something else "
                                   "when its lint cache served it")
            add(f"validate later {n}", seconds)
            add(f"validate later rss {n}", peak)
        for _ in range(IMPORT_PAIRS):
            for key, body in (("import floor", floor_modules), ("import quiz", quiz_modules)):
                _, out = run_plain([PY, "-c", IMPORT_TIMER.format(body=body)], env)
                seconds, pydantic = out.split()
                add(key, float(seconds))
                add(key + " pydantic", float(pydantic == "True"))
        add_all = samples.setdefault
        for value in asyncio.run(floor_k(ns.presses * 4)):
            add_all("K", []).append(value)
        for n in sizes:
            for kind, values in asyncio.run(quiz_keys(loaded[n], ns.presses)).items():
                add_all(f"key {kind} {n}", []).extend(values)
        add("footprint", footprint())
        add("footprint adapters", footprint_adapters())
        samples.setdefault("commit", []).extend(
            commit_times(loaded[sizes[0]], work / "store", COMMITS))

    rows = table(samples, sizes)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    load = os.getloadavg()
    note = (f"Measured {stamp} on {os.cpu_count()} cores, load average {load[0]:.1f}; "
            f"medians of {ns.rounds} interleaved rounds (key presses: medians of every press).")
    print_table(rows, note)
    return 1 if any(r.ok is False for r in rows) else 0


EVERY_OPTION = {
    "model": "llama-2-70b", "gpu": "h100-80gb", "overhead": "1GiB",
    "training": {"zero": "3", "dp": "64", "tp": "2", "sequence_parallel": "true",
                 "seq_len": "4096", "recompute": "selective", "precision": "mixed-fp8",
                 "train_tokens": "2T", "offload": "cpu", "offload_params": "cpu",
                 "pp": "3", "logits_bytes": "4", "zero_init": "true", "gpus_per_node": "8"},
    "inference": {"weights": "int4", "kv_dtype": "fp4", "context": "4096", "batch": "8",
                  "prefill_chunk": "2048", "shared_prefix": "1000",
                  "draft_model": "llama-2-7b"},
    "storage": {"dataset_tokens": "2T", "checkpoints": "3"},
}
"""The footprint scenario "with every option on" (issue 12's benchmark): a GPU fit with a
framework overhead, tensor + sequence + ZeRO-3 data parallelism, selective recomputation, FP8
training with optimizer and parameter offload, training FLOPs and time, INT4 weights with an FP4
KV cache, a shared prefix, a draft model and chunked prefill, dataset and checkpoints (bank-style
text values); issue 21 §6: 80 layers over 3 uneven pipeline stages, 4-byte logits, zero.Init,
8 GPUs per node."""


EVERY_OPTION_ADAPTERS = {
    **EVERY_OPTION,
    "training": {**{k: v for k, v in EVERY_OPTION["training"].items() if k != "precision"},
                 "finetune": "qlora", "lora_rank": "16", "lora_targets": "all"},
    "inference": {**EVERY_OPTION["inference"], "weights": "gptq-int4"},
}
"""The same scenario with adapters (issue 12's benchmark, second row): QLoRA r 16 on every
linear layer (with the default mixed BF16: LoRA refuses FP8 training) and GPTQ INT4 weights
(a named scheme, group size 128) instead of plain INT4; the rest as :data:`EVERY_OPTION`."""


def _footprint_case(mapping: dict[str, Any]) -> Callable[[], float]:
    """Seconds per footprint estimate of the scenario ``mapping`` (best of 5 repeats). Each
    estimate gets a spec object of its own (:data:`FOOTPRINT_SPECS` equal ones, made
    beforehand), as every edit in the calculator makes a new spec: what the estimate keeps for
    the last spec object it was given (its memos) is never reused by the next timed one."""
    from quiz.footprint import FootprintSpec, estimate

    specs = [FootprintSpec.from_mapping(mapping) for _ in range(FOOTPRINT_SPECS)]
    estimate(FootprintSpec.from_mapping(mapping))

    def each() -> None:
        for spec in specs:
            estimate(spec)

    def case() -> float:
        return min(timeit.repeat(each, number=1, repeat=5)) / len(specs)

    return case


def table(samples: dict[str, list[float]], sizes: list[int]) -> list[Row]:
    """The rows of the table from the samples of every round."""
    a, k = med(samples["A"]), med(samples["K"])
    rows = [Row("floor A: bare app, first paint", ms(a), None, "A", None)]
    rows.append(Row("floor K: bare app, key press", ms(k), None, "K", None))
    paint = med(samples["paint bundled"])
    rows.append(Row("first paint, bundled bank", ms(paint), paint / a, "A", 1.5))
    ready = med(samples["ready bundled"])
    rows.append(Row("bundled bank ready (its question count on screen)", ms(ready), ready / a,
                    "A", 1.5))
    ready = med(samples["ready bundled later"])
    rows.append(Row("bundled bank ready, later run (banks cached)", ms(ready), ready / a,
                    "A", 1.5))
    for n in sizes:
        b = med(samples[f"B {n}"])
        b_rss = med(samples[f"B rss {n}"])
        rows.append(Row(f"floor B {n:,}: yaml.load, whole process", f"{ms(b)}, {mb(b_rss)}",
                        None, "B", None))
        first, later = med(samples[f"paint first {n}"]), med(samples[f"paint later {n}"])
        rows.append(Row(f"first paint, {n:,} questions, first run", ms(first), first / a, "A",
                        1.5))
        rows.append(Row(f"first paint, {n:,} questions, later run", ms(later), later / a, "A",
                        1.5))
        target = n == 10_000
        ready = med(samples[f"ready first {n}"])
        rows.append(Row(f"ready to start, {n:,} questions, first run", ms(ready), ready / b, "B",
                        0.5 if n >= 10_000 else None))
        ready = med(samples[f"ready later {n}"])
        rows.append(Row(f"ready to start, {n:,} questions, later run", ms(ready), ready / a, "A",
                        2.0 if target else None))
        rss = med(samples[f"rss first {n}"])
        rows.append(Row(f"peak memory, {n:,} questions, first run", mb(rss), rss / b_rss,
                        "B", 1.1 if target else None))
        rss = med(samples[f"rss later {n}"])
        rows.append(Row(f"peak memory, {n:,} questions, later run", mb(rss), rss / b_rss,
                        "B", 0.5 if target else None))
        seconds = med(samples[f"validate {n}"])
        rows.append(Row(f"quiz validate, {n:,} questions, lint included, first run",
                        ms(seconds), seconds / b, "B", 0.6 if n >= 10_000 else None))
        rss = med(samples[f"validate rss {n}"])
        rows.append(Row(f"quiz validate, {n:,} questions, first run, peak memory", mb(rss),
                        rss / b_rss, "B", 1.5 if n >= 100_000 else None))
        seconds = med(samples[f"validate later {n}"])
        rows.append(Row(f"quiz validate, {n:,} questions, lint included, later run",
                        ms(seconds), seconds / b, "B", 0.6 if n >= 10_000 else None))
        rss = med(samples[f"validate later rss {n}"])
        rows.append(Row(f"quiz validate, {n:,} questions, later run, peak memory", mb(rss),
                        rss / b_rss, "B", 1.5 if n >= 100_000 else None))
        seconds = med(samples[f"stats later {n}"])
        rows.append(Row(f"quiz stats, {n:,} questions, banks cached", ms(seconds), seconds / a,
                        "A", 2.0 if n >= 10_000 else None))
    for n in sizes:
        for kind in ("answer → reveal", "tick", "next", "previous", "scroll", "open summary",
                     "start session"):
            values = samples.get(f"key {kind} {n}", [])
            if not values:
                continue
            m = med(values)
            rows.append(Row(f"key: {kind}, {n:,} questions",
                            f"{ms(m)} (slowest {ms(max(values))})", m / k, "K", 11.0))
        values = samples.get(f"key open calculator {n}", [])
        if values:
            m = med(values)
            rows.append(Row(f"open the calculator from a question (m), {n:,} questions",
                            f"{ms(m)} (slowest {ms(max(values))})", m / a, "A", 0.5))
    floor, quiz = med(samples["import floor"]), med(samples["import quiz"])
    pydantic = "pydantic imported" if med(samples["import quiz pydantic"]) else "no pydantic"
    rows.append(Row("imports before first paint", f"{ms(quiz)} ({pydantic}; floor "
                    f"{ms(floor)})", quiz / floor, "textual imports", 1.1))
    commit = med(samples["commit"])
    rows.append(Row("committing an answer to the progress store",
                    f"{ms(commit)} (slowest {ms(max(samples['commit']))})", commit / 1e-3,
                    "1 ms", 1.0))
    estimate_s = med(samples["footprint"])
    rows.append(Row("one footprint estimate, all options on", f"{estimate_s * 1e6:.0f} µs",
                    estimate_s / 100e-6, "100 µs", 1.0))
    estimate_s = med(samples["footprint adapters"])
    rows.append(Row("one footprint estimate, all options on, QLoRA + GPTQ",
                    f"{estimate_s * 1e6:.0f} µs", estimate_s / 100e-6, "100 µs", 1.0))
    return rows


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as exc:
        print(f"benchmarks/run.py: {exc}", file=sys.stderr)
        sys.exit(2)

