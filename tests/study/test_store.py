"""The progress store: migrations, durability under SIGKILL, two writers, damaged files."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from quiz import paths
from quiz.study import store as store_mod
from quiz.study.store import (
    APPLICATION_ID,
    SCHEMA_VERSION,
    Store,
    StoreError,
)
from quiz.study.store_records import AnswerRecord, StoredCard

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROOT = Path(__file__).resolve().parents[2]


def answer(session_id: int, qid: str, correct: bool = True, **kw: object) -> AnswerRecord:
    base: dict[str, object] = dict(session_id=session_id, question_id=qid, bank_id="b",
                                   content_hash="h-" + qid, chosen=("B",), correct=correct,
                                   seconds=4.5, answered_at=T0)
    base.update(kw)
    return AnswerRecord(**base)  # type: ignore[arg-type]


def card(qid: str, due: datetime, stability: float = 1.0, content_hash: str = "") -> StoredCard:
    return StoredCard(qid, content_hash or "h-" + qid,
                      {"card_id": 1, "state": 2, "step": None, "stability": stability,
                       "difficulty": 5.0, "due": due.isoformat(), "last_review": None}, due)


def test_data_folder_is_the_test_one(_isolated_data_dir: Path) -> None:
    assert paths.progress_db() == _isolated_data_dir / "progress.db"
    assert _isolated_data_dir.is_dir()


def test_fresh_file_is_at_the_current_version_in_wal_mode(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as st:
        assert st.schema_version == SCHEMA_VERSION == 3
        assert st.notice is None
    db = sqlite3.connect(tmp_path / "p.db")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    db.close()


def test_migration_from_version_1_keeps_the_data(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    db.execute("INSERT INTO schema_version VALUES (1)")
    store_mod.MIGRATIONS[1](db)
    db.execute("INSERT INTO sessions (mode, bank_ids, seed, plan, started_at) VALUES "
               "('practice', '[\"b\"]', 7, '{\"questions\": [[\"q1\", \"ABCD\"]]}', ?)",
               (T0.isoformat(),))
    db.execute("INSERT INTO answers (session_id, question_id, bank_id, content_hash, chosen, "
               "correct, seconds, answered_at) VALUES (1, 'q1', 'b', 'h', '[\"B\"]', 1, 3.0, ?)",
               (T0.isoformat(),))
    db.close()
    with Store.open(path) as st:
        assert st.schema_version == 3
        (s,) = st.sessions()
        assert (s.mode, s.seed, s.question_ids, s.state) == ("practice", 7, ("q1",), {})
        (a,) = st.answers()
        assert (a.question_id, a.chosen, a.correct, a.rating, a.scheduled, a.variant) == (
            "q1", ("B",), True, None, False, None)


def test_a_file_from_a_newer_quiz_is_left_untouched(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    Store.open(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("UPDATE schema_version SET version = 99")
    db.close()
    before = path.read_bytes()
    with pytest.raises(StoreError, match="newer version of quiz"):
        Store.open(path)
    assert path.read_bytes() == before
    assert not list(tmp_path.glob("*.damaged-*"))


@pytest.mark.parametrize("content, reason", [
    (b"this is my shopping list, not a database\n" * 20, "not a SQLite database"),
    (b"SQLite format 3\x00" + b"\xff" * 3000, "damaged"),
])
def test_a_damaged_file_is_reported_and_kept(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "progress.db"
    path.write_bytes(content)
    with Store.open(path, now=T0) as st:
        assert st.notice is not None and reason in st.notice
        assert "progress.db.damaged-20260301T090000Z" in st.notice
        st.start_session("practice", ("b",), None, {"questions": []})
        assert len(st.sessions()) == 1
    assert (tmp_path / "progress.db.damaged-20260301T090000Z").read_bytes() == content


def test_a_foreign_sqlite_file_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / "progress.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.execute("INSERT INTO recipes VALUES ('bread')")
    db.commit()
    db.close()
    with Store.open(path, now=T0) as st:
        assert st.notice and "belongs to another program" in st.notice
    kept = sqlite3.connect(tmp_path / "progress.db.damaged-20260301T090000Z")
    assert kept.execute("SELECT name FROM recipes").fetchall() == [("bread",)]
    kept.close()


def test_a_corrupted_page_is_noticed(tmp_path: Path) -> None:
    path = tmp_path / "progress.db"
    with Store.open(path) as st:
        sid = st.start_session("practice", ("b",), None, {"questions": []})
        for i in range(300):
            st.record_answer(answer(sid, f"q{i}", content_hash="x" * 200))
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    raw = bytearray(path.read_bytes())
    assert len(raw) > 4096 * 4
    raw[4096 * 2: 4096 * 3] = b"\x07" * 4096  # one page of garbage in the middle
    path.write_bytes(bytes(raw))
    with Store.open(path, now=T0) as st:
        assert st.notice and "damaged" in st.notice
        assert st.answer_count() == 0
    assert (tmp_path / "progress.db.damaged-20260301T090000Z").read_bytes() == bytes(raw)


def test_undo_puts_back_the_card_it_replaced(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as st:
        sid = st.start_session("review", ("b",), None, {"questions": [["q1", "AB"]]})
        first = card("q1", T0 + timedelta(days=1), stability=1.0)
        st.record_answer(answer(sid, "q1", rating=3), first)
        sid2 = st.start_session("review", ("b",), None, {"questions": [["q1", "AB"]]})
        second = card("q1", T0 + timedelta(days=5), stability=5.0)
        st.record_answer(answer(sid2, "q1", rating=3), second)
        assert st.card("q1") == second
        assert st.undo_answer(sid2, "q1") is True
        assert st.card("q1") == first
        assert [a.session_id for a in st.answers()] == [sid]
        assert st.undo_answer(sid, "q1") is True
        assert st.card("q1") is None and st.answers() == []
        assert st.undo_answer(sid, "q1") is False


def test_an_answer_changed_in_the_same_session_replaces_the_first(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as st:
        sid = st.start_session("exam", ("b",), 3, {"questions": [["q1", "AB"]]})
        st.record_answer(answer(sid, "q1", correct=False, chosen=("A",)))
        st.record_answer(answer(sid, "q1", correct=True, chosen=("B",)))
        (a,) = st.answers(sid)
        assert (a.chosen, a.correct, a.scheduled) == (("B",), True, False)
        assert st.card("q1") is None


def test_changed_questions_lose_their_schedule_only(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as st:
        sid = st.start_session("practice", ("b",), None, {"questions": []})
        st.record_answer(answer(sid, "q1"), card("q1", T0, content_hash="old"))
        st.record_answer(answer(sid, "q2"), card("q2", T0, content_hash="same"))
        assert st.reset_changed_cards({"q1": "new", "q2": "same", "q9": "x"}) == ["q1"]
        assert set(st.cards()) == {"q2"}
        assert len(st.answers()) == 2


def test_settings_flags_and_sessions_round_trip(tmp_path: Path) -> None:
    with Store.open(tmp_path / "p.db") as st:
        st.set_setting("last_topics", ["memory", "precision"])
        assert st.setting("last_topics") == ["memory", "precision"]
        assert st.setting("theme", "textual-dark") == "textual-dark"
        sid = st.start_session("exam", ("b",), 5, {"questions": [["q1", "BA"]],
                                                   "time_limit_s": 60}, now=T0)
        st.set_flag(sid, "q1", True)
        st.save_state(sid, {"position": 0, "elapsed_s": 12.5})
        assert st.flags(sid) == {"q1"} and st.flags() == {"q1"}
        (open_,) = st.open_sessions()
        assert (open_.id, open_.state["elapsed_s"], open_.started_at) == (sid, 12.5, T0)
        st.end_session(sid, "finished", now=T0 + timedelta(minutes=1))
        assert st.open_sessions() == []
        assert st.session(sid).ended_at == T0 + timedelta(minutes=1)
        st.set_flag(sid, "q1", False)
        assert st.flags() == set()


CHILD = textwrap.dedent("""
    import sys, time
    from datetime import UTC, datetime
    from pathlib import Path
    from quiz.study.store import Store
    from quiz.study.store_records import AnswerRecord
    st = Store.open(Path(sys.argv[1]))
    sid = st.start_session("practice", ("b",), None, {"questions": []})
    for i in range(int(sys.argv[2])):
        st.record_answer(AnswerRecord(sid, f"{sys.argv[3]}{i}", "b", "h", ("A",), i % 2 == 0,
                                      1.0, datetime.now(UTC)))
        print(i, flush=True)
        time.sleep(float(sys.argv[4]))
    print("done", flush=True)
""")


def _child(path: Path, count: int, prefix: str, pause: float) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(path), str(count), prefix,
                             str(pause)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=ROOT)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_answers_survive_a_sigkill_mid_session(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    child = _child(path, 1000, "q", 0.05)
    assert child.stdout is not None
    for _ in range(3):
        child.stdout.readline()  # the answer was committed before its line was printed
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    with Store.open(path) as st:
        assert st.notice is None
        ids = [a.question_id for a in st.answers()]
        assert ids[:3] == ["q0", "q1", "q2"] and len(ids) < 1000
        (s,) = st.open_sessions()
        assert s.mode == "practice"


def test_two_processes_write_at_once(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    Store.open(path).close()
    children = [_child(path, 150, prefix, 0.0) for prefix in ("a", "b")]
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        assert out.rstrip().endswith("done")
        assert "locked" not in err
    with Store.open(path) as st:
        assert st.answer_count() == 300
        assert len(st.sessions()) == 2
        tallies = st.tallies()
        assert tallies["a0"].right == 1 and tallies["a1"].wrong == 1


_OWNER = """
import sys
from pathlib import Path
from quiz.study.store import Store
store = Store.open(Path(sys.argv[1]))
print(store.start_session("practice", ("b",), None, {"ids": "q1"}), flush=True)
sys.stdin.readline()
"""


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_session_is_owned_while_its_process_lives_whatever_its_command_line(
        tmp_path: Path) -> None:
    """Issue 19 §2: the owner is told by an OS lock the kernel drops when the owner dies,
    not by "quiz" in a command line (a clone folder named quiz made every process look like
    one; a reused pid hid a session). The owner here runs from a folder named quiz."""
    from quiz.study import owners
    from quiz.study.recorder import interrupted_sessions

    path = tmp_path / "quiz" / "p.db"
    Store.open(path).close()
    runner = tmp_path / "quiz" / "quiz_owner.py"
    runner.write_text(_OWNER, encoding="utf-8")
    owner = subprocess.Popen([sys.executable, str(runner), str(path)], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert owner.stdout is not None
        sid = int(owner.stdout.readline())
        with Store.open(path) as store:
            store.record_answer(AnswerRecord(sid, "q1", "b", "h", ("A",), True, 3.0, T0))
            assert owners.owned_elsewhere(path, sid) is True
            assert interrupted_sessions(store) == []  # being studied elsewhere: not offered
            owner.kill()  # SIGKILL: nothing of the owner's runs, the kernel drops its lock
            owner.wait()
            assert owners.owned_elsewhere(path, sid) is False
            assert [i.record.id for i in interrupted_sessions(store)] == [sid]
    finally:
        owner.kill()
        owner.wait()


def test_a_pid_in_the_plan_no_longer_decides_anything(tmp_path: Path) -> None:
    """A session whose plan names a live process that mentions quiz (a reused pid) but holds
    no lock is offered: only the lock counts."""
    from quiz.study import owners
    from quiz.study.recorder import interrupted_sessions

    other = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()", "quiz"],
                             stdin=subprocess.PIPE)
    try:
        with Store.open(tmp_path / "p.db") as store:
            sid = store.start_session("practice", ("b",), None, {"pid": other.pid, "ids": "q1"})
            store.record_answer(AnswerRecord(sid, "q1", "b", "h", ("A",), True, 3.0, T0))
            owners.release(store.path, sid)  # as if started by a quiz before the locks
            assert [i.record.id for i in interrupted_sessions(store)] == [sid]
            assert owners.claim(store.path, sid) is True
            store.end_session(sid)
            assert not (tmp_path / "p.db.locks" / f"session-{sid}.lock").exists()
    finally:
        other.kill()
        other.wait()
