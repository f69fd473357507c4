"""The words of issue 21 §6's conventions and formats in the text report and ``--explain``:
the CPU RAM while the model loads (:mod:`quiz.footprint.items.load_ram`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import format_bytes
from quiz.footprint.items.item import make_item

if TYPE_CHECKING:
    from quiz.footprint.engine.report import Report

LOAD_KEYS = ("zero_init", "gpus_per_node")
"""The training settings that ask for the load-time CPU RAM table in the text report."""


def wants_load(report: Report) -> bool:
    """Whether the text report shows the load-time CPU RAM: training is estimated and
    ``zero_init`` or ``gpus_per_node`` was given (``--explain`` and the JSON always have it)."""
    t = report.spec.training
    return report.training is not None and any(k in t.model_fields_set for k in LOAD_KEYS)


def load_lines(report: Report, units: str, width: int,
               render_table: Callable[..., str]) -> list[str]:
    """The text report's "CPU RAM while the model loads" table (one row per process, the total
    per node; drawn by ``render_table``, :func:`quiz.footprint.words.render.render_table`), or
    ``[]`` when :func:`wants_load` is false."""
    if not wants_load(report):
        return []
    from quiz.footprint.items.load_ram import load_ram

    ram = load_ram(report.spec.training, report.spec.resolved)
    how = "with zero.Init" if ram.zero_init else "without zero.Init"
    item = make_item("model_load_per_process", ram.per_process, ram.formula, ram.source)
    nodes = f", {ram.nodes} nodes" if ram.nodes > 1 else ""
    return ["", f"CPU RAM while the model loads ({how}) — per node{nodes}",
            render_table([item], ram.per_node, f"per node ({ram.gpus_per_node} processes)",
                         width=width, units=units)]


def format_notes(report: Report, units: str = "GB") -> list[str]:
    """``--explain`` notes of §6: uneven pipeline stages, and the load-time CPU RAM (for
    training on more than one device, or when its settings were given)."""
    if report.training is None:
        return []
    t, r = report.spec.training, report.spec.resolved
    notes = []
    from quiz.footprint.items.pipeline import UNIFORM_SRC, layers_held, stages_text, uneven

    if uneven(t, r):
        notes.append(
            f"Uneven pipeline stages: {stages_text(t, r)} ({UNIFORM_SRC}; Megatron-LM asks "
            "where the extra layers go with --decoder-first-pipeline-num-layers and "
            "--decoder-last-pipeline-num-layers). The figures are the first stage's, the "
            "heaviest: the most layers, so the largest share of the model states (the "
            "parameters × ⌈L/p⌉ / L, the embedding and LM head spread in proportion as the even "
            "split's ÷ pp does), and the most micro-batches in flight in 1F1B, so "
            f"{t.pp} × ⌈L/p⌉ = {layers_held(t, r)} layers' worth of activations instead of "
            f"{r.layers}.")
    if t.devices > 1 or wants_load(report):
        from quiz.footprint.items.load_ram import load_note

        notes.append(load_note(t, r, lambda n: format_bytes(n, units)))
    return notes
