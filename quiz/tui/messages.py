"""Messages that cross screens."""

from __future__ import annotations

from textual.message import Message

from quiz.study.session import SessionConfig


class StartSession(Message):
    """Start a study session with this configuration (handled by the app)."""

    def __init__(self, config: SessionConfig) -> None:
        self.config = config
        super().__init__()


class RetryQuestions(Message):
    """Start a new session with just these question ids (e.g. the ones missed)."""

    def __init__(self, question_ids: tuple[str, ...]) -> None:
        self.question_ids = question_ids
        super().__init__()
