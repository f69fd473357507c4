"""``quiz serve`` in a real headless browser: Debian's chromium, driven by Playwright through its
``executable_path`` (no browser is downloaded). The page is served on 127.0.0.1; the test starts a
session and answers one question with the keyboard, and the answer reaches the progress file.

Without /usr/bin/chromium the test is skipped on a developer's machine and fails under CI
(``.ci/run`` installs chromium when it is missing)."""

from __future__ import annotations

import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from quiz.cli.serve import app_command, is_loopback
from tests.conftest import SEED_BANK

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]
"""Headless chromium as root on a machine with no network beyond localhost."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _until(what: str, check: Callable[[], bool], seconds: float = 30.0,
           poke: Callable[[], object] | None = None) -> None:
    """Poll ``check`` (calling ``poke`` between tries) until it holds; fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        if poke is not None:
            poke()
        time.sleep(0.2)


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as con:
            return con.execute(sql).fetchall()
    except sqlite3.Error:  # created but not migrated yet
        return []


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``quiz serve`` on a free port of 127.0.0.1 with the seed bank; yields its URL and the
    progress file it writes."""
    port = _free_port()
    data = tmp_path / "data"
    env = dict(os.environ, QUIZ_DATA_DIR=str(data))
    server = subprocess.Popen(
        [sys.executable, "-m", "quiz", "serve", str(SEED_BANK), "--port", str(port),
         "--data-dir", str(data)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"

    def up() -> bool:
        try:
            with urllib.request.urlopen(url, timeout=2) as page:
                return bool(page.status == 200)
        except OSError:
            assert server.poll() is None, server.stdout.read() if server.stdout else ""
            return False

    try:
        _until("quiz serve to answer", up)
        yield url, data / "progress.db"
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def test_a_student_answers_a_question_in_a_browser(served: tuple[str, Path]) -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs it (apt-get install chromium)")
        pytest.skip("no chromium here (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    url, db = served
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 700})
            page.goto(url)
            page.wait_for_selector("#terminal.-connected", timeout=30_000)
            page.locator(".xterm-helper-textarea").focus()
            # Ctrl+S starts once the banks have loaded: press it until a session exists.
            _until("a session to start", lambda: bool(_rows(db, "SELECT id FROM sessions")),
                   poke=lambda: page.keyboard.press("Control+s"))
            page.keyboard.press("a")
            _until("the answer to be saved",
                   lambda: bool(_rows(db, "SELECT question_id FROM answers")))
        finally:
            browser.close()
    answers = _rows(db, "SELECT question_id, chosen FROM answers")
    # The options are shuffled: the letter A is one of the bank's option keys.
    assert len(answers) == 1 and answers[0][1] in ('["A"]', '["B"]', '["C"]', '["D"]')


def test_the_command_each_tab_runs_and_which_hosts_are_this_machine(tmp_path: Path) -> None:
    command = app_command([str(tmp_path / "my bank.yaml")], tmp_path / "d")
    assert command == (f"{sys.executable} -m quiz '{tmp_path / 'my bank.yaml'}' "
                       f"--data-dir {tmp_path / 'd'}")
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.0.2.1")


def test_another_address_is_warned_about_and_bad_input_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import textual_serve.server

    from quiz.cli import main

    started: list[tuple[str, str, int]] = []

    class FakeServer:
        def __init__(self, command: str, host: str, port: int, **_: object) -> None:
            started.append((command, host, port))

        def serve(self) -> None:
            return None

    monkeypatch.setattr(textual_serve.server, "Server", FakeServer)
    assert main(["serve", str(SEED_BANK), "--host", "0.0.0.0", "--port", "8123"]) == 0
    err = capsys.readouterr().err
    assert "warning: listening on 0.0.0.0, not only this machine: the app has no login" in err
    assert started and started[0][1:] == ("0.0.0.0", 8123)
    assert main(["serve", str(SEED_BANK), "--port", "8124"]) == 0
    assert "warning" not in capsys.readouterr().err
    bad = tmp_path / "bad.yaml"
    bad.write_text("bank: {id: x, title: X\n", "utf-8")
    assert main(["serve", str(bad)]) == 1 and "bad.yaml:" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be from 1 to 65535" in capsys.readouterr().err
    assert len(started) == 2


def test_a_port_already_in_use_is_refused_before_any_banner(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import textual_serve.server

    from quiz.cli import main

    def no_server(*_: object, **__: object) -> None:
        raise AssertionError("the server must not be made when the port is taken")

    monkeypatch.setattr(textual_serve.server, "Server", no_server)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = int(taken.getsockname()[1])
        assert main(["serve", str(SEED_BANK), "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert err == (f"quiz serve: cannot listen on 127.0.0.1:{port}: the port is already in use "
                   "(another program is listening there): stop it, or choose another port with "
                   "--port N\n")
    assert "open http" not in err
    assert main(["serve", str(SEED_BANK), "--host", "no-such-host.invalid"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("quiz serve: cannot listen on no-such-host.invalid:8000: ")
