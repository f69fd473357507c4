"""A screen that draws nothing while an opaque screen covers it (issue 13)."""

from __future__ import annotations

from quiz.tui.textual_internals import SkipsRepaintWhileHidden


class HiddenWhenCovered(SkipsRepaintWhileHidden):
    """A screen that draws nothing while an opaque screen covers it: a mixin, listed before the
    screen's Textual base (see :mod:`quiz.tui.textual_internals`).

    Textual counts the screen right under the top one as visible whatever the top one's
    background (``App._background_screens``), and a change on it repaints the whole top
    screen: pushing a screen refreshes the one it covers, so Enter on Start and ``s`` each
    painted their new screen twice over (issue 13). Here a covered screen's changes are
    dropped while no screen above it lets it show through (a modal's translucent background
    does); it is drawn whole again when it is shown (``ScreenResume`` repaints it).
    """

    def _seen_through(self) -> bool:
        stack = self.app.screen_stack
        if self not in stack:
            return False
        above = stack[stack.index(self) + 1:]
        return all(screen.styles.background.a < 1 for screen in above)

    def draws_now(self) -> bool:
        """True when the screen is on top, or seen through the screens above it."""
        return self is self.app.screen or self._seen_through()
