"""The start screen's Start button (Enter or Space starts at once)."""

from __future__ import annotations

from textual.binding import Binding
from textual.widgets import Button


class StartButton(Button):
    """The Start button. Enter or Space on it starts the session at once (the start screen's
    ``action_start``), without Textual's 0.2 s "pressed" flash and without the
    ``Pressed`` message's trip through the form: the session's first question replaces this
    screen within the key press, so the flash was drawn (a repaint of this screen, about 1 ms)
    and never seen (issue 13). A click presses it as any button (``Pressed``), also without
    the flash. A start refused for a wrong setting says why under the form and in a
    notification."""

    BINDINGS = [Binding("space", "press", "Start", show=False)]
    """Enter presses any button (Textual's binding); Space presses this one too, as it
    toggles the form's switch."""

    def __init__(self, *, disabled: bool) -> None:
        super().__init__("Start", id="start", variant="primary", disabled=disabled)
        self.active_effect_duration = 0

    def action_press(self) -> None:
        start = getattr(self.screen, "action_start", None)  # the start screen's
        if callable(start) and not self.disabled and self.display:
            start()
        else:
            super().action_press()
