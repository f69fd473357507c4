"""Screens the app keeps mounted and shows again and again (the question screen, the summary):
shown again without restyling every widget; and screens that draw nothing while an opaque
screen covers them (issue 13)."""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.screen import Screen


class HiddenWhenCovered(Screen[None]):
    """A screen that draws nothing while an opaque screen covers it.

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

    def _compositor_refresh(self) -> None:
        if self is not self.app.screen and not self._seen_through():
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
            return
        super()._compositor_refresh()


class KeptScreen(HiddenWhenCovered):
    """A screen shown again without being styled again when nothing its styles depend on has
    changed since it was last styled.

    Textual restyles a screen's every widget each time the screen is pushed (its
    ``ScreenResume`` asks for it), 4-6 ms of a screen switch here on a 2-core machine. A
    screen's styles were set when it was mounted and are kept current while it waits: a
    theme change restyles every mounted screen (``App.refresh_css`` updates all of the app's
    nodes), hover ends when a screen is suspended. What is left — the theme and whether the
    app has the focus — is compared; when either changed, the screen is restyled as before.
    """

    _styled_as: tuple[Any, ...] | None = None

    def _style_state(self) -> tuple[Any, ...]:
        app = self.app
        return (app.theme, app.app_focus)

    @on(events.Mount)
    def _styled_at_mount(self) -> None:
        self._styled_as = self._style_state()

    @on(events.ScreenSuspend)
    def _styled_at_suspend(self) -> None:
        self._styled_as = self._style_state()

    @on(events.ScreenResume)
    def _restyle_only_if_changed(self, event: events.ScreenResume) -> None:
        # Runs before Screen's own handler, which reads refresh_styles.
        if self._styled_as is not None and self._styled_as == self._style_state():
            event.refresh_styles = False

