"""What the command line asked the study app for (:class:`Launch`): light to import, so the
CLI and the start screen name it before the banks and the study modules are loaded."""

from __future__ import annotations

from dataclasses import dataclass

from quiz.study.mode import Mode


@dataclass(frozen=True)
class Launch:
    """What the command line asked for: a ``mode`` to start at once (``None``: the start
    screen), the filters every mode honours, an exam's ``minutes``, and ``strict`` (an exam
    whose clock runs in wall time, with no pause)."""

    mode: Mode | None = None
    topics: frozenset[str] | None = None
    tags: frozenset[str] | None = None
    difficulties: frozenset[str] | None = None
    count: int | None = None
    minutes: float | None = None
    strict: bool = False

    def __post_init__(self) -> None:
        if self.mode is not None and not isinstance(self.mode, Mode):
            object.__setattr__(self, "mode", Mode(self.mode))
