"""The wheel's build hook: ship the bundled banks already validated.

Building a wheel (``pip install .``, ``python -m build``) runs
``python -m quiz.bank.prebuild --out FOLDER`` on the sources being built, in a subprocess (it
imports quiz from them, with the hook's dependencies: pydantic and PyYAML), and adds FOLDER to
the wheel as ``quiz/_bundled_cache``: one validated-bank cache entry per bundled bank file,
keyed by the file's bytes and the loader code's content (see ``quiz/bank/shipped.py``). A
user's very first start is then served from them. A bundled bank with an error fails the
build. Editable installs skip it (``python -m quiz.bank.prebuild`` makes a checkout's entries).

It then runs ``python -m quiz.tui.css_prebuild --out FOLDER`` the same way (with Textual, also
a hook dependency): Textual's parsed CSS of the start screen, for the first start
(``quiz/tui/css_prebuild.py``). That one only saves time: when it fails, the build says so and
goes on without it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SHIPPED_AS = "quiz/_bundled_cache"
"""Where the entries go in the wheel (quiz.paths.prebuilt_dir looks there)."""

RUN = ("import sys; sys.path.insert(0, sys.argv[1]); "
       "from quiz.bank.prebuild import main; sys.exit(main(sys.argv[2:]))")
RUN_CSS = ("import sys; sys.path.insert(0, sys.argv[1]); "
           "from quiz.tui.css_prebuild import main; sys.exit(main(sys.argv[2:]))")


class PrebuiltBanks(BuildHookInterface):
    """Adds the bundled banks' prebuilt entries to a standard wheel."""

    _folder: str | None = None

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        self._folder = tempfile.mkdtemp(prefix="quiz-prebuilt-")
        out = Path(self._folder, "entries")
        scratch = Path(self._folder, "home")
        root = Path(self.root)
        env = {k: v for k, v in os.environ.items() if not k.startswith("QUIZ_")}
        # The loader needs no user folders; keep anything it might touch out of the home.
        # A fixed hash seed: the pickled sets come out in one order, so that two builds of the
        # same sources give the same entries (a reproducible wheel).
        env.update(QUIZ_DATA_DIR=str(scratch / "data"), QUIZ_CACHE_DIR=str(scratch / "cache"),
                   PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0")
        done = subprocess.run(
            [sys.executable, "-c", RUN, str(root), "--out", str(out),
             str(root / "question_bank")],
            env=env, cwd=root, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError("quiz: prebuilding the bundled banks failed "
                               f"(exit {done.returncode}):\n{done.stdout}{done.stderr}")
        self.app.display_info(done.stdout.strip())
        css = subprocess.run([sys.executable, "-c", RUN_CSS, str(root), "--out", str(out)],
                             env=env, cwd=root, capture_output=True, text=True)
        if css.returncode == 0:
            self.app.display_info(css.stdout.strip())
        else:
            self.app.display_warning("quiz: Textual's parsed CSS not shipped (a first start "
                                     f"parses it):\n{css.stdout}{css.stderr}")
        build_data["force_include"][str(out)] = SHIPPED_AS

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None
