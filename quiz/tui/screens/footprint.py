"""The footprint calculator screen: inputs on the left (or on top in a narrow terminal), the
calculator's items table, stacked bars and devices needed on the right, recomputed on every
change. Opened from a question, it starts from that question's worked example.

The form is built from the spec's field table (:mod:`quiz.tui.screens.footprint_form`), one
titled section per part of the spec; the sections and fields a phase or a fine-tuning method
does not use are hidden (their values kept). The layout (side by side, or stacked in a narrow
terminal) is chosen from the terminal's size while composing, and the results are computed
before the first frame, so the screen is drawn once, whole (issue 21 §9, issue 26).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.geometry import Size
from textual.reactive import Reactive
from textual.widgets import Input, Label, Static

from quiz.tui.screens.footprint_form import (
    CUSTOM,
    NONE,
    Field,
    field_shown,
    form_fields,
    form_sections,
    section_shown,
)
from quiz.tui.screens.reshown import ReshownScreen
from quiz.tui.textual_internals.widget_hooks import NoLayoutForScrollHeight
from quiz.tui.widgets.choice_field import ChoiceField
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.report_view import ReportView
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec

__all__ = ["CUSTOM", "NONE", "Field", "FootprintScreen", "form_fields"]

NARROW = 100
"""Below this many columns the form goes above the results (``-narrow``)."""
TINY = 64
"""Below this many columns the form has one field a row instead of two (``-tiny``)."""
FORM_WIDTH = 50
"""Columns of the form beside the results (``#fp-form-scroll`` in app.tcss), its border
included."""
OUTPUT_FRAME = 3
"""Columns of the results' frame: padding (2) and the scrollbar's column, kept whether it is
shown or not (``scrollbar-gutter: stable``)."""


class FormInput(Input):
    """A text field of the form: typing in it changes its scrollable width (Textual's
    ``Input`` sets its ``virtual_size`` on every change), which asked for a layout of the whole
    screen at each key; its own width is fixed by the grid, so only it is drawn again."""

    virtual_size: Reactive[Size] = Reactive(Size(0, 0), layout=False)


class FormScroll(NoLayoutForScrollHeight, VerticalScroll):
    """The form's scroll: showing or hiding a section changes its height without a second
    layout (its scrollbar's column is kept: ``scrollbar-gutter: stable`` in app.tcss)."""


def _get(data: Mapping[str, Any], key: str) -> Any:
    section, _, name = key.rpartition(".")
    source = data.get(section, {}) if section else data
    return source.get(name) if isinstance(source, Mapping) else None


def layout_classes(width: int) -> dict[str, bool]:
    """The screen's layout classes for a terminal ``width`` columns wide."""
    return {"-narrow": width < NARROW, "-tiny": width < TINY}


def report_width(width: int) -> int:
    """The results' width (columns) in a terminal ``width`` columns wide: what is left beside
    the form, or the whole width under it."""
    inner = width - OUTPUT_FRAME - (0 if width < NARROW else FORM_WIDTH)
    return max(inner, 24)


class FootprintScreen(ReshownScreen):
    """Training vs inference memory for a model, with every number's derivation. Closing it
    leaves the last valid scenario in :attr:`result`, so the app can reopen it as it was left.
    The app keeps one mounted and shows it again (a :class:`ReshownScreen`: not restyled
    whole each time)."""

    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("f1", "app.help", "Help"),
        # No input takes '?', so it opens the help even while typing in a field.
        Binding("question_mark", "app.help", "Help", show=False, priority=True),
        # The form keeps the focus while the results change beside it: page them from there.
        Binding("pagedown", "page_results(1)", "Scroll results", priority=True),
        Binding("pageup", "page_results(-1)", "Scroll results", show=False, priority=True),
    ]
    HIDES_CALCULATOR_KEY = True
    """The calculator is open: ``m`` is not offered (the app's ``check_action`` reads this,
    so that the first frame need not import this module)."""

    def __init__(self, spec: FootprintSpec | None = None) -> None:
        """``spec`` is the scenario to start from (a question's worked example or footprint
        infographic); ``None`` starts from Llama-2-7B with the calculator's defaults."""
        super().__init__()
        self.sections = form_sections()
        self.fields = form_fields()
        self._width = 0
        """The width the results were last drawn for (0: not drawn yet)."""
        self.result: FootprintSpec | None = None
        """The scenario the screen was closed with (``None`` while it is open)."""
        # The widgets by spec key and section, kept as composed (no query per field).
        self._widgets: dict[str, ChoiceField | Input] = {}
        self._labels: dict[str, Label] = {}
        self._parts: dict[str, tuple[Static, Grid]] = {}
        self._report = ReportView(id="fp-output")
        self._form = FormScroll(id="fp-form-scroll")
        self._set_base(spec)

    def _set_base(self, spec: FootprintSpec | None) -> None:
        from quiz.footprint import FootprintSpec

        self.base = spec or FootprintSpec.from_mapping({"model": "llama-2-7b"})
        # The scenario as data, dumped once: every value, and only the ones it sets itself.
        self._base_values = self.base.model_dump()
        self._base_given = self.base.model_dump(exclude_defaults=True)
        self.spec = self.base

    # -- building -----------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        # The layout for the terminal as it is now: the first frame is the final one.
        for name, on_ in layout_classes(self.app.size.width).items():
            self.set_class(on_, name)
        values = {f.key: self._initial(f) for f in self.fields}
        phase = values.get("phase", "both")
        yield TitleBar()
        with Horizontal(id="fp-main"):
            with self._form:
                for section in self.sections:
                    shown = section_shown(section.name, phase)
                    heading = Static(section.title, classes="fp-heading", markup=False,
                                     id=f"fp-heading-{section.name}")
                    heading.display = shown
                    yield heading
                    grid = Grid(classes="fp-form", id=section.widget_id)
                    grid.display = shown
                    self._parts[section.name] = (heading, grid)
                    with grid:
                        for f in section.fields:
                            yield from self._field_widgets(f, values)
            yield self._report
        yield KeyBar()

    def _field_widgets(self, f: Field, values: Mapping[str, str]) -> ComposeResult:
        shown = field_shown(f.key, values)
        label = Label(f.label, classes="fp-label", id=f.label_id, markup=False)
        widget: ChoiceField | Input
        if f.choices is not None:
            widget = ChoiceField(f.field_choices(), values[f.key], id=f.widget_id)
        else:
            widget = FormInput(value=values[f.key], placeholder=f.placeholder,
                               id=f.widget_id, compact=True)
        label.display = widget.display = shown
        self._widgets[f.key] = widget
        self._labels[f.key] = label
        yield label
        yield widget

    def on_mount(self) -> None:
        self.title = "Footprint calculator"
        self._sync_params_input()
        self._widgets[self.fields[0].key].focus()
        self.recompute()

    def show(self, spec: FootprintSpec | None) -> None:
        """Start again from ``spec`` (as :meth:`__init__` does) on a screen made earlier: every
        field set to the scenario's value, the sections it uses shown, the results drawn."""
        self._set_base(spec)
        self.result = None
        for name, on_ in layout_classes(self.app.size.width).items():
            self.set_class(on_, name)
        with self.prevent(Input.Changed, ChoiceField.Changed):
            for f in self.fields:
                widget = self._widget(f)
                widget.value = self._initial(f)
            self._sync_params_input()
        self._update_shown()
        self._report.scroll_home(animate=False)
        self._form.scroll_home(animate=False)
        self._widget(self.fields[0]).focus()
        self.recompute()

    @property
    def report_text(self) -> str:
        """The report shown (for the last valid input while an error stands)."""
        return self._report.report

    @property
    def error_text(self) -> str:
        """What is wrong with the input as shown above the report (empty when nothing is)."""
        return self._report.error_text

    def _widget(self, f: Field) -> ChoiceField | Input:
        return self._widgets[f.key]

    def action_page_results(self, direction: int) -> None:
        """PgDn/PgUp: scroll the results a page, wherever the focus is in the form."""
        output = self._report
        if direction > 0:
            output.scroll_page_down()
        else:
            output.scroll_page_up()

    def _initial(self, f: Field) -> str:
        value = _get(self._base_values, f.key)
        if f.key == "model":
            return value or CUSTOM
        if f.key == "params":
            return "" if self.base.model else (str(value) if value else "")
        if value is None:
            return NONE if f.choices is not None else ""
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    def on_resize(self, event: events.Resize) -> None:
        for name, on_ in layout_classes(event.size.width).items():
            self.set_class(on_, name)
        if report_width(event.size.width) != self._width:
            self.recompute()

    # -- which fields are shown ------------------------------------------------------------------
    def values(self) -> dict[str, str]:
        """The form's raw values by spec key (as typed or chosen)."""
        return {f.key: self._widget(f).value for f in self.fields}

    def _shown_keys(self, values: Mapping[str, str]) -> set[str]:
        phase = values.get("phase", "both")
        return {f.key for s in self.sections if section_shown(s.name, phase)
                for f in s.fields if field_shown(f.key, values)}

    def _update_shown(self) -> None:
        """Show the sections and fields the phase and the fine-tuning method use, hide the
        others (their values stay in their fields)."""
        values = self.values()
        phase = values.get("phase", "both")
        for section in self.sections:
            shown = section_shown(section.name, phase)
            heading, grid = self._parts[section.name]
            heading.display = grid.display = shown
            for f in section.fields:
                on_ = field_shown(f.key, values)
                self._labels[f.key].display = self._widgets[f.key].display = on_

    def _sync_params_input(self) -> None:
        """The parameter count is typed only for a custom model; a preset brings its own, so
        the field is emptied (no stale count is left behind). Switching to a custom model
        starts from the count of the model shown."""
        custom = self._widgets["model"].value == CUSTOM
        params = self._widgets["params"]
        assert isinstance(params, Input)
        params.disabled = not custom
        params.placeholder = "e.g. 7B, 6.7e9" if custom else "from the preset"
        if not custom and params.value:
            params.value = ""
        elif custom and not params.value and self.spec.model is not None:
            params.value = str(self.spec.resolved.params)

    def _label_of(self, key: str) -> str | None:
        """What the form calls the setting ``key``, or ``None`` when the form does not have it
        (the model: its Model select)."""
        return next((f.label for f in self.fields if f.key == key), None)

    # -- recomputation ------------------------------------------------------------------------
    def changes(self, hidden: bool = False) -> dict[str, Any]:
        """The form's values as spec changes (nested by section); blank inputs, inputs still
        as opened, and (unless ``hidden``) fields hidden for this phase keep the scenario's own
        value."""
        values = self.values()
        shown = self._shown_keys(values)
        changes: dict[str, Any] = {}
        for f in self.fields:
            raw = values[f.key]
            value: Any = None if raw in ("", NONE) else raw
            if f.key == "model":
                if value == CUSTOM:
                    changes["model"] = None
                    continue
                changes["model"] = value
                changes["params"] = None
                continue
            if f.key == "params" and changes.get("model"):
                continue
            if value is None or raw == self._initial(f) or not (hidden or f.key in shown):
                # blank, as opened, or hidden: the scenario's own value (a setting it does not
                # give stays unset, so it is not reported as given)
                value = _get(self._base_given, f.key)
            section, _, name = f.key.rpartition(".")
            if section:
                if value is not None:
                    changes.setdefault(section, {})[name] = value
            else:
                changes[name] = value
        return changes

    def recompute(self) -> None:
        """Rebuild the spec from the form and redraw the report, or say what is wrong."""
        from pydantic import ValidationError

        from quiz.footprint import ARCH_FIELDS, estimate, render_report

        custom = self._widgets["model"].value == CUSTOM
        shaped = any(k in self._base_given for k in ARCH_FIELDS)
        if custom and not shaped and not self._widgets["params"].value.strip():
            self._show_error("Params (custom): type a parameter count (e.g. 7B), or choose a "
                             "model preset")
            return
        try:
            spec = self.base.replace(self.changes())
            report = estimate(spec)
        except ValidationError as exc:
            labels = {f.key: f.label for f in self.fields}
            messages = []
            for err in exc.errors(include_url=False):
                key = ".".join(str(p) for p in err["loc"])
                messages.append(f"{labels.get(key, key or 'input')}: {err['msg']}")
            self._show_error("\n".join(messages))
            return
        except ValueError as exc:
            self._show_error(str(exc))
            return
        self.spec = spec
        self._width = report_width(self.app.size.width)
        self._report.show_report(
            render_report(report, width=self._width, units=spec.units, name=self._label_of))

    def _show_error(self, message: str) -> None:
        """Say what is wrong, and mark the result below as belonging to the last valid input."""
        self._report.show_error(message, report_width(self.app.size.width))

    @on(Input.Changed)
    @on(ChoiceField.Changed)
    def _changed(self, event: Input.Changed | ChoiceField.Changed) -> None:
        if isinstance(event, ChoiceField.Changed):
            if event.choice.id == "fp-model":
                self._sync_params_input()
            self._update_shown()
        if self.is_mounted:
            self.recompute()

    # -- the focus ring -------------------------------------------------------------------------
    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The focused field's label is highlighted with it: the row reads as one."""
        self._mark_label(event.widget, True)

    def on_descendant_blur(self, event: events.DescendantBlur) -> None:
        self._mark_label(event.widget, False)

    def _mark_label(self, widget: Any, on_: bool) -> None:
        if isinstance(widget, ChoiceField | Input) and widget.id:
            for label in self.query(f"#{widget.id}-label"):
                label.set_class(on_, "-focused")

    def action_close(self) -> None:
        """Back to where the calculator was opened from, leaving the last valid scenario in
        :attr:`result` (with the values typed into fields this phase hides, when they are
        valid)."""
        from quiz.footprint import estimate

        spec = self.spec
        try:
            whole = self.base.replace(self.changes(hidden=True))
            estimate(whole)
            spec = whole
        except ValueError:  # pydantic's ValidationError is a ValueError
            pass
        self.result = spec
        self.dismiss(None)
