"""Messages that cross screens."""

from __future__ import annotations

from textual.message import Message

from quiz.study.session import SessionConfig


class StartSession(Message):
    """Start a session with this configuration (handled by the app): ``mode`` is practice,
    exam, review or cram; ``minutes`` sets an exam's clock (``None``: the bank's time limit or
    1.2 minutes per question)."""

    def __init__(self, config: SessionConfig, mode: str = "practice",
                 minutes: float | None = None) -> None:
        self.config = config
        self.mode = mode
        self.minutes = minutes
        super().__init__()


class RetryQuestions(Message):
    """Start a new session with just these question ids (e.g. the ones missed)."""

    def __init__(self, question_ids: tuple[str, ...]) -> None:
        self.question_ids = question_ids
        super().__init__()


class OpenQuestion(Message):
    """Show the current session's question at this 0-based ``position`` (from the summary)."""

    def __init__(self, position: int) -> None:
        self.position = position
        super().__init__()
