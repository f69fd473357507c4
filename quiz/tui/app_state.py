"""What the parts of :class:`~quiz.tui.app.QuizApp` share: the attributes and properties the
app holds, declared once for the type checker (:class:`~quiz.tui.commands.AppCommands` and
:class:`~quiz.tui.loading.LoadsBanks` build on it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from datetime import datetime

    from quiz.bank.library import Library
    from quiz.footprint import FootprintSpec
    from quiz.study.lifecycle import Lifecycle
    from quiz.study.recorder import QuestionIndex
    from quiz.study.session import StudySession
    from quiz.study.store import Store
    from quiz.tui.ahead import ScreensAhead


class AppState(App[int]):
    """The app's state as its parts see it: the library, the store, the options it was started
    with, the screens made ahead, the calculator's last scenario and the clock."""

    # What the app provides (declared for the type checker; QuizApp defines them).
    library: Library
    loaded: bool
    store: Store | None
    shuffle: bool
    seed: int | None
    paths: list[str] | None
    _index: QuestionIndex | None
    ahead: ScreensAhead
    calculator_spec: FootprintSpec | None
    now: Callable[[], datetime]

    if TYPE_CHECKING:
        @property
        def study(self) -> Lifecycle:
            """The sessions' life."""

        @property
        def session(self) -> StudySession | None:
            """The study session shown."""
