"""The app's screens, one module each.

The smallest usable terminal is here, not in :mod:`quiz.tui.screens.too_small`: the app
compares the window with it on every resize, and imports that screen only when it is needed.
"""

MIN_COLUMNS = 40
"""Narrower than this, the app shows :class:`~quiz.tui.screens.too_small.TooSmallScreen`
instead of fragments."""
MIN_ROWS = 12
"""Shorter than this, the app shows :class:`~quiz.tui.screens.too_small.TooSmallScreen`
instead of fragments."""
