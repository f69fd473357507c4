"""The title bar at the top of every screen, drawn as one line by one widget.

It shows what Textual's ``Header`` showed — the ``⭘`` icon that opens the command palette, the
screen's title (else the app's) and sub-title, centred — without the four widgets ``Header``
composes on every screen (about 5 ms of each screen switch on a 2-core machine, issue 13).
"""

from __future__ import annotations

from textual import events
from textual.app import RenderResult
from textual.content import Content
from textual.widget import Widget

ICON = "⭘"
ICON_WIDTH = 8
"""Cells of the icon's area at the left (the icon after one space), as ``Header`` has it."""
RIGHT_WIDTH = 10
"""Blank cells at the right, as ``Header`` keeps for its clock, so the title stays centred."""


class TitleBar(Widget, can_focus=False):
    """The screen's title (:attr:`~textual.screen.Screen.title`, else the app's) and
    sub-title, centred and cut with an ellipsis when it does not fit. A click on the icon
    opens the command palette; a click elsewhere makes the bar three lines tall, or one line
    again."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"title-bar--icon-hover"}
    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        content-align: left middle;
        text-wrap: nowrap;
        &.-tall {
            height: 3;
        }
        .title-bar--icon-hover {
            background: $foreground 10%;
        }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._icon_hover = False

    def on_mount(self) -> None:
        for node in (self.app, self.screen):
            self.watch(node, "title", self._title_changed, init=False)
            self.watch(node, "sub_title", self._title_changed, init=False)

    def _title_changed(self) -> None:
        self.refresh()

    @property
    def title_content(self) -> Content:
        """The title and sub-title as shown (``App.format_title``)."""
        screen, app = self.screen, self.app
        title = screen.title if screen.title is not None else app.title
        sub_title = screen.sub_title if screen.sub_title is not None else app.sub_title
        return app.format_title(title, sub_title)

    def render(self) -> RenderResult:
        width = self.size.width
        middle = max(0, width - ICON_WIDTH - RIGHT_WIDTH)
        icon = Content(f" {ICON}".ljust(ICON_WIDTH))
        if self._icon_hover:
            icon = icon.stylize(self.get_visual_style("title-bar--icon-hover", partial=True))
        title = self.title_content.center(middle, ellipsis=True) if middle else Content("")
        return Content.assemble(icon, title, " " * RIGHT_WIDTH)[:width]

    def _on_icon(self, x: int) -> bool:
        return 0 <= x < ICON_WIDTH and self.app.ENABLE_COMMAND_PALETTE

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._on_icon(event.x)
        if hover != self._icon_hover:
            self._icon_hover = hover
            self.tooltip = "Open the command palette" if hover else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._icon_hover:
            self._icon_hover = False
            self.tooltip = None
            self.refresh()

    async def on_click(self, event: events.Click) -> None:
        """The icon opens the command palette; elsewhere the bar grows or shrinks."""
        event.stop()
        if self._on_icon(event.x):
            await self.run_action("app.command_palette")
        else:
            self.toggle_class("-tall")

