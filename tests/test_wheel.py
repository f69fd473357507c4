"""The wheel ships the bundled banks validated (hatch_build.py): built here with hatchling
(in this process, no network: the hook's loader runs in a subprocess of this Python), it holds
one prebuilt entry per bundled bank, made by this code, and an installed copy of it serves its
first start from them."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from quiz.bank import shipped
from tests.conftest import BUNDLED_BANK

ROOT = Path(__file__).resolve().parents[1]


def test_the_build_hook_needs_what_the_runtime_pins() -> None:
    """The wheel's build hook loads the banks with pydantic and PyYAML, and starts the app
    with Textual for its parsed CSS: the same ranges as the package's dependencies."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    hook = project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]
    runtime = {d.split(">")[0].split("<")[0].lower(): d for d in
               project["project"]["dependencies"]}
    assert hook["dependencies"] == [runtime["pydantic"], runtime["pyyaml"], runtime["textual"]]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel of these sources, built once (the hook's subprocesses start the app)."""
    pytest.importorskip("hatchling", reason="hatchling is in the [test] extra")
    from hatchling.builders.wheel import WheelBuilder

    dist = tmp_path_factory.mktemp("dist")
    return Path(next(WheelBuilder(str(ROOT)).build(directory=str(dist),
                                                    versions=["standard"])))


def test_the_wheel_ships_the_bundled_banks_validated(wheel: Path, tmp_path: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        shipped_names = sorted(n.split("/")[-1] for n in names
                               if n.startswith("quiz/_bundled_cache/")
                               and n.endswith(shipped.SUFFIX))
        banks = sorted(BUNDLED_BANK.glob("*.yaml"))
        assert shipped_names == sorted(
            shipped.entry_name(p.stat().st_size, shipped.file_digest(p.read_bytes()))
            for p in banks)
        for name in shipped_names:
            head = archive.read("quiz/_bundled_cache/" + name).split(b"\n", 2)
            assert head[0] + b"\n" == shipped.MAGIC
            size, digest = name.removesuffix(shipped.SUFFIX).split("-")
            assert head[1] == shipped.entry_key(int(size), digest)  # this code's fingerprint
        assert not any(n.startswith(("build/", "quiz/build/")) for n in names)
        site = tmp_path / "site"
        archive.extractall(site)
    code = ("import sys; from quiz.bank.load import load_for_study; "
            "from quiz.paths import bundled_bank_dir, prebuilt_dir; "
            "r = load_for_study([bundled_bank_dir()], decode=False); "
            "print(prebuilt_dir(), sum(not b.decoded for b in r.library.banks), "
            "len(r.library.banks), 'pydantic' in sys.modules, len(r.notes))")
    env = {k: v for k, v in os.environ.items() if k != "QUIZ_PREBUILT_DIR"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={**env, "PYTHONPATH": str(site)}, timeout=120)
    assert out.returncode == 0, out.stderr
    folder, served, count, pydantic, notes = out.stdout.split()
    assert folder == str(site / "quiz" / "_bundled_cache")
    assert (served, count, pydantic, notes) == (str(len(banks)), str(len(banks)), "False", "0")


@pytest.mark.tui
def test_the_wheel_ships_the_start_screens_parsed_css(wheel: Path, tmp_path: Path) -> None:
    """Textual's parsed CSS, made from the sources being built, serves the installed copy:
    each source under the installed file's path, as Textual names it when it reads it."""
    from quiz.tui.css_prebuilt import FILE

    with zipfile.ZipFile(wheel) as archive:
        assert f"quiz/_bundled_cache/{FILE}" in archive.namelist()
        site = tmp_path / "site"
        archive.extractall(site)
    env = {k: v for k, v in os.environ.items() if k != "QUIZ_PREBUILT_DIR"}
    code = ("from quiz.tui.app import make_app; from quiz.tui.css_prebuilt import reuse_prebuilt; "
            "from quiz.tui.textual_internals import parsed_css; "
            "app = make_app(None, paths=['banks']); n = reuse_prebuilt(app.stylesheet); "
            "print(n, *sorted({k[1][0] for k, _ in parsed_css(app.stylesheet)}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=tmp_path, env={**env, "PYTHONPATH": str(site)}, timeout=120)
    assert out.returncode == 0, out.stderr
    reused, *paths = out.stdout.split()
    assert int(reused) > 10
    assert str(site / "quiz" / "tui" / "app.tcss") in paths
    assert str(site / "quiz" / "tui" / "widgets" / "key_bar.py") in paths
