"""A start served whole by the validated-bank cache (:func:`library_from_cache`): the library the
full load gives, warnings included, without reading a bank file; ``None``, having parsed
nothing, whenever any file is not served or the library has an error across files."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from quiz.bank.cached_start import library_from_cache
from quiz.bank.load import load_library
from tests.conftest import SEED_BANK

SEED_FILE = next(SEED_BANK.glob("*.yaml"))


@pytest.fixture
def banks(tmp_path: Path) -> Path:
    """A folder of two banks (the seed bank, and a copy with other ids; the first says
    "option D" in an explanation: one warning)."""
    folder = tmp_path / "banks"
    folder.mkdir()
    text = SEED_FILE.read_text(encoding="utf-8")
    (folder / "a.yaml").write_text(text.replace(
        "Training is the heavy lift;", "Training is the heavy lift, as option D says;", 1),
        encoding="utf-8")
    (folder / "b.yaml").write_text(_other_ids(text), encoding="utf-8")
    return folder


def _other_ids(text: str) -> str:
    """The seed bank with another bank id and question ids."""
    lines = []
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("- id:", "id:")):
            key, _, value = line.partition(":")
            line = f"{key}: b-{value.strip()}"
        lines.append(line)
    return "\n".join(lines)


def test_a_cached_library_is_the_full_load_names_with_its_warnings(
        banks: Path, tmp_path: Path, full_load_names: list[str]) -> None:
    cache = tmp_path / "cache"
    full = load_library([banks], cache_dir=cache)
    assert full.library is not None and full_load_names == ["a.yaml", "b.yaml"]
    served = library_from_cache([banks], cache_dir=cache)
    assert served is not None and served.library is not None
    assert full_load_names == ["a.yaml", "b.yaml"]  # nothing parsed again
    assert not any(b.decoded for b in served.library.banks)  # decoded when first read
    assert [str(d) for d in served.diagnostics] == [str(d) for d in full.diagnostics]
    assert len(served.warnings) == 1 and "'option D' names options by letter" in str(
        served.warnings[0])
    assert served.library.title == full.library.title
    assert served.library.topics == full.library.topics
    assert served.library.topic_counts() == full.library.topic_counts()
    assert served.library.questions == full.library.questions
    assert served.notes == []


def test_a_file_given_twice_is_served_once(banks: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_library([banks], cache_dir=cache)
    served = library_from_cache([banks, banks / "a.yaml"], cache_dir=cache)
    assert served is not None and served.library is not None
    assert [b.path.name for b in served.library.banks] == ["a.yaml", "b.yaml"]


def test_nothing_cached_gives_none_and_reads_no_bank(banks: Path, tmp_path: Path,
                                                    full_load_names: list[str]) -> None:
    assert library_from_cache([banks], cache_dir=tmp_path / "cache") is None
    assert full_load_names == []


def test_one_changed_file_gives_none(banks: Path, tmp_path: Path,
                                     full_load_names: list[str]) -> None:
    cache = tmp_path / "cache"
    load_library([banks], cache_dir=cache)
    text = (banks / "b.yaml").read_text(encoding="utf-8")
    (banks / "b.yaml").write_text(text + "\n", encoding="utf-8")
    assert library_from_cache([banks], cache_dir=cache) is None
    assert full_load_names == ["a.yaml", "b.yaml"]  # the caller loads; nothing parsed here


def test_a_new_file_gives_none(banks: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_library([banks], cache_dir=cache)
    shutil.copy(banks / "a.yaml", tmp_path / "c.yaml")
    assert library_from_cache([banks, tmp_path / "c.yaml"], cache_dir=cache) is None


def test_a_repeated_id_across_cached_files_gives_none(banks: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    shutil.copy(banks / "a.yaml", banks / "b.yaml")  # each file valid, the library not
    full = load_library([banks], cache_dir=cache)
    assert full.library is None and len(list(cache.glob("*.bank"))) == 2
    assert library_from_cache([banks], cache_dir=cache) is None


def test_a_library_over_the_limit_gives_none(banks: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_library([banks], cache_dir=cache)
    size = sum(os.stat(p).st_size for p in banks.glob("*.yaml"))
    assert library_from_cache([banks], cache_dir=cache, max_bytes=size) is not None
    assert library_from_cache([banks], cache_dir=cache, max_bytes=size - 1) is None


@pytest.mark.parametrize("given", ["", "missing", "empty-folder"])
def test_paths_that_name_no_bank_give_none(tmp_path: Path, given: str) -> None:
    (tmp_path / "empty-folder").mkdir()
    path = given if not given else str(tmp_path / given)
    assert library_from_cache([path], cache_dir=tmp_path / "cache") is None
    assert library_from_cache([], cache_dir=tmp_path / "cache") is None


def test_the_bundled_banks_prebuilt_entries_serve_a_first_start(
        banks: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        full_load_names: list[str]) -> None:
    from quiz.bank.prebuild import prebuild

    prebuilt = tmp_path / "prebuilt"
    assert prebuild(banks, prebuilt)[0] == 2
    full_load_names.clear()
    cache = tmp_path / "cache"
    assert library_from_cache([banks], cache_dir=cache) is None  # none looked for
    monkeypatch.setenv("QUIZ_PREBUILT_DIR", str(prebuilt))
    served = library_from_cache([banks], cache_dir=cache)
    assert served is not None and served.library is not None and full_load_names == []
    assert len(served.warnings) == 1 and served.notes == []
    assert list(cache.glob("*.bank")) == []  # nothing written
