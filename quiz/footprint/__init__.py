"""The footprint calculator: training vs inference memory and storage, with derivations.

A pure core (no Textual, no rich): :class:`FootprintSpec` says what to estimate,
:func:`estimate` returns a :class:`Report` of items with exact byte counts, formulas and sources,
and :func:`render_report` draws it as plain text. Importing this package is cheap: the names
below are loaded on first use; code outside the calculator imports them from here.

Layers, listed from the bottom (no module imports one below it in this list, except that the
engine reads the header lines of ``words.headlines`` and ``words`` reads the report; no import
cycle, counting every import: ``tests/test_import_cycles.py``):

``inputs``
    units, architectures, presets, the form's fields, the spec and its validity rules.
``quant``
    weight quantization: storage layouts, GGUF types, the named schemes, a model's plan.
``items``
    the memory items, one module per quantity (model states, activations, adapters, offload,
    inference weights and KV cache, serving working memory, storage), as
    :class:`~quiz.footprint.items.item.Item` values.
``compute``
    FLOPs, training time, the decode roofline (also Items, in their units).
``words``
    everything said in sentences: the header lines (``headlines``, read by the engine when a
    report is shown), ``--explain`` notes, rendering.
``engine``
    :func:`estimate` and the fit (fewest GPUs); the :class:`Report`.

    >>> from quiz.footprint import FootprintSpec, estimate, render_report
    >>> report = estimate(FootprintSpec.from_mapping({"model": "llama-2-7b"}))
    >>> report.inference.item("weights").bytes
    13476831232
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

_EXPORTS = {
    "FootprintSpec": "quiz.footprint.inputs.spec",
    "TrainingSpec": "quiz.footprint.inputs.parts",
    "InferenceSpec": "quiz.footprint.inputs.parts",
    "StorageSpec": "quiz.footprint.inputs.parts",
    "estimate": "quiz.footprint.engine.estimate",
    "Report": "quiz.footprint.engine.report",
    "FIGURE_NAMES": "quiz.footprint.engine.report",
    "PhaseEstimate": "quiz.footprint.engine.report",
    "StorageEstimate": "quiz.footprint.engine.report",
    "Item": "quiz.footprint.items.item",
    "Omitted": "quiz.footprint.items.item",
    "ModelSummary": "quiz.footprint.engine.report",
    "render_report": "quiz.footprint.words.render",
    "render_bars": "quiz.footprint.words.render",
    "render_table": "quiz.footprint.words.render",
    "derivation_steps": "quiz.footprint.words.render",
    "explain_notes": "quiz.footprint.words.explain",
    "format_bytes": "quiz.footprint.inputs.units",
    "format_count": "quiz.footprint.inputs.units",
    "format_in": "quiz.footprint.inputs.units",
    "parse_count": "quiz.footprint.inputs.units",
    "parse_size": "quiz.footprint.inputs.units",
    "parse_bool": "quiz.footprint.inputs.units",
    "spec_fields": "quiz.footprint.inputs.spec",
    "ARCH_FIELDS": "quiz.footprint.inputs.fields",
    "model_presets": "quiz.footprint.inputs.presets",
    "gpu_presets": "quiz.footprint.inputs.presets",
}

__all__ = [
    "ARCH_FIELDS",
    "FIGURE_NAMES",
    "FootprintSpec",
    "InferenceSpec",
    "Item",
    "ModelSummary",
    "Omitted",
    "PhaseEstimate",
    "Report",
    "StorageEstimate",
    "StorageSpec",
    "TrainingSpec",
    "derivation_steps",
    "estimate",
    "explain_notes",
    "format_bytes",
    "format_count",
    "format_in",
    "gpu_presets",
    "model_presets",
    "parse_bool",
    "parse_count",
    "parse_size",
    "render_bars",
    "render_report",
    "render_table",
    "spec_fields",
]

if TYPE_CHECKING:
    from quiz.footprint.engine.estimate import estimate
    from quiz.footprint.engine.report import (
        FIGURE_NAMES,
        ModelSummary,
        PhaseEstimate,
        Report,
        StorageEstimate,
    )
    from quiz.footprint.inputs.fields import ARCH_FIELDS
    from quiz.footprint.inputs.parts import InferenceSpec, StorageSpec, TrainingSpec
    from quiz.footprint.inputs.presets import gpu_presets, model_presets
    from quiz.footprint.inputs.spec import FootprintSpec, spec_fields
    from quiz.footprint.inputs.units import (
        format_bytes,
        format_count,
        format_in,
        parse_bool,
        parse_count,
        parse_size,
    )
    from quiz.footprint.items.item import Item, Omitted
    from quiz.footprint.words.explain import explain_notes
    from quiz.footprint.words.render import (
        derivation_steps,
        render_bars,
        render_report,
        render_table,
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'quiz.footprint' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
