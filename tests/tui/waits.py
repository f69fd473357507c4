"""Waiting in pilot tests on a condition, never for a fixed time (the team's rule: no sleep-based
assertions). A wait returns as soon as its condition holds; its timeout is generous, so a busy
machine makes a test slower, never red."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

UNTIL_TIMEOUT_S = 15.0
"""How long :func:`until` waits before it fails (seconds): far beyond what any condition here
takes on a loaded 2-core machine; only a real defect reaches it."""


async def until(pilot: Any, condition: Callable[[], object], what: str = "",
                *, timeout: float = UNTIL_TIMEOUT_S) -> None:
    """Let the app run (``pilot.pause()``: its pending messages, then a moment of idle) until
    ``condition()`` is true; return at once when it is. Raises ``AssertionError`` naming
    ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what or 'a condition'}, in vain")
        await pilot.pause()
