"""What the parts of :class:`~quiz.tui.app.QuizApp` share: the attributes and properties the
app holds, declared once for the type checker (:class:`~quiz.tui.commands.AppCommands` and
:class:`~quiz.tui.loading.LoadsBanks` build on it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from quiz.bank.library import Library
    from quiz.footprint import FootprintSpec
    from quiz.study.lifecycle import Lifecycle
    from quiz.study.recorder import QuestionIndex
    from quiz.study.session import StudySession
    from quiz.study.store import Store
    from quiz.tui.ahead import ScreensAhead

    class AppState(App[int]):
        """The app's state as its parts see it: the library, the store, the options it was
        started with, the screens made ahead, the calculator's last scenario and the clock."""

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

        @property
        def study(self) -> Lifecycle:
            """The sessions' life."""

        @property
        def session(self) -> StudySession | None:
            """The study session shown."""

else:
    # At run time the parts build on App itself: a Textual class of declarations only would
    # cost its creation before the first paint (0.25 ms: Textual inspects each class it is
    # given), for nothing.
    AppState = App
