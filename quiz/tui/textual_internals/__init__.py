"""Every use of a name Textual keeps private, each behind one named function or hook (issue 18).

Nothing else in :mod:`quiz.tui` touches a private Textual name: on a Textual upgrade this
package (this module and :mod:`.widget_hooks`) is what to read against its diff, and
``tests/tui/test_textual_internals.py`` (the canary) fails when a name used here moves or
changes shape. Each was checked against Textual 8.2.8 (:data:`CHECKED_AGAINST`).

The hooks are small base classes whose override of a private method calls a public-looking
method of ours, so a subclass never names the private one. The screen hooks and the radio
button's are mixins: plain classes (the type checker sees them as subclasses of ``Screen`` or
``RadioButton``) that a class lists before its Textual base, as in
``class StartScreen(HiddenWhenCovered, StyledOnceWhenFirstShown, DrawsOnlyWhatIsShown,
Screen[None])``. Making a Textual class runs its ``__init_subclass__`` (bindings, CSS type
names, reactives merged: 0.15–0.25 ms), and the start screen's first frame made five such hooks;
a mixin costs next to nothing. Not being a Textual class, it leaves the styles of the class
that uses it as they were: its default CSS still comes from its first Textual base, and only
the mixin's own name is no longer a CSS type name (no stylesheet of quiz names one).
The hooks only the question, summary and calculator screens use are in :mod:`.widget_hooks`.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any

from textual import events
from textual._time import get_time
from textual.app import App
from textual.binding import Binding
from textual.css.stylesheet import Stylesheet
from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import RadioButton
from textual.widgets._toggle_button import ToggleButton

if TYPE_CHECKING:
    from textual.content import Content
    from textual.driver import Driver

    _ScreenMixin = Screen[None]
    _RadioButtonMixin = RadioButton
else:  # at run time the mixins are plain classes (see the module docstring)
    _ScreenMixin = _RadioButtonMixin = object

CHECKED_AGAINST = "8.2.8"
"""The Textual version every name below was read against."""

PRIVATE_NAMES: dict[str, tuple[type[Any] | str, str]] = {}
"""Every private name this module uses: what it is looked up on (a class, or a module's dotted
name) and the name. The canary test checks each still exists."""


def uses_private(owner: type[Any] | str, name: str) -> None:
    """Register the private ``name`` looked up on ``owner`` (a class, or a module's dotted
    name) in :data:`PRIVATE_NAMES`."""
    PRIVATE_NAMES[f"{owner if isinstance(owner, str) else owner.__name__}.{name}"] = (owner,
                                                                                       name)


# -- the clock of key events -------------------------------------------------------------------
uses_private("textual._time", "get_time")


def event_clock() -> float:
    """The clock that stamps events (``Message.time``, seconds): ``textual._time.get_time``
    (Textual 8.2.8)."""
    return get_time()


# -- screens made ahead of time ----------------------------------------------------------------
uses_private(App, "_get_screen")


def mount_off_stack(app: App[Any], screen: Screen[Any]) -> Awaitable[Any]:
    """Register an installed ``screen`` and run its compose and mount in its own task, as
    ``push_screen`` does, without putting it on the screen stack; returns the mount to await.
    ``App._get_screen`` (Textual 8.2.8)."""
    _, mounted = app._get_screen(screen)
    return mounted


uses_private(Screen, "_layout_required")
uses_private(Screen, "_refresh_layout")


def layout_pending(widget: Widget) -> bool:
    """True when ``widget`` (a screen, or a widget on one) has asked for a layout not yet run.
    ``Widget._layout_required`` (Textual 8.2.8)."""
    return bool(widget._layout_required)


def lay_out_off_screen(screen: Screen[Any], size: Size) -> None:
    """Lay out a screen that is not shown for ``size`` (Textual ignores a Resize on a screen
    never shown), and clear its request for a layout (a screen not shown never clears it
    itself). ``Screen._refresh_layout``, ``_layout_required`` (Textual 8.2.8)."""
    screen._refresh_layout(size)
    screen._layout_required = False


uses_private(Screen, "_compositor")


def draw_off_screen(screen: Screen[Any]) -> None:
    """Draw every line of a screen that is not shown, so that the lines and styles its widgets
    keep are ready when it is first shown. ``Screen._compositor.render_full_update``
    (Textual 8.2.8)."""
    screen._compositor.render_full_update()


def repaint_pending(screen: Screen[Any]) -> bool:
    """True when ``screen`` has regions or widgets waiting to be repainted (or asked to be).
    ``Screen._compositor._dirty_regions``, ``_dirty_widgets``, ``_repaint_required``."""
    return bool(screen._compositor._dirty_regions or screen._dirty_widgets
                or screen._repaint_required)


def repaint_requested(widget: Widget) -> bool:
    """True when ``widget`` (a screen, or a widget on one) has been asked to repaint whole.
    ``Widget._repaint_required`` (Textual 8.2.8)."""
    return bool(widget._repaint_required)


def forget_repaint_request(screen: Screen[Any]) -> None:
    """Clear ``screen``'s request to repaint whole (tests then see whether one comes).
    ``Screen._repaint_required`` (Textual 8.2.8)."""
    screen._repaint_required = False


def widgets_to_repaint(screen: Screen[Any]) -> set[Widget]:
    """The widgets ``screen`` will repaint at its next update. ``Screen._dirty_widgets``
    (Textual 8.2.8)."""
    return set(screen._dirty_widgets)


def run_frame_update(screen: Screen[Any]) -> None:
    """Run what ``screen``'s frame timer runs (its compositor's refresh) now.
    ``Screen._on_timer_update`` (Textual 8.2.8)."""
    screen._on_timer_update()


SCREEN_LAYOUT = "_refresh_layout"
"""The name of the method that lays a screen out (``Screen._refresh_layout``, Textual 8.2.8),
for a test that counts layouts."""

uses_private(Screen, "_on_timer_update")


class SkipsRepaintWhileHidden(_ScreenMixin):
    """A screen mixin: a screen that can drop its pending repaints: when :meth:`draws_now` says
    ``False``, a refresh of the screen's compositor is dropped (``Screen._compositor_refresh``, its
    ``_compositor._dirty_regions`` and ``_dirty_widgets``; Textual 8.2.8)."""

    def draws_now(self) -> bool:
        """Whether a refresh of this screen is drawn now (default: always)."""
        return True

    def _compositor_refresh(self) -> None:
        if not self.draws_now():
            self._compositor._dirty_regions.clear()
            self._dirty_widgets.clear()
            return
        super()._compositor_refresh()


uses_private(Screen, "_compositor_refresh")
uses_private(Screen, "_dirty_widgets")
uses_private(Screen, "_repaint_required")


class StyledOnceWhenFirstShown(_ScreenMixin):
    """A screen mixin: a screen whose first ``ScreenResume`` (it is shown for the first time, its
    widgets just mounted and styled) does not restyle every widget again.

    ``Screen._on_screen_resume`` applies the stylesheet to the whole screen again at each
    resume (``ScreenResume.refresh_styles``), in case something changed while it was covered.
    At the first one nothing has: mounting the widgets has just styled them, and styling the
    start screen's 40-odd widgets twice was a tenth of the CPU of its first frame. Later
    resumes restyle as Textual does. (Textual calls the ``_on_screen_resume`` of each class
    of the screen's MRO in turn, this one before ``Screen``'s: here it only clears the
    event's ``refresh_styles`` the first time; Textual 8.2.8.)"""

    _shown_before = False

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        if not self._shown_before:
            self._shown_before = True
            event.refresh_styles = False


uses_private(Screen, "_on_screen_resume")


class DrawsOnlyWhatIsShown(_ScreenMixin):
    """A screen mixin: a screen laid out once for its first frame, and again only when its size or
    its content changes.

    Textual lays a screen out whole at each Resize it gets (``Screen._screen_resized``), also
    at one of the size it was laid out at, and a start-up sends it two: its own first layout
    posts the screen a Resize (the screen was just "shown"), and the terminal driver's first
    size report reaches it once the app's start-up is over (``App._on_resize`` keeps it,
    ``App._on_idle`` forwards it). A screen shown during the start-up (which runs in
    ``App.batch_update``) is laid out at once, before its widgets' mount is handled, so what
    they ask for lays it out again; and the frame of that first layout is rendered for
    ``App._display`` to drop it. On the start screen that was three layouts and two frames of
    its 40-odd widgets for the one frame the terminal shows, half the CPU from its compose to
    that frame.

    Here the screen's first layout, asked for while the app batches its updates, is put off
    to the screen's first update after the batch (``Screen._layout_required``, for the size
    asked); it draws the whole screen, so the repaint its first size asks for
    (``Screen._repaint_required``) is dropped. A Resize to the size the screen was laid out at
    lays nothing out: it runs the screen's pending update now, as its frame timer would
    (``Screen._on_timer_update``), so the start-up's last Resize draws the first frame at
    once. Any other Resize, and every later layout, is Textual's. Textual 8.2.8."""

    _deferred_size: Size | None = None
    """The size of the first layout, put off during a batch (``None``: none is)."""

    def _screen_resized(self, size: Size) -> None:
        if self._deferred_size is not None:
            self._deferred_size = size
        elif size != self.outer_size:
            super()._screen_resized(size)
            return
        if self.is_current and not self.app._batch_count:
            self._on_timer_update()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        first = not self.outer_size
        if first and self.app._batch_count and self.is_current:
            self._deferred_size = size or self._deferred_size or self.app.size
            self._layout_required = True
            return
        if self._deferred_size is not None:
            size = size or self._deferred_size
            self._deferred_size = None
        super()._refresh_layout(size, scroll)
        if first and self.outer_size and self.is_current and not self.app._batch_count:
            # Its first layout drew the whole screen: the repaint its new size asked for
            # (``Widget._size_updated``) would draw the same frame again.
            self._repaint_required = False


uses_private(Screen, "_screen_resized")
uses_private(App, "_batch_count")


# -- the stylesheet's parsed rules ----------------------------------------------------------------
uses_private(Stylesheet, "_parse_cache")
uses_private(Stylesheet, "_variables")


def parsed_css(stylesheet: Stylesheet) -> list[tuple[Any, Any]]:
    """What ``stylesheet`` has parsed so far: (its key, the rule sets) for each CSS source
    (``Stylesheet._parse_cache``, keyed by the source's text, location, default flag, tie
    breaker and scope, and cleared whenever the variables change; Textual 8.2.8)."""
    cache = stylesheet._parse_cache
    return [(key, cache.get(key)) for key in list(cache.keys())]


def reuse_parsed_css(stylesheet: Stylesheet, parsed: list[tuple[Any, Any]]) -> None:
    """Let ``stylesheet`` take ``parsed`` (from :func:`parsed_css`, made under the same
    variables) instead of parsing those sources again (``Stylesheet._parse_cache``)."""
    cache = stylesheet._parse_cache
    for key, rules in parsed:
        cache.set(key, rules)


def css_variables(stylesheet: Stylesheet) -> dict[str, str]:
    """The variables ``stylesheet`` substitutes while it parses (``Stylesheet._variables``,
    Textual 8.2.8)."""
    return dict(stylesheet._variables)


# -- keys ----------------------------------------------------------------------------------------
uses_private(Widget, "_bindings")


def bindings_for_key(widget: Widget, key: str) -> tuple[Binding, ...]:
    """The bindings of ``widget`` itself (not its ancestors') for ``key``.
    ``Widget._bindings.key_to_bindings`` (Textual 8.2.8)."""
    return tuple(widget._bindings.key_to_bindings.get(key, ()))


# -- scrolling and layout caches -------------------------------------------------------------
uses_private(Widget, "_scroll_update")
uses_private(Widget, "_layout_cache")


def update_scrollbars(widget: Widget, virtual_size: Size) -> None:
    """Update ``widget``'s scrollbars for a new ``virtual_size`` without a layout of the
    screen. ``Widget._scroll_update`` (Textual 8.2.8)."""
    widget._scroll_update(virtual_size)


def clear_layout_cache(widget: Widget) -> None:
    """Forget ``widget``'s cached visual and height (``refresh()`` would too, but during a
    layout it also looks the widget up on screen). ``Widget._layout_cache`` (Textual 8.2.8)."""
    widget._layout_cache.clear()


# -- toggle buttons ------------------------------------------------------------------------------
uses_private("textual.widgets._toggle_button", "ToggleButton")


def selection_glyph() -> str:
    """The character a ``SelectionList`` draws inside each option's box, selected or not:
    ``ToggleButton.BUTTON_INNER`` (Textual 8.2.8). Read here rather than from ``Checkbox``,
    which inherits it: the start screen's topic list would import ``Checkbox`` for it alone
    (0.3 ms before the first paint)."""
    return ToggleButton.BUTTON_INNER


uses_private(RadioButton, "_button")


def toggle_glyph(button: RadioButton) -> Content:
    """The glyph a toggle button draws for its state (``ToggleButton._button``,
    Textual 8.2.8)."""
    glyph: Content = button._button
    return glyph


class GlyphRadioButton(_RadioButtonMixin):
    """A radio button mixin (list it before ``RadioButton``): a radio button whose glyph's inner
    character is :meth:`inner_glyph` (``●`` or blank) rather than Textual's ``●`` in both states
    (``ToggleButton._button``, Textual 8.2.8)."""

    def inner_glyph(self) -> str:
        """The character inside the button's glyph (default ``●``)."""
        return "●"

    @property
    def _button(self) -> Content:
        self.BUTTON_INNER = self.inner_glyph()
        return super()._button


# -- the terminal driver -------------------------------------------------------------------------
uses_private(App, "_driver")


def driver_of(app: App[Any]) -> Driver | None:
    """The app's terminal driver (``None`` before it runs). ``App._driver`` (Textual 8.2.8)."""
    return app._driver
