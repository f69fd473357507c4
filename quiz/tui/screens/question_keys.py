"""What the question and exam screens share: a body that is a
:class:`~quiz.tui.widgets.question_view.QuestionView`, the keys that scroll it, and the keys it
passes up — taken in the order typed, one at a time, under the screen's input lock."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual import events
from textual.binding import Binding

from quiz.tui.widgets.question_view import QuestionView

QUESTION_BINDINGS = [
    Binding("question_mark", "app.help", "Help"),
    Binding("q", "app.request_quit", "Quit"),
    Binding("escape", "app.request_quit", "Quit", show=False),
    Binding("pageup", "scroll(-1)", "Page up", show=False),
    Binding("pagedown", "scroll(1)", "Page down", show=False),
    Binding("home", "scroll_home", "Top", show=False),
    Binding("end", "scroll_end", "Bottom", show=False),
]
"""The bindings both screens end their own with (help, quit, scrolling), in the key bar's
order."""


class QuestionKeys:
    """Mixin for a screen whose body is a :class:`QuestionView` (:attr:`view`).

    The body takes the option keys first, in its own queue; the keys it does not take come to
    :meth:`on_key`, in the order typed, and it waits for ``settled()`` before taking another.
    A screen says which keys are its steps in :meth:`_step_for` (``n`` next, ``p`` previous…);
    each step, and the key bar's Next and Previous, run under :attr:`_input_lock`, so ``b n b``
    typed faster than the screen redraws applies each letter to the right question."""

    _input_lock: asyncio.Lock

    # What each screen provides (declared for the type checker; the screens define them).
    if TYPE_CHECKING:
        @property
        def view(self) -> QuestionView:
            """The body."""

        def _step_for(self, event: events.Key) -> Callable[[], Awaitable[None]] | None:
            """The step ``event`` asks for, or ``None`` when the key is not this screen's."""

        async def _next(self) -> None:
            """Go to the next question."""

        async def _previous(self) -> None:
            """Go to the previous question."""

        def _show_hint(self, warning: str | None = None) -> None:
            """Say on the hint line what to do now, or (``warning``) why the last key did
            nothing."""

    def on_question_view_hint(self, message: QuestionView.Hint) -> None:
        """A key did nothing: the body says why, on the hint line."""
        self._show_hint(message.text)
        message.control.settled()

    async def on_key(self, event: events.Key) -> None:
        """Run the step of a key the body passed up; then let the body take the next key."""
        try:
            step = self._step_for(event)
            if step is None:
                return
            event.stop()
            event.prevent_default()
            async with self._input_lock:
                await step()
        finally:
            self.view.settled()

    async def action_next(self) -> None:
        """Next question (the key bar's Next)."""
        async with self._input_lock:
            await self._next()

    async def action_previous(self) -> None:
        """Previous question (the key bar's Previous)."""
        async with self._input_lock:
            await self._previous()

    def action_scroll(self, pages: int) -> None:
        """Scroll the body by a page (``pages`` is +1 or -1)."""
        body = self.view
        (body.scroll_page_down if pages > 0 else body.scroll_page_up)(animate=False)

    def action_scroll_home(self) -> None:
        """Scroll to the top."""
        self.view.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        """Scroll to the bottom."""
        self.view.scroll_end(animate=False)
