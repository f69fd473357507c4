"""No content of the validated-bank cache runs code (issue 19 §1): a planted entry is never
unpickled; entries and folders others can write, or owned by someone else, are refused with a
note; links and named pipes are skipped unread; the folders and the key are private."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import stat
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pytest

from quiz.bank import cache as cache_module
from quiz.bank.cache import BankCache, content_hash
from quiz.bank.cache_entry import KEY_FILE
from quiz.bank.load import load_library
from tests.conftest import SEED_BANK

SEED_FILE = next(SEED_BANK.glob("*.yaml"))
NOBODY = 65534

root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                               reason="giving a file to another user needs root")


class Planted:
    """Unpickling this creates the file ``marker`` names: proof that code from the cache ran."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (str(self.marker), "w"))


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    path = tmp_path / "bank.yaml"
    shutil.copy(SEED_FILE, path)
    return path


def entry_of(folder: Path, bank: Path) -> Path:
    return BankCache(folder)._entry(bank.resolve())


def _header(bank: Path) -> bytes:
    info = os.stat(bank)
    key = BankCache._key(bank.resolve(), info, content_hash(bank.read_bytes()), True)
    return cache_module._MAGIC + json.dumps(key).encode() + b"\n"


def test_an_entry_planted_with_checks_anyone_can_compute_runs_nothing(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    """The attack of the issue: the key of an entry is made from what any local user can
    read, and its sections were checked by a CRC: a planted pickle ran when quiz started."""
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    marker = tmp_path / "ran"
    evil = pickle.dumps(Planted(marker))
    section = zlib.crc32(evil).to_bytes(4, "big") + len(evil).to_bytes(8, "big") + evil
    entry_of(folder, bank).write_bytes(_header(bank) + section + section)
    os.chmod(entry_of(folder, bank), 0o600)
    report = load_library([bank], cache_dir=folder)
    assert not marker.exists()
    assert report.library is not None and report.library.question_count == 2
    assert full_loads == [str(bank)]


def test_an_entry_made_by_quiz_with_another_users_key_runs_nothing(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    """Someone who can write the cache folder and runs quiz's own code, with a key of their
    own, still cannot make an entry this user's quiz unpickles."""
    folder = tmp_path / "cache"
    marker = tmp_path / "ran"
    attacker = BankCache(folder, key_file=tmp_path / "attacker" / KEY_FILE)
    attacker.put(bank.resolve(), os.stat(bank), content_hash(bank.read_bytes()),
                 Planted(marker), Planted(marker))
    assert entry_of(folder, bank).exists() and not marker.exists()
    report = load_library([bank], cache_dir=folder)
    assert not marker.exists()
    assert report.library is not None and full_loads == [str(bank)]
    # The entry then written with the user's key is served, and decodes.
    again = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank)] and again.library is not None
    assert [q.id for q in again.library.questions] == [q.id for q in report.library.questions]


def test_a_payload_swapped_in_after_the_start_runs_nothing(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    """The payload is read when the questions are first needed: one replaced by then (the
    index kept) fails its check and is never unpickled; the file is loaded in full then."""
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank)] and report.library is not None
    entry = entry_of(folder, bank)
    data = entry.read_bytes()
    start = data.index(b"\n", data.index(b"\n") + 1) + 1
    payload_at = start + 40 + int.from_bytes(data[start + 32:start + 40], "big")
    marker = tmp_path / "ran"
    evil = pickle.dumps(Planted(marker))
    old_length = int.from_bytes(data[payload_at + 32:payload_at + 40], "big")
    padded = evil + b"." * (old_length - len(evil))  # same length: the head still matches
    entry.write_bytes(data[:payload_at + 40] + padded)
    assert report.library.questions[0].id  # decodes now
    assert not marker.exists()
    assert full_loads == [str(bank), str(bank)]


@pytest.mark.parametrize("mode", [0o664, 0o646])
def test_an_entry_others_can_write_is_refused_with_a_note(
        bank: Path, tmp_path: Path, full_loads: list[str], mode: int) -> None:
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    entry = entry_of(folder, bank)
    os.chmod(entry, mode)
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank), str(bank)] and report.library is not None
    assert report.notes == [
        f"validated-bank cache entry {entry}: this entry can be written by other users (mode "
        f"{mode:04o}); not used (the bank is loaded without it; a new entry replaces it)"]


@pytest.mark.parametrize("mode", [0o775, 0o777, 0o1777])
def test_a_cache_folder_others_can_write_is_not_used_at_all(
        bank: Path, tmp_path: Path, full_loads: list[str], mode: int) -> None:
    folder = tmp_path / "shared"
    folder.mkdir()
    os.chmod(folder, mode)
    report = load_library([bank], cache_dir=folder)
    assert report.library is not None and list(folder.iterdir()) == []  # nothing written
    assert report.notes == [
        f"validated-bank cache {folder}: this folder can be written by other users (mode "
        f"{mode:04o}); its entries are not used and none is written (banks load in full). Use "
        f"a folder only you can write: chmod 700 {folder}, or set QUIZ_CACHE_DIR"]


@root_only
def test_an_entry_or_folder_owned_by_someone_else_is_refused(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    entry = entry_of(folder, bank)
    os.chown(entry, NOBODY, NOBODY)
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank), str(bank)]
    assert report.notes == [f"validated-bank cache entry {entry}: this entry belongs to another "
                            f"user (uid {NOBODY}); not used (the bank is loaded without it; a "
                            "new entry replaces it)"]
    os.chown(folder, NOBODY, NOBODY)
    report = load_library([bank], cache_dir=folder)
    assert len(full_loads) == 3
    assert report.notes[0].startswith(f"validated-bank cache {folder}: this folder belongs to "
                                      f"another user (uid {NOBODY})")


_LOAD_IN_CHILD = textwrap.dedent("""
    import resource, sys
    from pathlib import Path
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # /dev/zero must not eat the box
    from quiz.bank.load import load_library
    report = load_library([sys.argv[1]], cache_dir=Path(sys.argv[2]))
    print(report.library.question_count if report.library else "errors")
    for note in report.notes:
        print(note)
""")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "link-to-entry"])
def test_an_entry_that_is_no_regular_file_is_skipped_without_reading_or_hanging(
        bank: Path, tmp_path: Path, kind: str) -> None:
    """A FIFO hung quiz; a link to /dev/zero grew its memory to 3.8 GB in 12 s."""
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    entry = entry_of(folder, bank)
    kept = tmp_path / "kept.bank"
    entry.rename(kept)
    if kind == "fifo":
        os.mkfifo(entry, 0o600)
    elif kind == "dev-zero":
        entry.symlink_to("/dev/zero")
    else:
        entry.symlink_to(kept)  # even a link to a good entry: never followed
    out = subprocess.run([sys.executable, "-c", _LOAD_IN_CHILD, str(bank), str(folder)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "2"
    if kind == "fifo":
        assert lines[1:] == [f"validated-bank cache entry {entry}: not a regular file: skipped "
                             "unread; not used (the bank is loaded without it; a new "
                             "entry replaces it)"]
    else:
        assert len(lines) == 2 and lines[1].startswith(
            f"validated-bank cache entry {entry}: a link, skipped unread")
    # The load wrote a new entry of its own in its place (the link itself replaced, never
    # written through), and the next start is served by it.
    assert stat.S_ISREG(os.lstat(entry).st_mode) and kept.read_bytes()[:16] == b"quiz-bank-cache "
    out = subprocess.run([sys.executable, "-c", _LOAD_IN_CHILD, str(bank), str(folder)],
                         capture_output=True, text=True, timeout=60)
    assert out.stdout.splitlines() == ["2"]


def test_the_cache_folder_and_the_key_are_private_whatever_the_umask(
        bank: Path, tmp_path: Path) -> None:
    old = os.umask(0o002)
    try:
        folder = tmp_path / "deep" / "er" / "cache"
        load_library([bank], cache_dir=folder)
    finally:
        os.umask(old)
    for made in (tmp_path / "deep", tmp_path / "deep" / "er", folder):
        assert stat.S_IMODE(os.stat(made).st_mode) == 0o700, made
    key = Path(os.environ["QUIZ_DATA_DIR"]) / KEY_FILE
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600 and len(key.read_bytes()) == 32
    assert stat.S_IMODE(os.stat(key.parent).st_mode) == 0o700
    (entry,) = folder.glob("*.bank")
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o600


@pytest.mark.parametrize("damage", ["readable", "short", "link"])
def test_a_key_others_may_know_turns_the_cache_off_with_a_note(
        bank: Path, tmp_path: Path, full_loads: list[str], damage: str) -> None:
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    key = Path(os.environ["QUIZ_DATA_DIR"]) / KEY_FILE
    if damage == "readable":
        os.chmod(key, 0o644)
    elif damage == "short":
        key.write_bytes(b"0123")
    else:
        real = tmp_path / "elsewhere.key"
        key.rename(real)
        key.symlink_to(real)
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank), str(bank)] and report.library is not None
    assert len(report.notes) == 1 and report.notes[0].startswith(f"the cache key {key}")
    assert "validated-bank cache is off" in report.notes[0] or "is a link" in report.notes[0]


def test_the_study_command_line_says_the_note(bank: Path, tmp_path: Path) -> None:
    """``quiz stats`` loads through the cache: its refusal is said on stderr, not hidden."""
    folder = Path(os.environ["QUIZ_CACHE_DIR"])
    folder.mkdir(mode=0o700)
    os.chmod(folder, 0o777)
    out = subprocess.run([sys.executable, "-m", "quiz", "stats", str(bank)], capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert f"quiz: validated-bank cache {folder}: this folder can be written by other users" \
        in out.stderr


def test_a_cache_path_that_is_a_file_is_not_told_to_chmod(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    """chmod 700 on a file would not make it a cache folder: the hint names the real fix."""
    folder = tmp_path / "cache"
    folder.write_text("a file, not a folder", "utf-8")
    report = load_library([bank], cache_dir=folder)
    assert report.library is not None and folder.read_text("utf-8") == "a file, not a folder"
    assert report.notes == [
        f"validated-bank cache {folder}: it is not a folder; its entries are not used and none "
        "is written (banks load in full). Set QUIZ_CACHE_DIR to a folder only you can write"]


def test_a_cache_folder_that_cannot_be_made_is_said_once_not_silent(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    """QUIZ_CACHE_DIR=/proc/nonexist turned the cache off without a word: now it is a note,
    given at the first file (the writes come after the report, in the study app)."""
    (tmp_path / "file").write_text("not a folder", "utf-8")
    folder = tmp_path / "file" / "cache"
    later: list[object] = []
    report = load_library([bank], cache_dir=folder, cache_writes=later)  # type: ignore[arg-type]
    assert report.library is not None and full_loads == [str(bank)] and len(later) == 1
    assert report.notes == [
        f"validated-bank cache {folder}: it cannot be created (Not a directory); no entry is "
        "used or written (banks load in full at every start). Set QUIZ_CACHE_DIR to a folder "
        "you can write"]


def test_the_study_command_line_says_a_cache_folder_cannot_be_made(
        bank: Path, tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder", "utf-8")
    folder = tmp_path / "file" / "cache"
    env = dict(os.environ, QUIZ_CACHE_DIR=str(folder))
    out = subprocess.run([sys.executable, "-m", "quiz", "stats", str(bank)], capture_output=True,
                         text=True, timeout=60, stdin=subprocess.DEVNULL, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count(f"quiz: validated-bank cache {folder}: it cannot be created") == 1
