"""Damage inside the progress file's rows (issue 19 §2): a flipped byte in a JSON or time cell
passes SQLite's integrity check; every value read is checked, so a damaged row is skipped and
reported, never a traceback. A file that cannot be used at all (a schema version that is no
number, a missing table) is set aside, as a damaged file is."""

from __future__ import annotations

import random
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quiz.study.recorder import QuestionIndex, interrupted_sessions
from quiz.study.scheduling import review_queue
from quiz.study.stats import compute
from quiz.study.store import Store
from quiz.study.store_records import AnswerRecord, StoredCard
from tests.conftest import SEED_BANK

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
CARD = {"card_id": 1, "state": 2, "step": None, "stability": 3.5, "difficulty": 5.0,
        "due": "2026-03-02T09:00:00+00:00", "last_review": "2026-03-01T09:00:00+00:00"}


def _library():  # type: ignore[no-untyped-def]
    from quiz.bank.load import load_library

    library = load_library([SEED_BANK]).library
    assert library is not None
    return library


def _fill(path: Path) -> list[str]:
    """A store with two open sessions (answered), a finished one, cards and a setting; returns
    the seed bank's question ids."""
    ids = [q.id for q in _library().questions]
    with Store.open(path) as st:
        for n in range(3):
            sid = st.start_session("practice", ("seed",), 7, {"ids": "\n".join(ids)}, now=T0)
            for qid in ids:
                st.record_answer(AnswerRecord(sid, qid, "seed", "h", ("A",), n % 2 == 0, 2.5, T0),
                                 StoredCard(qid, "h", dict(CARD), T0))
            if n == 0:
                st.end_session(sid, now=T0)
        st.set_setting("theme", "nord")
    return ids


def _everything(st: Store) -> None:
    """Every read the app and quiz stats make."""
    library = _library()
    index = QuestionIndex.of(library)
    st.sessions()
    st.open_sessions()
    for rec in st.sessions():
        st.answers(rec.id)
        st.flags(rec.id)
        _ = rec.question_ids
    interrupted_sessions(st)
    review_queue(st.cards(), st.tallies(), index.hash_of, T0)
    compute(st, library, T0)
    st.setting("theme")


DAMAGE = [
    ("UPDATE sessions SET plan = '{not json' WHERE id = 2", "session 2: plan is not JSON"),
    ("UPDATE sessions SET plan = '{\"questions\": 7}' WHERE id = 2",
     "session 2: plan's questions are not [id, keys] pairs"),
    ("UPDATE sessions SET started_at = '2026-0\x13-01T09:00' WHERE id = 3",
     "session 3: started_at is not a time"),
    ("UPDATE sessions SET bank_ids = '[7]' WHERE id = 3",
     "session 3: bank_ids holds something other than text"),
    ("UPDATE sessions SET state = '{\"position\": \"x\"}' WHERE id = 2",
     "session 2: state's position is not a valid whole number"),
    ("UPDATE answers SET chosen = '[\"A\"' WHERE id = 1", "is not JSON"),
    ("UPDATE answers SET answered_at = 'soon' WHERE id = 2", "an answer's time is not a time"),
    ("UPDATE answers SET correct = 'y' WHERE id = 3", "verdict"),
    ("UPDATE cards SET due = 'tomorrow'", "due is not a time"),
    ("UPDATE cards SET card = '{\"state\": 9}'", "the card's state is not an fsrs state"),
    ("UPDATE cards SET card = '{\"card_id\": 1, \"state\": 2, \"stability\": \"x\", "
     "\"due\": \"2026-03-02T09:00:00+00:00\"}'", "the card's stability is not a number"),
    ("UPDATE settings SET value = '{x'", "setting 'theme' is not JSON"),
]


@pytest.mark.parametrize(("sql", "said"), DAMAGE)
def test_a_damaged_cell_skips_its_row_and_is_reported(tmp_path: Path, sql: str,
                                                      said: str) -> None:
    path = tmp_path / "p.db"
    _fill(path)
    with sqlite3.connect(path) as db:
        db.execute(sql)
    with Store.open(path) as st:
        assert st.notice is None  # the file is kept where it is
        _everything(st)
        assert st.damage and any(said in line for line in st.damage), st.damage
        # Undo and the card an answer replaced, on damaged rows too.
        for rec in st.sessions():
            for qid in ("m1", "m2"):
                st.card_before(rec.id, qid)
    assert path.exists() and not list(tmp_path.glob("p.db.damaged-*"))


def test_a_damaged_card_an_answer_replaced_is_not_put_back_by_undo(tmp_path: Path) -> None:
    path = tmp_path / "p.db"
    ids = _fill(path)
    with sqlite3.connect(path) as db:
        db.execute("UPDATE answers SET card_before = '[\"h\", \"{not\", 5]'")
    with Store.open(path) as st:
        assert st.card_before(2, ids[0]) is None
        assert st.undo_answer(2, ids[0]) is True
        assert st.card(ids[0]) is None  # deleted, not restored from junk
        assert any("the card" in line for line in st.damage)


def test_random_bit_flips_in_json_and_time_cells_never_raise(tmp_path: Path) -> None:
    """The issue's trial: 34 of 400 random bit flips gave a traceback."""
    rng = random.Random(19)
    cells = [("sessions", c) for c in ("bank_ids", "plan", "state", "started_at", "ended_at",
                                       "mode", "status")]
    cells += [("answers", c) for c in ("chosen", "answered_at", "card_before")]
    cells += [("cards", c) for c in ("card", "due")] + [("settings", "value")]
    base = tmp_path / "base.db"
    _fill(base)
    for trial in range(120):
        path = tmp_path / f"t{trial}.db"
        path.write_bytes(base.read_bytes())
        table, column = rng.choice(cells)
        with sqlite3.connect(path) as db:
            rows = db.execute(f"SELECT rowid, {column} FROM {table} "
                              f"WHERE {column} IS NOT NULL").fetchall()
            rowid, value = rng.choice(rows)
            raw = bytearray(value.encode())
            at = rng.randrange(len(raw))
            raw[at] ^= 1 << rng.randrange(8)
            flipped = raw.decode("utf-8", "replace")
            db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = ?", (flipped, rowid))
        with Store.open(path) as st:
            _everything(st)  # never raises


@pytest.mark.parametrize(("sql", "reason"), [
    ("UPDATE schema_version SET version = 'two'", "its schema version is ['two'], not a number"),
    ("UPDATE schema_version SET version = 2.5", "not a number"),
    ("DROP TABLE flags", "its table flags is missing"),
    ("DROP TABLE answers", "its table answers is missing"),
])
def test_a_file_whose_schema_cannot_be_read_is_set_aside_not_a_traceback(
        tmp_path: Path, sql: str, reason: str) -> None:
    path = tmp_path / "p.db"
    _fill(path)
    with sqlite3.connect(path) as db:
        db.execute(sql)
    with Store.open(path, now=T0) as st:
        assert st.notice is not None and reason in st.notice
        assert st.sessions() == []
    assert (tmp_path / "p.db.damaged-20260301T090000Z").exists()


def test_quiz_stats_reports_the_damage_and_prints_the_rest(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    _fill(data / "progress.db")
    with sqlite3.connect(data / "progress.db") as db:
        db.execute("UPDATE sessions SET plan = '{not json' WHERE id = 2")
        db.execute("UPDATE cards SET due = 'never'")
    out = subprocess.run([sys.executable, "-m", "quiz", "stats", str(SEED_BANK), "--data-dir",
                          str(data)], capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr
    assert f"damaged rows of the progress file {data / 'progress.db'} were skipped" in out.stderr
    assert "session 2: plan is not JSON" in out.stderr
    rows = [line.split() for line in out.stdout.splitlines() if line.strip()[:1].isdigit()]
    assert [r[0] for r in rows] == ["3", "1"]  # sessions 3 and 1; 2 skipped
