"""A screen the app keeps mounted and shows again and again (the question screen, the
summary), shown again without restyling every widget (issue 13)."""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.screen import Screen

from quiz.tui.screens.covered import HiddenWhenCovered


class ReshownScreen(HiddenWhenCovered, Screen[None]):
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

