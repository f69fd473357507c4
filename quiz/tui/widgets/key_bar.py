"""The key bar at the foot of every screen: the keys of the screen as it is now, drawn as one
line by one widget.

It shows what Textual's ``Footer`` showed — each shown binding once (its first key), dimmed
while its action waits (``check_action`` returns ``None``), the command palette key on the
right — and a click on a key runs it. Unlike ``Footer``, which composes a widget per key and
composes them again whenever the bindings change (each focus change, each screen switch:
about 25 ms of a screen switch on a 2-core machine, issue 13), it only draws the line again.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from textual import events
from textual.app import RenderResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.style import Style
from textual.widget import Widget

DIM = Style(dim=True)
"""How a key whose action waits is drawn."""


class KeyCell(NamedTuple):
    """One key as drawn: the cells ``start`` to ``end`` (exclusive) of the bar it covers, the
    ``key`` a click presses, what is shown (``display``, ``description``), and whether its
    action can run now (``enabled``). (A named tuple: its class is made before the first paint,
    in a tenth of a frozen dataclass's time.)"""

    start: int
    end: int
    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str


class KeyBar(Widget, can_focus=False):
    """The keys of the screen it is on, in one line: `` n Next  p Previous … ^p palette``.

    Each key reads ``" key description "``; the command palette key sits at the right edge
    behind a thin rule. Keys are shown whole: those that do not fit before the palette key are
    left out (``?`` lists every key), never cut mid-word. Hovering a key
    highlights it (with its tooltip, if the binding has one); clicking it presses the key, or
    rings the bell when its action waits.
    """

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "key-bar--key",
        "key-bar--description",
        "key-bar--hover",
        "key-bar--rule",
    }
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        width: 1fr;
        color: $footer-foreground;
        background: $footer-background;
        text-wrap: nowrap;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .key-bar--rule {
            color: $foreground 20%;
        }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._cells: list[KeyCell] = []
        self._hover: str | None = None
        """The key under the mouse."""
        self._drawn: tuple[tuple[object, ...], Content, list[KeyCell]] | None = None
        """What the line was last drawn for (width, hover, keys), the line, its cells."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, screen: Screen[object]) -> None:
        self.refresh()

    @property
    def cells(self) -> list[KeyCell]:
        """The keys as last drawn, left to right (the palette key last)."""
        return list(self._cells)

    def keys(self) -> tuple[list[KeyCell], KeyCell | None]:
        """The keys to show now, at offset 0 (the palette key separately): each shown binding
        of the screen's active bindings once, by its first key, in binding order."""
        app = self.app
        shown: list[KeyCell] = []
        actions: set[str] = set()
        palette: KeyCell | None = None
        x = 0
        for _node, binding, enabled, tooltip in self.screen.active_bindings.values():
            if binding.key == app.COMMAND_PALETTE_BINDING and app.ENABLE_COMMAND_PALETTE:
                palette = self._cell(0, binding, enabled,
                                     binding.tooltip or binding.description)
                continue
            if not binding.show or binding.action in actions:
                continue
            actions.add(binding.action)
            cell = self._cell(x, binding, enabled, tooltip)
            shown.append(cell)
            x = cell.end
        return shown, palette

    def _cell(self, x: int, binding: Binding, enabled: bool, tooltip: str) -> KeyCell:
        display = self.app.get_key_display(binding)
        width = cell_len(display) + 2 + (cell_len(binding.description) + 1
                                          if binding.description else 0)
        return KeyCell(x, x + width, binding.key, display, binding.description, enabled,
                       tooltip)

    def render(self) -> RenderResult:
        width = self.size.width
        left, palette = self.keys()
        drawn_for = (width, self._hover, tuple(left), palette)
        if self._drawn is not None and self._drawn[0] == drawn_for:
            # The same keys as last drawn (a screen shown again, a focus change that changed
            # nothing here): the same line.
            self._cells = self._drawn[2]
            return self._drawn[1]
        # The palette key, as wide as the others: a rule, the key, a space, its description
        # and a space.
        room = width if palette is None else max(0, width - palette.end)
        left = [c for c in left if c.end <= room]  # whole keys only: no "q Qu"
        cells = list(left)
        if palette is not None:
            cells.append(palette._replace(start=room, end=width))
        self._cells = cells
        key_style = self.get_visual_style("key-bar--key", partial=True)
        description_style = self.get_visual_style("key-bar--description", partial=True)
        hover_style = self.get_visual_style("key-bar--hover", partial=True)
        line = Content("")
        for cell in left if palette is None else [*left, palette]:
            if cell is palette:  # compact: "▏^p palette "
                line = Content.assemble(
                    line.truncate(room, pad=True),
                    ("▏", self.get_visual_style("key-bar--rule", partial=True)))
                part = Content.assemble((cell.display, key_style),
                                        (f" {cell.description}", description_style))
            else:
                part = Content.assemble((f" {cell.display} ", key_style), (
                    f"{cell.description} " if cell.description else "", description_style))
            if not cell.enabled:
                part = part.stylize(DIM)
            if cell.key == self._hover:
                part = part.stylize(hover_style)
            line = Content.assemble(line, part)
        line = line.truncate(width, pad=True)
        self._drawn = (drawn_for, line, cells)
        return line

    def notify_style_update(self) -> None:
        """A new look (a theme) draws the line again."""
        super().notify_style_update()
        self._drawn = None

    def _cell_at(self, x: int) -> KeyCell | None:
        return next((c for c in self._cells if c.start <= x < c.end), None)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        cell = self._cell_at(event.x)
        hover = cell.key if cell is not None else None
        if hover != self._hover:
            self._hover = hover
            self.tooltip = cell.tooltip if cell is not None and cell.tooltip else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.tooltip = None
            self.refresh()

    def on_click(self, event: events.Click) -> None:
        """Press the key clicked (a key whose action waits rings the bell)."""
        cell = self._cell_at(event.x)
        if cell is None:
            return
        event.stop()
        if cell.enabled:
            self.app.simulate_key(cell.key)
        else:
            self.app.bell()
