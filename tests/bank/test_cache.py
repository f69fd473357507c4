"""The validated-bank cache: an unchanged file is served from it, with the same library and the
same warnings; a changed file, a damaged or unreadable entry, or a changed loader means a full
load; a bank with errors is never stored."""

from __future__ import annotations

import gc
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quiz.bank import cache as cache_module
from quiz.bank.cache import BankCache
from quiz.bank.load import load_for_study, load_library
from tests.conftest import SEED_BANK

SEED_FILE = next(SEED_BANK.glob("*.yaml"))


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    path = tmp_path / "bank.yaml"
    shutil.copy(SEED_FILE, path)
    return path


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.bank"))


def test_unchanged_file_is_served_from_the_cache(bank: Path, tmp_path: Path,
                                                 full_loads: list[str]) -> None:
    folder = tmp_path / "cache"
    first = load_library([bank], cache_dir=folder)
    assert first.library is not None and full_loads == [str(bank)]
    assert len(entries(folder)) == 1
    again = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank)]  # no second full load
    assert again.library is not None
    assert again.library.questions == first.library.questions
    assert again.library.topics == first.library.topics
    assert [str(d) for d in again.diagnostics] == [str(d) for d in first.diagnostics]


def test_warnings_come_back_from_the_cache(bank: Path, tmp_path: Path,
                                           full_loads: list[str]) -> None:
    text = bank.read_text(encoding="utf-8")
    bank.write_text(text.replace("Training is the heavy lift;",
                                 "Training is the heavy lift, as option D says;", 1),
                    encoding="utf-8")
    first = load_library([bank], cache_dir=tmp_path / "cache")
    warnings = [str(d) for d in first.warnings]
    assert len(warnings) == 1 and "'option D' names options by letter" in warnings[0]
    again = load_library([bank], cache_dir=tmp_path / "cache")
    assert [str(d) for d in again.warnings] == warnings
    assert len(full_loads) == 1


def test_a_changed_file_with_the_same_size_and_time_is_loaded_in_full(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    info = os.stat(bank)
    text = bank.read_text(encoding="utf-8")
    first_stem = "You are sizing"
    assert first_stem in text
    changed = text.replace(first_stem, "You are SIZING", 1)
    assert len(changed.encode()) == info.st_size
    bank.write_text(changed, encoding="utf-8")
    os.utime(bank, ns=(info.st_atime_ns, info.st_mtime_ns))  # same size, same time: only the hash
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank), str(bank)]
    assert report.library is not None
    assert any("You are SIZING" in q.stem for q in report.library.questions)
    # And the new content is what the cache serves next.
    again = load_library([bank], cache_dir=folder)
    assert len(full_loads) == 2 and again.library is not None
    assert any("You are SIZING" in q.stem for q in again.library.questions)


def _index_end(entry: Path) -> int:
    """Where an entry's payload section starts (after the magic line, the key line and the
    index section: check, length, bytes)."""
    data = entry.read_bytes()
    start = data.index(b"\n", data.index(b"\n") + 1) + 1
    return start + 40 + int.from_bytes(data[start + 32:start + 40], "big")


@pytest.mark.parametrize("damage", ["index", "garbage", "directory", "unreadable"])
def test_a_damaged_or_unreadable_entry_means_a_full_load(
        bank: Path, tmp_path: Path, full_loads: list[str], damage: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    good = load_library([bank], cache_dir=folder)
    (entry,) = entries(folder)
    data = entry.read_bytes()
    if damage == "index":  # one byte of the index changed: its check no longer matches
        at = _index_end(entry) - 20
        entry.write_bytes(data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1:])
    elif damage == "garbage":
        entry.write_bytes(b"\x00\xff not an entry at all")
    elif damage == "directory":
        entry.unlink()
        entry.mkdir()
    else:
        entry.chmod(0)
        if os.geteuid() == 0:  # root reads files whatever their permissions: refuse it here
            real_open = cache_module.open_entry

            def refusing_open(file: Path) -> Any:
                if Path(file) == entry:
                    raise PermissionError(13, "Permission denied", str(file))
                return real_open(file)

            monkeypatch.setattr(cache_module, "open_entry", refusing_open)
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank), str(bank)]
    assert report.library is not None and good.library is not None
    assert report.library.questions == good.library.questions


@pytest.mark.parametrize("damage", ["truncate", "flip", "replaced", "removed"])
def test_a_payload_that_fails_to_read_later_means_a_full_load_then(
        bank: Path, tmp_path: Path, full_loads: list[str], damage: str) -> None:
    """The index is served at once; the questions are read, checked and decoded when first
    needed: if the entry was damaged, replaced or removed by then, the file is loaded in full
    (it still has the same questions), and the library reads as if nothing had happened."""
    folder = tmp_path / "cache"
    good = load_library([bank], cache_dir=folder)
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank)] and report.library is not None
    (stored,) = report.library.banks
    assert not stored.decoded
    (entry,) = entries(folder)
    data = entry.read_bytes()
    if damage == "truncate":
        entry.write_bytes(data[: len(data) - 100])
    elif damage == "flip":  # one byte of the payload changed: its check no longer matches
        entry.write_bytes(data[:-50] + bytes([data[-50] ^ 0x01]) + data[-49:])
    elif damage == "replaced":  # another entry for this file, written since
        load_library([bank], cache_dir=tmp_path / "other")
        (other,) = entries(tmp_path / "other")
        fresh = other.read_bytes()
        at = _index_end(other)
        os.replace(other, entry)
        # The same payload with another check: not the payload this index was read with.
        entry.write_bytes(fresh[:at] + bytes([fresh[at] ^ 0x01]) + fresh[at + 1:])
    else:
        entry.unlink()
    assert full_loads == [str(bank)] * (1 + (damage == "replaced"))
    assert good.library is not None
    assert report.library.questions == good.library.questions
    assert stored.info == good.library.banks[0].info
    assert full_loads[-1] == str(bank) and len(full_loads) == 2 + (damage == "replaced")
    if damage in ("truncate", "flip"):
        # The damaged entry is gone (found by a tester: it was found damaged at every start,
        # the file loaded in full again behind the start screen each time): the next load
        # stores the file again, and the one after is served whole.
        assert entries(folder) == []
        load_library([bank], cache_dir=folder)
        (again,) = entries(folder)
        served = load_library([bank], cache_dir=folder)
        assert served.library is not None
        assert served.library.questions == good.library.questions
        assert len(full_loads) == 3
    elif damage == "replaced":  # another quiz's entry: not ours to remove
        assert entries(folder) == [entry]


def test_a_payload_lost_and_a_file_changed_since_the_start_is_an_error_naming_the_file(
        bank: Path, tmp_path: Path) -> None:
    from quiz.bank.load_results import StoredBankError

    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    report = load_library([bank], cache_dir=folder)
    assert report.library is not None
    entries(folder)[0].unlink()
    text = bank.read_text(encoding="utf-8")
    bank.write_text(text.replace("id: memory-", "id: changed-memory-", 1), encoding="utf-8")
    with pytest.raises(StoredBankError, match="start quiz again") as raised:
        report.library.questions  # noqa: B018
    assert str(bank) in str(raised.value)
    # Nothing was half taken: reading again tries again (and the file is the same still).
    with pytest.raises(StoredBankError):
        report.library.banks[0].questions  # noqa: B018


def test_a_changed_loader_means_a_full_load(bank: Path, tmp_path: Path,
                                            full_loads: list[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    monkeypatch.setattr(cache_module, "code_fingerprint", lambda: "another version of quiz")
    load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank), str(bank)]


def test_a_bank_with_errors_is_never_stored(tmp_path: Path, full_loads: list[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SEED_FILE.read_text(encoding="utf-8").replace("answer: D", "answer: Z", 1),
                   encoding="utf-8")
    folder = tmp_path / "cache"
    for _ in range(2):
        report = load_library([bad], cache_dir=folder)
        assert report.library is None and report.errors
    assert entries(folder) == [] and len(full_loads) == 2


def test_no_cache_folder_means_no_cache_and_an_unwritable_one_is_no_error(
        bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    for _ in range(2):
        assert load_library([bank]).library is not None
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    for _ in range(2):
        assert load_library([bank], cache_dir=blocker / "cache").library is not None
    assert len(full_loads) == 4


def test_entry_is_keyed_by_path(bank: Path, tmp_path: Path, full_loads: list[str]) -> None:
    copy = tmp_path / "copy.yaml"
    shutil.copy(bank, copy)
    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    report = load_library([copy], cache_dir=folder)
    assert report.library is not None
    assert report.library.banks[0].path == copy
    assert full_loads == [str(bank), str(copy)]
    assert len(entries(folder)) == 2
    BankCache(folder)  # the folder is only a place: nothing is read on construction


def test_load_for_study_uses_the_cache_folder_of_the_environment(
        bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        full_loads: list[str]) -> None:
    folder = tmp_path / "env-cache"
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(folder))
    before = gc.get_freeze_count()
    try:
        assert load_for_study([bank]).library is not None
        assert len(entries(folder)) == 1
        assert gc.get_freeze_count() > before  # the library is out of the collector's way
        assert load_for_study([bank]).library is not None
        assert full_loads == [str(bank)]
    finally:
        gc.unfreeze()


def test_cache_writes_can_wait_for_the_caller(bank: Path, tmp_path: Path,
                                              full_loads: list[str]) -> None:
    folder = tmp_path / "cache"
    writes: list[Callable[[], None]] = []
    first = load_library([bank], cache_dir=folder, cache_writes=writes)
    assert first.library is not None and len(writes) == 1
    assert entries(folder) == []  # nothing written yet: the caller decides when
    writes[0]()
    assert len(entries(folder)) == 1
    again: list[Callable[[], None]] = []
    report = load_library([bank], cache_dir=folder, cache_writes=again)
    assert report.library is not None and again == [] and full_loads == [str(bank)]
    assert report.library.questions == first.library.questions


def test_the_cache_keeps_each_questions_content_hash(bank: Path, tmp_path: Path) -> None:
    from quiz.bank.identity import content_hash

    folder = tmp_path / "cache"
    for _ in range(2):  # loaded in full, then from the cache
        library = load_library([bank], cache_dir=folder).library
        assert library is not None
        (loaded,) = library.banks
        assert loaded.content_hashes == tuple(content_hash(q) for q in loaded.questions)
        assert len(loaded.content_hashes) == len(loaded.questions) > 0


def test_a_start_served_from_the_cache_builds_no_model(bank: Path, tmp_path: Path) -> None:
    """What the start screen needs — count, topics, title, pass mark, the progress index, and
    the progress store's checks (changed cards, interrupted sessions: written and unplanned
    ones) — comes from the entry's index: no question is decoded and pydantic is not even
    imported."""
    import subprocess
    import sys

    folder = tmp_path / "cache"
    full = load_library([bank], cache_dir=folder).library
    assert full is not None
    code = (
        "import sys\nfrom pathlib import Path\nfrom quiz.bank.load import load_library\n"
        "from quiz.study.recorder import QuestionIndex\n"
        f"lib = load_library([{str(bank)!r}], cache_dir=Path({str(folder)!r})).library\n"
        "index = QuestionIndex.of(lib)\n"
        "from quiz.study.recorder import interrupted_sessions\n"
        "from quiz.study.store import Store\n"
        f"store = Store.open(Path({str(tmp_path / 'p.db')!r}))\n"
        "store.start_session('practice', ('b',), None, {'pid': 2 ** 22 + 1, 'ids': 'q1'})\n"
        "store.start_session('practice', ('b',), None, {'pid': 2 ** 22 + 1})\n"
        "store.reset_changed_cards(index.hash_of)\n"
        "interrupted_sessions(store)\n"
        "print(lib.question_count, dict(lib.topic_counts()), lib.title, lib.pass_mark,\n"
        "      len(index.hash_of), 'pydantic' in sys.modules, lib.banks[0].decoded, sep='|')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip().split("|")
    from collections import Counter

    topics = dict(Counter(q.topic for q in full.questions))
    assert out == [str(len(full.questions)), str(topics), full.title, str(full.pass_mark),
                   str(len(full.questions)), "False", "False"]


def test_a_cached_library_reads_like_the_one_loaded_in_full(bank: Path, tmp_path: Path) -> None:
    from quiz.study.recorder import QuestionIndex

    folder = tmp_path / "cache"
    full = load_library([bank], cache_dir=folder).library
    cached = load_library([bank], cache_dir=folder).library
    assert full is not None and cached is not None
    (stored,), (loaded,) = cached.banks, full.banks
    assert stored.header == loaded.header and stored.header.title == loaded.info.title
    assert stored.question_ids == tuple(q.id for q in full.questions)
    assert stored.question_topics == tuple(q.topic for q in full.questions)
    assert cached.topic_counts() == full.topic_counts()
    assert (cached.title, cached.pass_mark, cached.time_limit, cached.topics) == (
        full.title, full.pass_mark, full.time_limit, full.topics)
    assert QuestionIndex.of(cached) == QuestionIndex.of(full)
    assert not stored.decoded  # none of the above decoded the questions
    last = full.questions[-1]
    assert cached.question(last.id) == last and stored.decoded
    assert stored.info == loaded.info and cached.questions == full.questions


def test_load_for_study_leaves_decoding_to_the_caller_that_asks(
        bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("QUIZ_CACHE_DIR", str(tmp_path / "env-cache"))
    try:
        assert load_for_study([bank]).library is not None  # loaded in full and stored
        later: list[Callable[[], None]] = []
        report = load_for_study([bank], cache_writes=later)
        assert report.library is not None and not report.library.banks[0].decoded
        assert len(later) == 1  # decoding (nothing to write: the entry is there)
        frozen = gc.get_freeze_count()
        later[0]()
        assert report.library.banks[0].decoded
        assert gc.get_freeze_count() > frozen  # the decoded models are out of the way too
        report = load_for_study([bank])  # no caller to leave it to: decoded at once
        assert report.library is not None and report.library.banks[0].decoded
    finally:
        gc.unfreeze()


def test_two_threads_reading_a_stored_bank_decode_it_once(
        bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    folder = tmp_path / "cache"
    load_library([bank], cache_dir=folder)
    library = load_library([bank], cache_dir=folder).library
    assert library is not None
    decodes: list[int] = []
    real = cache_module.Stored.decode

    def slow(self: cache_module.Stored) -> Any:
        decodes.append(1)
        value = real(self)
        threading.Event().wait(0.05)  # the other thread asks meanwhile
        return value

    monkeypatch.setattr(cache_module.Stored, "decode", slow)
    seen: list[Any] = []
    threads = [threading.Thread(target=lambda: seen.append(library.banks[0].questions))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert decodes == [1] and len(seen) == 2 and seen[0] is seen[1]


@pytest.mark.parametrize("size", [0, 1, 2, 3, 1000, (1 << 20) + 7])
def test_a_file_is_hashed_as_its_bytes_are(tmp_path: Path, size: int) -> None:
    """The file hash (two halves, by two threads for a large file) is the content hash of its
    bytes; a file that has grown or shrunk since its stat does not give it."""
    data = bytes((i * 7 + 3) % 251 for i in range(size))
    path = tmp_path / "bank.yaml"
    path.write_bytes(data)
    with open(path, "rb") as file:
        assert cache_module.hash_file(file, size) == cache_module.content_hash(data)
    if size:
        changed = bytearray(data)
        changed[-1] ^= 1
        assert cache_module.content_hash(bytes(changed)) != cache_module.content_hash(data)
    path.write_bytes(data + b"x")
    with open(path, "rb") as file:
        assert cache_module.hash_file(file, size) != cache_module.content_hash(data)
    if size:
        path.write_bytes(data[:-1])
        with open(path, "rb") as file:
            assert cache_module.hash_file(file, size) != cache_module.content_hash(data)


@pytest.fixture
def hashes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the bank files hashed by the cache's lookups, in order."""
    hashed: list[int] = []
    real = cache_module.hash_file

    def counting(file: Any, size: int) -> str:
        hashed.append(size)
        return real(file, size)

    monkeypatch.setattr(cache_module, "hash_file", counting)
    return hashed


def _settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if every load ran 10 s after the bank files were last written."""
    import time

    real = time.time_ns
    monkeypatch.setattr(time, "time_ns", lambda: real() + 10 * 10**9)


def test_a_file_settled_before_its_entry_was_made_is_served_without_hashing(
        bank: Path, tmp_path: Path, full_loads: list[str], hashes: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    _settled(monkeypatch)
    folder = tmp_path / "cache"
    first = load_library([bank], cache_dir=folder)
    again = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank)] and hashes == []  # its stat vouches for it
    assert again.library is not None and first.library is not None
    assert again.library.questions == first.library.questions
    # A change keeps neither the change time nor (here) the inode's stat: a full load.
    info = os.stat(bank)
    text = bank.read_text(encoding="utf-8")
    bank.write_text(text.replace("You are sizing", "You are SIZING", 1), encoding="utf-8")
    os.utime(bank, ns=(info.st_atime_ns, info.st_mtime_ns))  # the same size and mtime
    assert os.stat(bank).st_ctime_ns != info.st_ctime_ns
    report = load_library([bank], cache_dir=folder)
    assert full_loads == [str(bank)] * 2 and report.library is not None
    assert any("You are SIZING" in q.stem for q in report.library.questions)


def test_a_file_changed_just_before_its_entry_was_made_is_hashed_at_every_start(
        bank: Path, tmp_path: Path, full_loads: list[str], hashes: list[int]) -> None:
    folder = tmp_path / "cache"
    for _ in range(3):  # the bank was written just now: its stat cannot vouch for it
        assert load_library([bank], cache_dir=folder).library is not None
    assert full_loads == [str(bank)] and hashes == [os.stat(bank).st_size] * 2


def test_a_modification_time_after_the_change_time_means_hashing(
        bank: Path, tmp_path: Path, full_loads: list[str], hashes: list[int],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A file system whose st_ctime is a creation time, or a modification time set ahead,
    leaves the stat unable to vouch for the content."""
    _settled(monkeypatch)
    info = os.stat(bank)
    os.utime(bank, ns=(info.st_atime_ns, info.st_ctime_ns + 5 * 10**9))
    folder = tmp_path / "cache"
    for _ in range(2):
        assert load_library([bank], cache_dir=folder).library is not None
    assert full_loads == [str(bank)] and hashes == [os.stat(bank).st_size]


def test_the_loader_fingerprint_stamps_every_source_below_bank_and_footprint(
        tmp_path: Path) -> None:
    folder = tmp_path / "bank"
    (folder / "rules" / "__pycache__").mkdir(parents=True)
    (folder / "model.py").write_text("x = 1\n", encoding="utf-8")
    (folder / "rules" / "units.yaml").write_text("a: 1\n", encoding="utf-8")
    (folder / "rules" / "schema.json").write_text("{}\n", encoding="utf-8")
    (folder / "rules" / "__pycache__" / "units.py").write_text("", encoding="utf-8")
    (folder / "model.cpython-311.pyc").write_bytes(b"\0")
    (folder / "notes.txt").write_text("not a source\n", encoding="utf-8")
    stamps: list[Any] = []
    cache_module._source_stamps(str(folder), "bank", stamps)
    assert [name for name, _, _ in stamps] == [
        "bank/model.py", "bank/rules/schema.json", "bank/rules/units.yaml"]
    info = (folder / "model.py").stat()
    assert stamps[0][1:] == (info.st_size, info.st_mtime_ns)
    (folder / "model.py").write_text("x = 10\n", encoding="utf-8")
    again: list[Any] = []
    cache_module._source_stamps(str(folder), "bank", again)
    assert again != stamps  # a changed rule is another loader
    real: list[Any] = []
    cache_module._source_stamps(os.path.dirname(cache_module.__file__), "bank", real)
    assert ("bank/cache.py" in {name for name, _, _ in real}
            and not any("__pycache__" in name for name, _, _ in real))


def test_package_folders_are_the_import_systems_without_importing_it() -> None:
    """The path finder's answer (no importlib.util before the first frame) is the import
    system's; a package that is not installed has none."""
    import importlib.util

    from quiz.bank.cache import package_folders

    for name in ("yaml", "pydantic", "pydantic_core"):
        spec = importlib.util.find_spec(name)
        assert spec is not None and spec.submodule_search_locations
        assert package_folders(name) == list(spec.submodule_search_locations) != []
    assert package_folders("no_such_package_quiz_test") == []
