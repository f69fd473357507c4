"""``quiz serve``: the same app in a web browser, through textual-serve (the Textual project's own
server), for people who will not open a terminal.

Each browser tab runs ``python -m quiz [PATH...]`` in a process of its own, on the server's
machine and with its progress file; the page talks to it over a WebSocket. The server listens on
127.0.0.1 by default. The app has no login: binding another address prints a warning first.
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import shlex
import socket
import sys
from collections.abc import Sequence
from pathlib import Path

from quiz.cli.status import EXIT_ERRORS, EXIT_OK

DEFAULT_PORT = 8000
"""The port ``quiz serve`` listens on without ``--port``."""
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"
"""The driver textual-serve names in ``TEXTUAL_DRIVER`` for the app processes it starts."""


def is_loopback(host: str) -> bool:
    """True when ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def listen_problem(host: str, port: int) -> str | None:
    """Why ``host``:``port`` cannot be listened on, in words for the user (the port is in use,
    a port below 1024 without the rights, a name that does not resolve), or None when every
    address ``host`` names can be bound now. Binds as aiohttp will (SO_REUSEADDR on POSIX,
    every address the name resolves to) and closes the sockets at once; the server binds again
    right after, so a program taking the port in between is still reported by the server's own
    error."""
    try:
        addresses = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                       flags=socket.AI_PASSIVE)
    except OSError as exc:
        return str(exc.strerror or exc)
    for family, kind, proto, _, address in addresses:
        try:
            with socket.socket(family, kind, proto) as probe:
                if family == socket.AF_INET6:
                    probe.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
                if sys.platform != "win32":
                    probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                probe.bind(address)
                probe.listen()
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                return ("the port is already in use (another program is listening there): "
                        "stop it, or choose another port with --port N")
            if exc.errno == errno.EACCES:
                return (f"{exc.strerror}: ports below 1024 need administrator rights; choose "
                        "another with --port N")
            return str(exc.strerror or exc)
    return None


def app_command(paths: Sequence[str], data_dir: Path | None) -> str:
    """The shell command each browser session runs: this Python, ``-m quiz``, the banks and the
    data folder, each quoted."""
    words = [sys.executable, "-m", "quiz", *paths]
    if data_dir is not None:
        words += ["--data-dir", str(data_dir)]
    return shlex.join(words)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quiz serve",
        description="Serve the app in a web browser (textual-serve): open the printed address. "
        "Every browser tab is a session of its own, saved in this machine's progress file. "
        "There is no login: keep the default 127.0.0.1 unless everyone who can reach the "
        "address may use it.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="bank files or folders (default: the bundled bank)")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on (default {DEFAULT_PORT})")
    parser.add_argument("--data-dir", metavar="DIR", type=Path,
                        help="folder of the progress database (default: $QUIZ_DATA_DIR, or the "
                        "user data folder)")
    return parser


def run_serve(argv: Sequence[str]) -> int:
    """``quiz serve [PATH...] [--host H] [--port N]``: check the banks, then serve until Ctrl+C.
    Returns 0 after Ctrl+C, 1 when the banks have errors or the port cannot be bound, 2 for
    usage errors."""
    parser = _parser()
    ns = parser.parse_args(list(argv))
    if not 0 < ns.port < 65536:
        parser.error("--port must be from 1 to 65535")
    host = f"[{ns.host}]" if ":" in ns.host else ns.host
    problem = listen_problem(ns.host, ns.port)
    if problem is not None:
        print(f"quiz serve: cannot listen on {host}:{ns.port}: {problem}", file=sys.stderr)
        return EXIT_ERRORS
    from quiz.cli.study import load
    from quiz.paths import bundled_bank_dir

    paths = [str(Path(p).resolve()) for p in ns.paths]
    if load(paths or [str(bundled_bank_dir())]) is None:
        return EXIT_ERRORS
    if not is_loopback(ns.host):
        print(f"quiz serve: warning: listening on {ns.host}, not only this machine: the app has "
              "no login, so anyone who can reach this address can use it and its progress "
              "file", file=sys.stderr)
    from textual_serve.server import Server

    server = Server(app_command(paths, ns.data_dir), host=ns.host, port=ns.port,
                    title="quiz", public_url=f"http://{host}:{ns.port}")
    print(f"quiz serve: open http://{host}:{ns.port} in a browser (Ctrl+C stops)",
          file=sys.stderr)
    try:
        server.serve()
    except OSError as exc:
        print(f"quiz serve: cannot listen on {host}:{ns.port}: {exc.strerror or exc}",
              file=sys.stderr)
        return EXIT_ERRORS
    return EXIT_OK
