"""The bundled banks' prebuilt entries (quiz/bank/shipped.py, quiz/bank/prebuild.py): used when
the bank's bytes and the loader's code match, ignored otherwise (a full load, the same
result), never trusted when damaged, edited or writable by others than quiz's code."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from quiz.bank import load as load_module
from quiz.bank import shipped
from quiz.bank.cache_entry import KEY_FILE
from quiz.bank.load import load_for_study, load_library
from quiz.bank.prebuild import PrebuildError, main, prebuild
from tests.conftest import BUNDLED_BANK, SEED_BANK

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def banks(tmp_path: Path) -> Path:
    """A folder of two bank files (the seed bank, and a copy with other ids)."""
    folder = tmp_path / "banks"
    folder.mkdir()
    seed = next(SEED_BANK.glob("*.yaml"))
    shutil.copy(seed, folder / "a.yaml")
    text = seed.read_text(encoding="utf-8")
    (folder / "b.yaml").write_text(
        text.replace("id: ", "id: b-"), encoding="utf-8")
    assert load_library([folder]).library is not None
    return folder


@pytest.fixture
def prebuilt(banks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The banks' prebuilt entries, in a folder the app is pointed at."""
    folder = tmp_path / "prebuilt"
    assert prebuild(banks, folder) == (2, 4)
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", str(folder))
    return folder


def load(folder: Path, cache: Path) -> load_module.LoadReport:
    report = load_library([folder], cache_dir=cache)
    assert report.library is not None, [str(d) for d in report.diagnostics]
    return report


def same(report: load_module.LoadReport, folder: Path) -> None:
    """``report`` is what a load without any cache gives."""
    cold = load_library([folder])
    assert cold.library is not None and report.library is not None
    assert report.library.questions == cold.library.questions
    assert report.library.topics == cold.library.topics
    assert [b.header for b in report.library.banks] == [b.header for b in cold.library.banks]
    assert [str(d) for d in report.diagnostics] == [str(d) for d in cold.diagnostics]


def test_matching_entries_serve_the_first_start_and_write_nothing(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    cache = tmp_path / "cache"
    report = load(banks, cache)
    assert full_load_names == [] and report.notes == []
    assert [b.decoded for b in report.library.banks] == [False, False]  # type: ignore[union-attr]
    assert list(cache.glob("*.bank")) == []  # the user's cache is not written
    key = Path(os.environ["QUIZ_DATA_DIR"]) / KEY_FILE
    assert not key.exists()  # not even its key made (a file's fsync: 7-30 ms)
    same(report, banks)
    assert sorted(p.name for p in prebuilt.iterdir()) == sorted(
        shipped.entry_name(p.stat().st_size, _hash(p)) for p in banks.glob("*.yaml"))


def test_a_start_they_serve_leaves_them_to_be_adopted_by_the_users_cache(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A start served by prebuilt entries writes nothing before its frame; what it leaves to
    run once the frame is drawn stores them in the user's cache, which then serves the next
    start without them, without hashing a file (its stat vouches for it) and without the
    content fingerprint of the code."""
    from quiz.bank import cache as cache_module
    from quiz.bank.cached_start import library_from_cache

    cache = tmp_path / "cache"
    writes: list[Callable[[], None]] = []
    first = library_from_cache([banks], cache_dir=cache, cache_writes=writes)
    assert first is not None and len(writes) == 1
    assert list(cache.glob("*.bank")) == []  # nothing before the caller runs it
    monkeypatch.setattr(cache_module, "STAT_SETTLED_NS", 0)  # the banks were just written
    writes[0]()
    assert len(list(cache.glob("*.bank"))) == 2
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", "")  # no prebuilt entries any more

    def no_hashing(*args: object) -> str:
        raise AssertionError("a file was hashed")

    monkeypatch.setattr(cache_module, "hash_file", no_hashing)
    monkeypatch.setattr(shipped, "fingerprint", no_hashing)
    again: list[Callable[[], None]] = []
    second = library_from_cache([banks], cache_dir=cache, cache_writes=again)
    assert second is not None and again == []
    assert second.library is not None
    second.library.decode()
    assert full_load_names == []
    same(second, banks)


def test_a_bank_changed_after_the_start_is_not_adopted(
        banks: Path, prebuilt: Path, tmp_path: Path) -> None:
    from quiz.bank.cache import BankCache
    from quiz.bank.cached_start import library_from_cache

    cache = tmp_path / "cache"
    writes: list[Callable[[], None]] = []
    assert library_from_cache([banks], cache_dir=cache, cache_writes=writes) is not None
    path = banks / "b.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# changed\n", encoding="utf-8")
    writes[0]()
    assert len(list(cache.glob("*.bank"))) == 1  # a.yaml's only
    # And an entry is adopted only for the bytes it was made from.
    entries = shipped.ShippedEntries(prebuilt)
    served = BankCache(tmp_path / "other", prebuilt=entries)
    a = banks / "a.yaml"
    with a.open("rb") as file:
        stored, _ = served.get(a.resolve(), a.stat(), file)
    assert stored is not None
    assert entries.made_from(a.read_bytes(), stored)
    assert not entries.made_from(a.read_bytes().replace(b"Training", b"Trainink", 1), stored)


def test_the_full_loader_leaves_them_to_be_adopted_too(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A start that loads one file in full (it changed) and is served prebuilt entries for the
    others stores both in the user's cache once its writes run: the next start loads nothing
    in full and needs no prebuilt entry."""
    path = banks / "b.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    cache = tmp_path / "cache"
    writes: list[Callable[[], None]] = []
    report = load_library([banks], cache_dir=cache, cache_writes=writes)
    assert report.library is not None and full_load_names == ["b.yaml"]
    assert list(cache.glob("*.bank")) == []
    for write in writes:
        write()
    assert len(list(cache.glob("*.bank"))) == 2
    full_load_names.clear()
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", "")  # no prebuilt entries any more
    again = load(banks, tmp_path / "cache")
    assert full_load_names == []
    same(again, banks)


def test_a_refused_entry_of_a_bank_they_serve_is_replaced_once(
        banks: Path, prebuilt: Path, tmp_path: Path) -> None:
    """An entry of the user's cache that is refused (others can write it) for a file the
    prebuilt entries serve: said once, then replaced by the adopted entry, not said again."""
    from quiz.bank.cached_start import library_from_cache

    cache = tmp_path / "cache"
    writes: list[Callable[[], None]] = []
    assert library_from_cache([banks], cache_dir=cache, cache_writes=writes) is not None
    writes[0]()
    entries = sorted(cache.glob("*.bank"))
    assert len(entries) == 2
    entries[0].chmod(0o660)
    assert library_from_cache([banks], cache_dir=cache) is None  # a note: the worker loads
    writes.clear()
    report = load_library([banks], cache_dir=cache, cache_writes=writes)
    assert report.library is not None and len(report.notes) == 1
    assert "can be written by other users" in report.notes[0]
    for write in writes:
        write()
    assert oct(entries[0].stat().st_mode & 0o777) == "0o600"
    served = library_from_cache([banks], cache_dir=cache)
    assert served is not None and served.notes == []


def test_the_study_loader_serves_them_and_a_copy_of_the_same_bytes_too(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(banks, elsewhere)
    report = load_for_study([elsewhere], decode=False)
    assert full_load_names == [] and report.library is not None
    assert not any(b.decoded for b in report.library.banks)
    report.library.decode()  # the payloads unpickled, checked
    same(report, banks)


def test_a_changed_bank_loads_in_full_and_the_others_are_still_served(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    path = banks / "b.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# a comment\n", encoding="utf-8")
    report = load(banks, tmp_path / "cache")
    assert full_load_names == ["b.yaml"]
    same(report, banks)
    assert len(list((tmp_path / "cache").glob("*.bank"))) == 1  # stored in the user's cache
    assert (Path(os.environ["QUIZ_DATA_DIR"]) / KEY_FILE).stat().st_size == 32
    full_load_names.clear()
    report = load(banks, tmp_path / "cache")
    assert full_load_names == []  # b.yaml served from the user's cache now
    same(report, banks)


def test_a_bank_of_the_same_size_but_other_bytes_loads_in_full(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    path = banks / "a.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("Training", "Trainink", 1), encoding="utf-8")
    assert path.stat().st_size == len(text.encode())
    report = load(banks, tmp_path / "cache")
    assert full_load_names == ["a.yaml"]
    same(report, banks)


def test_entries_made_by_other_code_are_ignored(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "fingerprint", lambda: "0" * 32)
    report = load(banks, tmp_path / "cache")
    assert sorted(full_load_names) == ["a.yaml", "b.yaml"]
    same(report, banks)


def test_the_code_fingerprint_follows_the_loaders_bytes_not_its_times(tmp_path: Path) -> None:
    """A copy of the package gives the same fingerprint; one byte more in a module of
    quiz.bank, of quiz.footprint or in quiz/yamlio.py gives another."""
    code = "import quiz.bank.shipped as s; print(s.fingerprint())"

    def fingerprint(root: Path) -> str:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(root)}, cwd=tmp_path,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "quiz", copy / "quiz",
                    ignore=shutil.ignore_patterns("__pycache__", "_bundled_*"))
    original = fingerprint(copy)
    assert original == shipped.fingerprint()
    seen = {original}
    for module in ("bank/model.py", "footprint/__init__.py", "yamlio.py"):
        path = copy / "quiz" / module
        data = path.read_bytes()
        path.write_bytes(data + b"\n")
        seen.add(fingerprint(copy))
        path.write_bytes(data)
        os.utime(path, (0, 0))  # another time, the same bytes
        assert fingerprint(copy) == original
    assert len(seen) == 4


def test_the_user_caches_fingerprint_follows_the_yaml_parser_too(tmp_path: Path) -> None:
    """The user cache's code_fingerprint (sizes and times) changes when quiz/yamlio.py, the
    parser the loader reads its events from, is touched, as it does for quiz.bank's modules."""
    code = "import quiz.bank.cache as c; print(c.code_fingerprint())"
    copy = tmp_path / "copy"
    shutil.copytree(ROOT / "quiz", copy / "quiz",
                    ignore=shutil.ignore_patterns("__pycache__", "_bundled_*"))

    def fingerprint() -> str:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(copy)}, cwd=tmp_path,
                             timeout=60)
        assert out.returncode == 0, out.stderr
        return out.stdout.strip()

    before = fingerprint()
    assert fingerprint() == before
    os.utime(copy / "quiz" / "yamlio.py", ns=(10**18, 10**18))
    assert fingerprint() != before


def _entry(prebuilt: Path, bank: Path) -> Path:
    return prebuilt / shipped.entry_name(bank.stat().st_size, _hash(bank))


def _hash(path: Path) -> str:
    return shipped.file_digest(path.read_bytes())


def test_a_damaged_index_is_never_unpickled(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    """An index section replaced by a pickle that would write a file (its length kept, its
    check not recomputed): never unpickled; the bank loads in full."""
    entry = _entry(prebuilt, banks / "a.yaml")
    data = entry.read_bytes()
    header_end = data.index(b"\n", len(shipped.MAGIC)) + 1
    length = int.from_bytes(data[header_end + 32:header_end + 40], "big")
    marker = tmp_path / "ran"
    evil = pickle.dumps(_Touch(str(marker)))
    assert len(evil) <= length
    evil += b"." * (length - len(evil))  # STOP, then padding: the same length
    start = header_end + 40
    entry.write_bytes(data[:start] + evil + data[start + length:])
    report = load(banks, tmp_path / "cache")
    assert full_load_names == ["a.yaml"] and not marker.exists()
    same(report, banks)


class _Touch:
    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


def test_a_damaged_payload_is_never_served(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    """A byte of the payload changed: the index is served at start, the payload fails its
    check when decoded, and the file is loaded in full instead."""
    entry = _entry(prebuilt, banks / "b.yaml")
    data = bytearray(entry.read_bytes())
    data[-10] ^= 0xFF
    entry.write_bytes(bytes(data))
    report = load(banks, tmp_path / "cache")
    assert full_load_names == []
    assert report.library is not None
    report.library.decode()
    assert full_load_names == ["b.yaml"]
    same(report, banks)
    assert entry.exists()  # a prebuilt entry is never removed (a user cache entry would be)


def test_an_edited_key_line_is_ignored(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    """An entry of a.yaml renamed and re-keyed as b.yaml's (its check not recomputed)."""
    a, b = _entry(prebuilt, banks / "a.yaml"), _entry(prebuilt, banks / "b.yaml")
    b_size = (banks / "b.yaml").stat().st_size
    data = a.read_bytes().replace(
        shipped.entry_key((banks / "a.yaml").stat().st_size, _hash(banks / "a.yaml")),
        shipped.entry_key(b_size, _hash(banks / "b.yaml")))
    b.write_bytes(data)
    report = load(banks, tmp_path / "cache")
    assert full_load_names == ["b.yaml"]
    same(report, banks)


def test_entries_others_than_the_codes_writers_can_write_are_refused(
        banks: Path, prebuilt: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    code = Path(shipped.__file__).stat()
    if code.st_mode & 0o022:
        pytest.skip("quiz's own code is writable by group or others here")
    entry = _entry(prebuilt, banks / "a.yaml")
    entry.chmod(0o666)
    report = load(banks, tmp_path / "cache")
    assert full_load_names == ["a.yaml"]
    assert len(report.notes) == 1 and str(entry) in report.notes[0]
    assert "everyone can write it" in report.notes[0]
    same(report, banks)
    entry.chmod(0o644)
    prebuilt.chmod(0o777)
    full_load_names.clear()
    report = load(banks, tmp_path / "cache2")
    assert sorted(full_load_names) == ["a.yaml", "b.yaml"]
    assert len(report.notes) == 1 and "prebuilt bank entries" in report.notes[0]


def test_a_link_is_not_followed(banks: Path, prebuilt: Path, tmp_path: Path,
                                full_load_names: list[str]) -> None:
    entry = _entry(prebuilt, banks / "a.yaml")
    moved = tmp_path / "moved.bank"
    entry.rename(moved)
    entry.symlink_to(moved)
    load(banks, tmp_path / "cache")
    assert full_load_names == ["a.yaml"]


def test_the_users_cache_comes_first(banks: Path, prebuilt: Path, tmp_path: Path,
                                     full_load_names: list[str],
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a bank's entry is in the user's cache (made when the prebuilt one did not match),
    it serves, whatever the prebuilt folder holds."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", "")
    load(banks, cache)
    assert sorted(full_load_names) == ["a.yaml", "b.yaml"]
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", str(prebuilt))
    for entry in prebuilt.iterdir():
        entry.write_bytes(b"damaged")
    report = load(banks, cache)
    assert len(full_load_names) == 2
    same(report, banks)


def test_prebuild_refuses_banks_with_errors_and_writes_nothing(
        banks: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (banks / "c.yaml").write_text("- just\n- a list\n", encoding="utf-8")
    with pytest.raises(PrebuildError, match="c.yaml:1:1"):
        prebuild(banks, tmp_path / "out")
    assert not (tmp_path / "out").exists()
    assert main([str(banks), "--out", str(tmp_path / "out")]) == 1
    assert "no entry written" in capsys.readouterr().err


def test_prebuild_replaces_stale_entries(banks: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main([str(banks), "--out", str(out)]) == 0
    assert "2 entries (4 questions)" in capsys.readouterr().out
    (banks / "b.yaml").unlink()
    (out / "notes.txt").write_text("kept", encoding="utf-8")
    assert prebuild(banks, out) == (1, 2)
    assert sorted(p.suffix for p in out.iterdir()) == [".bank", ".txt"]


def test_the_bundled_banks_are_served_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            full_load_names: list[str]) -> None:
    """Every bundled bank from its prebuilt entry, the same questions as a full load."""
    prebuild(BUNDLED_BANK, tmp_path / "prebuilt")
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", str(tmp_path / "prebuilt"))
    full_load_names.clear()
    report = load_for_study([BUNDLED_BANK])
    assert full_load_names == [] and report.library is not None
    same(report, BUNDLED_BANK)


def test_prebuild_refuses_a_bank_file_changed_while_it_was_loaded(
        banks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An entry is named by the bytes the loader parsed: a file edited between its parse and
    its entry (the same size here) stops the prebuild, rather than name those questions by the
    new bytes (found by a reviewer)."""
    from quiz.bank import prebuild as prebuild_module

    real_put = prebuild_module._Collector.put

    def edited_then_put(self: prebuild_module._Collector, path: Path, *args: Any,
                        **kwargs: Any) -> None:
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace("Training", "TRAINING", 1), encoding="utf-8")
        real_put(self, path, *args, **kwargs)

    monkeypatch.setattr(prebuild_module._Collector, "put", edited_then_put)
    out = tmp_path / "out"
    with pytest.raises(PrebuildError, match="changed while it was loaded"):
        prebuild(banks, out)
    assert not out.exists() or list(out.glob("*.bank")) == []
