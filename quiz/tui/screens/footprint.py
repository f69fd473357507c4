"""The footprint calculator screen: inputs on the left (or on top in a narrow terminal), the
calculator's items table, stacked bars and devices needed on the right, recomputed on every
change. Opened from a question, it starts from that question's worked example."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Label, Select, Static

from quiz.tui.content import literal
from quiz.tui.widgets.key_bar import KeyBar
from quiz.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from quiz.footprint import FootprintSpec

CUSTOM = "custom"
"""The model choice that means "no preset: use the parameter count typed in"."""
NONE = "__none__"
"""The GPU / KV-precision choice that means "not set"."""


@dataclass(frozen=True)
class Field:
    """One input of the form: the spec key (``section.name`` for nested ones), its label, and
    the choices of a select (``None`` for a text input)."""

    key: str
    label: str
    choices: tuple[tuple[str, str], ...] | None = None
    placeholder: str = ""

    @property
    def widget_id(self) -> str:
        return "fp-" + self.key.replace(".", "-").replace("_", "-")


def form_fields() -> list[Field]:
    """The calculator's inputs, in screen order: every spec field whose
    :class:`~quiz.footprint.inputs.fields.Doc` has a form label
    (:func:`quiz.footprint.inputs.spec.spec_fields`),
    the output fields (GPU, units) last."""
    from quiz.footprint import gpu_presets, model_presets, spec_fields

    presets = {
        "model": tuple((f"{p.name} ({p.params / 1e9:.2f}B)", pid)
                       for pid, p in model_presets().items()) + (("Custom model", CUSTOM),),
        "gpu": (("none", NONE),) + tuple((g.name, gid) for gid, g in gpu_presets().items()),
    }
    presets["draft_model"] = (("none", NONE),) + presets["model"][:-1]  # no custom draft
    shown = [f for f in spec_fields() if f.doc.label is not None]
    shown.sort(key=lambda f: f.doc.group == "output")  # stable: the output fields go last
    out: list[Field] = []
    for f in shown:
        label = f.doc.label or f.name
        if f.kind == "preset":
            out.append(Field(f.key, label, presets[f.name]))
        elif f.kind == "yes_no":
            yes_no: tuple[tuple[str, str], ...] = (("yes", "true"), ("no", "false"))
            if f.default is None:  # "not set": the computed default (zero.Init)
                yes_no = ((f"{f.default_text} (default)", NONE),) + yes_no
            out.append(Field(f.key, label, yes_no))
        elif f.choices:
            choices = tuple((c, c) for c in f.choices)
            if f.default is None:  # "not set": the computed default
                choices = ((f"{f.default_text} (default)", NONE),) + choices
            out.append(Field(f.key, label, choices))
        else:
            out.append(Field(f.key, label, placeholder=f.default_text or ""))
    return out


def _get(data: Mapping[str, Any], key: str) -> Any:
    section, _, name = key.rpartition(".")
    source = data.get(section, {}) if section else data
    return source.get(name) if isinstance(source, Mapping) else None


class FootprintScreen(Screen["FootprintSpec"]):
    """Training vs inference memory for a model, with every number's derivation. Closing it
    returns the last valid scenario, so the app can reopen it as it was left."""

    BINDINGS = [
        Binding("escape", "close", "Back"),
        Binding("f1", "app.help", "Help"),
        # No input takes '?', so it opens the help even while typing in a field.
        Binding("question_mark", "app.help", "Help", show=False, priority=True),
        # The form keeps the focus while the results change beside it: page them from there.
        Binding("pagedown", "page_results(1)", "Scroll results", priority=True),
        Binding("pageup", "page_results(-1)", "Scroll results", show=False, priority=True),
    ]

    def __init__(self, spec: FootprintSpec | None = None) -> None:
        """``spec`` is the scenario to start from (a question's worked example or footprint
        infographic); ``None`` starts from Llama-2-7B with the calculator's defaults."""
        super().__init__()
        from quiz.footprint import FootprintSpec

        self.base = spec or FootprintSpec.from_mapping({"model": "llama-2-7b"})
        # The scenario as data, dumped once: every value, and only the ones it sets itself.
        self._base_values = self.base.model_dump()
        self._base_given = self.base.model_dump(exclude_defaults=True)
        self.fields = form_fields()
        self.spec = self.base

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="fp-main"):
            with VerticalScroll(id="fp-form-scroll"), Grid(id="fp-form"):
                for f in self.fields:
                    yield Label(f.label, classes="fp-label")
                    if f.choices is not None:
                        yield Select(f.choices, value=self._initial(f), allow_blank=False,
                                     id=f.widget_id, compact=True)
                    else:
                        yield Input(value=self._initial(f), placeholder=f.placeholder,
                                    id=f.widget_id, compact=True)
            with VerticalScroll(id="fp-output"):
                yield Static(id="fp-error", markup=False)
                yield Static(id="fp-report", markup=False)
        yield KeyBar()

    def action_page_results(self, direction: int) -> None:
        """PgDn/PgUp: scroll the results a page, wherever the focus is in the form."""
        output = self.query_one("#fp-output", VerticalScroll)
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

    def on_mount(self) -> None:
        self.title = "Footprint calculator"
        self._sync_params_input()
        self.query_one(f"#{self.fields[0].widget_id}").focus()
        self.recompute()

    def on_resize(self) -> None:
        self.set_class(self.size.width < 100, "-narrow")
        self.set_class(self.size.width < 64, "-tiny")
        self.call_after_refresh(self.recompute)

    def _sync_params_input(self) -> None:
        """The parameter count is typed only for a custom model; a preset brings its own, so
        the field is emptied (no stale count is left behind). Switching to a custom model
        starts from the count of the model shown."""
        custom = self.query_one("#fp-model", Select).value == CUSTOM
        params = self.query_one("#fp-params", Input)
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
    def changes(self) -> dict[str, Any]:
        """The form's values as spec changes (nested by section); blank inputs, and inputs still
        as opened, keep the scenario's own value."""
        changes: dict[str, Any] = {}
        for f in self.fields:
            widget = self.query_one(f"#{f.widget_id}")
            raw = widget.value if isinstance(widget, Input | Select) else None
            value: Any = None if raw in ("", NONE, Select.NULL) else raw
            if f.key == "model":
                if value == CUSTOM:
                    changes["model"] = None
                    continue
                changes["model"] = value
                changes["params"] = None
                continue
            if f.key == "params" and changes.get("model"):
                continue
            if value is None or raw == self._initial(f):
                # blank or as opened: the scenario's own value (a setting it does not give
                # stays unset, so it is not reported as given)
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

        from quiz.footprint import estimate, render_report

        error = self.query_one("#fp-error", Static)
        report_view = self.query_one("#fp-report", Static)
        custom = self.query_one("#fp-model", Select).value == CUSTOM
        from quiz.footprint import ARCH_FIELDS

        shaped = any(k in self._base_given for k in ARCH_FIELDS)
        if custom and not shaped and not self.query_one("#fp-params", Input).value.strip():
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
        error.update("")
        error.remove_class("-shown")
        report_view.remove_class("-stale")
        output = self.query_one("#fp-output")
        width = max(report_view.size.width or output.size.width - 2, 24)
        report_view.update(literal(render_report(report, width=width, units=spec.units,
                                                 name=self._label_of)))

    def _show_error(self, message: str) -> None:
        """Say what is wrong, and mark the result below as belonging to the last valid input."""
        error = self.query_one("#fp-error", Static)
        error.update(literal(message + "\n(The result below is for the last valid input.)"))
        error.add_class("-shown")
        self.query_one("#fp-report", Static).add_class("-stale")

    @on(Input.Changed)
    @on(Select.Changed)
    def _changed(self, event: Input.Changed | Select.Changed) -> None:
        if isinstance(event, Select.Changed) and event.select.id == "fp-model":
            self._sync_params_input()
        if self.is_mounted:
            self.recompute()

    def action_close(self) -> None:
        """Back to where the calculator was opened from, handing back the last valid
        scenario."""
        self.dismiss(self.spec)
