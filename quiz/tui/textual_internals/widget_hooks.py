"""The widget hooks of :mod:`quiz.tui.textual_internals` that only the question, summary and
calculator screens use: apart, so that the start screen's first frame does not make these
Textual classes (making one runs Textual's ``__init_subclass__``, 0.1–0.2 ms each).

Each private name is registered with the package's :data:`~quiz.tui.textual_internals.
PRIVATE_NAMES` (the canary imports this module too). Checked against Textual 8.2.8.
"""

from __future__ import annotations

from textual import events
from textual.geometry import Size
from textual.widget import Widget

from quiz.tui.textual_internals import uses_private

uses_private(Widget, "_on_key")
uses_private(Widget, "_size_updated")


class TakesKeysItself(Widget):
    """A widget that takes its key events itself, in :meth:`take_key`, instead of Textual's
    default handling (dispatching to ``key_…`` methods): ``Widget._on_key`` (Textual 8.2.8)."""

    async def take_key(self, event: events.Key) -> None:
        """Handle a key event (default: nothing; the key bubbles up)."""

    async def _on_key(self, event: events.Key) -> None:
        await self.take_key(event)


class ChecksScrollUpdates(Widget):
    """A widget that decides whether a scrollbar update is needed: :meth:`scrollbars_stale`
    is asked before each (``Widget._scroll_update``, Textual 8.2.8)."""

    def scrollbars_stale(self, virtual_size: Size) -> bool:
        """Whether the scrollbars must be updated for ``virtual_size`` (default: always)."""
        return True

    def _scroll_update(self, virtual_size: Size) -> None:
        if self.scrollbars_stale(virtual_size):
            super()._scroll_update(virtual_size)


class NoLayoutForScrollHeight(Widget):
    """A scrolling container whose scrollable size changes without a second layout of the
    screen: Textual lays the whole screen out again when a widget's virtual size changes
    (``Widget._size_updated`` sets the ``virtual_size`` reactive, which asks for a layout),
    because a scrollbar may appear. With ``scrollbar-gutter: stable`` its column is kept
    either way, so nothing else moves: only the scrollbars are updated (Textual 8.2.8)."""

    def _size_updated(self, size: Size, virtual_size: Size, container_size: Size,
                      layout: bool = True) -> bool:
        return super()._size_updated(size, virtual_size, container_size, layout=False)
