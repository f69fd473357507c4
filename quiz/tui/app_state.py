"""What the parts of :class:`~quiz.tui.app.QuizApp` share: the attributes and properties the
app holds, declared once for the type checker (:class:`~quiz.tui.commands.AppCommands` and
:class:`~quiz.tui.loading.LoadsBanks` build on it). A part must hold no Textual class
attributes (``BINDINGS``, ``CSS``, reactives, ``@on`` handlers): at run time it is a plain
mixin."""

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
    # At run time the parts are plain mixins, and QuizApp derives from App itself: Textual
    # inspects each class derived from App as it is made (0.25 ms each, before the first
    # paint), and these parts hold none of what it looks for (bindings, CSS, reactives,
    # handlers decorated with @on; their on_ and action_ methods are found through QuizApp's
    # MRO), only methods.
    AppState = object
