"""Plain-text rendering of a report: tables, stacked bars, derivation steps (no rich, no Textual).

Every line of :func:`render_report` and :func:`render_bars` fits in ``width`` terminal cells
(box-drawing and block characters count one cell each). Sizes are printed with
:func:`~quiz.footprint.inputs.units.format_bytes`: ``GB`` = 10^9 bytes, ``GiB`` = 2^30 bytes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING

from quiz.footprint.inputs.units import (
    count_noun,
    format_bytes,
    format_count,
    format_short,
    unit_base,
)

if TYPE_CHECKING:
    from quiz.footprint.engine.report import PhaseEstimate, Report
    from quiz.footprint.items.item import Item, Omitted

__all__ = ["derivation_steps", "format_bytes", "render_bars", "render_report", "render_table"]

MIN_WIDTH = 30
"""Narrowest output produced; a smaller ``width`` is raised to this."""

FILL = {
    "weights": "█",
    "quantization_overhead": "▀",
    "fp8_weights": "▛",
    "gathered_layer": "▌",
    "adapter_weights": "▜",
    "gradients": "▓",
    "fp32_gradients": "▐",
    "master_weights": "▒",
    "optimizer_states": "░",
    "load_fp32_copy": "▖",
    "estimator_margin": "▗",
    "activations": "▚",
    "embedding_activations": "▞",
    "output_activations": "▞",
    "logits": "▙",
    "kv_cache": "▄",
    "draft_weights": "▆",
    "draft_kv_cache": "▃",
    "ssm_state": "▟",
    "framework_overhead": "▙",
    "dataset": "▓",
    "checkpoints": "▒",
    "inference_artifact": "█",
}
"""Fill character of each item in the stacked bars (the same item looks the same in every bar)."""

_PHASE_TITLE = {"training": "Training", "inference": "Inference"}
_HOST_TITLE = {"cpu": "CPU RAM", "nvme": "NVMe"}


def _label(name: str) -> str:
    return name.replace("_", " ")


def _wrap(text: str, width: int, indent: str = "") -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=" " * len(indent),
        break_on_hyphens=False,
    ) or [""]


def render_table(
    items: list[Item], total: int, total_label: str, *, width: int = 80, units: str = "GB"
) -> str:
    """A box-drawn table of ``items`` (item, size, formula) with a total row.

    The formula column takes the remaining width and wraps. Raises ``ValueError`` for units other
    than ``"GB"``/``"GiB"``.
    """
    width = max(width, MIN_WIDTH)
    names = [_label(i.name) for i in items] + ["item", "total"]
    sizes = [format_bytes(i.bytes, units) for i in items] + [format_bytes(total, units)]
    nw = max(len(n) for n in names)
    sw = max(max(len(s) for s in sizes), len("size"))
    fw = width - nw - sw - 10
    if fw < 28:  # narrow: each formula on its own full-width rows under its item
        return _narrow_table(items, sizes, total_label, nw, sw, width)

    def row(a: str, b: str, c: str) -> str:
        return f"│ {a:<{nw}} │ {b:>{sw}} │ {c:<{fw}} │"

    def rule(left: str, mid: str, right: str) -> str:
        return f"{left}{'─' * (nw + 2)}{mid}{'─' * (sw + 2)}{mid}{'─' * (fw + 2)}{right}"

    lines = [rule("┌", "┬", "┐"), row("item", "size", "formula"), rule("├", "┼", "┤")]
    for item, size in zip(items, sizes, strict=False):
        for k, part in enumerate(_wrap(item.formula, fw)):
            lines.append(row(_label(item.name) if k == 0 else "", size if k == 0 else "", part))
    lines.append(rule("├", "┼", "┤"))
    for k, part in enumerate(_wrap(total_label, fw)):
        lines.append(row("total" if k == 0 else "", sizes[-1] if k == 0 else "", part))
    lines.append(rule("└", "┴", "┘"))
    return "\n".join(lines)


def _narrow_table(
    items: list[Item], sizes: list[str], total_label: str, nw: int, sw: int, width: int
) -> str:
    inner = width - 4
    if nw + sw + 3 > inner:  # huge sizes: each size on its own line under its item
        return _stacked_table(items, sizes, total_label, inner)
    nw = max(nw, inner - sw - 3)

    def row(a: str, b: str) -> str:
        return f"│ {a:<{nw}} │ {b:>{sw}} │"

    def span(text: str) -> list[str]:
        return [f"│ {part:<{nw + sw + 3}} │" for part in _wrap(text, nw + sw + 3, "  ")]

    rule = f"├{'─' * (nw + 2)}┼{'─' * (sw + 2)}┤"
    lines = [f"┌{'─' * (nw + 2)}┬{'─' * (sw + 2)}┐", row("item", "size"), rule]
    for item, size in zip(items, sizes, strict=False):
        lines.append(row(_label(item.name), size))
        lines += span(item.formula)
    lines.append(rule)
    lines.append(row("total", sizes[-1]))
    lines += span(total_label)
    lines.append(f"└{'─' * (nw + 2)}┴{'─' * (sw + 2)}┘")
    return "\n".join(lines)


def _stacked_table(items: list[Item], sizes: list[str], total_label: str, inner: int) -> str:
    """One column: the item's name, its size right-aligned on the next line, then its formula
    (for sizes too long to share a line with the name in a narrow terminal)."""

    def line(text: str, align: str = "<") -> str:
        return f"│ {text:{align}{inner}} │"

    def block(name: str, size: str, text: str) -> list[str]:
        out = [line(name)]
        out += [line(part, ">") for part in _wrap(size, inner)]
        out += [line(part) for part in _wrap(text, inner, "  ")]
        return out

    rule = f"├{'─' * (inner + 2)}┤"
    lines = [f"┌{'─' * (inner + 2)}┐", line("item" + "size".rjust(inner - 4)), rule]
    for item, size in zip(items, sizes, strict=False):
        lines += block(_label(item.name), size, item.formula)
    lines.append(rule)
    lines += block("total", sizes[-1], total_label)
    lines.append(f"└{'─' * (inner + 2)}┘")
    return "\n".join(lines)


def _cells(items: list[Item], scale: Fraction) -> list[int]:
    """Cells per item on a bar: the bar is round(total / scale) cells long, shared by largest
    remainder so the parts always add up to the whole bar (exact arithmetic, no floats)."""
    total = sum(i.bytes for i in items)
    n = round(total / scale) if scale else 0
    if total <= 0 or n <= 0:
        return [0] * len(items)
    exact = [Fraction(i.bytes * n, total) for i in items]
    cells = [int(x) for x in exact]
    order = sorted(range(len(items)), key=lambda k: exact[k] - cells[k], reverse=True)
    for k in order[: n - sum(cells)]:
        cells[k] += 1
    return cells


def _bar(items: list[Item], scale: Fraction) -> str:
    return "".join(
        FILL.get(i.name, "#") * c for i, c in zip(items, _cells(items, scale), strict=True)
    )


def _legend(rows: list[tuple[str, list[Item]]], scale: Fraction, width: int, indent: int,
            units: str) -> list[str]:
    """The legend under bars drawn at ``scale``: a glyph and a name for each item drawn on some
    bar (so every glyph listed can be seen), then, per bar, the items too small for one cell
    on it, with their sizes."""
    drawn: dict[str, None] = {}
    small: list[tuple[str, list[str]]] = []
    for label, items in rows:
        tiny = []
        for item, cells in zip(items, _cells(items, scale), strict=True):
            if cells:
                drawn.setdefault(item.name, None)
            elif item.bytes > 0:
                tiny.append(f"{_label(item.name)} {format_bytes(item.bytes, units)}".replace(
                    " ", "\u00a0"))
        if tiny:
            small.append((label, tiny))
    lines: list[str] = []

    def flow(entries: list[str], sep: str) -> None:
        line = " " * indent
        for k, entry in enumerate(entries):
            text = entry + (sep if k < len(entries) - 1 else "")
            if len(line) + len(text) > width and line.strip():
                lines.append(line.rstrip())
                line = " " * indent
            line += text
        lines.append(line.rstrip())

    flow([f"{FILL.get(name, '#')} {_label(name)}" for name in drawn], "  ")
    for label, tiny in small:
        where = f"{label}, " if len(rows) > 1 else ""
        # A size never parts from its unit: no-break spaces while wrapping (textwrap breaks
        # only at ASCII whitespace).
        text = f"under one cell ({where}not drawn): " + ", ".join(tiny)
        lines += [part.replace("\u00a0", " ") for part in textwrap.wrap(
            text, width, initial_indent=" " * indent, subsequent_indent=" " * (indent + 2),
            break_on_hyphens=False)]
    return lines


def _bars_block(
    rows: list[tuple[str, list[Item], int]],
    width: int,
    units: str,
    title: str,
    marker: tuple[str, int] | None = None,
) -> list[str]:
    label_w = max(len(label) for label, _, _ in rows) + 1
    sizes = [format_bytes(total, units) for _, _, total in rows]
    size_w = max(len(s) for s in sizes) + 1
    inline = width - label_w - size_w >= 10  # else each size goes on its own line
    if not inline:
        size_w = 0
    bar_w = width - label_w - size_w
    top = max([total for _, _, total in rows] + ([marker[1]] if marker else []))
    scale = Fraction(top, bar_w) if top else Fraction(1)
    cell = format_bytes(round(scale), units) if scale >= 1 else "<1 B"
    lines = _wrap(f"{title}: one cell ≈ {cell}", width)
    for (label, items, _total), size in zip(rows, sizes, strict=True):
        bar = _bar(items, scale)
        if inline:
            lines.append(f"{label:<{label_w}}{bar:<{bar_w}}{size:>{size_w}}")
        else:
            lines.append(f"{label:<{label_w}}{bar}".rstrip())
            lines += [f"{part:>{width}}" for part in _wrap(size, width)]
    if marker:
        name, memory = marker
        pos = min(max(round(memory / scale) - 1, 0), bar_w - 1)
        text = f"{name}: {format_bytes(memory, units)}"
        if pos + len(text) + 2 <= bar_w + size_w:
            lines.append(" " * (label_w + pos) + "▲ " + text)
        elif len(text) + 2 <= label_w + pos + 1:
            lines.append(" " * (label_w + pos - len(text) - 1) + text + " ▲")
        else:
            lines.append(" " * (label_w + pos) + "▲")
            lines.extend(_wrap("▲ " + text, width, " " * label_w))
    lines.extend(_legend([(label, items) for label, items, _ in rows], scale, width, label_w,
                         units))
    return lines


def render_bars(report: Report, *, width: int, units: str = "GB", timing: bool = False) -> str:
    """The stacked bars of a report with their legend — the "footprint" infographic.

    One bar per memory phase, training and inference on the same scale (with the GPU's memory
    marked when a GPU preset is set); then, when there is storage, one storage bar on its own
    scale. Every line fits in ``width`` cells (at least :data:`MIN_WIDTH`). With ``timing``,
    the time and throughput figures go beside the memory bars (:func:`compute_lines`): the
    report of ``quiz footprint`` and the app's calculator show them, a bank's infographic with
    ``compute: true``.
    """
    width = max(width, MIN_WIDTH)
    lines: list[str] = []
    phases = report.phases
    if phases:
        rows = [(p.phase, p.items, p.total_bytes) for p in phases]
        marker = (report.gpu.name, report.gpu.memory_bytes) if report.gpu else None
        lines += _bars_block(rows, width, units, "Memory per device, one scale", marker)
        host = [(f"{_HOST_TITLE[where]}", items, sum(i.bytes for i in items))
                for p in phases for where, items in p.host.items() if items]
        if host:
            lines.append("")
            lines += _bars_block(host, width, units, "Offloaded, per GPU, own scale")
    timed = compute_lines(report, width) if timing else []
    if timed:
        if lines:
            lines.append("")
        lines += timed
    if report.storage and report.storage.items:
        if lines:
            lines.append("")
        rows = [("storage", report.storage.items, report.storage.total_bytes)]
        lines += _bars_block(rows, width, units, "Storage on disk, own scale")
    return "\n".join(lines)


def compute_lines(report: Report, width: int) -> list[str]:
    """The chart's time and throughput beside its memory bars (issue 12 §5): one short line per
    compute figure of the report — the training time with its GPUs and MFU, the FLOPs, the decode
    upper bound and its crossover batch — each within ``width`` cells; ``[]`` when the report
    has neither a training time nor a decode throughput (both need a GPU preset)."""
    from quiz.footprint.compute.figures import duration_text

    figures = {q.name: q.value for q in report.compute}
    if "training_time" not in figures and "decode_tokens_per_s" not in figures:
        return []  # FLOPs alone are neither a time nor a throughput
    spec = report.spec
    out: list[str] = []

    def flops(n: int) -> str:
        return f"{n:.3g}".replace("e+", "e") + " FLOPs"

    if "training_time" in figures:
        t = spec.training
        out.append(f"training  {duration_text(figures['training_time'])} on "
                   f"{count_noun(t.devices, 'GPU')} at MFU {t.mfu:g}"
                   + (f" ({flops(figures['training_flops'])})" if "training_flops" in figures
                      else ""))
    elif "training_flops" in figures:
        out.append(f"training  {flops(figures['training_flops'])}")
    if "prefill_flops" in figures:
        inf = spec.inference
        out.append(f"prefill   {flops(figures['prefill_flops'])} for batch "
                   f"{format_count(inf.batch)} × {count_noun(inf.context, 'token')}")
    if "decode_tokens_per_s" in figures:
        text = f"decode    ≤ {format_count(figures['decode_tokens_per_s'])} tokens/s"
        if "decode_crossover_batch" in figures:
            text += (f", memory-bound below batch "
                     f"{format_count(figures['decode_crossover_batch'])}")
        out.append(text)
    lines = _wrap("Time and throughput (formulas in the report):", width)
    for line in out:
        lines += textwrap.wrap(line, width, subsequent_indent=" " * 10, break_on_hyphens=False)
    return lines


def _phase_total_label(phase: PhaseEstimate, known: bool = False) -> str:
    if phase.phase == "training":
        label = f"per device ({count_noun(phase.devices, 'device')} in this layout)"
    else:
        label = "one model replica"
    if not phase.complete:
        label += f"; {incomplete_text(phase, known=known)}"
    return label


def _known(report: Report) -> bool:
    """Whether the model's architecture is known (then a missing item is one not modelled for
    it, such as a Mamba layer's activations, rather than one that needs more input)."""
    return report.spec.resolved.arch is not None


def incomplete_text(phase: PhaseEstimate, hint: bool = True, known: bool = False) -> str:
    """What a phase's total leaves out, for the total row and the fit line: ``"model states
    only: activations not estimated, give an architecture"``; with ``known`` (the architecture
    is known) ``"... not estimated: not modelled for this architecture"``; empty when it is
    complete."""
    if phase.complete:
        return ""
    names = [_label(n) for n in phase.not_estimated]
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    layers = {"activations", "output_activations", "logits", "embedding_activations",
              "kv_cache"}
    counted = ("model states only" if phase.phase == "training" else "weights only") \
        if set(phase.not_estimated) <= layers else "a partial count"
    how = ""
    if set(phase.not_estimated) <= layers and known:
        how = ": not modelled for this architecture"
    elif set(phase.not_estimated) <= layers:
        how = ", give an architecture"
        if hint:
            how += ": a model preset, --config, or --layers --hidden --heads"
    return f"{counted}: {listed} not estimated{how}"


def _fit_lines(report: Report, phase: PhaseEstimate, units: str, width: int) -> list[str]:
    gpu = report.gpu
    if gpu is None or phase.headroom is None:
        return []
    mem = format_bytes(gpu.memory_bytes, units)
    usable = ""
    if phase.usable_bytes is not None:
        from quiz.footprint.engine.fit import usable_text

        usable = (f", {format_bytes(phase.usable_bytes, units)} usable: "
                  + usable_text(gpu.memory_bytes, phase.phase, report.spec.gpu_util, gpu.unified))
    each = f"{mem} each{usable}"
    mem += usable
    if phase.phase == "training":
        if phase.headroom >= 0:
            text = f"fits on each {gpu.name} ({mem}): {format_bytes(phase.headroom, units)} free"
        else:
            text = (
                f"does not fit on one {gpu.name} ({mem}): "
                f"{format_bytes(-phase.headroom, units)} short per device"
            )
        if not phase.complete:
            text = f"{incomplete_text(phase, hint=False, known=_known(report))}; {text}"
        if phase.gpus_needed is None:
            text += f"; {phase.fit_advice}"
        elif not phase.complete:
            text += (f"; fewest GPUs: at least {format_count(phase.gpus_needed)}, from the "
                     f"incomplete total ({phase.fit_advice})")
        else:
            text += f"; fewest GPUs: {format_count(phase.gpus_needed)} ({phase.fit_advice})"
    else:
        n = phase.gpus_needed or 0
        text = (
            f"needs {format_count(n)} × {gpu.name} ({each}): "
            f"{format_bytes(phase.headroom, units)} free in total"
        )
        if phase.fit_advice:
            text += f" ({phase.fit_advice})"
        most, longest = phase.capacity
        if most is not None and longest is not None:
            spec = report.spec.inference
            text += (f"; capacity on these GPUs: at most {count_noun(most, 'sequence')} of "
                     f"{count_noun(spec.context, 'token')}, or {count_noun(spec.batch, 'sequence')}"
                     f" of at most {count_noun(longest, 'token')} (KV cache in blocks of "
                     f"{format_count(spec.kv_block)})")
        if not phase.complete:
            text = f"{incomplete_text(phase, hint=False, known=_known(report))}; {text}"
    return _wrap("Fit: " + text, width)


def quantity_text(value: int, unit: str) -> str:
    """A compute figure as printed: ``"2.50e22 FLOPs (25,000,000,000,000,000,000,000)"``,
    ``"3,600 s (1 h)"``, ``"1,234 tokens/s"``, ``"296 sequences"``."""
    from quiz.footprint.compute.figures import duration_text

    if unit == "FLOPs":
        return f"{format_count(value)} FLOPs ({value:.3g})".replace("e+", "e")
    if unit == "s":
        return f"{format_count(value)} s ({duration_text(value)})"
    return f"{format_count(value)} {unit}"


def omitted_text(o: Omitted, name: Callable[[str], str | None] | None = None) -> str:
    """Why ``o`` is missing. Without ``name``: its full ``reason`` (flags named). With ``name``
    (a spec key → what the user can set where they are, or ``None`` when they cannot), the
    ``cause`` and the settings of ``needs`` that can be set there — "choose a model preset" for a
    model, the others by their names — or the cause alone when none can."""
    if name is None or not o.needs:
        return o.reason
    names = [n for n in (name(k) for k in o.needs if k != "model") if n]
    wants = (["choose a model preset"] if "model" in o.needs and name("model") else [])
    wants += [f"set {', '.join(names)}"] if names else []
    return f"{o.cause}: {' or '.join(wants)}" if wants else o.cause


def setting_lines(report: Report, name: Callable[[str], str | None] | None = None) -> list[str]:
    """One line per setting given that does nothing in this case (:attr:`Report.unused`),
    naming it with ``name(key)`` — a flag on the command line, a label in the app; the bank key
    (``inference.group_size``) by default."""
    return [f"{(name(u.key) if name else None) or u.key}: {u.reason}" for u in report.unused]


def render_report(
    report: Report, *, width: int = 80, units: str = "GB", explain: bool = False,
    name: Callable[[str], str | None] | None = None,
) -> str:
    """The human output of ``quiz footprint``: the model, a table per phase (item, size,
    formula) with its fit, the storage table, the stacked bars (training and inference on the
    same scale), what was omitted and why, and the conventions; with ``explain``, how common
    tools would count the same case (:func:`quiz.footprint.words.explain.explain_notes`). Warnings
    (figures beyond physical sense) and the settings that do nothing here come first, each
    setting named by ``name(key)`` (:func:`setting_lines`).

    Raises:
        ValueError: ``units`` other than ``"GB"`` or ``"GiB"``.
    """
    width = max(width, MIN_WIDTH)
    unit_base(units)
    m = report.model
    head = f"{m.name} — {count_noun(m.params, 'parameter')} ({format_short(m.params)})"
    if m.active_params != m.params:
        head += f", {format_count(m.active_params)} active per token"
    out = _wrap(head, width)
    for warning in report.warnings:
        out += _wrap(f"Warning: {warning}", width, "")
    unused = setting_lines(report, name)
    if unused:
        out.append("Given but not used in this case:")
        for line in unused:
            out += _wrap(line, width, "- ")
    for phase in report.phases:
        out.append("")
        out += _wrap(f"{_PHASE_TITLE[phase.phase]} — {phase.setup}", width)
        out.append(
            render_table(phase.items, phase.total_bytes, _phase_total_label(phase, _known(report)),
                         width=width, units=units)
        )
        out += _fit_lines(report, phase, units, width)
        for where, items in phase.host.items():
            if items:
                out.append("")
                if phase.phase == "inference":  # llama.cpp's partial offload
                    title = (f"Kept in {_HOST_TITLE[where]} (llama.cpp --gpu-layers "
                             f"{report.spec.inference.gpu_layers})")
                    label = f"{_HOST_TITLE[where]}"
                else:
                    title = f"Offloaded to {_HOST_TITLE[where]} — per GPU (per process)"
                    label = f"{_HOST_TITLE[where]} per GPU"
                out.append(title)
                out.append(render_table(items, sum(i.bytes for i in items), label,
                                        width=width, units=units))
        if phase.phase == "training":
            from quiz.footprint.words.format_notes import load_lines

            out += load_lines(report, units, width, render_table)
    if report.storage and report.storage.items:
        out.append("")
        out.append("Storage — on disk")
        out.append(
            render_table(
                report.storage.items,
                report.storage.total_bytes,
                "on disk",
                width=width,
                units=units,
            )
        )
    if report.compute:
        from quiz.footprint.compute.figures import missing_inputs

        out.append("")
        out.append("Compute and time")
        for q in report.compute:
            out += _wrap(f"{_label(q.name)}: {quantity_text(q.value, q.unit)} = {q.formula}",
                         width, "- ")
            out += _wrap(f"source: {q.source}", width, "    ")
        hint = missing_inputs(report.spec, name)
        if hint:
            out += _wrap(f"(more: {hint})", width, "  ")
    bars = render_bars(report, width=width, units=units, timing=True)
    if bars:
        out.append("")
        out.append(bars)
    if report.omitted:
        out.append("")
        out.append("Not estimated:")
        for o in report.omitted:
            out += _wrap(f"{o.phase} {_label(o.item)}: {omitted_text(o, name)}", width, "- ")
    out.append("")
    out.append("Conventions:")
    for phase in report.phases:
        out += _wrap(f"{phase.phase}: {phase.convention}", width, "- ")
    for note in report.conventions:
        out += _wrap(note, width, "- ")
    if explain:
        from quiz.footprint.words.explain import explain_notes

        out.append("")
        out += _wrap("How other tools count this case (--explain):", width)
        for note in explain_notes(report, units=units):
            out += _wrap(note, width, "- ")
    return "\n".join(out)


def derivation_steps(report: Report, *, units: str = "GB") -> list[str]:
    """One line per item, the arithmetic with its result, for a question's worked example:
    ``"weights = 6,738,415,616 params × 2 bytes (BF16) = 13.48 GB"``; then one total line per
    phase, and with a GPU preset the fit line of each phase (``"training: fit: ..."``). When
    the report has both training and inference, lines start with the phase
    (``"training: weights = ..."``).

    Raises:
        ValueError: ``units`` other than ``"GB"`` or ``"GiB"``.
    """
    both = len(report.phases) > 1
    lines = []
    sections: list[tuple[str, list[Item], int, str]] = [
        (p.phase, p.items, p.total_bytes, "total per device" if p.phase == "training" else "total")
        for p in report.phases
    ]
    if report.storage and report.storage.items:
        sections.append(
            ("storage", report.storage.items, report.storage.total_bytes, "total on disk")
        )
    phases = {p.phase: p for p in report.phases}
    for phase, items, total, total_name in sections:
        prefix = f"{phase}: " if both or phase == "storage" and report.phases else ""
        for item in items:
            lines.append(
                f"{prefix}{_label(item.name)} = {item.formula} = {format_bytes(item.bytes, units)}"
            )
        if len(items) > 1:
            parts = " + ".join(format_bytes(i.bytes, units) for i in items)
            lines.append(f"{prefix}{total_name} = {parts} = {format_bytes(total, units)}")
        if phase in phases:
            for where, host_items in phases[phase].host.items():
                if not host_items:
                    continue
                place = f"{phase} ({_HOST_TITLE[where]}): "
                for item in host_items:
                    lines.append(f"{place}{_label(item.name)} = {item.formula} = "
                                 f"{format_bytes(item.bytes, units)}")
                host_total = sum(i.bytes for i in host_items)
                lines.append(f"{place}total per GPU = {format_bytes(host_total, units)}")
            fit = " ".join(_fit_lines(report, phases[phase], units, width=10_000))
            if fit:
                lines.append(f"{prefix}{fit[0].lower()}{fit[1:]}")
    return lines
