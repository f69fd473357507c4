"""Messages that cross screens."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from quiz.bank.library import LoadReport
    from quiz.bank.load_progress import LoadProgress
    from quiz.study.mode import Mode
    from quiz.study.recorder import QuestionIndex
    from quiz.study.session import SessionConfig


class StartSession(Message):
    """Start a session with this configuration (handled by the app): ``mode`` is practice,
    exam, review or cram; ``minutes`` sets an exam's clock (``None``: the bank's time limit or
    1.2 minutes per question); ``strict``: an exam without pause, on the wall clock."""

    def __init__(self, config: SessionConfig, mode: Mode | str = "practice",
                 minutes: float | None = None, *, strict: bool = False) -> None:
        from quiz.study.mode import Mode  # not imported with the app: before its first paint

        self.config = config
        self.mode = Mode(mode)
        self.minutes = minutes
        self.strict = strict
        super().__init__()


class RetryQuestions(Message):
    """Start a new session with just these question ids (e.g. the ones missed), as ``mode``
    (``None``: practice after an exam or a review, else the mode of the session retried)."""

    def __init__(self, question_ids: tuple[str, ...], mode: Mode | None = None) -> None:
        self.question_ids = question_ids
        self.mode = mode
        super().__init__()


class OpenQuestion(Message):
    """Show the current session's question at this 0-based ``position`` (from the summary)."""

    def __init__(self, position: int) -> None:
        self.position = position
        super().__init__()


class BanksLoading(Message):
    """How far the banks being loaded in a worker have got (posted from the worker's thread)."""

    def __init__(self, progress: LoadProgress) -> None:
        self.progress = progress
        super().__init__()


class BanksLoaded(Message):
    """The worker has loaded the banks: the ``report`` (its ``library`` is ``None`` when a bank
    has errors), the ``index`` of the library's questions (``None`` likewise), and whether it
    was a ``reload`` (``r`` on the start screen) rather than the load at start-up. ``shown``
    is set once the result is on screen: the worker then does what could wait (writing cache
    entries, decoding cached questions) without slowing that frame."""

    def __init__(self, report: LoadReport, index: QuestionIndex | None, reload: bool,
                 shown: threading.Event | None = None) -> None:
        self.report = report
        self.index = index
        self.reload = reload
        self.shown = shown if shown is not None else threading.Event()
        super().__init__()


class SavingChanged(Message):
    """The progress store stopped saving (``problem``: why, in words) or saves again
    (``None``): posted from the store's writer thread (:meth:`quiz.study.store.Store.listen`)."""

    def __init__(self, problem: str | None) -> None:
        self.problem = problem
        super().__init__()
