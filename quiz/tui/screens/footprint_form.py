"""The calculator form's field table, built from the spec's own field list
(:func:`quiz.footprint.spec_fields`): every field whose :class:`~quiz.footprint.inputs.fields.Doc`
has a form label becomes a field of the form, in the section of the spec it belongs to. A field
added to the spec with a label appears in its section without any layout work.

Sections, in screen order: the model (top-level fields), then one per nested part of the spec
(``training``, ``inference``, ``storage``, …, in the spec's order), then the GPU and output
fields (top-level fields of the ``output`` group). The training and inference sections are
shown only for the phases that estimate them (:func:`section_shown`); the adapter fields only
for the fine-tuning methods that use them (:data:`SHOWN_WHEN`).

The table is built once per process (:func:`form_sections` is cached): the presets and the
spec's fields do not change while the app runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from quiz.tui.screens.choice_picker import Choice

CUSTOM = "custom"
"""The model choice that means "no preset: use the parameter count typed in"."""
NONE = "__none__"
"""The GPU / KV-precision choice that means "not set"."""
OUTPUT = "output"
"""The section of the GPU and output fields (the ``output`` help group), shown last."""
MODEL = "model"
"""The section of the other top-level fields: the model, its parameter count, the phase."""

TITLES = {MODEL: "Model", "training": "Training", "inference": "Inference",
          "storage": "Storage", OUTPUT: "GPU and units"}
"""Section headings; a section not named here is titled by its name, capitalised."""

PHASES = {"training": ("training", "both"), "inference": ("inference", "both")}
"""The phases that show a section (a section not named here is always shown)."""

SHOWN_WHEN: dict[str, tuple[str, tuple[str, ...]]] = {
    "training.lora_rank": ("training.finetune", ("lora", "qlora")),
    "training.lora_alpha": ("training.finetune", ("lora", "qlora")),
    "training.lora_targets": ("training.finetune", ("lora", "qlora")),
    "training.double_quant": ("training.finetune", ("qlora",)),
}
"""Fields shown only while another field has one of some values (key → (field, values)): the
adapter settings do nothing in a full fine-tune, double quantization only in QLoRA (the same
rules as :func:`quiz.footprint.engine.estimate.unused`)."""


@dataclass(frozen=True)
class Field:
    """One input of the form: the spec key (``section.name`` for nested ones), its label, its
    section, and the choices of a choice field (``None`` for a text input) as (text, value)
    pairs."""

    key: str
    label: str
    choices: tuple[tuple[str, str], ...] | None = None
    placeholder: str = ""
    section: str = MODEL
    short: tuple[str, ...] = ()
    """The text the field shows for each choice, when shorter than the list's (the model and
    GPU presets show their ids: ``llama-3.1-405b``)."""

    @property
    def widget_id(self) -> str:
        """The id of the field's widget: ``fp-training-micro-batch``."""
        return "fp-" + self.key.replace(".", "-").replace("_", "-")

    @property
    def label_id(self) -> str:
        """The id of the field's label."""
        return self.widget_id + "-label"

    def field_choices(self) -> tuple[Choice, ...]:
        """The choices as the choice widget takes them (empty for a text input)."""
        pairs = self.choices or ()
        shorts = self.short or tuple(text for text, _ in pairs)
        return tuple(Choice(value, short, text)
                     for (text, value), short in zip(pairs, shorts, strict=True))


@dataclass(frozen=True)
class Section:
    """A titled group of fields, shown for the phases in :data:`PHASES` (all when absent)."""

    name: str
    title: str
    fields: tuple[Field, ...]

    @property
    def widget_id(self) -> str:
        """The id of the section's grid."""
        return f"fp-section-{self.name}"


def section_shown(section: str, phase: str) -> bool:
    """True when ``section`` is shown for ``phase`` (``training``, ``inference`` or ``both``)."""
    return phase in PHASES.get(section, (phase,))


def field_shown(key: str, values: Mapping[str, str]) -> bool:
    """True when the field ``key`` is shown, given the form's current ``values`` (by key)."""
    rule = SHOWN_WHEN.get(key)
    return rule is None or values.get(rule[0]) in rule[1]


def _preset_choices() -> dict[str, tuple[tuple[tuple[str, str], ...], tuple[str, ...]]]:
    """The model and GPU choices: (list text, value) pairs and the short texts (ids)."""
    from quiz.footprint import gpu_presets, model_presets

    models = model_presets()
    gpus = gpu_presets()
    wide = max(map(len, models))
    model_pairs = tuple((f"{pid:<{wide}}  {p.name}, {p.params / 1e9:.2f}B parameters", pid)
                        for pid, p in models.items()) + (("Custom model", CUSTOM),)
    wide = max(map(len, gpus))
    gpu_pairs = (("none", NONE),) + tuple((f"{gid:<{wide}}  {g.name}", gid)
                                          for gid, g in gpus.items())
    return {
        "model": (model_pairs, (*models, "custom (count below)")),
        "gpu": (gpu_pairs, ("none", *gpus)),
        # A second model (a speculative-decoding draft): a preset or none, never custom.
        "draft_model": ((("none", NONE),) + model_pairs[:-1], ("none", *models)),
    }


@cache
def form_sections() -> tuple[Section, ...]:
    """The form's sections in screen order, each with its fields in the spec's order."""
    from quiz.footprint import spec_fields

    presets = _preset_choices()
    grouped: dict[str, list[Field]] = {}
    for f in spec_fields():
        if f.doc.label is None:
            continue
        section = f.section or (OUTPUT if f.doc.group == OUTPUT else MODEL)
        label = f.doc.label
        field: Field
        if f.kind == "preset":
            pairs, short = presets.get(f.name) or presets["model" if "model" in f.name
                                                           else "gpu"]
            field = Field(f.key, label, pairs, section=section, short=short)
        elif f.kind == "yes_no":
            yes_no: tuple[tuple[str, str], ...] = (("yes", "true"), ("no", "false"))
            if f.default is None:  # "not set": the computed default
                yes_no = ((f"{f.default_text} (default)", NONE),) + yes_no
            field = Field(f.key, label, yes_no, section=section)
        elif f.choices:
            choices = tuple((c, c) for c in f.choices)
            if f.default is None:  # "not set": the computed default
                choices = ((f"{f.default_text} (default)", NONE),) + choices
            field = Field(f.key, label, choices, section=section)
        else:
            field = Field(f.key, label, placeholder=f.default_text or "", section=section)
        grouped.setdefault(section, []).append(field)
    order = [MODEL, *(s for s in grouped if s not in (MODEL, OUTPUT)), OUTPUT]
    return tuple(Section(name, TITLES.get(name, name.capitalize()), tuple(grouped[name]))
                 for name in order if name in grouped)


def form_fields() -> list[Field]:
    """The calculator's inputs, in screen order: the sections' fields one after another (the
    output fields, GPU and units, last)."""
    return [f for section in form_sections() for f in section.fields]
