"""The progress file under faults (issue 19 §2): a full disk, a read-only disk and a held write
lock are told apart from damage (the file stays where it is); the store runs without saving and
says so; the answer being given is never lost (kept in memory, retried off the caller's thread,
saved once the fault passes); ``quiz stats --reset --yes`` under a file-size limit or on a
read-only disk says what happened and deletes nothing.

The disk cases run on a small tmpfs (mounting needs root: skipped otherwise); the file-size
limit is ``RLIMIT_FSIZE`` in a child process. No test waits on a clock: a retry is asked for
(:meth:`Store.flush`), and the lock case shortens SQLite's busy timeout.
"""

from __future__ import annotations

import os
import resource
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quiz.study import store_open, store_writer
from quiz.study.store import Store
from quiz.study.store_records import AnswerRecord, StoredCard

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CARD = {"card_id": 1, "state": 2, "step": None, "stability": 3.5, "difficulty": 5.0,
        "due": "2026-03-02T09:00:00+00:00", "last_review": "2026-03-01T09:00:00+00:00"}


def answer(sid: int, qid: str) -> AnswerRecord:
    return AnswerRecord(sid, qid, "b", "h", ("A",), True, 2.0, T0)


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MB tmpfs of its own, unmounted afterwards."""
    folder = tmp_path / "disk"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(folder)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Fill the disk holding ``folder`` to the last byte; returns the filler to remove."""
    filler = folder / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while True:
                out.write(b"\0" * 65536)
        except OSError:
            pass
        try:
            while True:
                out.write(b"\0")
        except OSError:
            pass
    return filler


def remount(folder: Path, mode: str) -> None:
    subprocess.run(["mount", "-o", f"remount,{mode}", str(folder)], check=True)


def _made(path: Path) -> int:
    with Store.open(path) as st:
        sid = st.start_session("practice", ("b",), None, {"ids": "q1\nq2\nq3"}, now=T0)
        st.record_answer(answer(sid, "q1"))
        st.end_session(sid, now=T0)  # (its lock file closed: a disk with a file open for
    return sid                       # writing cannot be remounted read-only)


def test_a_full_disk_at_open_is_no_damage_and_the_answers_wait_for_room(disk: Path) -> None:
    path = disk / "progress.db"
    sid = _made(path)
    filler = fill(disk)
    with Store.open(path) as st:
        # Told apart from damage: nothing renamed, what is there is read, the student told.
        assert list(disk.glob("*.damaged-*")) == []
        assert st.problem == "the disk is full"
        assert st.notice is not None and st.notice.startswith(
            f"Progress cannot be saved: the progress file {path} cannot be written (the disk is "
            "full). It is left as it is; your progress so far is shown")
        assert [a.question_id for a in st.answers(sid)] == ["q1"]
        st.record_answer(answer(sid, "q2"))  # no exception, no wait for a commit
        assert st.unsaved == 1
        filler.unlink()
        assert st.flush(10) is True and st.unsaved == 0 and st.problem is None
    with Store.open(path) as again:
        assert [a.question_id for a in again.answers(sid)] == ["q1", "q2"]


def test_a_disk_that_fills_mid_session_loses_no_answer_and_says_so(disk: Path) -> None:
    path = disk / "progress.db"
    heard: list[str | None] = []
    with Store.open(path) as st:
        st.listen(heard.append)
        sid = st.start_session("practice", ("b",), None, {"ids": "q1\nq2\nq3"}, now=T0)
        st.record_answer(answer(sid, "q1"), StoredCard("q1", "h", dict(CARD), T0))
        filler = fill(disk)
        for qid in ("q2", "q3"):  # the first waits at most WAIT_S; the next at once
            st.record_answer(answer(sid, qid), StoredCard(qid, "h", dict(CARD), T0))
        st.set_flag(sid, "q3", True)
        st.end_session(sid, now=T0)
        assert st.unsaved == 2 and st.problem == "the disk is full"
        assert st.session(sid).status == "finished"  # as the app sees it meanwhile
        filler.unlink()
        assert st.flush(10) is True
        assert heard == ["the disk is full", None]
    with Store.open(path) as again:
        assert [a.question_id for a in again.answers(sid)] == ["q1", "q2", "q3"]
        assert set(again.cards()) == {"q1", "q2", "q3"} and again.flags(sid) == {"q3"}
        assert again.session(sid).status == "finished"


def test_a_session_started_on_a_full_disk_is_saved_whole_later(disk: Path) -> None:
    path = disk / "progress.db"
    _made(path)
    filler = fill(disk)
    with Store.open(path) as st:
        sid = st.start_session("exam", ("b",), 3, {"questions": [["q1", "AB"]]}, now=T0)
        assert sid < 0  # provisional: the file gives it its id when saved
        st.record_answer(answer(sid, "q1"))
        st.save_state(sid, {"position": 0, "elapsed_s": 12.5})
        assert st.session(sid).state == {"position": 0, "elapsed_s": 12.5}
        filler.unlink()
        assert st.flush(10) is True
        saved = st.sessions()[0]
        assert saved.id == 2 and saved.mode == "exam" and saved.state["elapsed_s"] == 12.5
        assert [a.question_id for a in st.answers(sid)] == ["q1"]  # the provisional id maps


def test_a_read_only_disk_keeps_the_file_and_saves_once_writable(disk: Path) -> None:
    path = disk / "progress.db"
    sid = _made(path)
    remount(disk, "ro")
    try:
        with Store.open(path) as st:
            assert st.problem == "the disk holding it is mounted read-only"
            assert [a.question_id for a in st.answers(sid)] == ["q1"]
            st.record_answer(answer(sid, "q2"))
            assert st.unsaved == 1
            remount(disk, "rw")
            assert st.flush(10) is True
    finally:
        remount(disk, "rw")
    assert list(disk.glob("*.damaged-*")) == []
    with Store.open(path) as again:
        assert [a.question_id for a in again.answers(sid)] == ["q1", "q2"]


def test_a_write_lock_held_past_the_busy_timeout_keeps_the_answer_off_the_callers_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The issue: the app froze 10 s on the lock, then crashed and lost the answer. Here the
    busy timeout is 0.2 s (not 10) and the caller waits 0.05 s (not 1): no clock is waited on
    but those the code itself sets."""
    monkeypatch.setattr(store_open, "BUSY_TIMEOUT_MS", 200)
    monkeypatch.setattr(store_writer, "WAIT_S", 0.05)
    path = tmp_path / "progress.db"
    sid = _made(path)
    faulted = threading.Event()
    with Store.open(path) as st:
        st.listen(lambda problem: faulted.set() if problem else None)
        other = sqlite3.connect(path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
        st.record_answer(answer(sid, "q2"))  # returns: never raises, never loses it
        assert st.unsaved == 1
        assert faulted.wait(30)  # the busy timeout ran out in the writer thread
        assert st.problem == "another program has held its write lock for over 10 seconds"
        st.record_answer(answer(sid, "q3"))
        other.execute("ROLLBACK")
        other.close()
        assert st.flush(10) is True and st.problem is None
        assert [a.question_id for a in st.answers(sid)] == ["q1", "q2", "q3"]


def test_an_answer_rerated_while_unsaved_is_rerated_from_memory(disk: Path) -> None:
    from quiz.study.recorder import QuestionIndex, Recorder
    from quiz.study.session import SessionConfig, StudySession
    from tests.conftest import make_library, question_data

    library = make_library(question_data("q0"), question_data("q1"))
    path = disk / "progress.db"
    with Store.open(path) as st:
        session = StudySession.from_questions(library.questions, SessionConfig(shuffle=False),
                                              library.topics)
        session.mode = "practice"
        sid = st.start_session("practice", ("test-bank",), None, session.plan(), now=T0)
        recorder = Recorder(st, sid, "practice", QuestionIndex.of(library), now=lambda: T0)
        session.sink = recorder
        session.go(0)
        filler = fill(disk)
        session.answer("A")  # wrong: rated Again (1)
        recorder.rerate("q0", 4)  # the student's override after the reveal: Easy
        assert st.unsaved == 2
        filler.unlink()
        assert st.flush(10) is True
        (saved,) = st.answers(sid)
        assert (saved.question_id, saved.rating, saved.scheduled) == ("q0", 4, True)
        card = st.card("q0")
        assert card is not None and card.card["state"] == 2  # Easy: straight to Review


_RESET = """
import resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
from quiz.cli import main
sys.exit(main(["stats", "--reset", "--yes", "--data-dir", sys.argv[2]]))
"""


def test_stats_reset_under_a_file_size_limit_says_so_and_deletes_nothing(
        tmp_path: Path) -> None:
    """The issue: a traceback and an empty backup left behind."""
    data = tmp_path / "data"
    path = data / "progress.db"
    with Store.open(path) as st:
        for n in range(40):
            sid = st.start_session("practice", ("b",), None, {"ids": "x" * 2000}, now=T0)
            st.record_answer(answer(sid, f"q{n}"))
    size = path.stat().st_size
    out = subprocess.run([sys.executable, "-c", _RESET, str(size // 2), str(data)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    assert "Traceback" not in out.stderr
    assert "could not back up the progress file to" in out.stderr
    assert out.stderr.rstrip().endswith("nothing was changed")
    assert list((data / "backups").iterdir()) == []  # no half backup left
    with Store.open(path) as st:
        assert st.answer_count() == 40


def test_stats_reset_on_a_read_only_disk_says_so(disk: Path) -> None:
    """The issue: reported as "a damaged file that could not be renamed"."""
    data = disk / "data"
    _made(data / "progress.db")
    remount(disk, "ro")
    try:
        out = subprocess.run([sys.executable, "-m", "quiz", "stats", "--reset", "--yes",
                              "--data-dir", str(data)], capture_output=True, text=True,
                             timeout=60, stdin=subprocess.DEVNULL)
    finally:
        remount(disk, "rw")
    assert out.returncode == 1, out.stdout + out.stderr
    assert "damaged" not in out.stderr and "Traceback" not in out.stderr
    assert (f"quiz: the progress file {data / 'progress.db'} cannot be written (the disk "
            "holding it is mounted read-only): nothing was deleted") in out.stderr
    with Store.open(data / "progress.db") as st:
        assert st.answer_count() == 1


def test_fault_words(tmp_path: Path) -> None:
    full = sqlite3.OperationalError("database or disk is full")
    assert store_writer.fault_of(full) == "the disk is full"
    assert store_writer.fault_of(OSError(28, "No space left on device")) == "the disk is full"
    assert store_writer.fault_of(OSError(27, "File too large")) == \
        "the file-size limit was reached"
    assert store_writer.fault_of(sqlite3.DatabaseError("file is not a database")) is None
    assert store_writer.fault_of(ValueError("a bug")) is None
    assert resource.RLIM_INFINITY is not None


def test_a_data_folder_that_cannot_be_made_runs_without_saving(disk: Path) -> None:
    data = disk / "never-made"
    remount(disk, "ro")
    try:
        out = subprocess.run([sys.executable, "-m", "quiz", "stats", "--data-dir", str(data)],
                             capture_output=True, text=True, timeout=60,
                             stdin=subprocess.DEVNULL)
    finally:
        remount(disk, "rw")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Questions: 0 of ")
    assert (f"quiz: the progress file {data / 'progress.db'} cannot be written now (the file "
            "or its folder is read-only); it is read as it is") in out.stderr
